"""What the watch pane shows, read off a View: the prediction's bars and one block's attention, as data
and as the pane's lines.

Pure data (no Textual), like cells: watch_spec() gives the top tokens and the target with their
probabilities, marks and the values before the last change, and each head's attention of the block
shown; bar_cells() cuts a bar into its solid, risen and lost (ghost) parts; hidden_while_practising()
says what the pane shows in their place while practice is on. watch_lines() and hidden_lines() write
the pane's lines for a width: pieces of text, each with the name of what it marks ("header", "muted",
"bar", "ghost", "target", "predicted", "up", "down", "changed"; "" plain) or, a heatmap's cell, its
weight on the heat scale. WatchPane (tinytui.tui.widgets.watch_pane) styles and draws them; tests read
the spec directly.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import numpy as np
from rich.cells import cell_len

from tinytui.present.grid_spec import CHANGED, DOWN, GLYPHS, MASKED, UP
from tinytui.present.label_fit import fit_label
from tinytui.present.lens_tables import LensLine
from tinytui.present.lens_tables import bar as lens_bar
from tinytui.present.param_grids import change
from tinytui.present.view import View
from tinytui.report.tables import fmt, on_screen_text

TOP = 5  # tokens shown by probability; the target is added below them when it is not among them
BAR = 11  # cells of a bar at p = 1 (8 steps a cell)
NARROW_BAR = 6  # at 80 columns
HEADING = "Watch: the prediction"
MAX_POSITIONS = 12  # a heatmap shows at most the last 12 positions (one character a cell)
_BLOCKS = " ▏▎▍▌▋▊▉█"  # a bar's last cell in eighths, so a bar moves with p by 1/8 of a cell
GHOST = "░"
PRACTISING = (
    "Hidden while you practise: the probabilities, the loss and the attention would give answers away "
    "at any step. They come back when practice ends (k)."
)


@dataclass(frozen=True)
class WatchBar:
    """One token's bar in the watch pane: its probability, how it changed (a mark, and its value in the
    comparison run), and whether it is the target, the prediction or one of the most likely."""

    token: str
    p: float
    was: float | None  # the comparison trace's probability when this one changed, else None
    mark: str  # UP, DOWN, CHANGED or ""
    target: bool
    predicted: bool
    top: bool  # among the TOP most likely (else shown because it is the target)


@dataclass(frozen=True)
class HeadMap:
    """One head's attention heatmap in the watch pane: its weights (query by key), each cell's mark,
    and the weight in the comparison run where it changed."""

    title: str  # "h1": head 1
    values: tuple[tuple[float, ...], ...]  # query × key attention weights, in [0, 1]
    marks: tuple[tuple[str, ...], ...]  # per cell: UP, DOWN, CHANGED, MASKED or ""
    was: tuple[tuple[float | None, ...], ...]  # the comparison trace's weight where it changed


@dataclass(frozen=True)
class WatchSpec:
    """All the watch pane shows: the prediction's bars and the loss (with how they changed), and the
    attention heatmaps of one block."""

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
    tie: str = ""  # tokens without a bar that read as likely as the last top one (Ranked.mark), or ''
    tie_signs: str = ""  # the same at its shortest, to sit in the last top bar's empty cells (Ranked.signs)


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
    from tinytui.report.print_window import ranked

    trace = view.trace
    probs = trace["probs"]
    vocab = trace.cfg.vocab
    listed = ranked(probs, top)  # argpartition: a 50,257-token vocabulary is not sorted
    best = list(listed.ids)
    shown = list(best)
    target = vocab.index(trace.target) if trace.target in vocab else None
    if target is not None and target not in shown:
        shown.append(target)
        listed = listed.shown_too([target])
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
        listed.mark(vocab),
        listed.signs(vocab),
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


@dataclass(frozen=True)
class Piece:
    """A run of one of the pane's lines: its text and what it marks, as a style name (see the module's
    docstring), or a heatmap's cell: the weight its shade shows, bold when it changed."""

    text: str
    style: str = ""
    heat: float | None = None
    bold: bool = False


Line = tuple[Piece, ...]


def _muted(text: str) -> Line:
    return (Piece(text, "muted"),)


def _under_bar(text: str, tok_w: int, width: int) -> Line:
    """A muted line that starts under the bars (past the token column), or as far right as it fits whole."""
    return (Piece(" " * max(0, min(tok_w + 1, width - cell_len(text)))), Piece(text, "muted"))


