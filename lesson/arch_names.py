"""The names a step reads and writes in a model of another architecture than the chapter's.

The stage table (stages.py) is written for the chapter's model: LayerNorm's mean and variance, q, k, v
one per head, ReLU's hidden_pre, W_1 … b_2, the tied E. for_model() turns one of its names into the
names the same step has in a Llama-family model (RMSNorm, rotary positions, grouped key/value heads,
SwiGLU, an untied W_U), so every reader of the table (the printer, the app, the recorder, practice)
follows the model it is given.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

from tinytui.model import names
from tinytui.model.config import ModelConfig
from tinytui.model.switches import ACTIVATION_NAMES


# a NamedTuple, not a frozen dataclass: loaded as the app starts, and a frozen dataclass compiles
# its methods from source as its class is made (~3 M instructions; a NamedTuple's ~0.5 M)
class Arch(NamedTuple):
    """What of a model's architecture changes the names a step reads and writes (the chapter's: the
    defaults). Small, frozen and compared by value."""

    n_kv_heads: int | None = None  # key/value heads; None: one per query head
    grouped: bool = False  # fewer key/value heads than query heads: k and v are named per "{g}"
    rms: bool = False  # RMSNorm: ln1.mean_sq in place of ln1.mean and ln1.var
    rope: bool = False  # rotary positions: step 6 writes q_pre, k_pre, then q, k turned
    gated: bool = False  # SwiGLU: gate_pre, gate, up, hidden; W_gate, W_up, W_down
    untied: bool = False  # the unembedding reads W_U, not E

    @classmethod
    def of(cls, cfg: ModelConfig) -> Arch:
        grouped = cfg.n_kv_heads != cfg.n_heads
        return cls(
            cfg.n_kv_heads, grouped, cfg.norm == "rms", cfg.positions == "rope", cfg.gated, not cfg.tied
        )


CHAPTER = Arch()


class StageLike(Protocol):
    """What for_model reads of a stage (stages.Stage): whether it turns q and k (RoPE), and what its
    E stands for in an untied model."""

    @property
    def turns_qk(self) -> bool: ...

    @property
    def untied_e(self) -> tuple[str, ...] | None: ...


def for_model(template: str, stage: StageLike, arch: Arch) -> tuple[str, ...]:
    """One name of the stage table (written for the chapter's model) as the names it stands for in a
    model of this architecture at this stage: RMSNorm keeps only a mean square; with rotary positions
    step 6 makes q_pre and k_pre and turns them into q and k; keys and values are one per key/value head
    ("{g}"); the gated feed-forward has gate_pre, gate and up where ReLU has hidden_pre, and W_gate, W_up,
    W_down where it has W_1, b_1, W_2, b_2; an untied model's logits read W_U. A gradient's name is
    kept: the backward walk's tables are spelled for the model already."""
    if template.startswith(names.GRAD):
        return (template,)  # the walk's tables (walk_steps.py) spell the model's own gradients already
    bare = template
    out: tuple[str, ...] = (bare,)
    if arch.rms and bare in ("ln1.mean", "ln1.var"):
        out = ("ln1.mean_sq",) if bare == "ln1.mean" else ()
    elif bare in ("q.{h}", "k.{h}", "v.{h}"):
        which = bare[0]
        head = "{g}" if which != "q" and arch.grouped else "{h}"
        made_here = arch.rope and stage.turns_qk and which != "v"
        out = (f"{which}_pre.{head}", f"{which}.{head}") if made_here else (f"{which}.{head}",)
    elif arch.gated and bare in ("hidden_pre", "W_1", "b_1", "W_2", "b_2"):
        out = {"hidden_pre": ("gate_pre", "gate", "up"), "W_1": ("W_gate", "W_up"), "W_2": ("W_down",)}.get(
            bare, ()
        )
    elif arch.untied and bare == "E" and stage.untied_e is not None:
        out = stage.untied_e
    return out


POSITIONS_SHORT = {"sinusoid": "sinusoids", "learned": "learned P", "rope": "RoPE", "none": "no positions"}


GATED_NAMES = {"silu": "SwiGLU", "relu": "ReGLU", "gelu": "GeGLU"}  # a gated feed-forward by its gate


def model_choices(cfg: ModelConfig, activation: str | None = None) -> str:
    """The model's architecture in a few words for the status line: its norm, positions, query and
    key/value heads, feed-forward and unembedding ("RMSNorm·RoPE·4q/2kv·SwiGLU·tied", short to fit 80
    columns beside the loss). activation: the one the run's switch has (the model's own when None), so
    a gate switched to ReLU reads ReGLU, not SwiGLU, and the words never contradict the switch line."""
    norm = "RMSNorm" if cfg.norm == "rms" else "LayerNorm"
    ffn = GATED_NAMES[activation or "silu"] if cfg.gated else ACTIVATION_NAMES[activation or cfg.activation]
    heads = f"{cfg.n_heads}q/{cfg.n_kv_heads}kv"
    unembed = "tied" if cfg.tied else "untied"
    return "·".join((norm, POSITIONS_SHORT[cfg.positions], heads, ffn, unembed))


def is_chapters(cfg: ModelConfig) -> bool:
    """Whether the model makes the chapter's architecture choices where Llama-family models differ (then
    the status line has no room to spend on them)."""
    return Arch.of(cfg) == Arch(n_kv_heads=cfg.n_kv_heads) and cfg.positions != "none"
