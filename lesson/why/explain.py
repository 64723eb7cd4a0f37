"""Why this number: where any cell of a trace, a parameter or a gradient comes from.

    why = explain(trace, params, "blocks.0.scores.2", (1, 0))
    why.formula    'scores.2[1,0] = (q.2[1] · k.2[0]) / √2'
    why.filled     '(−1.3145·0.5773 + 0.7194·0.5773) / 1.4142'
    why.result     '−0.2429'
    why.operands   (Operand('blocks.0.q.2', (1, 0), −1.3145…), …): the exact cells it is computed from
    why.evaluate() the value recomputed from the operands' values alone (equal to why.value)

The rules are tables keyed by the tensor's block-local name: provenance_stream (the model-wide
forward tensors and the weights), provenance_attention and provenance_block (a block's tensors),
provenance_grads (the model-wide gradients), provenance_grad_block (a block's gradients) and
provenance_grad_params (the gradients of GPT-2's extra weights: P, the norms' gains and biases, the
attention biases);
provenance_shapes holds what they share. A rule spells the formula as it ran under the trace's
switches. parse_cell() reads what a person types ("attn.2[1:woodchuck, 0]").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tinytui.lesson.texts.display_names import display
from tinytui.lesson.why import (
    attention_cells,
    block_cells,
    grad_block_cells,
    grad_cells,
    grad_param_cells,
    modern_cells,
    stream_cells,
)
from tinytui.lesson.why.why import Ctx, Index, Why, cell_of
from tinytui.model.backward.gradients import Gradients
from tinytui.model.names import GRAD, canonical
from tinytui.model.params import Params
from tinytui.model.switches import run_config
from tinytui.model.trace import Axis, Trace

# Every table: (block-local) name -> rule. They cover disjoint names; a test checks every name has one.
RULES = {
    **stream_cells.RULES,
    **attention_cells.RULES,
    **block_cells.RULES,
    **grad_cells.RULES,
    **grad_block_cells.RULES,
    **grad_param_cells.RULES,
    **modern_cells.RULES,
}


class CellError(ValueError):
    """A name or index that does not exist; the message says what does."""


def _context(trace: Trace, params: Params, grads: Gradients | None = None) -> tuple[Ctx, Gradients]:
    if trace.cfg != run_config(params.cfg, trace.switches):
        raise ValueError("the trace was computed for a different model shape")
    grads = grads if grads is not None else Gradients(params, trace)  # computed as far as it is read
    cfg = trace.cfg
    ctx = Ctx(trace, params, grads, cfg, trace.switches, trace.prompt, cfg.token_id(trace.target), trace.lr)
    return ctx, grads


def names_of(trace: Trace, params: Params, grads: Gradients | None = None) -> tuple[str, ...]:
    """Every name explain() answers for: the trace's tensors, the parameters, the gradients."""
    grads = _context(trace, params, grads)[1]
    return (*trace, *params, *grads)


def explain(
    trace: Trace, params: Params, name: str, index: Sequence[int] = (), grads: Gradients | None = None
) -> Why:
    """Why cell `index` of `name` (any spelling names.canonical reads) has its value in this run.

    trace must be run(params, …); grads, if given, Gradients(params, trace) (else one is made, computed
    as far as the cell asked about needs: a caller asking about many cells of one trace passes its own,
    so the backward pass runs once)."""
    ctx, grads = _context(trace, params, grads)
    full = canonical(name)
    known = names_of(trace, params, grads)
    if full not in known:
        raise CellError(_unknown(name, known, trace.cfg.n_blocks))
    idx = tuple(int(i) for i in index)
    shape = ctx.shape(full)
    if len(idx) != len(shape) or any(not 0 <= i < n for i, n in zip(idx, shape)):
        raise CellError(_bad_index(full, idx, axes_of(full, trace, grads), trace.cfg.n_blocks))
    cell = cell_of(full, idx)
    instead = modern_cells.INSTEAD.get(cell.local)
    why = instead(ctx, cell) if instead is not None else None
    return why if why is not None else RULES[cell.local](ctx, cell)


def evaluate(why: Why, values: Sequence[float] | None = None) -> float:
    """why's value recomputed from its operands' values (or from other values, one per operand)."""
    return why.evaluate(values)


def axes_of(name: str, trace: Trace, grads: Gradients) -> tuple[Axis, ...]:
    """The labelled axes of a trace tensor, a gradient or a parameter (a parameter's are its gradient's)."""
    if name in trace:
        return trace.tensor(name).axes
    if name in grads:
        return grads.tensor(name).axes
    return grads.tensor(GRAD + name).axes