def _mark_style(mark: str) -> str:
    return {UP: "up", DOWN: "down"}.get(mark, "changed" if mark else "")


BEFORE = " before rounding"  # param_grids.change's words for a change the rounded numbers do not give


def watch_lines(
    spec: WatchSpec, lens: tuple[LensLine, ...], target: str, bar: int = BAR, width: int = 32
) -> tuple[Line, ...]:
    """The pane's lines for a pane width columns wide, its bars bar cells long at p = 1; lens: the logit
    lens of the target, point by point (none: not shown). A line that would not fit breaks between its
    parts (anything still too wide the widget cuts with "…")."""
    out: list[Line] = [(Piece(HEADING, "header"),)]
    tok_w = min(9 if bar >= BAR else 7, max(len(b.token) for b in spec.bars))
    heading = "p(next token)"
    out.append(_muted(f"{heading:<{max(tok_w + 2 + bar, len(heading) + 1)}}prob"))  # never "token)prob"
    last_top = max((i for i, b in enumerate(spec.bars) if b.top), default=-1)
    for i, b in enumerate(spec.bars):
        if not b.top:
            out.append(_muted("⋯".center(tok_w)))
        label = "target" if b.target else "predicted" if b.predicted else ""
        solid, grown, ghost = bar_cells(b.p, b.was, bar)
        tags = ("◀" if b.target else "") + ("★" if b.predicted else "")
        room = bar - len(solid) - len(grown) - len(ghost)
        # the tokens as likely as the last top one, left without a bar, named in its bar's empty cells
        # ("▉ = much": the same bar) or, where they do not fit, on a line of their own below it
        beside = f" {spec.tie_signs}" if i == last_top and spec.tie_signs else ""
        if cell_len(beside) > room:
            beside = ""
        out.append(
            (
                Piece(f"{fit_label(b.token, tok_w)} ", label),
                Piece(solid, "predicted" if b.predicted else "bar"),
                Piece(grown, "up"),
                Piece(ghost, "ghost"),
                *((Piece(beside, "muted"),) if beside else ()),
                Piece(" " * max(0, room - cell_len(beside))),
                Piece(f" {fmt(b.p)}{GLYPHS.get(b.mark, ' ')}", _mark_style(b.mark)),
                *((Piece(tags, label),) if tags else ()),
            )
        )
        below = i == last_top and spec.tie and not beside
        if b.was is not None:
            delta = b.p - b.was
            # as the step tables say a change: where the two rounded numbers give another, it says so
            delta_said = change(b.p, b.was)
            parts = [on_screen_text(f"was {fmt(b.was)}  Δ {delta_said.removesuffix(BEFORE)}")]
            if abs(delta) < 5e-5:  # too small for four decimals: said to one significant figure
                parts = [on_screen_text(f"was {fmt(b.was)}  Δ {delta:+.0e}")]
            if delta_said.endswith(BEFORE):  # "before rounding" said shorter, to fit the pane's 31 columns
                parts.append("unrounded")  # on a line of its own where the pane is narrower
            for was in fit_parts(parts, " ", width):  # under the bar, or as far right as it fits whole
                out.append(_under_bar(was, tok_w, width))
        if below:
            tie = f"{spec.tie} (no bar)"
            out.append(_under_bar(tie, tok_w, width))
    if spec.others:  # the tokens without a bar, and their probability together
        out.append(_muted(f"{'⋯':^{tok_w}} {f'{spec.others:,} more':<{bar}} {fmt(spec.others_p)}"))
    out += [_muted(line) for line in fit_parts(["◀ target", "★ predicted", "░ lost"], "  ", width)]
    loss = _mark_style(spec.loss_mark)
    said: Line = (Piece(f"loss {fmt(spec.loss)}", loss), Piece(GLYPHS.get(spec.loss_mark, ""), loss))
    if spec.loss_was is not None:
        said += (Piece(f" was {fmt(spec.loss_was)}", "muted"),)
    out += [said, ()]
    if lens:
        out += [*_lens(lens, target, bar, width), ()]
    out += _heatmaps(spec, width)
    return tuple(out)


