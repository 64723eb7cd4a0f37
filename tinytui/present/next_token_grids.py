"""What the app shows of generation, read off a View: at step 14 the next token's choice (the
distribution before and after temperature, top-k and top-p, the uniform number drawn and the token it
picks), and at step 6, after a token was appended, the KV cache: which rows of K and V the new
position's pass computed now and which it reused.

Pure data (no Textual). The numbers are tinytui.model.generation's (sampling.distribution, pick) and the
trace's; nothing here computes a probability of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tinytui.model.generation import sampling
from tinytui.model.generation.sampling import Sampling
from tinytui.model.names import prefix
from tinytui.present.grid_spec import Cell, GridSpec, Section, grid
from tinytui.present.view import View
from tinytui.report.tables import fmt

if TYPE_CHECKING:
    from tinytui.report.pick_ties import PickTie

NEXT_STEP = 14  # the logits and their softmax: where the next token is chosen
KV_STEP = 6  # queries, keys, values: where the cache is read
MAX_ROWS, MAX_COLS = 16, 32  # the KV tables of a big model: its last positions, the heads that fit
SHOWN = 12  # a bigger vocabulary shows its likeliest tokens and the pick, in vocabulary order
KEY = "+"  # the key that appends (tinytui.tui.actions: append-token)


def generation_sections(view: View) -> list[Section]:
    """The sections this module adds to the step shown (none outside steps 6 and 14)."""
    if view.mode.backward:
        return []
    if view.step == NEXT_STEP:
        return [Section(_section_title(view), "output", ((next_token_grid(view),),))]
    if view.step == KV_STEP and (made := kv_cache_grids(view)):
        return [Section(kv_title(view), "output", tuple((g,) for g in made))]
    return []


def next_token_grid(view: View) -> GridSpec:
    trace = view.trace
    cfg, s = trace.cfg, view.sampling
    position = len(trace.prompt)
    if position >= cfg.n_ctx:
        line = view.full_line
        cells = [[Cell(line, detail=line)]]
        return grid("next-token", "Next token", "", ("",), ("",), cells, "", "info", limit=1.0)
    chosen = sampling.pick(trace["logits"], s, position)
    stages: list[tuple[str, np.ndarray, str]] = [("p = softmax(ℓ)", chosen.before, "the model's probability")]
    if not s.greedy:
        stages.append(
            (f"÷ T {s.temperature:g}", sampling.distribution(chosen.logits, Sampling(s.temperature)), "")
        )
        if s.top_k is not None:
            kept = sampling.distribution(chosen.logits, Sampling(s.temperature, s.top_k))
            stages.append((f"top-k {s.top_k}", kept, ""))
        if s.top_p < 1.0:
            stages.append((f"top-p {s.top_p:g}", chosen.probs, ""))
    else:
        stages.append(("greedy", chosen.probs, ""))
    running = np.cumsum(chosen.probs)
    rows = _rows(chosen)
    from tinytui.report.pick_ties import pick_tie  # step 14 only, not the start's

    tie = pick_tie(chosen, cfg.vocab)  # said in the title, in short, and on each of its tokens' cells
    cols = ("ℓ", *(name for name, _, _ in stages))
    if not s.greedy:
        cols += ("running Σ",)
    cells = []
    for t in rows:
        tok = cfg.vocab[t]
        row = [
            Cell(fmt(chosen.logits[t]), detail=f"ℓ[{tok}] = {fmt(chosen.logits[t])}", source=("logits", (t,)))
        ]
        for i, (name, probs, _) in enumerate(stages):
            text = fmt(probs[t])
            row.append(
                Cell(
                    text,
                    value=float(probs[t]),
                    detail=f"p[{tok}] {name if i else 'before anything'}: {text}",
                    source=("probs", (t,)) if i == 0 else None,
                )
            )
        if not s.greedy:
            edge = f"{fmt(running[t])}"
            picked = "  ← the first total past u" if t == chosen.token else ""
            detail = f"running total of the drawn-from distribution up to {tok!r}: {edge}{picked}"
            row.append(Cell(edge, detail=detail))
        if tie is not None and t in tie.ids:
            row = [cell._replace(detail=f"{cell.detail} · {tie.said}") for cell in row]
        cells.append(row)
    labels = tuple(("→ " if t == chosen.token else "  ") + cfg.vocab[t] for t in rows)
    title = _title(chosen, cfg.vocab, tie)
    return grid("next-token", title, "token", labels, cols, cells, "heat", "output", 1.0)


def _rows(chosen: sampling.Pick) -> list[int]:
    """Every token of a small vocabulary; of a big one the likeliest few (and any as likely as the last
    of them) and the pick, in id order."""
    n = len(chosen.logits)
    if n <= SHOWN + 4:
        return list(range(n))
    top = {int(t) for t in sampling.order(chosen.logits)[:SHOWN]} | {chosen.token}
    _, left = sampling.cut_tie(chosen.logits, SHOWN)  # as likely as the SHOWN-th: shown too, not cut
    return sorted(top | set(left))


def _title(chosen: sampling.Pick, vocab, said: PickTie | None) -> str:
    s, tok = chosen.sampling, vocab[chosen.token]
    tie = f" ({said.short})" if said else ""
    if s.greedy:
        return f"Position {chosen.position} · greedy → {tok!r}{tie}"
    return f"Position {chosen.position} · {s.describe()} · u = {chosen.draw:.4f} → {tok!r}{tie}"


def _section_title(view: View) -> str:
    s, position = view.sampling, len(view.trace.prompt)
    if position >= view.trace.cfg.n_ctx:  # + appends nothing, so nothing is chosen or drawn
        return f"Next token — none: the prompt fills the context of {view.trace.cfg.n_ctx} positions"
    if s.greedy:
        return f"Next token — {KEY} appends it (greedy: no draw; ctrl+p → Set temperature… to draw)"
    return f"Next token — {KEY} appends it · the draw u is number {position} (from 0) of PCG64(seed {s.seed})"


def kv_cache_grids(view: View) -> list[GridSpec]:
    """After an append, the block's K and V (heads side by side), each row marked: reused from the
    cache, or computed now. A big model shows its last MAX_ROWS positions and the first heads that fit
    in MAX_COLS columns."""
    made = view.new_pass
    trace = view.trace
    if made is None or len(trace.prompt) != made.position + 1:
        return []
    cfg = trace.cfg
    b = view.here.block or 0
    pre, reused, last = prefix(b), made.reused[b], made.position
    first = max(0, last + 1 - MAX_ROWS)
    # keys and values are made, and cached, once per key/value head (fewer than the query heads under GQA)
    n_kv, head_labels = cfg.n_kv_heads, cfg.kv_head_labels()
    heads = max(1, min(n_kv, MAX_COLS // cfg.d_head))
    width = min(cfg.d_head, MAX_COLS)
    earlier = "cache" if reused else "again"
    labels = tuple(
        f"{trace.token_labels[p]} {'new' if p == last else earlier}" for p in range(first, last + 1)
    )
    left_out = []
    if first:
        left_out.append(f"positions {first}–{last} of 0–{last}")
    if heads < n_kv or width < cfg.d_head:
        left_out.append(f"heads 1–{heads} of {n_kv}, k0–k{width - 1} of {cfg.d_head}")
    shown = f" ({'; '.join(left_out)})" if left_out else ""
    out = []
    for c in ("k", "v"):
        cells = []
        for p in range(first, last + 1):
            how = "computed now" if p == last else ("read from the cache" if reused else "computed again")
            row = []
            for h in range(1, heads + 1):
                name = f"{pre}{c}.{h}"
                for j in range(width):
                    v = float(trace[name][p, j])
                    detail = f"{c.upper()} {head_labels[h - 1]}[{p},{j}] = {fmt(v)}: {how}"
                    row.append(Cell(fmt(v), value=v, detail=detail, source=(name, (p, j))))
            cells.append(row)
        groups = tuple((f"{c.upper()} {head_labels[h - 1]}", width) for h in range(1, heads + 1))
        cols = tuple(f"k{j}" for j in range(width)) * heads
        if reused:
            title = f"{c.upper()} — cache: a row reused, new: the row computed now{shown}"
        else:
            title = f"{c.upper()} — again: a row computed again, new: the row computed now{shown}"
        key = f"kv-cache:{pre}{c}"
        out.append(grid(key, title, "position", labels, cols, cells, "diverging", "output", groups=groups))
    return out


def kv_title(view: View) -> str:
    """The KV section's heading: what the new position's pass reused and what it computed."""
    made = view.new_pass
    assert made is not None
    b = view.here.block or 0
    last, word = made.position, repr(view.trace.prompt[-1])
    if made.reused[b]:
        said = f"KV cache: {word} at {last} computed its Q, K, V row; rows 0–{last - 1} of K, V reused"
    else:
        said = f"KV cache: {word} at {last} — every row computed again: {made.why_not(b)}"
    return said + kv_saving(view.trace.cfg)


def kv_saving(cfg) -> str:
    """What grouped key/value heads save: the cache holds one K and one V per key/value head."""
    if cfg.n_kv_heads == cfg.n_heads:
        return ""
    per = 2 * cfg.n_kv_heads * cfg.d_head  # a K row and a V row of each key/value head, in one block
    full = 2 * cfg.n_heads * cfg.d_head
    blocks = f", in each of the {cfg.n_blocks} blocks" if cfg.n_blocks > 1 else ""
    return (
        f" · cached per key/value head: {per} numbers a position, not {full} with one per query head "
        f"({cfg.group_size}× smaller){blocks}"
    )
