"""The names a person reads: one table shared by the app's tables, the transcript, `tinytui print` and its
handouts, and by what practice, quiz and why say of a cell (so it lives beside the model's other texts).

tinytui.model.names gives every tensor one internal name ("blocks.0.x_mid", "grad.z"); display() turns it
into what the chapter and the app's tables write: x′, h_pre, MHA, ℓ, ∂L/∂z. cell() names one weight cell
with the axis labels the app's grids use, e.g. W_O[h1.k0, thing], E[a, thing], b_1[unit 3].
"""

from __future__ import annotations

import re
from typing import Any

from tinytui.model import names

# block-local and model-wide names -> what the chapter writes (a name not listed is shown as it is)
DISPLAY = {
    "ids": "id",
    "emb": "E[id]",
    "pe": "PE",
    "x": "x",
    "mask": "mask",
    "ln1.mean": "μ",
    "ln1.var": "σ²",
    "ln1.mean_sq": "mean(x²)",
    "x_norm": "x_n",
    "mha": "MHA",
    "x_mid": "x′",
    "x_mid_norm": "x′_n",
    "hidden_pre": "h_pre",
    "hidden": "hidden",
    "ffn": "FFN",
    "y": "y",
    "z": "z",
    "logits": "ℓ",
    "probs": "p",
    "loss": "L",
    "grad_logits": "∂L/∂ℓ",
    "logits_stepped": "ℓ′",
    "probs_stepped": "p′",
    "loss_stepped": "L′",
    "E.lookup": "E (lookup share)",
    "E.unembed": "E (unembedding share)",
}
PER_HEAD = {"q": "Q", "k": "K", "v": "V", "scores": "S", "attn": "A", "head": "head"}
PER_HEAD |= {"q_pre": "Q_pre", "k_pre": "K_pre"}  # RoPE: the projections before they are turned


def display(name: str, n_blocks: int = 1) -> str:
    """How a tensor, weight or gradient is named for people: 'blocks.0.x_mid' -> 'x′',
    'blocks.0.attn.2' -> 'A_2', 'grad.blocks.0.hidden_pre' -> '∂L/∂h_pre'; with several blocks the
    block is added as names.label() adds it: 'x′ (block 2)'."""
    if name.startswith(names.GRAD):
        return "∂L/∂" + display(name[len(names.GRAD) :], n_blocks)
    block, local = names.split(names.canonical(name))
    base, _, head = local.rpartition(".")
    per_head = base in PER_HEAD and head.isdigit()
    shown = f"{PER_HEAD[base]}_{head}" if per_head else DISPLAY.get(local, local)
    if block is None or n_blocks == 1:
        return shown
    return f"{shown} (block {block + 1})"


