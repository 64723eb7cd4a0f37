"""The next-token bars' lines inside their frame, as (text, style) pieces: the header, a token's row (its
logit, its probability and p as a bar, the target and the prediction tagged) and the line for the others.

Every mark has a glyph (▲ ▼ ◆ *) and the tags are words or ◀ ★, so nothing is colour alone. Draws a
spec; computes nothing.
"""

from __future__ import annotations

from rich.style import Style

from tinytui.present.grid_spec import DOWN, UP, LogitRow, LogitsSpec, Source, glyph
from tinytui.present.step_layout import Box
from tinytui.tui.widgets.grid_lines import LIT, Pieces
from tinytui.tui.widgets.line_styles import LineStyles

_BLOCKS = " ▏▎▍▌▋▊▉█"


def bars_line(styles: LineStyles, box: Box, y: int, lit: frozenset) -> Pieces:
    """Content line y of the bars: the header, a token's row, or the others."""
    spec = box.item
    assert isinstance(spec, LogitsSpec)
    tok_w, num_w = max(len(r.token) for r in spec.rows), spec.number_width
    if y == 0:
        legend = "◀ target ★ predicted" if box.short else "p as a bar"
        header = f"{'token':<{tok_w}}{'logit':>{num_w + 2}}{'prob':>{num_w + 1}}  {legend}"
        return [(header, styles.style("header"))]
    if y - 1 >= len(spec.rows):
        return [(spec.others, styles.style("header"))]
    return _token_row(styles, box, spec.rows[y - 1], (tok_w, num_w), lit)


def _token_row(styles: LineStyles, box: Box, r: LogitRow, widths: tuple[int, int], lit: frozenset) -> Pieces:
    """A token's row; widths: the token column's and each number column's."""
    tok_w, num_w = widths
    tag = styles.style("target") if r.target else styles.style("predicted") if r.predicted else styles.ground
    out: Pieces = [(f"{r.token:<{tok_w}}", tag)]
    out.append(_number(styles, r.logit, num_w, r.logit_mark, r.logit_source, lit))
    out.append(_number(styles, r.prob, num_w, r.prob_mark, r.prob_source, lit))
    out.append((" ", styles.ground))
    out.append((bar(r.p, box.bar_width), styles.style("predicted" if r.predicted else "bar")))
    if r.target:
        out.append((" ◀" if box.short else " ◀ target", styles.style("target")))
    if r.predicted:
        out.append((" ★" if box.short else " ★ predicted", styles.style("predicted")))
    return out


def _number(
    styles: LineStyles, text: str, width: int, marks: frozenset[str], source: Source | None, lit: frozenset
) -> tuple[str, Style]:
    """A logit or a probability, width wide: ▸ before it when the focused value reads it, coloured by
    its change."""
    if source is not None and source in lit:
        return f"{LIT}{text:>{width}}{glyph(marks)}", styles.style("source")
    changed = "changed-up" if UP in marks else "changed-down" if DOWN in marks else None
    return f" {text:>{width}}{glyph(marks)}", styles.style(changed) if changed else styles.ground


def bar(p: float, width: int) -> str:
    """p as a bar width columns long at p = 1, in eighths of a column."""
    eighths = round(max(0.0, min(1.0, p)) * width * 8)
    full, part = divmod(eighths, 8)
    return ("█" * full + (_BLOCKS[part] if part else "")).ljust(width)
