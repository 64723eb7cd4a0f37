"""The gallery's pages as Rich Text, read off a View: the day in stages, the artists' rules, the circuits,
the attribution and the scale card.

No Textual here: each page is a function of (view, the base run's weights, the theme's variables,
the width to wrap prose to), so tests can read a page's text directly. Shades come from
themes.scale (theme variables); the one exception is a painting's own RGB picture, whose colours are
the model's numbers (data, the same in every theme), made in picture_lines() alone.
Every change since the comparison run is marked with a glyph as well as a style (▲ ▼ ◆).
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from rich.color import Color as RichColor
from rich.style import Style
from rich.text import Text
from textual.color import Color

from tinytui.model.attribution import attribution, part_label
from tinytui.model.circuits import head_circuits
from tinytui.model.diff import TOLERANCE
from tinytui.model.gallery import Gallery, artist_rules, captions, day, scale_card
from tinytui.model.params import Params
from tinytui.model.trace import Trace
from tinytui.themes.scale import diverging, heat, readable_on
from tinytui.widgets.cells import CHANGED, DOWN, GLYPHS, UP
from tinytui.widgets.view import View

PAGES: tuple[tuple[str, str], ...] = (
    ("day", "The day"),
    ("artists", "Artists' rules"),
    ("circuits", "Circuits"),
    ("attribution", "Attribution"),
    ("scale", "Scale"),
)
CELL = 8  # a shaded cell: " −0.52▲ "
LABEL = 14  # the row label column
WHAT = 15  # the second label column of a strip ("after morning")
BAR = 24  # half an attribution bar (one side of zero)
_BLOCKS = " ▏▎▍▌▋▊▉█"


# ---- the stages of the day -------------------------------------------------------------------------


@dataclass(frozen=True)
class DayStage:
    kind: str  # "stock", "mark", "morning", "evening", "finished", "prediction"
    block: int | None  # the day (0-based) of a morning or an evening
    title: str


def day_stages(n_blocks: int) -> tuple[DayStage, ...]:
    out = [DayStage("stock", None, "Opening: the stock images"), DayStage("mark", None, "The position marks")]
    for b in range(n_blocks):
        out.append(DayStage("morning", b, f"Day {b + 1}, morning: the artists paint"))
        out.append(DayStage("evening", b, f"Day {b + 1}, evening: the filter"))
    out.append(DayStage("finished", None, "The finished gallery"))
    out.append(DayStage("prediction", None, "The painting it predicts"))
    return tuple(out)


# ---- what the pages compare with ----------------------------------------------------------------


@dataclass(frozen=True)
class Runs:
    """This run and the one the marks compare with, each with its weights and its gallery."""

    trace: Trace
    params: Params
    gallery: Gallery
    base: Trace
    base_params: Params
    base_gallery: Gallery

    @classmethod
    def of(cls, view: View, base_params: Params | None) -> Runs:
        params = view.session.params
        bp = params if base_params is None else base_params
        return cls(view.trace, params, day(params, view.trace), view.base, bp, day(bp, view.base))

    @property
    def same_shape(self) -> bool:
        return len(self.base.prompt) == len(self.trace.prompt)


def marks_of(new: np.ndarray, old: np.ndarray | None) -> np.ndarray:
    """Per value: UP, DOWN, CHANGED (the shapes differ) or "" (unchanged)."""
    new = np.asarray(new, dtype=np.float64)
    out = np.full(new.shape, "", dtype=object)
    if old is None or np.shape(old) != new.shape:
        out[...] = CHANGED
        return out
    delta = new - np.asarray(old, dtype=np.float64)
    out[delta > TOLERANCE] = UP
    out[delta < -TOLERANCE] = DOWN
    return out


def n_marked(marks: np.ndarray) -> int:
    return int(np.count_nonzero(marks != ""))


# ---- drawing helpers -----------------------------------------------------------------------------


class Ink:
    """Styles from the theme's variables (the same ones the grids use), cached per value."""

    def __init__(self, variables: Mapping[str, str]) -> None:
        self.v = variables
        self._cache: dict[tuple, Style] = {}

    def var(self, name: str, fallback: str = "foreground") -> Style:
        value = self.v.get(name) or self.v.get(fallback)
        return Style(color=Color.parse(value).rich_color) if value else Style()

    @property
    def muted(self) -> Style:
        return self.var("foreground-muted")

    @property
    def title(self) -> Style:
        return self.var("primary") + Style(bold=True)

    def cell(self, value: float, limit: float, shade: str, mark: str) -> Style:
        key = (round(float(value), 6), round(limit, 6), shade, mark)
        style = self._cache.get(key)
        if style is None:
            bg = heat(self.v, value) if shade == "heat" else diverging(self.v, value, limit)
            style = Style(bgcolor=bg.rich_color, color=readable_on(bg).rich_color)
            if mark:
                style += Style(bold=True, underline=True)
            self._cache[key] = style
        return style

    def mark(self, mark: str) -> Style:
        name = {UP: "tt-changed-up", DOWN: "tt-changed-down"}.get(mark, "accent")
        return self.var(name) + Style(bold=True)


