"""The step list's lines as words: every step of the forward path (a heading line before each block's
steps when the model has several), each step's title in the model's own names, how many values its
output changed, and the marker of the step shown (▸, or ◀ while the gradient walks back up the list).

Pure data (no Textual): the widget fits the words to its width, styles them and draws them.
"""

from __future__ import annotations

from typing import NamedTuple, TypeAlias

from tinytui.lesson import step_path
from tinytui.lesson.arch_names import Arch
from tinytui.lesson.stages import title_for
from tinytui.model.config import ModelConfig
from tinytui.model.switches import Switches
from tinytui.present.view import View

Row: TypeAlias = step_path.Step | int  # a line of the list: a step, or the heading of block `int` (0-based)


def list_rows(n_blocks: int) -> tuple[Row, ...]:
    """The list's lines: every step of the path, with a heading line before each block's steps when the
    model has several blocks."""
    rows: list[Row] = []
    for step in step_path.forward(n_blocks):
        if n_blocks > 1 and step.block is not None and step.number == step_path.FIRST_IN_BLOCK:
            rows.append(step.block)
        rows.append(step)
    return tuple(rows)


def changed_counts(view: View, written: dict | None = None) -> dict[Row, int]:
    """How many values each step's output changed against the view's comparison trace; written: the
    asker's store of the names each step writes (step_path.changed_per_step)."""
    cfg = view.trace.cfg
    counts = step_path.changed_per_step(view.diff, cfg.n_heads, cfg.n_blocks, Arch.of(cfg), written)
    return {step: n for step, n in counts.items()}  # keyed like the list's lines (a heading has none)


# a NamedTuple, not a frozen dataclass: loaded as the app starts, and a frozen dataclass compiles
# its methods from source as its class is made (~3 M instructions; a NamedTuple's ~0.5 M)
class StepTitles(NamedTuple):
    """The steps' titles as the model names them (its norm, feed-forward and unembedding). Two are equal
    when made for equal configs: the list redraws a title only when they differ."""

    cfg: ModelConfig | None = None  # None: the chapter's titles
    switches: Switches | None = None  # the run's (its activation and positions), None: the model's

    @classmethod
    def of(cls, view: View) -> StepTitles:
        return cls(view.trace.cfg, view.trace.switches)

    def title(self, row: Row) -> str:
        return "" if isinstance(row, int) else title_for(row.stage, self.cfg, self.switches)


def heading_words(block: int, n_blocks: int) -> tuple[str, ...]:
    """A block's heading line, longest first: the list shows the first that fits its width."""
    return (f"  block {block + 1} of {n_blocks}", f" block {block + 1}", f"b{block + 1}")


def marker(here: bool, backward: bool) -> str:
    """Before the step's number: ▸ at the step shown, ◀ there during the backward walk."""
    return ("◀" if backward else "▸") if here else " "


def change_badge(count: int) -> str:
    """After the title: how many values the step's output changed (nothing when none did)."""
    return f" Δ{count}" if count else ""
