"""The gallery's pages as lines of data (gallery_lines): the day in stages, the artists' rules, the circuits,
the attribution and the scale card.

gallery_page() lays out the page chosen for a View at a width; the day's page is gallery_day, what the
pages compare gallery_runs. The gallery widget inks the lines and draws them.
"""

from __future__ import annotations

import numpy as np

from tinytui.lesson.gallery_reading import llama3_figures
from tinytui.lesson.texts.wording import in_words
from tinytui.model.analysis.attribution import part_labels
from tinytui.model.analysis.circuits import circuit_ignores
from tinytui.model.config import ModelConfig
from tinytui.present.gallery_day import day_page, day_stages
from tinytui.present.gallery_lines import (
    BAR,
    BLANK,
    HEADING,
    MARK,
    MUTED,
    TITLE,
    Line,
    Words,
    marked_note,
    matrix,
    number,
    prose,
    shade_limit,
)
from tinytui.present.gallery_runs import ComparedWeights, Runs, marks_of, n_marked
from tinytui.present.grid_spec import CHANGED, GLYPHS
from tinytui.present.view import View
from tinytui.report.print_window import picks_of

PAGES: tuple[tuple[str, str], ...] = (
    ("day", "The day"),
    ("artists", "Artists' rules"),
    ("circuits", "Circuits"),
    ("attribution", "Attribution"),
    ("scale", "Scale"),
)


def n_stages(view: View) -> int:
    """How many stages the day of this view's model has."""
    return len(day_stages(view.trace.cfg.n_blocks, view.trace.cfg.positions))


def gallery_page(view: View, weights_of: ComparedWeights, page: str, stage: int, width: int) -> list[Line]:
    """Page `page` (a key of PAGES; the day at its stage `stage`) of the view's run, laid out for a window
    `width` columns wide, its marks against the comparison run made with weights_of(view)."""
    runs = Runs.of(view, weights_of(view))
    if page == "day":
        stages = day_stages(runs.params.cfg.n_blocks, runs.trace.cfg.positions, runs.gallery.position_marks)
        i = max(0, min(stage, len(stages) - 1))
        return day_page(runs, stages[i], i, width)
    pages = {"artists": artists_page, "circuits": circuits_page, "attribution": attribution_page,
             "scale": scale_page}  # fmt: skip
    return pages[page](runs, width)


# ---- page 2: the artists' rules ------------------------------------------------------------------


def artists_page(runs: Runs, width: int) -> list[Line]:
    cfg = runs.params.cfg
    out: list[Line] = [
        (Words("Each artist's two rules", TITLE),),
        *prose(
            "An artist (an attention head) works by two rules. The value rule B says what each painting "
            "would paint onto any painting that looks at it. The attention rule A says how strongly each "
            "painting (a row) looks at each painting (a column); every row shares out 1 in all, and "
            "× marks a painting it may not look at yet (the mask). The artist paints A·B: each painting gets "
            "the value strokes of the paintings it looks at, as strong as it looks at them.",
            width,
        ),
        *_artists_modern(runs, width),
        BLANK,
    ]
    dims = cfg.dims
    count = 0
    for b in range(cfg.n_blocks):
        for h in range(1, cfg.n_heads + 1):
            now, was = runs.artist_rules(b, h)
            where = f"Artist {h}" + (f" of day {b + 1}" if cfg.n_blocks > 1 else "")
            if cfg.group_size > 1:
                out.append((Words(f"{where} reads key/value head {cfg.kv_head(h - 1) + 1}", MUTED),))
            if now.ablated:
                text = f"{where} is switched off in this run (ablated): it paints nothing."
                out.append((Words(text, MARK, CHANGED),))
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
                out += matrix(title, now.tokens, cols, values, old, shade, mask, width)
                count += n_marked(marks_of(values, old))
                out.append(BLANK)
    out.append(marked_note(count, "values"))
    return out


def _artists_modern(runs: Runs, width: int) -> list[Line]:
    """What rotary positions and shared key/value heads change in the two rules, when the model has them."""
    cfg, out = runs.trace.cfg, []
    if cfg.positions == "rope" and runs.gallery.position_marks:
        out += prose(
            "Here the positions are rotary: each painting's queries and keys are turned by an angle that "
            "grows with where it hangs before they meet, so A depends on how far apart two paintings "
            "hang; the values, and so B, are not turned.",
            width,
        )
    if cfg.group_size > 1:
        out += prose(
            f"The {in_words(cfg.n_heads)} artists share {in_words(cfg.n_kv_heads)} key/value "
            f"head{'s' if cfg.n_kv_heads > 1 else ''} (grouped-query attention), {cfg.group_size} "
            "artists to each: the artists of a group look up the same keys and take the same values, but "
            "each asks its own questions and paints through its own rows of W_O, so their A and B differ.",
            width,
        )
    return out


