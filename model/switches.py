"""The experiment switches: what the forward pass does differently. Frozen, so history can keep them."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tinytui.model.config import ModelConfig

ACTIVATIONS = ("relu", "gelu")  # what the activation switch toggles between
GATE_ACTIVATION = "silu"  # a gated (SwiGLU) model's own: toggling goes SiLU → ReLU → GELU → SiLU
NORM_PLACEMENTS = ("pre", "post")
# The one list of the switches: every other module (the session, the transcript, the event log) reads
# these, so a new switch is a field below and a line in each of these tables.
FLAGS = ("causal_mask", "positional_encoding", "residual")  # on or off
CHOICES = {"activation": ACTIVATIONS, "norm": NORM_PLACEMENTS}  # one of several, toggled in turn
VALUES = {"activation": (*ACTIVATIONS, GATE_ACTIVATION), "norm": NORM_PLACEMENTS}  # what a choice may hold
NAMES = ("causal_mask", "positional_encoding", "ablated_heads", "activation", "norm", "residual", "ablated")
WORDS = {  # how the transcript and the replay status name each switch
    "causal_mask": "the causal mask",
    "positional_encoding": "the positional encoding",
    "ablated_heads": "head ablation",
    "activation": "the activation",
    "norm": "the norm placement",
    "residual": "the residual connections",
    "ablated": "head ablation in one block",
}


@dataclass(frozen=True)
class Switches:
    causal_mask: bool = True
    positional_encoding: bool = True
    ablated_heads: frozenset[int] = frozenset()  # 1-based head numbers whose output is zeroed
    activation: str = "relu"  # "relu" (the chapter) or "gelu" (GPT)
    norm: str = "pre"  # "pre" (the chapter, GPT-2/3) or "post" (the 2017 transformer)
    residual: bool = True
    # (block, head) pairs, block 0-based and head 1-based, zeroed in that block only (ablated_heads: in all)
    ablated: frozenset[tuple[int, int]] = frozenset()

    def __post_init__(self) -> None:
        if self.activation not in (*ACTIVATIONS, GATE_ACTIVATION):
            raise ValueError(f"activation must be one of {ACTIVATIONS}, not {self.activation!r}")
        if self.norm not in NORM_PLACEMENTS:
            raise ValueError(f"norm must be one of {NORM_PLACEMENTS}, not {self.norm!r}")
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
            after = options[(options.index(now) + 1) % len(options)] if now in options else options[0]
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
        parts += [self.activation.upper(), f"{self.norm}-norm", f"residual {on[self.residual]}"]
        return parts


def choices(name: str, cfg: ModelConfig | None = None) -> tuple[str, ...]:
    """What a choice switch goes round, in order: a gated model's activation starts at its own SiLU."""
    if name == "activation" and cfg is not None and cfg.gated:
        return (GATE_ACTIVATION, *ACTIVATIONS)
    return CHOICES[name]


def defaults(cfg: ModelConfig) -> Switches:
    """The switches a model starts with: the chapter's, with the model's own activation (GELU for
    GPT-2, the gate's SiLU for Llama), so a fresh session computes what the model was trained to compute."""
    return Switches(activation=GATE_ACTIVATION if cfg.activation == "swiglu" else cfg.activation)


if tuple(f.name for f in fields(Switches)) != NAMES or set(WORDS) != set(NAMES):
    raise ImportError("model/switches.py: NAMES and WORDS must list every switch, in field order")