def _lens(lens: tuple[LensLine, ...], target: str, bar: int, width: int) -> list[Line]:
    """The logit lens: p(target) read off the stream at each point, and in a column headed "top" the
    likeliest token there (a bare token beside p(target) would read as that token's probability)."""
    out: list[Line] = [(Piece("Logit lens", "header"),)]
    where_w = max(len(line.where) for line in lens)
    column = where_w + bar + 9  # where the likeliest token starts: after the place, the bar and p
    room = max(1, width - column)
    heading = f"p({target}) read early"
    if column + 3 <= width:
        heading = fit_label(heading, column - 1) + " top"
    out.append(_muted(fit_label(heading, width).rstrip()))
    for line in lens:
        out.append(
            (
                Piece(f"{line.where:<{where_w}} ", "muted"),
                Piece(lens_bar(line.p, bar), "predicted" if line.last else "bar"),
                Piece(f" {fmt(line.p)} {_top(line, room)}"),
            )
        )
    # a likeliest token marked = shares its place: which token it ties, once per different tie
    for said in dict.fromkeys(f"= {line.top} {line.tie}" for line in lens if line.tie):
        out.append(_muted(fit_label(said, width).rstrip()))
    return out


def _top(line: LensLine, room: int) -> str:
    """The likeliest token at a lens point in room columns, marked = when others read as likely."""
    if not line.tie:
        return fit_label(line.top, room).rstrip()
    return fit_label(line.top, max(1, room - 1)).rstrip() + "="


def _heatmaps(spec: WatchSpec, width: int) -> list[Line]:
    """Each head's attention, one character a cell (its weight the shade, its mark the glyph), as many
    heads side by side as fit; then how many weights changed and the one that moved most."""
    out: list[Line] = [(Piece(spec.heading, "header"),)]
    out += [_muted(line) for line in fit_parts(["query ↓ · key →", "░ 0 … █ 1"], " · ", width)]
    n = len(spec.positions)
    # the labels whole where two heads still fit beside them (a cut one ends in …, never "1:wood")
    beside = width - 1 - (n + 2) * min(2, len(spec.heads))
    lab_w = min(max(len(p) for p in spec.positions), max(6, beside))
    room = width - lab_w - 1
    per_row = max(1, room // (n + 2))
    indent = Piece(" " * (lab_w + 1))
    keys = "".join((label.partition(":")[2] or label)[:1] for label in spec.positions)
    for start in range(0, len(spec.heads), per_row):
        heads = spec.heads[start : start + per_row]
        out.append((indent, *(Piece(f"{head.title:<{n + 2}}", "muted") for head in heads)))
        out.append((indent, *(Piece(f"{keys:<{n + 2}}", "muted") for _ in heads)))
        for r, label in enumerate(spec.positions):
            line = [Piece(f"{fit_label(label, lab_w)} ", "muted")]
            for head in heads:
                for c in range(n):
                    mark = head.marks[r][c]
                    glyph = GLYPHS.get(mark, " ") if mark != MASKED else "·"
                    line.append(Piece(glyph, heat=head.values[r][c], bold=mark in (UP, DOWN, CHANGED)))
                line.append(Piece("  "))
            out.append(tuple(line))
    changed = [
        (head.title, spec.positions[r], spec.positions[c], head.values[r][c], was)
        for head in spec.heads
        for r, row in enumerate(head.was)
        for c, was in enumerate(row)
        if was is not None
    ]
    if changed:
        out.append(_muted(f"▲▼ {len(changed)} weight{'s' if len(changed) != 1 else ''} changed"))
        title, q, k, now, was = max(changed, key=lambda x: abs(x[3] - x[4]))
        out += [_muted(line) for line in fit_parts([f"most: head {title[1:]}", f"{q}→{k}"], " ", width)]
        out.append(_muted(f"  {fmt(now)} was {fmt(was)}"))
    return out


def hidden_lines(said: str, width: int) -> tuple[Line, ...]:
    """The pane's heading, and what it says in place of its numbers (hidden_while_practising)."""
    return ((Piece(HEADING, "header"),), *(_muted(line) for line in textwrap.wrap(said, max(width, 12))))


def fit_parts(parts: list[str], sep: str, width: int) -> list[str]:
    """The parts on one line, sep between them, or on as few lines as hold them within width (a part
    never split)."""
    lines = [parts[0]]
    for part in parts[1:]:
        joined = lines[-1] + sep + part
        if cell_len(joined) <= width:
            lines[-1] = joined
        else:
            lines.append(part)
    return lines
