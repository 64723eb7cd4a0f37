"""The experiment switches: what the forward pass does differently. Frozen, so history can keep them."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tinytui.model.config import ModelConfig

ACTIVATIONS = ("relu", "gelu")  # what the activation switch toggles between
GATE_ACTIVATION = "silu"  # a gated (SwiGLU) model's own: toggling goes SiLU → ReLU → GELU → SiLU
# how each activation is written wherever the app names it (the status line, the formulas, the texts)
ACTIVATION_NAMES = MappingProxyType({"relu": "ReLU", "gelu": "GELU", "silu": "SiLU"})
NORM_PLACEMENTS = ("pre", "post")
NORM_KINDS = ("layer", "rms")  # LayerNorm or RMSNorm, whichever the model has: neither needs new weights
# positions a model can run without new weights (GPT-2's learned table P is the model's own or nothing)
POSITION_KINDS = ("sinusoid", "rope", "none")
TURNED = ("sinusoid", "rope")  # what the positions switch goes between; "none" is the encoding switched off
# The one list of the switches: every other module (the session, the transcript, the event log) reads
# these, so a new switch is a field below and a line in each of these tables.
FLAGS = ("causal_mask", "positional_encoding", "residual")  # on or off
# one of several, toggled in turn (norm_kind and positions: None runs the model's own, see run_config)
CHOICES: dict[str, tuple[str, ...]] = {"activation": ACTIVATIONS, "norm": NORM_PLACEMENTS}
CHOICES |= {"norm_kind": NORM_KINDS, "positions": POSITION_KINDS}
VALUES = {**CHOICES, "activation": (*ACTIVATIONS, GATE_ACTIVATION)}  # what a choice may hold
OWN = ("norm_kind", "positions")  # the choices left out of to_dict while they are the model's own (None)
NAMES: tuple[str, ...] = ("causal_mask", "positional_encoding", "ablated_heads", "activation", "norm")
NAMES += ("residual", "ablated", *OWN)
WORDS = {  # how the transcript and the replay status name each switch
    "causal_mask": "the causal mask",
    "positional_encoding": "the positional encoding",
    "ablated_heads": "head ablation",
    "activation": "the activation",
    "norm": "the norm placement",
    "residual": "the residual connections",
    "ablated": "head ablation in one block",
    "norm_kind": "the norm (LayerNorm or RMSNorm)",
    "positions": "the kind of positions",
}
# the status line's word for a norm or positions the switches run in place of the model's own
SHORT = {"layer": "LayerNorm", "rms": "RMSNorm", "sinusoid": "sinusoids", "rope": "RoPE", "none": "no PE"}


@dataclass(frozen=True)
class Switches:
    """The experiment switches: what the forward pass does differently (mask, positions, ablated heads,
    activation, norm, residual). Frozen, so history can keep them; defaults(cfg) runs a model as made."""

    causal_mask: bool = True
    positional_encoding: bool = True
    ablated_heads: frozenset[int] = frozenset()  # 1-based head numbers whose output is zeroed
    activation: str = "relu"  # "relu" (the chapter) or "gelu" (GPT)
    norm: str = "pre"  # "pre" (the chapter, GPT-2/3) or "post" (the 2017 transformer)
    residual: bool = True
    # (block, head) pairs, block 0-based and head 1-based, zeroed in that block only (ablated_heads: in all)
    ablated: frozenset[tuple[int, int]] = frozenset()
    # the model's norm and positions run another way (None: as the model has them); run_config applies them
    norm_kind: str | None = None  # "layer" or "rms": the same gain, RMSNorm takes no mean away
    positions: str | None = None  # "sinusoid" (added to x), "rope" (turns q and k) or "none"

    def __post_init__(self) -> None:
        if self.activation not in (*ACTIVATIONS, GATE_ACTIVATION):
            raise ValueError(f"activation must be one of {ACTIVATIONS}, not {self.activation!r}")
        if self.norm not in NORM_PLACEMENTS:
            raise ValueError(f"norm must be one of {NORM_PLACEMENTS}, not {self.norm!r}")
        for name in OWN:
            if getattr(self, name) not in (None, *CHOICES[name]):
                raise ValueError(f"{name} must be one of {CHOICES[name]}, not {getattr(self, name)!r}")
        object.__setattr__(self, "ablated_heads", frozenset(int(h) for h in self.ablated_heads))
        object.__setattr__(self, "ablated", frozenset((int(b), int(h)) for b, h in self.ablated))

    def is_ablated(self, block: int, head: int) -> bool:
        """Whether head (1-based) of block (0-based) has its output replaced by zeros in this run."""
        return head in self.ablated_heads or (block, head) in self.ablated

    def ablated_in(self, block: int) -> list[int]:
        """The heads (1-based, sorted) whose output block (0-based) replaces by zeros."""
        return sorted(self.ablated_heads | {h for b, h in self.ablated if b == block})

    def with_block_head(self, block: int, head: int) -> Switches:
        """The switches with one head of one block ablated, or no longer (head 1-based, block 0-based)."""
        return replace(self, ablated=self.ablated ^ {(block, head)})

    def toggled(self, name: str, head: int | None = None, cfg: ModelConfig | None = None) -> Switches:
        """The switches with one of them flipped (for a head, name='ablated_heads' and head=1-based). The
        activation goes round what the model (cfg) can run: a gated model's SiLU, then ReLU and GELU."""
        if name == "ablated_heads":
            if head is None:
                raise ValueError("toggling a head needs its number")
            return replace(self, ablated_heads=self.ablated_heads ^ {head})
        if name in CHOICES:
            options, now = choices(name, cfg), getattr(self, name)
            if name in OWN:
                if cfg is not None and (why := cannot_switch(name, cfg)):
                    raise ValueError(why)
                now = options[0] if now is None else now  # options[0] is the model's own
            after: str | None = (
                options[(options.index(now) + 1) % len(options)] if now in options else options[0]
            )
            if name in OWN and after == options[0]:
                after = None  # back to the model's own: the same switches as a fresh session's
            choice: dict[str, Any] = {name: after}  # a field named at run time: its type is the field's
            return replace(self, **choice)
        if name in FLAGS:
            flag: dict[str, Any] = {name: not getattr(self, name)}
            return replace(self, **flag)
        raise ValueError(f"no switch named {name!r}")

    def to_dict(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["ablated_heads"] = sorted(self.ablated_heads)
        if self.ablated:  # left out when empty: recordings made before it compare the same
            out["ablated"] = [list(pair) for pair in sorted(self.ablated)]
        else:
            del out["ablated"]
        for name in OWN:  # left out while the model's own, for the same reason
            if out[name] is None:
                del out[name]
        return out

    @classmethod
    def from_dict(cls, doc: dict) -> Switches:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(doc) - known)
        if unknown:
            raise ValueError(f"unknown switch {unknown[0]!r}")
        pairs = frozenset(tuple(pair) for pair in doc.get("ablated", ()))
        return cls(**{**doc, "ablated_heads": frozenset(doc.get("ablated_heads", ())), "ablated": pairs})

    def describe(self) -> str:
        """One short line, e.g. 'mask on · PE on · heads 1 2 · relu · pre-norm · residual on'."""
        return " · ".join(self.labels())

    def labels(self) -> list[str]:
        on = {True: "on", False: "off"}
        parts = [f"mask {on[self.causal_mask]}", f"PE {on[self.positional_encoding]}"]
        if self.ablated_heads:
            parts.append("ablated " + ",".join(f"h{h}" for h in sorted(self.ablated_heads)))
        if self.ablated:  # block 2's head 1: "b2h1"
            parts.append("ablated " + ",".join(f"b{b + 1}h{h}" for b, h in sorted(self.ablated)))
        parts += [ACTIVATION_NAMES[self.activation], f"{self.norm}-norm", f"residual {on[self.residual]}"]
        parts += [SHORT[kind] for kind in (self.norm_kind, self.positions) if kind is not None]
        return parts