def number(v: float, digits: int = 2) -> str:
    text = f"{abs(v):.{digits}f}"
    if float(text) == 0:
        return text
    return f"−{text}" if v < 0 else f"+{text}"


def _limit(*arrays: np.ndarray) -> float:
    m = max((float(np.max(np.abs(a), initial=0.0)) for a in arrays), default=0.0)
    return m if m > 0 and np.isfinite(m) else 1.0


def prose(text: str, width: int, style: Style | None = None, indent: str = "") -> Text:
    lines = textwrap.wrap(text, width=max(30, width), initial_indent=indent, subsequent_indent=indent)
    return Text("\n".join(lines), style=style or Style())


def picture_lines(rgb: np.ndarray) -> list[Text]:
    """An (h, w, 3) picture in [0, 1] as h lines of two-column pixels. Its colours are the model's
    values (data), not theme colours: they are the same in every theme."""
    lines = []
    for row in np.asarray(rgb, dtype=np.float64):
        line = Text()
        for r, g, b in row:
            red, green, blue = (round(255 * min(1.0, max(0.0, float(c)))) for c in (r, g, b))
            line.append("  ", Style(bgcolor=RichColor.from_rgb(red, green, blue)))
        lines.append(line)
    return lines


def span(text: str, style: Style | str = "") -> Text:
    """A piece of a line in its own style (Text(text, style) would style the whole line)."""
    out = Text()
    out.append(text, style)
    return out


def column_heads(cols: Sequence[str]) -> str:
    """Each column's name right-aligned over its cell's number (the mark and a space follow it)."""
    return "".join(f"{c[: CELL - 2]:>{CELL - 2}}  " for c in cols)


def cells_line(ink: Ink, values: Sequence[float], marks: Sequence[str], limit: float, shade: str) -> Text:
    line = Text()
    for v, m in zip(values, marks):
        shown = number(float(v)) if shade != "heat" else f"{float(v):.2f}"
        text = f"{shown:>6}{GLYPHS.get(m, ' ') if m else ' '}"
        line.append(f"{text:>{CELL - 1}} ", ink.cell(float(v), limit, shade, m))
    return line


def header_line(ink: Ink, left: Sequence[str], cols: Sequence[str]) -> Text:
    line = span("".join(f"{s:<{w}}" for s, w in zip(left, (LABEL, WHAT))), ink.muted)
    line.append(column_heads(cols), ink.muted + Style(bold=True))
    return line


def matrix(
    ink: Ink,
    title: str,
    rows: Sequence[str],
    cols: Sequence[str],
    values: np.ndarray,
    old: np.ndarray | None,
    shade: str = "diverging",
    blocked: np.ndarray | None = None,
) -> list[Text]:
    """A labelled heatmap: rows × cols cells, each shaded and showing its number and its mark."""
    values = np.asarray(values, dtype=np.float64)
    marks = marks_of(values, old)
    limit = 1.0 if shade == "heat" else _limit(values)
    out = [Text(title, ink.title)]
    head = span(f"{'':<{LABEL}}", ink.muted)
    head.append(column_heads(cols), ink.muted + Style(bold=True))
    out.append(head)
    for r, label in enumerate(rows):
        line = span(f"{label[: LABEL - 1]:<{LABEL}}", ink.muted)
        for c in range(values.shape[1]):
            if blocked is not None and blocked[r, c]:
                line.append(f"{'×':>{CELL - 2}}  ", ink.var("tt-masked"))
                continue
            line.append_text(cells_line(ink, [values[r, c]], [marks[r, c]], limit, shade))
        out.append(line)
    scale = "0 … 1" if shade == "heat" else f"−{limit:.2f} … 0 … +{limit:.2f}"
    out.append(Text(f"{'':<{LABEL}}shade: {scale}", ink.muted))
    return out


