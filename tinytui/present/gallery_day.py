"""The gallery's first page, the day: the run retold stage by stage, from the stock images to the painting it
predicts, each stage's vectors as shaded strips (and small pictures) beside its plain-words caption.

Every number is this run's (tinytui.lesson.gallery_reading), every mark against the comparison run; the
page is lines of data (gallery_lines) the gallery widget inks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from tinytui.lesson.gallery_reading import Painting, norm_caption
from tinytui.lesson.texts.wording import in_words, listed
from tinytui.model.config import ModelConfig
from tinytui.model.switches import ACTIVATION_NAMES
from tinytui.present.gallery_lines import (
    BAR,
    BLANK,
    LABEL,
    MARK,
    MUTED,
    TITLE,
    WHAT,
    Line,
    Piece,
    Words,
    cell_width,
    cells_line,
    header_line,
    marked_note,
    picture_lines,
    prose,
)
from tinytui.present.gallery_runs import Runs, kind_limits, marks_of, n_marked
from tinytui.present.grid_spec import GLYPHS
from tinytui.present.label_fit import fit_label

_BLOCKS = " ▏▎▍▌▋▊▉█"


# ---- the stages of the day -------------------------------------------------------------------------


@dataclass(frozen=True)
class DayStage:
    """One stage of the gallery's day page: what part of the run it shows (its kind, and the day for a
    morning or an evening) and its title."""

    kind: str  # "stock", "mark", "morning", "evening", "finished", "prediction"
    block: int | None  # the day (0-based) of a morning or an evening
    title: str


MARK_TITLES = MappingProxyType(
    {  # the second stage's title by the run's kind of positions
        "rope": "Where they hang: turned, not marked",
        "none": "No position marks, no turns",
        "off": "Where they hang: not said (PE off)",  # switched off: no mark is added, nothing turned
    }
)


def day_stages(n_blocks: int, positions: str = "sinusoid", switched_on: bool = True) -> tuple[DayStage, ...]:
    """The stages of the run's day; positions (the run's kind) titles the second: a mark is painted on
    with sinusoids or a learned table, rotary positions turn the artists' queries and keys instead;
    switched_on False (PE off): neither happens."""
    marks = MARK_TITLES.get(positions if switched_on else "off", "The position marks")
    out = [DayStage("stock", None, "Opening: the stock images"), DayStage("mark", None, marks)]
    for b in range(n_blocks):
        out.append(DayStage("morning", b, f"Day {b + 1}, morning: the artists paint"))
        out.append(DayStage("evening", b, f"Day {b + 1}, evening: the filter"))
    out.append(DayStage("finished", None, "The finished gallery"))
    out.append(DayStage("prediction", None, "The painting it predicts"))
    return tuple(out)


@dataclass(frozen=True)
class VectorRow:
    """One vector a stage of the day shows for one painting: what it is, its values, and its values in
    the comparison run (None when that run's paintings do not line up)."""

    label: str  # the painting
    what: str  # what this vector is
    vector: np.ndarray
    old: np.ndarray | None


def _vector_rows(runs: Runs, stage: DayStage) -> list[list[VectorRow]]:
    """Per painting, the vectors this stage shows (each beside its value in the comparison run)."""
    old_paintings = runs.base_gallery.paintings if runs.same_shape else (None,) * len(runs.gallery.paintings)
    out = []
    b = stage.block if stage.block is not None else 0
    for pt, was in zip(runs.gallery.paintings, old_paintings):

        def s(what: str, get: Callable[[Painting], np.ndarray], pt=pt, was=was) -> VectorRow:
            return VectorRow(pt.label, what, get(pt), None if was is None else get(was))

        if stage.kind == "stock":
            rows = [s("stock image", lambda p: p.stock)]
        elif stage.kind == "mark" and not runs.gallery.added_positions:  # nothing is added to it
            rows = [s("painting now", lambda p: p.start)]
        elif stage.kind == "mark":
            rows = [s("position mark", lambda p: p.mark), s("painting now", lambda p: p.start)]
        elif stage.kind == "morning":
            n = len(pt.days[b].strokes)
            rows = [s(f"artist {h + 1}", _stroke_of(b, h)) for h in range(n)]
            rows += [
                s("all artists", lambda p: p.days[b].morning),
                s("after morning", lambda p: p.days[b].canvas),
            ]
        elif stage.kind == "evening":
            rows = [s("filter change", lambda p: p.days[b].filter_change),
                    s("after evening", lambda p: p.days[b].evening)]  # fmt: skip
        else:
            rows = [s("finished", lambda p: p.finished)]
        out.append(rows)
    return out


def _norm(v: np.ndarray) -> float:
    return float(np.linalg.norm(v))


def stage_caption(runs: Runs, stage: DayStage) -> list[str]:
    """The stage's plain-words sentences, every number in them from this run."""
    g, sw = runs.gallery, runs.trace.switches
    found = runs.captions()
    if stage.kind in ("stock", "mark"):
        return [next(c.text for c in found if c.kind == stage.kind)]
    day = (stage.block or 0) + 1
    if stage.kind == "morning":
        together = "are added on top" if sw.residual else "take the painting's place (the residual is off)"
        out = [
            f"On the morning of day {day} each artist (an attention head) looks across the "
            f"gallery and paints brush strokes for every painting; all the strokes together {together}."
        ]
        out += _shared_heads(runs.trace.cfg)
        out += _norm_sentence(runs, stage)
        if away := sw.ablated_in(day - 1):  # every day's ablated heads and this day's own
            who = f"Artist {away[0]}" if len(away) == 1 else f"Artists {listed([str(h) for h in away])}"
            them = "it" if len(away) == 1 else "them"
            out.append(f"{who} stayed at home today (ablated): no strokes from {them}.")
        out += _layer_norm_after(runs, "strokes")
        return out + [c.text for c in runs.day_captions(day - 1) if c.kind == "artist"]
    if stage.kind == "evening":
        change = (
            "adds its change"
            if sw.residual
            else "its change takes the painting's place (the residual is off)"
        )
        out = [
            f"On the evening of day {day} the filter (the feed-forward network) goes over each "
            f"painting on its own, never looking at the others, and {change}."
        ]
        out += _norm_sentence(runs, stage)
        out += _layer_norm_after(runs, "filter's change")
        if runs.trace.cfg.gated:
            act = ACTIVATION_NAMES[sw.activation]
            kind = " (SwiGLU)" if sw.activation == "silu" else ""
            out.append(
                f"This filter is gated{kind}: each hidden unit multiplies a gate, {act} of the normed "
                "painting times W_gate, by the normed painting times W_up, and W_down turns those "
                "products back into a change of the painting's size."
            )
        return out + [c.text for c in runs.day_captions(day - 1) if c.kind == "filter"]
    if stage.kind == "finished":
        last = g.paintings[-1]
        now, was = f"{_norm(last.finished):.2f}", f"{_norm(last.start):.2f}"
        went = "grown" if float(now) > float(was) else "shrunk" if float(now) < float(was) else "kept"
        return [
            f"The gallery is finished. Only the last painting, {last.label}, is read to choose what comes "
            f"next; from a size of {was} on opening day it has {went} to {now}."
            if went != "kept"
            else f"The gallery is finished. Only the last painting, {last.label}, is read to choose what "
            f"comes next; its size is {now}, as on opening day.",
            *_read_off(runs),
        ]
    return [next(c.text for c in found if c.kind == "prediction")]


def _stroke_of(day: int, head: int) -> Callable[[Painting], np.ndarray]:
    """What one artist (head, 0-based) painted on a painting on one day."""
    return lambda p: p.days[day].strokes[head]


def _shared_heads(cfg: ModelConfig) -> list[str]:
    """Grouped-query attention in words: which artists share one set of keys and values."""
    if cfg.group_size == 1:
        return []
    groups = [[h + 1 for h in range(cfg.n_heads) if cfg.kv_head(h) == g] for g in range(cfg.n_kv_heads)]
    if len(groups) == 1:
        who = f"All {in_words(cfg.n_heads)} artists share one set of keys and values"
    else:
        named = [f"artists {listed([str(h) for h in g])}" for g in groups]
        first, rest = named[0], ", ".join(named[1:])
        who = f"{first[0].upper()}{first[1:]} share one set of keys and values, and so do {rest}"
    return [
        f"{who} (grouped-query attention): each artist asks its own questions, but the artists of a group "
        "look up the same keys and carry the same values, each through its own part of W_O."
    ]


def _layer_norm_after(runs: Runs, what: str) -> list[str]:
    """Post-norm with LayerNorm (RMSNorm says it in norm_caption): the painting at the end of the morning
    or the evening is layer-normed after the add, so it is not the sum of the two strips above it."""
    if runs.trace.switches.norm != "post" or runs.trace.cfg.norm == "rms":
        return []
    added = "with the " + what if runs.trace.switches.residual else "made of the " + what
    gain = ", then times the norm's gain and plus its bias" if runs.trace.cfg.norm_affine else ""
    return [
        f"Under post-norm the painting {added} is then layer-normed (its mean taken away, then divided "
        f"by its standard deviation{gain}), so the last strip of each painting is not the sum of the ones "
        "above it."
    ]


def _norm_sentence(runs: Runs, stage: DayStage) -> list[str]:
    found = norm_caption(runs.gallery, stage.block or 0, stage.kind)
    return [] if found is None else [found.text]


def _read_off(runs: Runs) -> list[str]:
    """How the last painting becomes the words' scores, when it is not against their stock pictures."""
    if runs.trace.cfg.tied:
        return []
    return [
        "This model reads the next word off a table of its own, W_U: after the final norm the last "
        "painting is matched against each word's column of W_U, not against the words' stock pictures."
    ]


def day_page(runs: Runs, stage: DayStage, index: int, width: int) -> list[Line]:
    stages = day_stages(runs.params.cfg.n_blocks, runs.trace.cfg.positions, runs.gallery.position_marks)
    out: list[Line] = [
        (Words(f"Stage {index + 1} of {len(stages)} · {stage.title}", TITLE),),
        (Words("← → or n p: the next or previous stage", MUTED),),
        BLANK,
    ]
    for sentence in stage_caption(runs, stage):
        out += prose(sentence, width)
    out.append(BLANK)
    if stage.kind == "prediction":
        return out + _prediction(runs)
    dims = runs.params.cfg.dims
    strips = _vector_rows(runs, stage)
    limits = kind_limits((strip.what, strip.vector) for rows in strips for strip in rows)
    pictured = 2 + 2 * runs.gallery.picture_shape[1] if runs.gallery.picture_shape else 0
    cell = cell_width(dims, width - LABEL - WHAT - pictured)
    out.append(header_line(("painting", "what"), dims, cell))
    count = 0
    last = len(strips) - 1
    for p, rows in enumerate(strips):
        for i, strip in enumerate(rows):
            marks = marks_of(strip.vector, strip.old)
            count += n_marked(marks)
            line: list[Piece] = [
                Words(fit_label(strip.label if i == 0 else "", LABEL - 1) + " ", TITLE if i == 0 else ""),
                Words(fit_label(strip.what, WHAT - 1) + " ", MUTED),
                *cells_line(strip.vector, marks, limits[strip.what], "diverging", cell),
            ]
            picture = runs.picture(strip.vector, limits[strip.what])
            lines = picture_lines(picture) if picture is not None else []
            if len(lines) == 1:
                line += [Words("  "), *lines[0]]
            if stage.kind == "finished" and p == last:
                line.append(Words("  ◀ read to choose the next word", "tt-predicted"))
            out.append(tuple(line))
            if len(lines) > 1:
                out += [(Words(" " * (LABEL + WHAT)), *pl) for pl in lines]
        out.append(BLANK)
    scales = " · ".join(f"{what} ±{limit:.2f}" for what, limit in limits.items())
    key = f"shade: each kind of strip on its own scale, the same for every painting ({scales})"
    if runs.gallery.picture_shape:
        key += "; small pictures: the numbers as red, green, blue on the same scale"
    out += prose(key, width, MUTED)
    out.append(marked_note(count, "values"))
    return out


def _prediction(runs: Runs) -> list[Line]:
    trace, cfg = runs.trace, runs.params.cfg
    probs = np.asarray(trace["probs"], dtype=np.float64)
    old = np.asarray(runs.base["probs"]) if runs.base["probs"].shape == probs.shape else None
    marks = marks_of(probs, old)
    from tinytui.report.print_window import Ranked, ranked  # the app's one rule for a list of the likeliest

    best = ranked(probs, 5)
    order = best.ids
    width = max(len(t) for t in cfg.vocab)
    out: list[Line] = [(Words("How likely each word is to hang next (the five likeliest):", MUTED),)]
    for i in order:
        tok = cfg.vocab[int(i)]
        m = marks[int(i)]
        line: list[Piece] = [
            Words(f"  {tok:<{width}} "),
            Words(f"{100 * probs[int(i)]:5.1f}%{GLYPHS.get(m, ' ') if m else ' '} ", MARK if m else "", m),
            Words(_bar(float(probs[int(i)]), BAR), "tt-predicted" if tok == trace.prediction else "primary"),
        ]
        if tok == trace.prediction:
            line.append(Words(" ★ predicted", "tt-predicted"))
        if tok == trace.target:
            line.append(Words(" ◀ target", "tt-target"))
        out.append(tuple(line))
    if best.tied:  # percentages to one decimal: only an exact tie is said ('how ties much')
        out.append((Words(f"  {Ranked(best.ids, best.tied).note(cfg.vocab)}, left out", MUTED),))
    out.append(BLANK)
    tok = runs.gallery.prediction.token
    vec = np.asarray(runs.params["E"][cfg.token_id(tok)])
    old_vec = np.asarray(runs.base_params["E"][cfg.token_id(tok)])
    out.append((Words(f"The painting it predicts: the stock picture of “{tok}”", TITLE),))
    out.append(header_line(("painting", "what"), cfg.dims))
    limit = kind_limits([("stock image", vec)])["stock image"]
    out.append(
        (
            Words(fit_label(tok, LABEL - 1) + " ", TITLE),
            Words(f"{'stock image':<{WHAT}}", MUTED),
            *cells_line(vec, marks_of(vec, old_vec), limit, "diverging"),
        )
    )
    picture = runs.picture(vec, limit)
    if picture is not None:
        out += [(Words(" " * (LABEL + WHAT)), *pl) for pl in picture_lines(picture)]
    out.append((Words(f"shade: ±{limit:.2f}, the largest number of this picture", MUTED),))
    if not cfg.tied:  # the logits read W_U's column, not the stock picture
        col = np.asarray(runs.params["W_U"][:, cfg.token_id(tok)])
        old_col = np.asarray(runs.base_params["W_U"][:, cfg.token_id(tok)])
        col_limit = kind_limits([("column", col)])["column"]
        out.append(BLANK)
        out.append((Words(f"What the last painting is matched against: “{tok}”'s column of W_U", TITLE),))
        out.append(
            (
                Words(fit_label(tok, LABEL - 1) + " ", TITLE),
                Words(f"{'W_U column':<{WHAT}}", MUTED),
                *cells_line(col, marks_of(col, old_col), col_limit, "diverging"),
            )
        )
        out.append((Words(f"shade: ±{col_limit:.2f}, the largest number of this column", MUTED),))
    out.append(marked_note(n_marked(marks), "chances"))
    return out


def _bar(p: float, width: int) -> str:
    eighths = round(max(0.0, min(1.0, p)) * width * 8)
    full, part = divmod(eighths, 8)
    return ("█" * full + (_BLOCKS[part] if part else "")).ljust(width)