def pe_columns(cfg: Any) -> tuple[str, ...]:
    """The column headings of the positional encoding (step 3): the wave each column holds, 'sin p/1',
    'cos p/1', 'sin p/100', … (PE[p,2i] = sin(p / 10000^(2i/d)), PE[p,2i+1] its cosine), not the
    dimension names: a wave means nothing about 'thing' or 'wood', it is only added to that dimension
    at step 4. A learned position table (GPT-2's P) has no formula, and a model that adds no position (RoPE,
    none) no wave: their columns are the dimensions."""
    if getattr(cfg, "learned_positions", False) or getattr(cfg, "positions", "") in ("rope", "none"):
        return tuple(cfg.dims)  # nothing added (RoPE turns q and k at step 6): no wave to name
    d = cfg.d_model
    out = []
    for j in range(d):
        period = 10000.0 ** (2 * (j // 2) / d)
        out.append(
            f"{('sin', 'cos')[j % 2]} p/{period:.0f}"
            if period >= 100
            else f"{('sin', 'cos')[j % 2]} p/{period:.3g}"
        )
    return tuple(out)


Axes = tuple[str, tuple[str, ...], tuple[str, ...]]


def param_axes(cfg: Any, name: str, ndim: int, length: int = 0) -> Axes:
    """A weight's table axes as the app's grids label them: (corner, row labels, column labels).
    A per-head weight (ndim 3) has these per head; a vector (ndim 1) has one row, named after it."""
    short = names.split(names.canonical(name))[1]
    if short == "E":
        return "vocab", tuple(cfg.vocab), tuple(cfg.dims)
    if ndim == 3:
        return "dims", tuple(cfg.dims), tuple(cfg.head_dim_labels())
    if ndim == 1:  # b_1 is one per hidden unit; every other vector (b_2, a norm's gain or bias) per dim
        cols = cfg.unit_labels() if short == "b_1" else cfg.dims
        return "", (short,), tuple(cols)
    if short == "W_O":
        heads = tuple(f"h{h + 1}.{k}" for h in range(cfg.n_heads) for k in cfg.head_dim_labels())
        return "heads", heads, tuple(cfg.dims)
    if short in ("W_1", "W_gate", "W_up"):
        return "dims", tuple(cfg.dims), tuple(cfg.unit_labels())
    if short == "W_U":  # the untied unembedding: a column per token
        return "dims", tuple(cfg.dims), tuple(cfg.vocab)
    if short == "P":  # GPT-2's learned positions: one row per position of the context
        return "positions", tuple(cfg.position_labels()), tuple(cfg.dims)
    if short == "b_Q":  # the attention biases: one row per head
        return "heads", tuple(cfg.head_labels()), tuple(cfg.head_dim_labels())
    if short in ("b_K", "b_V"):  # one row per key/value head
        return "heads", tuple(cfg.kv_head_labels()), tuple(cfg.head_dim_labels())
    return "units", tuple(cfg.unit_labels()), tuple(cfg.dims)


def cell(cfg: Any, name: str, index: tuple[int, ...] | list[int], shape: tuple[int, ...]) -> str:
    """One weight cell as the app labels it: 'W_O[h1.k0, thing]', 'W_Q[h2: action, k1]', 'b_1[unit 3]'.
    An index outside the weight's shape falls back to the numbers ('W_O[9,0]')."""
    index = tuple(int(i) for i in index)
    shown = names.label(names.canonical(name), cfg.n_blocks)
    if len(index) != len(shape) or any(not 0 <= i < n for i, n in zip(index, shape)):
        return f"{shown}[{','.join(str(i) for i in index)}]"
    _, rows, cols = param_axes(cfg, name, len(shape), shape[-1] if shape else 0)
    if len(index) == 3:
        h, r, c = index
        where = f"h{h + 1}: {rows[r]}, {cols[c]}"
    elif len(index) == 1:
        where = cols[index[0]]
    else:
        where = f"{rows[index[0]]}, {cols[index[1]]}"
    return f"{shown}[{where}]"


# internal names that prose from the model's tables (the backward rules) may spell out
_IN_PROSE = (
    "x_mid_norm",
    "x_mid",
    "hidden_pre",
    "mha",
    "logits_stepped",
    "probs_stepped",
    "grad_logits",
    "ffn",
)
# a name, alone or with a one-letter subscript (∂L/∂ffn_p: its row p)
_PROSE = re.compile(r"(?<![\w.])(" + "|".join(_IN_PROSE) + r")(?!(?!_[a-z]\b)\w)")
_PRIME = re.compile(r"(?<![\w.])x'")  # the chapter's formulas write x' in ASCII; the tables write x′


def in_words(text: str) -> str:
    """Text with any internal tensor name in it shown by its display name: '∂L/∂mha' -> '∂L/∂MHA',
    '∂L/∂ffn' -> '∂L/∂FFN', and x' as the tables write it, x′ ('LN(x') W_1' -> 'LN(x′) W_1')."""
    return _PRIME.sub("x′", _PROSE.sub(lambda m: DISPLAY[m.group(1)], text))


# ---- formulas (model.provenance writes them with internal names) --------------------------------------

# Names that are never English words: shown by their display name wherever they stand.
_ALWAYS = (
    "x_mid_norm",
    "x_mid",
    "x_norm",
    "hidden_pre",
    "mha",
    "ffn",
    "emb",
    "ids",
    "loss_stepped",
    *_IN_PROSE[3:],
)
# Names that are also words ("the logits", "the loss"): shown by display name only as a cell, NAME[…].
_INDEXED = ("logits", "probs", "loss", "pe", "hidden")
_SHARES = {"E.lookup": "E_lookup", "E.unembed": "E_unembed"}  # E's two gradient shares, inside a formula
# The patterns from here on are text, not compiled: re compiles each when first used (and keeps it), and
# the debugger's start uses none of them (compiled at import, they would cost it some 0.6 ms).
_NAME = (
    r"(?<![\w.′])(?P<grad>grad\.)?"
    r"(?P<name>E\.lookup|E\.unembed|ln1\.mean_sq|ln1\.mean|ln1\.var|(?:q_pre|k_pre|q|k|v|scores|attn|head)\.\d+|"
    + "|".join(sorted(_ALWAYS, key=len, reverse=True))
    + r"|(?P<word>"
    + "|".join(_INDEXED)
    + r"|[A-Za-z]\w*))(?![\w.′])(?P<cell>\[)?"
)

_OWN_NAME = r"([a-z][\w.]*)(?= = )"


def in_formula(text: str) -> str:
    """A provenance formula with the display names the tables use: 'x_mid[3,3] = x[3,3] + mha[3,3]' ->
    'x′[3,3] = x[3,3] + MHA[3,3]', 'attn.2[3] · v.2[:,1]' -> 'A_2[3] · V_2[:,1]', 'grad.logits[7]' ->
    '∂L/∂ℓ[7]'. A word that is also a name ("the loss") is left as it is unless it names a cell."""

    def shown(m: re.Match) -> str:
        name, cell, grad = m.group("name"), m.group("cell") or "", m.group("grad")
        word = m.group("word") is not None and not grad  # grad.NAME is always a gradient's name
        if word and (not cell or (name not in _INDEXED and name not in DISPLAY)):
            return m.group(0)  # a word (the loss, sin, LN), an index (k), or a cell of a weight (E[v,3])
        out = _SHARES.get(name) or display(name)
        return ("∂L/∂" if grad else "") + out + cell

    head = re.match(_OWN_NAME, text)  # the cell the formula is of, a scalar: 'loss = …' -> 'L = …'
    if head is not None and head.group(1) in DISPLAY:
        text = display(head.group(1)) + text[head.end(1) :]
    return _PRIME.sub("x′", re.sub(_NAME, shown, text))


# ---- reading the screen's names back (why, trace --only) ------------------------------------------------

# what the screen writes -> the block-local name (E[id] is left out: its brackets read as an index)
_FROM_SHOWN = {shown: local for local, shown in DISPLAY.items() if "[" not in shown}
_FROM_SHOWN |= {"x'": "x_mid", "x'_n": "x_mid_norm", "E": "E"}
_PER_HEAD_SHOWN = r"(?P<what>" + "|".join(PER_HEAD.values()) + r")_(?P<h>\d+)"
_FROM_PER_HEAD = {shown: local for local, shown in PER_HEAD.items()}
_SUFFIX = r"\s*\((?P<what>block (?P<b>\d+)|lookup share|unembedding share)\)\s*$"
_GRAD_SHOWN = ("∂L/∂", "dL/d")
_SCREEN_CELL = r"\s*(?P<name>[^\[\]]+?)\s*(?:\[(?P<index>[^\[\]]*)\])?(?P<after>(?:\s*\([^()]*\))*)\s*"
_EMB = r"^(?P<grad>\s*(?:∂L/∂|dL/d)?)E\[id\](?=\[|\s*\(|\s*$)"  # E[id][0:a, thing]: the embedding rows
_HEAD_FIRST = r"\s*h(?P<h>\d+)\s*:\s*"  # a per-head weight's cell: W_Q[h1: wood, k1]


def canonical_name(text: str) -> str:
    """A name as the screen shows it -> the spelling model.names.canonical reads: 'A_2' -> 'attn.2',
    'x′ (block 2)' -> 'x_mid@1', '∂L/∂W_O' -> 'grad.W_O', 'ℓ' -> 'logits', '∂L/∂E (lookup share)' ->
    'grad.E.lookup'. A name that is not a display name (a canonical one) comes back as it is."""
    rest, block, share = text.strip(), None, None
    while (m := re.search(_SUFFIX, rest)) is not None:
        block = int(m["b"]) if m["b"] else block
        share = None if m["b"] else m["what"].split()[0]
        rest = rest[: m.start()]
    grad = ""
    whole = _FROM_SHOWN.get(rest)
    if whole is None:
        for mark in _GRAD_SHOWN:
            if rest.startswith(mark):
                grad, rest = names.GRAD, rest[len(mark) :]
                break
    m = re.fullmatch(_PER_HEAD_SHOWN, rest)
    local = whole or (f"{_FROM_PER_HEAD[m['what']]}.{m['h']}" if m else _FROM_SHOWN.get(rest, rest))
    if share and local == "E":
        local = "E." + ("lookup" if share == "lookup" else "unembed")
    if block is not None:  # '(block 0)' too: '@-1', which parse_cell refuses as no block 0
        local = f"{local}@{block - 1}"
    return grad + local


def canonical_cell(text: str) -> str:
    """A cell as the screen writes it -> as model.why.explain.parse_cell reads it: 'A_2[1,0]' ->
    'attn.2[1,0]', 'W_Q[h1: wood, k1]' -> 'W_Q[0, wood, k1]', 'A_2[1,0] (block 2)' -> 'attn.2@1[1,0]',
    'E[id][0:a, thing]' -> 'emb[0:a, thing]'; a canonical cell comes back unchanged."""
    m = re.fullmatch(_SCREEN_CELL, re.sub(_EMB, r"\g<grad>emb", text, count=1))
    if m is None:
        return text
    name = canonical_name(m["name"] + (m["after"] or ""))
    index = m["index"]
    if index is None:
        return name
    head = re.match(_HEAD_FIRST, index)
    if head is not None:
        index = f"{int(head['h']) - 1}, {index[head.end() :]}"
    return f"{name}[{index}]"


def screen_cell(cfg: Any, name: str, index: tuple[int, ...], shape: tuple[int, ...]) -> str:
    """One cell as the screen names it (what why prints beside the canonical name): a weight, or its
    gradient, by its axis labels as the grids and the transcript write it, 'W_O[h2.k0, thing]',
    '∂L/∂W_Q[h1: wood, k1]'; a tensor by its display name as the inspector's formulas write it,
    'A_2[1,0]', 'x′[3,3] (block 2)'."""
    grad = name.startswith(names.GRAD)
    full = names.canonical(name[len(names.GRAD) :] if grad else name)
    if names.split(full)[1] in names.ALL_PARAMS:
        return ("∂L/∂" if grad else "") + cell(cfg, full, index, shape)
    base, sep, after = display(name, cfg.n_blocks).partition(" (")
    return base + (f"[{','.join(map(str, index))}]" if index else "") + (f" ({after}" if sep else "")
