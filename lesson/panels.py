"""What a stage shows, as data: each Stage (stages.py) lists its panels, the UI modules draw them.

A Panel names a kind and the tensors it shows (block-local names as stages.py writes them, "{h}" for
one per head). Nothing here draws: tinytui.report.step_report, tinytui.present.cells and
tinytui.present.backward_tables each map a kind to a builder, so no module outside the stage table asks which
step it is drawing.
"""

from __future__ import annotations

from dataclasses import dataclass

TOKENS = "tokens"  # the prompt (position, token, id), with the step's vector beside it when it makes one
TENSOR = "tensor"  # one tensor as a table; a per-head name gives every head
STATS = "stats"  # per-row statistics (mean, variance) as one table
LOGITS = "logits"  # the logits and their softmax, one row (or bar) per token
LOSS = "loss"  # the loss before and after one step on the logits, as one table
COUNTS = "counts"  # the parameter counts of this model and of three larger ones
LOGITS_GRADIENT = "logits_gradient"  # the backward walk's first result: p beside ∂L/∂ℓ, one row per token

# a stats panel's columns by the tensor's last name part (RMSNorm has only the mean square)
STAT_LABELS = {"mean": "mean μ", "var": "variance σ²", "mean_sq": "mean square mean(x²)"}

KINDS = frozenset({TOKENS, TENSOR, STATS, LOGITS, LOSS, COUNTS, LOGITS_GRADIENT})


@dataclass(frozen=True)
class Panel:
    """One thing a stage shows, as data: its kind (a table, the stats, the logits, …) and the tensors it
    shows, which the UI draws by kind."""

    kind: str  # one of KINDS
    tensors: tuple[str, ...] = ()  # what it shows, in the order the kind's builders read them

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown panel kind {self.kind!r}")


def tokens(vector: str | None = None) -> Panel:
    """The prompt's ids, plus the vector the step makes (E[id], PE or x) when there is one."""
    return Panel(TOKENS, ("ids", vector) if vector else ("ids",))


def tensors(*names: str) -> tuple[Panel, ...]:
    """One table per name (a per-head name: the heads together)."""
    return tuple(Panel(TENSOR, (name,)) for name in names)


def stats(mean: str, var: str) -> Panel:
    return Panel(STATS, (mean, var))


def logits() -> Panel:
    return Panel(LOGITS, ("logits", "probs"))


def loss() -> Panel:
    return Panel(LOSS, ("loss", "loss_stepped"))


def counts() -> Panel:
    return Panel(COUNTS)


def logits_gradient() -> Panel:
    return Panel(LOGITS_GRADIENT, ("probs", "grad.logits"))
