"""What the watch pane shows, as plain data read off a View: the prediction's bars and one block's attention.

Pure data (no Textual), like cells: watch_spec() gives the top tokens and the target with their
probabilities, marks and the values before the last change, and each head's attention of the block
shown; bar_cells() cuts a bar into its solid, risen and lost (ghost) parts; hidden_while_practising()
says what the pane shows in their place while practice is on. WatchPane (tinytui.tui.widgets.watch_pane)
draws them; tests read the spec directly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tinytui.present.grid_spec import CHANGED, DOWN, MASKED, UP
from tinytui.present.view import View
from tinytui.report.print_window import most_likely

TOP = 5  # tokens shown by probability; the target is added below them when it is not among them
MAX_POSITIONS = 12  # a heatmap shows at most the last 12 positions (one character a cell)
_BLOCKS = " ▏▎▍▌▋▊▉█"  # a bar's last cell in eighths, so a bar moves with p by 1/8 of a cell
GHOST = "░"
PRACTISING = (
    "Hidden while you practise: the probabilities, the loss and the attention would give answers away "
    "at any step. They come back when practice ends (k)."
)


@dataclass(frozen=True)
class WatchBar:
    token: str
    p: float
    was: float | None  # the comparison trace's probability when this one changed, else None
    mark: str  # UP, DOWN, CHANGED or ""
    target: bool
    predicted: bool
    top: bool  # among the TOP most likely (else shown because it is the target)


@dataclass(frozen=True)
class HeadMap:
    title: str  # "h1": head 1
    values: tuple[tuple[float, ...], ...]  # query × key attention weights, in [0, 1]
    marks: tuple[tuple[str, ...], ...]  # per cell: UP, DOWN, CHANGED, MASKED or ""
    was: tuple[tuple[float | None, ...], ...]  # the comparison trace's weight where it changed


@dataclass(frozen=True)
class WatchSpec:
    bars: tuple[WatchBar, ...]
    loss: float
    loss_was: float | None
    loss_mark: str
    positions: tuple[str, ...]  # the heatmaps' row labels (token labels, the last MAX_POSITIONS)
    first: int  # the position of the first row shown
    heads: tuple[HeadMap, ...]
    others: int = 0  # tokens without a bar
    others_p: float = 0.0  # their probability together
    heading: str = "Attention"  # which block's attention ("Attention, block 2 of 3" in a deeper model)


def _mark(view: View, name: str, index: tuple[int, ...]) -> str:
    d = view.diff.get(name)
    if d is None or not d.changed[index]:
        return ""
    if d.reshaped:
        return CHANGED
    return UP if d.delta[index] > 0 else DOWN


def _was(view: View, name: str, index: tuple[int, ...]) -> float | None:
    d = view.diff.get(name)
    if d is None or d.reshaped or not d.changed[index] or name not in view.base.tensors:
        return None
    return float(view.base[name][index])


def watch_spec(view: View, top: int = TOP) -> WatchSpec:
    trace = view.trace
    probs = trace["probs"]
    vocab = trace.cfg.vocab
    best = [int(i) for i in most_likely(probs, top)]  # argpartition: a 50,257-token vocabulary is not sorted
    shown = list(best)
    target = vocab.index(trace.target) if trace.target in vocab else None
    if target is not None and target not in shown:
        shown.append(target)
    predicted = int(np.argmax(probs))
    bars = tuple(
        WatchBar(
            vocab[i],
            float(probs[i]),
            _was(view, "probs", (i,)),
            _mark(view, "probs", (i,)),
            i == target,
            i == predicted,
            i in best,
        )
        for i in shown
    )
    others_p = max(0.0, float(probs.sum() - probs[shown].sum()))  # what the bars left out, together
    n = len(trace.prompt)
    first = max(0, n - MAX_POSITIONS)
    mask = trace["mask"]
    heads = []
    # the block of the step shown (a step outside the blocks: the first block)
    block, n_blocks = view.here.block or 0, trace.cfg.n_blocks
    for h in range(1, trace.cfg.n_heads + 1):
        name = f"blocks.{block}.attn.{h}"
        arr = trace[name]
        rows = range(first, n)
        heads.append(
            HeadMap(
                f"h{h}",
                tuple(tuple(float(arr[r, c]) for c in rows) for r in rows),
                tuple(
                    tuple(
                        _mark(view, name, (r, c))
                        or (MASKED if mask.shape == (n, n) and mask[r, c] == 0 else "")
                        for c in rows
                    )
                    for r in rows
                ),
                tuple(tuple(_was(view, name, (r, c)) for c in rows) for r in rows),
            )
        )
    return WatchSpec(
        bars,
        float(trace["loss"]),
        _was(view, "loss", ()),
        _mark(view, "loss", ()),
        tuple(trace.token_labels[first:]),
        first,
        tuple(heads),
        len(vocab) - len(shown),
        others_p,
        "Attention" if n_blocks == 1 else f"Attention, block {block + 1} of {n_blocks}",
    )


def bar_cells(p: float, was: float | None, width: int) -> tuple[str, str, str]:
    """A bar as (solid, grown, ghost): solid up to the smaller of p and was, then the part p gained
    (drawn solid in the rise's style) or the part it lost (░, the ghost of the old bar)."""

    def eighths(x: float) -> int:
        return round(max(0.0, min(1.0, x)) * width * 8)

    def blocks(n: int) -> str:
        full, part = divmod(n, 8)
        return "█" * full + (_BLOCKS[part] if part else "")

    now = eighths(p)
    old = now if was is None else eighths(was)
    if old >= now:
        solid = blocks(now)
        ghost = GHOST * max(0, -(-old // 8) - len(solid))
        return solid, "", ghost
    base = blocks(old)
    # the rise starts at the next whole cell after the old bar (a partial block cannot be split)
    start = len(base) * 8
    return base, blocks(max(0, now - start)) if now > start else "", ""


def hidden_while_practising(view: View) -> str:
    """What the pane says in place of its numbers while practice is on ("" when it is off): its bars,
    loss and heatmaps are answers some step asks for, whichever step is shown."""
    return PRACTISING if view.practice is not None else ""