def _marked_note(ink: Ink, count: int, what: str) -> Text:
    if not count:
        return Text("")
    return Text(f"▲▼ {count} {what} changed since the comparison run (c switches what it compares with)",
                ink.mark(CHANGED))  # fmt: skip


# ---- page 1: the day -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Strip:
    label: str  # the painting
    what: str  # what this vector is
    vector: np.ndarray
    old: np.ndarray | None


def _strips(runs: Runs, stage: DayStage) -> list[list[Strip]]:
    """Per painting, the vectors this stage shows (each beside its value in the comparison run)."""
    old_paintings = runs.base_gallery.paintings if runs.same_shape else (None,) * len(runs.gallery.paintings)
    out = []
    b = stage.block if stage.block is not None else 0
    for pt, was in zip(runs.gallery.paintings, old_paintings):

        def s(what: str, get, pt=pt, was=was) -> Strip:
            return Strip(pt.label, what, get(pt), None if was is None else get(was))

        if stage.kind == "stock":
            rows = [s("stock image", lambda p: p.stock)]
        elif stage.kind == "mark":
            rows = [s("position mark", lambda p: p.mark), s("painting now", lambda p: p.start)]
        elif stage.kind == "morning":
            n = len(pt.days[b].strokes)
            rows = [s(f"artist {h + 1}", lambda p, h=h: p.days[b].strokes[h]) for h in range(n)]
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
    found = captions(g)
    if stage.kind == "stock":
        big = max(g.paintings, key=lambda p: _norm(p.stock))
        return [
            "Each word of the prompt is hung as a plain stock picture: the same word always starts from "
            f"the same picture, wherever it hangs. The boldest one is {big.label}, of size "
            f"{_norm(big.stock):.2f}."
        ]
    if stage.kind == "mark":
        if not sw.positional_encoding:
            return [
                "The position marks are switched off (PE off): nothing on a painting says where it hangs, "
                "so the artists cannot tell the order of the words."
            ]
        big = max(g.paintings, key=lambda p: _norm(p.mark))
        return [
            "Every painting gets a small mark saying where it hangs in the row, added on top of its stock "
            f"picture. The biggest mark, of size {_norm(big.mark):.2f}, is on {big.label}."
        ]
    if stage.kind == "morning":
        out = [
            f"On the morning of day {stage.block + 1} each artist (an attention head) looks across the "
            "gallery and adds brush strokes to every painting; all the strokes together are added on top."
        ]
        if sw.ablated_heads:
            heads = ", ".join(str(h) for h in sorted(sw.ablated_heads))
            out.append(f"Artist {heads} stayed at home today (ablated): no strokes from them.")
        if not sw.residual:
            out.append("With the residual off the strokes replace each painting instead of adding to it.")
        return out + [c.text for c in found if c.kind == "artist"]
    if stage.kind == "evening":
        out = [
            f"On the evening of day {stage.block + 1} the filter (the feed-forward network) goes over each "
            "painting on its own, never looking at the others, and adds its change."
        ]
        return out + [c.text for c in found if c.kind == "filter"]
    if stage.kind == "finished":
        last = g.paintings[-1]
        return [
            f"The gallery is finished. Only the last painting, {last.label}, is read to choose what comes "
            f"next; it has grown to a size of {_norm(last.finished):.2f}."
        ]
    return [next(c.text for c in found if c.kind == "prediction")]