# ---- page 3: the circuits ------------------------------------------------------------------------


# A vocabulary longer than this gives circuit tables over the run's own words (a GPT-2 head's would be
# 50,257 × 50,257 cells).
CIRCUIT_VOCAB = 64


def circuits_page(runs: Runs, width: int) -> list[Line]:
    cfg = runs.params.cfg
    out: list[Line] = [
        (Words("Each head's circuits, read off the weights alone", TITLE),),
        *prose(
            "These two tables ask what a head would do if every painting were just a word's stock "
            "picture. QK: how much a word (row) wants to look at another word (column). OV: when a head "
            "looks at a word (row), which next words (columns) it makes more likely (+) or less likely (−). "
            "The prompt and the switches play no part in them.",
            width,
        ),
        BLANK,
    ]
    if cfg.group_size > 1:
        out[-1:-1] = prose(
            "Heads that share a key/value head (grouped-query attention) use its W_K and W_V: their QK "
            "tables differ only by their own W_Q, their OV tables only by their own rows of W_O.",
            width,
        )
    vocab, ids = cfg.vocab, None
    if len(vocab) > CIRCUIT_VOCAB:  # V × V cells for each head: the run's own words only
        trace = runs.trace  # the tokens a big table keeps (the prompt's, the target), and the prediction
        ids = tuple(sorted({*picks_of(trace).rows, cfg.token_id(trace.prediction)}))
        vocab = tuple(vocab[i] for i in ids)
        out[-1:-1] = prose(
            f"Of the {len(cfg.vocab):,} tokens, the tables keep the {len(ids)} of this run: the prompt's, "
            "the target and the prediction.",
            width,
        )
    count = 0
    for b in range(cfg.n_blocks):
        for h in range(1, cfg.n_heads + 1):
            now, was = runs.circuits(b, h, ids)
            where = f"Head {h}" + (f" of block {b + 1}" if cfg.n_blocks > 1 else "")
            if cfg.group_size > 1:
                where += f" (key/value head {cfg.kv_head(h - 1) + 1})"
            ign = circuit_ignores(runs.trace.cfg)
            for key, title, t, old in (
                ("qk", f"{where} · QK circuit (row: the word looking, column: the word looked at)", now.qk,
                 was.qk),
                ("ov", f"{where} · OV circuit (row: the word looked at, column: the next word it pushes)",
                 now.ov, was.ov),
            ):  # fmt: skip
                out += matrix(title, vocab, vocab, t.values, old.values, width=width)
                out += prose(f"It ignores {ign[key]}.", width, MUTED, "  ")
                count += n_marked(marks_of(t.values, old.values))
                out.append(BLANK)
    out.append(marked_note(count, "values"))
    return out


# ---- page 4: the attribution ---------------------------------------------------------------------


def attribution_page(runs: Runs, width: int) -> list[Line]:
    trace = runs.trace
    now, was = runs.attribution()
    label = trace.token_labels[now.position]
    out: list[Line] = [
        (Words(f"Who pushed the answer: the last painting ({label}) split into its parts", TITLE),),
        *prose(_attribution_words(trace.cfg, now.scale), width),
        BLANK,
    ]
    if not now.exact:
        out += prose(f"No split this time: {now.reason}.", width, MARK, mark=CHANGED)
        for tok, a in now.tokens.items():
            out.append((Words(f"  “{tok}”: logit {number(a.logit, 4)}"),))
        return out
    count = 0
    for tok, a in now.tokens.items():
        roles = [r for r, t in (("predicted", trace.prediction), ("target", trace.target)) if t == tok]
        old = was.tokens.get(tok) if was is not None and was.exact else None
        out.append((Words(f"“{tok}” ({' and '.join(roles)}): logit {number(a.logit, 4)}", TITLE),))
        names, labels = list(a.parts), part_labels(a.parts, trace)
        limit = shade_limit(np.array(list(a.parts.values())))
        lw = max(len(label) for label in labels) + 2
        for name, label in zip(names, labels):
            v = a.parts[name]
            m = marks_of(np.array([v]), None if old is None else np.array([old.parts.get(name, np.nan)]))[0]
            count += bool(m)
            n = round(abs(v) / limit * BAR)
            out.append(
                (
                    Words(f"  {label:<{lw}}"),
                    Words(f"{number(v, 4):>8}{GLYPHS.get(m, ' ') if m else ' '} ", MARK if m else "", m),
                    Words(("█" * n).rjust(BAR) if v < 0 else " " * BAR, "tt-negative"),
                    Words("│", MUTED),
                    Words(("█" * n).ljust(BAR) if v >= 0 else " " * BAR, "tt-positive"),
                )
            )
        total = sum(a.parts.values())
        sums = f"  {'sum of the parts':<{lw}}{number(total, 4):>8}  = the logit {number(a.logit, 4)}"
        out.append((Words(sums, HEADING),))
        out.append(BLANK)
    out.append(marked_note(count, "parts"))
    return out


