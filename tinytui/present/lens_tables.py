"""The logit lens as the app shows it, read off a View: beside steps 13 and 14 a table of every point
of the residual stream at the last position (where it reads, p(target), a bar of it, the likeliest
tokens), and for the watch pane the same points as short lines.

Pure data (no Textual). The numbers are tinytui.model.analysis.lens's (its last point is the model's
own prediction, bit for bit); nothing here computes a probability of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

from tinytui.lesson.texts.display_names import display
from tinytui.present.grid_spec import Cell, GridSpec, Section, grid
from tinytui.present.view import View
from tinytui.report.tables import fmt

if TYPE_CHECKING:
    from tinytui.model.analysis.lens import LensPoint
    from tinytui.report.print_window import Ranked

LENS_STEPS = (13, 14)  # the final norm and the unembedding: what the lens applies to every point
TOP = 3  # likeliest tokens a row names
BAR = 10  # cells of a bar at p = 1
_EIGHTHS = " ▏▎▍▌▋▊▉█"
AT_WORDS = MappingProxyType({"pre": "before", "mid": "attn", "post": "after"})


def lens_points(view: View) -> list[LensPoint]:
    """The lens of the view's trace, made once per trace and weights (kept with the app's specs)."""
    from tinytui.model.analysis.lens import logit_lens  # steps 13 and 14, and the watch pane

    trace, params = view.trace, view.params
    key = ("logit lens",)
    if (hit := view.kept.find_made_of(key, (trace, params))) is not None:
        return hit
    return view.kept.keep(key, (trace, params), logit_lens(trace, params))


def bar(p: float, width: int = BAR) -> str:
    """p in [0, 1] as a bar of width cells, its last cell in eighths."""
    eighths = round(max(0.0, min(1.0, p)) * width * 8)
    full, part = divmod(eighths, 8)
    return ("█" * full + (_EIGHTHS[part] if part else "")).ljust(width)


def top_tokens(point: LensPoint, k: int = TOP) -> Ranked:
    """The k likeliest tokens, likeliest first (ties: the lower id first), and those left out that read as
    likely as the last; a big vocabulary unsorted."""
    from tinytui.report.print_window import ranked  # the one way the app picks its top tokens

    return ranked(point.probs, k)


def row_label(point: LensPoint, n_blocks: int) -> str:
    """'before 1', 'attn 1', 'after 1' (the block, 1-based)."""
    return f"{AT_WORDS[point.at]} {point.block}" if n_blocks > 1 else AT_WORDS[point.at]


def how_read(point: LensPoint, view: View) -> str:
    """Which stream a point reads and what is applied to it, as the inspector says it."""
    trace = view.trace
    cfg = trace.cfg
    last = len(trace.prompt) - 1
    norm = "RMSNorm" if cfg.norm == "rms" else "LayerNorm"
    if cfg.norm_affine:  # the chapter's norms have no gain or bias to name
        norm += " (lnf_g)" if cfg.norm == "rms" else " (lnf_g, lnf_b)"
    out = "W_U" if "W_U" in view.params else "Eᵀ"
    stream = display(point.stream, cfg.n_blocks)  # as the screen names it: x′, not x_mid
    return (
        f"{point.where}: the stream {stream} at {last}:{trace.prompt[last]}, through the final {norm} "
        f"and the unembedding ({out}), then softmax"
    )


def lens_grid(view: View) -> GridSpec:
    trace = view.trace
    cfg, target = trace.cfg, trace.target
    points = lens_points(view)
    t = cfg.token_id(target) if cfg.has_token(target) else None
    top = min(TOP, len(cfg.vocab))  # a vocabulary of one or two tokens has no third likeliest
    cols = (f"p({target})", "bar", *(f"top {i + 1}" for i in range(top)))
    rows, cells = [], []
    for i, point in enumerate(points):
        last = i == len(points) - 1
        how = how_read(point, view) + (" — the model's own prediction, bit for bit" if last else "")
        p = float(point.probs[t]) if t is not None else 0.0
        ptext = fmt(p)
        row = [
            Cell(ptext, value=p, detail=f"{how}: p({target}) = {ptext}"),
            Cell(bar(p), detail=f"{how}: p({target}) = {ptext}, as a bar of {BAR} cells"),
        ]
        listed = top_tokens(point)
        for rank, i in enumerate(listed.ids):
            tok, q = cfg.vocab[i], fmt(float(point.probs[i]))
            text, detail = f"{tok} {q}", f"{how}: likeliest no. {rank + 1} is {tok!r}, p = {q}"
            if rank == len(listed.ids) - 1 and listed.cut_a_tie:
                text += f" ({listed.mark(cfg.vocab)})"
                detail += f"; {listed.sentence(cfg.vocab, point.probs)}"
            row.append(Cell(text, detail=detail))
        rows.append(row_label(point, cfg.n_blocks) + (" =" if last else ""))
        cells.append(row)
    out = "W_U" if "W_U" in view.params else "Eᵀ"  # an untied model unembeds with its own W_U
    at = f"{len(trace.prompt) - 1}:{trace.prompt[-1]}"
    title = f"Logit lens at {at} — each point through the final norm and {out}"
    return grid("lens", title, "stream", tuple(rows), cols, cells, "heat", "output", limit=1.0)


def lens_sections(view: View) -> list[Section]:
    """The lens beside steps 13 and 14 (the forward pass only)."""
    if view.mode.backward or view.step not in LENS_STEPS:
        return []
    title = "Logit lens: the prediction if the stream stopped earlier (=: the model's own)"
    return [Section(title, "output", ((lens_grid(view),),))]


@dataclass(frozen=True)
class LensLine:
    """One point as the watch pane shows it."""

    where: str  # "before 1"
    p: float  # p(target)
    top: str  # the likeliest token
    top_p: float
    last: bool  # the model's own prediction
    tie: str = ""  # tokens as likely as the likeliest, not named by top (Ranked.mark: 'ties much'), or ''


def lens_lines(view: View) -> tuple[LensLine, ...]:
    trace = view.trace
    cfg, target = trace.cfg, trace.target
    t = cfg.token_id(target) if cfg.has_token(target) else None
    points = lens_points(view)
    out = []
    for i, point in enumerate(points):
        listed = top_tokens(point, 1)
        best = listed.ids[0]
        p = float(point.probs[t]) if t is not None else 0.0
        where = row_label(point, cfg.n_blocks)
        q = float(point.probs[best])
        out.append(LensLine(where, p, cfg.vocab[best], q, i == len(points) - 1, listed.mark(cfg.vocab)))
    return tuple(out)