def day_page(runs: Runs, stage: DayStage, index: int, ink: Ink, width: int) -> list[Text]:
    stages = day_stages(runs.params.cfg.n_blocks)
    out = [
        Text(f"Stage {index + 1} of {len(stages)} · {stage.title}", ink.title),
        Text("← → or n p: the next or previous stage", ink.muted),
        Text(""),
    ]
    out += [prose(line, width) for line in stage_caption(runs, stage)]
    out.append(Text(""))
    if stage.kind == "prediction":
        return out + _prediction(runs, ink)
    dims = runs.params.cfg.dims
    strips = _strips(runs, stage)
    limit = runs.gallery.scale if runs.gallery.scale > 0 else 1.0
    out.append(header_line(ink, ("painting", "what"), dims))
    count = 0
    last = len(strips) - 1
    for p, rows in enumerate(strips):
        for i, strip in enumerate(rows):
            marks = marks_of(strip.vector, strip.old)
            count += n_marked(marks)
            line = span(f"{strip.label if i == 0 else '':<{LABEL}}", ink.title if i == 0 else Style())
            line.append(f"{strip.what:<{WHAT}}", ink.muted)
            line.append_text(cells_line(ink, strip.vector, marks, limit, "diverging"))
            picture = runs.gallery.picture(strip.vector)
            lines = picture_lines(picture) if picture is not None else []
            if len(lines) == 1:
                line.append("  ").append_text(lines[0])
            if stage.kind == "finished" and p == last:
                line.append("  ◀ read to choose the next word", ink.var("tt-predicted"))
            out.append(line)
            if len(lines) > 1:
                out += [Text(" " * (LABEL + WHAT)).append_text(pl) for pl in lines]
        out.append(Text(""))
    key = f"shade: −{limit:.2f} … 0 … +{limit:.2f}, one scale for every painting of the run"
    if runs.gallery.picture_shape:
        key += " · small pictures: the painting's numbers as red, green, blue"
    out.append(Text(key, ink.muted))
    out.append(_marked_note(ink, count, "values"))
    return out


def _prediction(runs: Runs, ink: Ink) -> list[Text]:
    trace, cfg = runs.trace, runs.params.cfg
    probs = np.asarray(trace["probs"], dtype=np.float64)
    old = np.asarray(runs.base["probs"]) if runs.base["probs"].shape == probs.shape else None
    marks = marks_of(probs, old)
    order = np.argsort(-probs, kind="stable")[:5]
    width = max(len(t) for t in cfg.vocab)
    out = [Text("How likely each word is to hang next (the five likeliest):", ink.muted)]
    for i in order:
        tok = cfg.vocab[int(i)]
        line = Text(f"  {tok:<{width}} ")
        m = marks[int(i)]
        line.append(
            f"{100 * probs[int(i)]:5.1f}%{GLYPHS.get(m, ' ') if m else ' '} ", ink.mark(m) if m else ""
        )
        line.append(
            _bar(float(probs[int(i)]), BAR), ink.var("tt-predicted" if tok == trace.prediction else "primary")
        )
        if tok == trace.prediction:
            line.append(" ★ predicted", ink.var("tt-predicted"))
        if tok == trace.target:
            line.append(" ◀ target", ink.var("tt-target"))
        out.append(line)
    out.append(Text(""))
    tok = runs.gallery.prediction.token
    vec = np.asarray(runs.params["E"][cfg.token_id(tok)])
    old_vec = np.asarray(runs.base_params["E"][cfg.token_id(tok)])
    out.append(Text(f"The painting it predicts: the stock picture of “{tok}”", ink.title))
    out.append(header_line(ink, ("painting", "what"), cfg.dims))
    line = span(f"{tok[: LABEL - 1]:<{LABEL}}", ink.title).append(f"{'stock image':<{WHAT}}", ink.muted)
    limit = runs.gallery.scale if runs.gallery.scale > 0 else 1.0
    line.append_text(cells_line(ink, vec, marks_of(vec, old_vec), limit, "diverging"))
    out.append(line)
    picture = runs.gallery.picture(vec)
    if picture is not None:
        out += [Text(" " * (LABEL + WHAT)).append_text(pl) for pl in picture_lines(picture)]
    out.append(_marked_note(ink, n_marked(marks), "chances"))
    return out


def _bar(p: float, width: int) -> str:
    eighths = round(max(0.0, min(1.0, p)) * width * 8)
    full, part = divmod(eighths, 8)
    return ("█" * full + (_BLOCKS[part] if part else "")).ljust(width)


# ---- page 2: the artists' rules ------------------------------------------------------------------