def _attribution_words(cfg: ModelConfig, scale: float) -> str:
    """What the split is, for the run's model: rotary positions write no part, RMSNorm divides by the
    root mean square and takes no mean away, an untied model's scores read W_U."""
    marks = "" if cfg.positions in ("rope", "none") else " the position mark,"
    text = (
        f"The last painting is a sum of everything written onto it: the stock picture,{marks} each "
        "artist's strokes and each filter's change."
    )
    if cfg.positions == "rope":
        text += (
            " Rotary positions write nothing onto it (they turn the artists' queries and keys), so they "
            "are no part."
        )
    read = "" if cfg.tied else ", read through its column of W_U"
    text += (
        f" Each part's bar is how much that part alone pushes a word's score (its logit{read}) up or "
        "down; the bars add up to the score."
    )
    if cfg.norm == "rms":
        gain = " and multiplied by the norm's gain" if cfg.norm_affine else ""
        return text + (
            f" The final norm, RMSNorm, divides by one number, the root mean square √(mean of squares + ε) = "
            f"{scale:.4f}, held at its value in this run (taking a part away would change it); as no mean is "
            f"taken away, each part is only divided by that number{gain}."
        )
    return text + (
        f" The final layer norm divides by one number, σ = {scale:.4f}, which is held at its value "
        "in this run (taking a part away would change it)."
    )


# ---- page 5: the scale card ----------------------------------------------------------------------


def _size(v) -> str:
    if v is None:
        return "none"
    if isinstance(v, tuple):
        return "×".join(str(x) for x in v)
    return f"{v:,}"


def _own_sharing(cfg: ModelConfig) -> str:
    if cfg.group_size == 1:
        return ""
    sets = f"{in_words(cfg.n_kv_heads)} set{'s' if cfg.n_kv_heads > 1 else ''}"
    return f", its {in_words(cfg.n_heads)} artists a day sharing {sets} of keys and values"


def scale_page(runs: Runs, width: int) -> list[Line]:
    cfg = runs.params.cfg
    rows = runs.scale_card()
    llama = {r.key: r.llama3 for r in rows}
    shared = llama3_figures()["key/value heads"]
    out: list[Line] = [
        (Words("The scale card: GPT-3's and Llama 3 8B's galleries beside this one", TITLE),),
        *prose(
            "The same plan at three sizes. GPT-3 hangs up to 2048 paintings, each made of 12288 numbers "
            "(just enough for a 64×64 picture in red, green and blue), and works on them for 96 days with "
            f"96 artists a day. Llama 3 8B hangs up to {llama['paintings']:,} paintings of "
            f"{llama['painting size']:,} numbers for {llama['days']} days with {llama['artists']} artists "
            f"a day, who share {shared} sets of keys and values. This model does the same with a "
            f"handful{_own_sharing(cfg)}.",
            width,
        ),
        BLANK,
    ]
    kw = max(len(r.key) for r in rows) + 2
    tw = max(len(r.term) for r in rows) + 2
    # each figure's column as wide as its widest entry and a space: the card fits 80 columns
    columns = (("GPT-3", "gpt3"), ("Llama-3-8B", "llama3"), ("this model", "ours"))
    gw, lw, ow = (1 + max(len(h), *(len(_size(getattr(r, f))) for r in rows)) for h, f in columns)
    heads = f"{'in the gallery':<{kw}}{'in the transformer':<{tw}}{'GPT-3':>{gw}}{'Llama-3-8B':>{lw}}"
    out.append((Words(heads + f"{'this model':>{ow}}", HEADING),))
    for r in rows:
        out.append(
            (
                Words(f"{r.key:<{kw}}", TITLE),
                Words(f"{r.term:<{tw}}", MUTED),
                Words(f"{_size(r.gpt3):>{gw}}"),
                Words(f"{_size(r.llama3):>{lw}}"),
                Words(f"{_size(r.ours):>{ow}}", "tt-predicted"),
            )
        )
    if runs.gallery.picture_shape is None:
        out.append(BLANK)
        out += prose(f"d_model = {cfg.d_model} is not a multiple of 3, so this model's paintings have "
                     "no RGB picture; the shaded strips show them.", width, MUTED)  # fmt: skip
    return out