# ---- reading what a person types -----------------------------------------------------------------------

_CELL = re.compile(r"\s*(?P<name>[^\[\]]+?)\s*(?:\[(?P<index>[^\[\]]*)\])?\s*")
_BLOCK_LABEL = re.compile(r"(?P<base>.+?)\s*\(block (?P<b>\d+)\)")
_BLOCK_AT = re.compile(r"(?P<base>.+?)@(?P<b>-?\d+)")


def parse_cell(text: str, trace: Trace, params: Params, grads: Gradients | None = None) -> tuple[str, Index]:
    """'attn.2[1,0]', 'blocks.0.attn.2[1:woodchuck, 0:a]', 'W_O[h1.k0, thing]', 'loss' ->
    (canonical name, index). Indices are integers or the axis's labels (a token label may drop its
    position when the token is in the prompt once). Raises CellError saying what exists."""
    grads = _context(trace, params, grads)[1]
    n_blocks = trace.cfg.n_blocks
    m = _CELL.fullmatch(text)
    known = names_of(trace, params, grads)
    if m is None:
        raise CellError(f"{text!r} is not NAME[i,j]; " + _unknown(text, known, n_blocks).split("; ", 1)[1])
    raw = m["name"]
    shown = _BLOCK_LABEL.fullmatch(raw)
    at = _BLOCK_AT.fullmatch(raw)  # x_mid@1: block 2, as display_names.canonical_cell writes it
    block = int(shown["b"]) if shown else int(at["b"]) + 1 if at else None
    if block is not None and not 1 <= block <= n_blocks:
        blocks = f"{n_blocks} block{'s' if n_blocks != 1 else ''}"
        raise CellError(f"this model has {blocks}, so there is no block {block}")
    full = canonical(f"{shown['base']}@{int(shown['b']) - 1}" if shown and int(shown["b"]) > 0 else raw)
    if full not in known:
        raise CellError(_unknown(raw, known, n_blocks))
    axes = axes_of(full, trace, grads)
    items = [] if not (m["index"] or "").strip() else [s.strip() for s in m["index"].split(",")]
    if len(items) != len(axes):
        raise CellError(_bad_index(full, tuple(items), axes, n_blocks))
    return full, tuple(_position(item, ax, full, axes, n_blocks) for item, ax in zip(items, axes))


def _position(item: str, axis: Axis, name: str, axes, n_blocks: int) -> int:
    if re.fullmatch(r"\d+", item):
        if int(item) < len(axis.labels):
            return int(item)
    elif item in axis.labels:
        return axis.labels.index(item)
    else:
        folded = [
            i for i, lab in enumerate(axis.labels) if item.lower() in (lab.lower(), lab.split(":", 1)[-1])
        ]
        if len(folded) == 1:
            return folded[0]
    raise CellError(_bad_index(name, (item,), axes, n_blocks, axis))


MAX_NAMED = 80  # the chapter's model has 79 names; one of 48 blocks 2,805 (a 56,000-character line)


def _unknown(name: str, known: Sequence[str], n_blocks: int) -> str:
    names = ", ".join(display(n, n_blocks) for n in known[:MAX_NAMED])
    more = len(known) - MAX_NAMED
    names += f", … and {more:,} more (tinytui trace --list names them all)" if more > 0 else ""
    return f"no tensor named {name!r}; the names are: {names}"


def _bad_index(name: str, index: tuple, axes: Sequence[Axis], n_blocks: int, axis: Axis | None = None) -> str:
    shown = display(name, n_blocks)
    if not axes:
        return f"{shown} is a single number: give no index"
    if axis is None:
        if len(index) != len(axes):
            n = len(axes)
            names = ", ".join(a.name for a in axes)
            ranges = ", ".join(_range(a) for a in axes)
            return f"{shown} has {n} ax{'is' if n == 1 else 'es'} ({names}): give {n} indices, {ranges}"
        bad = next(i for i, (v, a) in enumerate(zip(index, axes)) if not 0 <= int(v) < len(a.labels))
        index, axis = (index[bad],), axes[bad]
    return f"{shown}: {index[0]!r} is not on axis {axis.name}; {_range(axis)}"


def _range(axis: Axis) -> str:
    n = len(axis.labels)
    labels = ", ".join(axis.labels[:8]) + (", …" if n > 8 else "")
    return f"{axis.name} 0–{n - 1} ({labels})"