def artists_page(runs: Runs, ink: Ink, width: int) -> list[Text]:
    cfg = runs.params.cfg
    out = [
        Text("Each artist's two rules", ink.title),
        prose(
            "An artist (an attention head) works by two rules. The value rule B says what each painting "
            "would paint onto any painting that looks at it. The attention rule A says how strongly each "
            "painting (a row) looks at each painting (a column); every row shares out 1 in all, and "
            "× marks a painting it may not look at yet (the mask). The artist paints A·B: each painting gets "
            "the value strokes of the paintings it looks at, as strong as it looks at them.",
            width,
        ),
        Text(""),
    ]
    dims = cfg.dims
    count = 0
    for b in range(cfg.n_blocks):
        for h in range(1, cfg.n_heads + 1):
            now = artist_rules(runs.params, runs.trace, b, h)
            was = artist_rules(runs.base_params, runs.base, b, h) if runs.same_shape else None
            where = f"Artist {h}" + (f" of day {b + 1}" if cfg.n_blocks > 1 else "")
            if now.ablated:
                out.append(Text(f"{where} is switched off in this run (ablated): it paints nothing.",
                                ink.mark(CHANGED)))  # fmt: skip
            blocked = np.asarray(runs.trace["mask"]) == 0
            parts = [
                (f"{where} · value rule B (what each painting would paint)", now.value_rule,
                 None if was is None else was.value_rule, dims, "diverging", None),
                (f"{where} · attention rule A (row looks at column)", now.attention,
                 None if was is None else was.attention, now.tokens, "heat", blocked),
                (f"{where} · A·B (the strokes it paints on each painting)", now.strokes,
                 None if was is None else was.strokes, dims, "diverging", None),
            ]  # fmt: skip
            for title, values, old, cols, shade, mask in parts:
                out += matrix(ink, title, now.tokens, cols, values, old, shade, mask)
                count += n_marked(marks_of(values, old))
                out.append(Text(""))
    out.append(_marked_note(ink, count, "values"))
    return out


# ---- page 3: the circuits ------------------------------------------------------------------------


def circuits_page(runs: Runs, ink: Ink, width: int) -> list[Text]:
    cfg = runs.params.cfg
    out = [
        Text("Each head's circuits, read off the weights alone", ink.title),
        prose(
            "These two tables ask what a head would do if every painting were just a word's stock "
            "picture. QK: how much a word (row) wants to look at another word (column). OV: when a head "
            "looks at a word (row), which next words (columns) it makes more likely (+) or less likely (−). "
            "The prompt and the switches play no part in them.",
            width,
        ),
        Text(""),
    ]
    vocab = cfg.vocab
    count = 0
    for b in range(cfg.n_blocks):
        for h in range(1, cfg.n_heads + 1):
            now = head_circuits(runs.params, b, h)
            was = head_circuits(runs.base_params, b, h)
            where = f"Head {h}" + (f" of block {b + 1}" if cfg.n_blocks > 1 else "")
            ign = now.ignores
            for key, title, t, old in (
                ("qk", f"{where} · QK circuit (row: the word looking, column: the word looked at)", now.qk,
                 was.qk),
                ("ov", f"{where} · OV circuit (row: the word looked at, column: the next word it pushes)",
                 now.ov, was.ov),
            ):  # fmt: skip
                out += matrix(ink, title, vocab, vocab, t.values, old.values)
                out.append(prose(f"It ignores {ign[key]}.", width, ink.muted, "  "))
                count += n_marked(marks_of(t.values, old.values))
                out.append(Text(""))
    out.append(_marked_note(ink, count, "values"))
    return out


# ---- page 4: the attribution ---------------------------------------------------------------------