def came(old: Switches, new: Switches) -> list[str]:
    """What a change of switches turned on, in the status line's words: the labels new has and old had
    not, and what a switch back to the model's own norm or positions, or to no ablation, brings back."""
    was = old.labels()
    out = [x for x in new.labels() if x not in was]
    if old.norm_kind is not None and new.norm_kind is None:
        out.append("the model's own norm")
    if old.positions is not None and new.positions is None:
        out.append("the model's own positions")
    if (old.ablated_heads or old.ablated) and not (new.ablated_heads or new.ablated):
        out.append("no ablation")
    return out


def choices(name: str, cfg: ModelConfig | None = None) -> tuple[str, ...]:
    """What a choice switch goes round, in order: a gated model's activation starts at its own SiLU; the
    norm and the positions start at the model's own (the chapter's without cfg) and go to the other norm,
    or between sinusoids and RoPE (no positions is the positional encoding switched off)."""
    if name == "activation" and cfg is not None and cfg.gated:
        return (GATE_ACTIVATION, *ACTIVATIONS)
    if name == "norm_kind":
        own = cfg.norm if cfg is not None else NORM_KINDS[0]
        return (own, *(k for k in NORM_KINDS if k != own))
    if name == "positions":
        own = cfg.positions if cfg is not None else TURNED[0]
        return (own, *(k for k in TURNED if k != own))
    return CHOICES[name]


def cannot_switch(name: str, cfg: ModelConfig) -> str:
    """Why the model cannot run its norm or positions another way without weights it lacks ("" if it can)."""
    if name == "norm_kind" and cfg.norm_affine:
        what = "gains and biases" if cfg.norm == "layer" else "gains"
        return f"this model's norms have {what}: only norms with neither (the chapter's) switch kind"
    if name == "positions" and cfg.learned_positions:
        return "the positions are a learned table P: switching them would leave P unread"
    if name == "positions" and cfg.d_head % 2:
        return f"RoPE turns a head's dims in pairs: d_head {cfg.d_head} is odd"
    return ""


def run_config(cfg: ModelConfig, sw: Switches) -> ModelConfig:
    """The model as these switches run it: its norm and positions replaced by the switches' where they
    set them (cfg itself when they do not). ValueError when the model cannot run that way."""
    if sw.norm_kind is None and sw.positions is None:
        return cfg
    for name in OWN:
        if getattr(sw, name) is not None and (why := cannot_switch(name, cfg)):
            raise ValueError(f"{WORDS[name]}: {why}")
    return replace(cfg, norm=sw.norm_kind or cfg.norm, positions=sw.positions or cfg.positions)


def defaults(cfg: ModelConfig) -> Switches:
    """The switches a model starts with: the chapter's, with the model's own activation (GELU for
    GPT-2, the gate's SiLU for Llama), so a fresh session computes what the model was trained to compute."""
    return Switches(activation=GATE_ACTIVATION if cfg.activation == "swiglu" else cfg.activation)


if tuple(f.name for f in fields(Switches)) != NAMES or set(WORDS) != set(NAMES):
    raise ImportError("model/switches.py: NAMES and WORDS must list every switch, in field order")