def attribution_page(runs: Runs, ink: Ink, width: int) -> list[Text]:
    cfg, trace = runs.params.cfg, runs.trace
    now = attribution(runs.params, trace)
    label = trace.token_labels[now.position]
    out = [
        Text(f"Who pushed the answer: the last painting ({label}) split into its parts", ink.title),
        prose(
            "The last painting is a sum of everything written onto it: the stock picture, the position "
            "mark, each artist's strokes and each filter's change. Each part's bar is how much that part "
            "alone pushes a word's score (its logit) up or down; the bars add up to the score. "
            f"The final layer norm divides by one number, σ = {now.scale:.4f}, which is held at its value "
            "in this run (taking a part away would change it).",
            width,
        ),
        Text(""),
    ]
    if not now.exact:
        out.append(prose(f"No split this time: {now.reason}.", width, ink.mark(CHANGED)))
        for tok, a in now.tokens.items():
            out.append(Text(f"  “{tok}”: logit {number(a.logit, 4)}"))
        return out
    try:
        was = attribution(runs.base_params, runs.base, list(now.tokens)) if runs.same_shape else None
    except ValueError:
        was = None
    count = 0
    for tok, a in now.tokens.items():
        roles = [r for r, t in (("predicted", trace.prediction), ("target", trace.target)) if t == tok]
        old = was.tokens.get(tok) if was is not None and was.exact else None
        out.append(Text(f"“{tok}” ({' and '.join(roles)}): logit {number(a.logit, 4)}", ink.title))
        names = list(a.parts)
        limit = _limit(np.array(list(a.parts.values())))
        lw = max(len(part_label(n, cfg.n_blocks)) for n in names) + 2
        for name in names:
            v = a.parts[name]
            m = marks_of(np.array([v]), None if old is None else np.array([old.parts.get(name, np.nan)]))[0]
            count += bool(m)
            line = Text(f"  {part_label(name, cfg.n_blocks):<{lw}}")
            line.append(f"{number(v, 4):>8}{GLYPHS.get(m, ' ') if m else ' '} ", ink.mark(m) if m else "")
            n = round(abs(v) / limit * BAR)
            neg = ("█" * n).rjust(BAR) if v < 0 else " " * BAR
            pos = ("█" * n).ljust(BAR) if v >= 0 else " " * BAR
            line.append(neg, ink.var("tt-negative")).append("│", ink.muted).append(
                pos, ink.var("tt-positive")
            )
            out.append(line)
        total = sum(a.parts.values())
        sums = f"  {'sum of the parts':<{lw}}{number(total, 4):>8}  = the logit {number(a.logit, 4)}"
        out.append(Text(sums, ink.muted + Style(bold=True)))
        out.append(Text(""))
    out.append(_marked_note(ink, count, "parts"))
    return out


# ---- page 5: the scale card ----------------------------------------------------------------------


def _size(v) -> str:
    if v is None:
        return "none"
    if isinstance(v, tuple):
        return "×".join(str(x) for x in v)
    return f"{v:,}"


def scale_page(runs: Runs, ink: Ink, width: int) -> list[Text]:
    cfg = runs.params.cfg
    rows = scale_card(cfg)
    out = [
        Text("The scale card: GPT-3's gallery beside this one", ink.title),
        prose(
            "The same plan at two sizes. GPT-3 hangs up to 2048 paintings, each made of 12288 numbers "
            "(just enough for a 64×64 picture in red, green and blue), and works on them for 96 days with "
            "96 artists a day. This model does the same with a handful.",
            width,
        ),
        Text(""),
    ]
    kw = max(len(r.key) for r in rows) + 2
    tw = max(len(r.term) for r in rows) + 2
    out.append(Text(f"{'in the gallery':<{kw}}{'in the transformer':<{tw}}{'GPT-3':>12}{'this model':>12}",
                    ink.muted + Style(bold=True)))  # fmt: skip
    for r in rows:
        line = span(f"{r.key:<{kw}}", ink.title).append(f"{r.term:<{tw}}", ink.muted)
        line.append(f"{_size(r.gpt3):>12}").append(f"{_size(r.ours):>12}", ink.var("tt-predicted"))
        out.append(line)
    if runs.gallery.picture_shape is None:
        out.append(Text(""))
        out.append(prose(f"d_model = {cfg.d_model} is not a multiple of 3, so this model's paintings have "
                         "no RGB picture; the shaded strips show them.", width, ink.muted))  # fmt: skip
    return out


def page_lines(page: str, runs: Runs, stage_index: int, variables: Mapping[str, str], width: int) -> Text:
    ink = Ink(variables)
    if page == "day":
        stages = day_stages(runs.params.cfg.n_blocks)
        i = max(0, min(stage_index, len(stages) - 1))
        lines = day_page(runs, stages[i], i, ink, width)
    else:
        lines = {"artists": artists_page, "circuits": circuits_page, "attribution": attribution_page,
                 "scale": scale_page}[page](runs, ink, width)  # fmt: skip
    return Text("\n", no_wrap=True, overflow="ignore", end="").join(lines)
