"""A tensor or a parameter as a labelled table of formatted numbers: the Table every report is made of.

One format for every number the app, the transcript and print show (fmt), the tensors' titles in the
display names, and the window a big table is cut to when the run's picks are given (report_window).
step_report.py makes a step's report, forward or backward, from these tables.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple, Protocol

import numpy as np

from tinytui.lesson.texts.display_names import param_axes, pe_columns
from tinytui.model import names
from tinytui.model.config import ModelConfig
from tinytui.model.switches import Switches
from tinytui.model.trace import Tensor, Trace
from tinytui.report.lazy_rows import LazyRows

if TYPE_CHECKING:  # the printed report's window: imported where a table is cut to it
    from tinytui.report.print_window import Picks

# Table titles in the display names (lesson/texts/display_names.py): the app, the transcript and print share
# them.
TENSOR_TITLES = {
    "emb": "E[id] — embedding rows",
    "pe": "PE — positional encoding",
    "x": "x = E[id] + PE",
    "x_norm": "LN(x)",
    "mask": "mask (1 = may attend)",
    "mha": "MHA(LN(x)) = [head_1; head_2] W_O",
    "x_mid": "x′ = x + MHA(LN(x))",
    "x_mid_norm": "LN(x′)",
    "hidden_pre": "h_pre = x′_n W_1 + b_1 (before the activation)",
    "hidden": "hidden = activation(h_pre)",
    "ffn": "FFN = hidden W_2 + b_2",
    "y": "y = x′ + FFN",
    "z": "z = LN(y_last)",
    "logits": "ℓ = z Eᵀ",
    "probs": "p = softmax(ℓ)",
    "grad_logits": "∂L/∂ℓ = p − onehot(target)",
    "logits_stepped": "ℓ′ = ℓ − lr·∂L/∂ℓ",
    "probs_stepped": "p′ = softmax(ℓ′), after the step",
}


# a NamedTuple, not a frozen dataclass: loaded as the app starts, and a frozen dataclass compiles
# its methods from source as its class is made (~3 M instructions; a NamedTuple's ~0.5 M)
class Table(NamedTuple):
    """A tensor or parameter as a table of formatted numbers, with its title and row and column labels
    (and a note when a big table is shown in part)."""

    title: str
    corner: str  # header above the row labels
    rows: tuple[str, ...]
    cols: tuple[str, ...]
    cells: Sequence[tuple[str, ...]]  # formatted, rows × cols (numbers: LazyRows, a row written when read)
    note: str = ""  # under a big table shown in part: how much is left out, where all of it is


def fmt(v: float) -> str:
    s = f"{v:.4f}"
    return "0.0000" if s == "-0.0000" else s


def number_rows(values) -> LazyRows:
    """A 2-d array's numbers as fmt writes each, rows × cols, each row written the first time it is read
    (a d_model 64 step shows thousands of numbers and a screen a few dozen lines of them); the column
    widths worked out from the numbers (fmt_widths), and the numbers each row's basis."""
    flat = np.asarray(values, dtype=float)
    return written_numbers(tuple(map(tuple, flat.tolist())), fmt_widths(flat))


def written_numbers(basis: tuple[tuple[float, ...], ...], widths: tuple[int, ...]) -> LazyRows:
    """Rows of numbers as fmt writes each, each row when first read (or a part of it: LazyRows.part);
    widths: fmt_widths' of them."""
    return LazyRows(
        len(basis), lambda r: _fmt_row(basis[r]), widths, basis, part=lambda r, a, b: _fmt_row(basis[r][a:b])
    )


def _fmt_row(row: tuple[float, ...]) -> list[str]:
    """A row of numbers as fmt writes each, in one %-format pass."""
    if not row:
        return []
    # "\x00" opens every cell, so "\x00-0.0000" is a whole cell (four decimals: nothing follows it)
    text = ("\x00%.4f" * len(row)) % row
    return text.replace("\x00-0.0000", "\x000.0000").split("\x00")[1:]


def fmt_widths(values: np.ndarray) -> tuple[int, ...]:
    """How wide each column of a 2-d array is as fmt writes it, from the column's largest and smallest
    number alone: %.4f of a bigger magnitude of the same sign is never shorter, and fmt's −0.0000 is
    0.0000, the shortest there is. A column holding a NaN or an infinity (then its largest or smallest
    is one) is written out to measure."""
    if not values.shape[0]:
        return (0,) * values.shape[1]
    hi, lo = values.max(axis=0).tolist(), values.min(axis=0).tolist()
    widths = list(map(max, map(len, _fmt_row(tuple(hi))), map(len, _fmt_row(tuple(lo)))))
    for c, (a, b) in enumerate(zip(hi, lo)):
        if not (math.isfinite(a) and math.isfinite(b)):
            widths[c] = max(len(fmt(v)) for v in values[:, c].tolist())
    return tuple(widths)


MINUS = "\u2212"  # −: the minus sign on screen, in tables as in the formulas and the legends


def on_screen(text: str) -> str:
    """A formatted number as the app shows it: its minus sign is U+2212 (−), as the formulas and legends
    write it. Printed reports, transcripts and recordings keep fmt's ASCII '-', which every reader and
    every recording already made can read back (tinytui.model.checks.number takes either)."""
    return MINUS + text[1:] if text[:1] == "-" and text[1:2] in _DIGITS else text


_DIGITS = frozenset("0123456789.")
_SIGNED = re.compile(r"(?<![\w.)\]])-(?=[0-9.])")  # a minus before a number, not a hyphen or a subtraction


def on_screen_text(text: str) -> str:
    """A line about numbers (the inspector's) as the app shows it: each number's minus sign is −."""
    return _SIGNED.sub(MINUS, text) if "-" in text else text


def on_screen_row(row: Sequence[str]) -> tuple[str, ...]:
    """A row of texts as on_screen_text writes each: the row read once for a minus sign, and written
    anew only when it has one (a text's own "\x00" never occurs, so the row splits back text for text)."""
    joined = "\x00".join(row)
    if "-" not in joined:
        return tuple(row)
    return tuple(on_screen_text(joined).split("\x00"))


def on_screen_numbers(row: Sequence[str]) -> tuple[str, ...]:
    """A row of fmt's numbers as on_screen_row writes it, knowing each text is one number: a sign can
    only open a text, and the only signed text that is not a number is −inf."""
    joined = "\x00" + "\x00".join(row)
    if "-" not in joined:
        return tuple(row)
    shown = joined.replace("\x00-", "\x00" + MINUS).replace("\x00" + MINUS + "inf", "\x00-inf")
    return tuple(shown.split("\x00")[1:])


def on_screen_rows(rows: Sequence[Sequence[str]]) -> LazyRows:
    """A table's texts as the app shows them (on_screen_row), each row when first read; rows written
    from numbers (LazyRows.basis) the quicker way their texts allow (on_screen_numbers)."""
    lazy = LazyRows.of(rows)
    if lazy.on_screen:
        return lazy
    return lazy.written(on_screen_numbers if lazy.basis is not None else on_screen_row, on_screen=True)


class NamedTensors(Protocol):
    """What tensor_table reads: a labelled tensor by its name. A Trace and Gradients also carry the
    model's cfg (a Trace its switches too), read for the title and labels when there; a window's part
    (present/windows.py) has neither and gives its shown name."""

    def tensor(self, name: str, /) -> Tensor: ...


def tensor_table(
    trace: NamedTensors,
    name: str,
    title: str | None = None,
    shown: str | None = None,
    picks: Picks | None = None,
) -> Table:
    """A tensor as a table; shown names it in its row or column (default: names.label, as the app). Given
    picks (the run's, report_window.picks_of), a big one is shown in part: a printed report's way."""
    t = trace.tensor(name)
    vals = t.values
    local = names.split(name)[1]
    cfg: ModelConfig | None = getattr(trace, "cfg", None)
    shown = shown or names.label(name, cfg.n_blocks if cfg is not None else 1)
    switches = getattr(trace, "switches", None)
    title = title or title_of(local, cfg, switches) or _head_title(local, switches, cfg)
    if vals.ndim == 0:
        return Table(title, "", ("",), (shown,), number_rows(vals.reshape(1, 1)))
    if vals.ndim == 1:
        ax = t.axes[0]
        if ax.name == "tokens":  # per-token scalar: one column
            return windowed(title, ax.name, ax.labels, (shown,), vals[:, None], name, picks, ax.name)
        return windowed(title, "", (shown,), ax.labels, vals[None, :], name, picks, "", ax.name)
    rows, cols = t.axes
    heads = pe_columns(cfg) if local == "pe" and cfg is not None else cols.labels
    return windowed(title, rows.name, rows.labels, heads, vals, name, picks, rows.name, cols.name)


def windowed(
    title: str,
    corner: str,
    rows,
    cols,
    arr,
    name: str,
    picks: Picks | None = None,
    row_axis: str = "",
    col_axis: str = "",
    logits_rows: bool = False,
) -> Table:
    """A 2-d array as a table: whole when it is small or no picks are given, else its window
    (report_window.cut), the window in its title and what is left out in its note; only the cells shown
    are formatted."""
    from tinytui.report.print_window import cut

    win = cut(arr.shape[0], arr.shape[1], row_axis or corner, col_axis, picks, logits_rows)
    if win is None:
        return Table(title, corner, tuple(rows), tuple(cols), number_rows(arr))
    part = arr[win.rows[:, None], win.cols[None, :]]
    return Table(
        f"{title} — {win.caption()}",
        corner,
        tuple(rows[i] for i in win.rows),
        tuple(cols[j] for j in win.cols),
        number_rows(part),
        win.note(name),
    )


def title_of(local: str, cfg, switches: Switches | None = None) -> str | None:
    """TENSOR_TITLES' title, as this model computes it (its heads, GPT-2's learned positions and bias)
    and, given the run's switches, as they make it compute (no LN before the sublayers in post-norm, no
    x′ or x added back with the residual off)."""
    title = TENSOR_TITLES.get(local)
    if switches is not None and local in _SWITCHED:
        title = _SWITCHED[local](switches.norm == "pre", switches.residual)
    if cfg is None:
        return title
    if local == "mha" and (cfg.n_heads != 2 or cfg.attn_bias):
        heads = (
            "; ".join(f"head_{h}" for h in range(1, cfg.n_heads + 1))
            if cfg.n_heads <= 3
            else (f"head_1; …; head_{cfg.n_heads}")
        )
        read = "LN(x)" if switches is None or switches.norm == "pre" else "x"
        title = f"MHA({read}) = [{heads}] W_O" + (" + b_O" if cfg.out_bias else "")
    elif local == "pe" and cfg.learned_positions:
        title = "P[p] — learned position embedding"
    turned = switches is None or switches.positional_encoding  # RoPE switched off turns nothing
    if local == "x" and not turned:  # as with rotary positions, x is the embedding itself
        title = "x = E[id]   (no position added)"
    return _with_gain(local, cfg, _llama_title(local, cfg, title, turned))


# a norm's table, and attention's that reads it, with the gain (and LayerNorm's bias): (the gain's
# subscript, what is normalised)
_GAINED = {
    "x_norm": ("₁", "x"),
    "mha": ("₁", "x"),
    "x_mid": ("₁", "x"),
    "x_mid_norm": ("₂", "x′"),
    "z": ("_f", "y_last"),
}
_POST_GAINED = {"x_mid": "₁", "y": "₂"}  # post-norm's sums the norm wraps: x′ = LN(…), y = LN(…)


def _with_gain(local: str, cfg, title: str | None) -> str | None:
    """A norm's table as its numbers are: with a learned gain (and bias) they are g ⊙ LN(·) + b, not the
    bare LN(·) the chapter's norm gives (GPT-2's and the Llama family's gains are rarely all ones), and
    attention reads that, as the step's formula writes it."""
    if title is None or not cfg.norm_affine:
        return title
    ln = "RMS" if cfg.norm == "rms" else "LN"
    lhs, _, rest = title.partition(" = ")
    if local in _POST_GAINED and rest.startswith(f"{ln}(") and rest.endswith(")"):  # post-norm: LN(sum)
        which = _POST_GAINED[local]
        return f"{lhs} = g{which} ⊙ {rest}" + ("" if cfg.norm == "rms" else f" + b{which}")
    if local not in _GAINED:
        return title
    which, inner = _GAINED[local]
    norm = f"{ln}({inner})"
    gained = f"g{which} ⊙ {norm}" + ("" if cfg.norm == "rms" else f" + b{which}")
    if title in (norm, f"z = {norm}"):
        return title.replace(norm, gained)
    return title.replace(f"MHA({norm})", f"MHA({gained})")


def _llama_title(local: str, cfg, title: str | None, turned: bool = True) -> str | None:
    """The title as a Llama-family model computes it: RMS(·) for its norms, nothing added to x with
    rotary positions, the gate, up and W_down of SwiGLU, W_U when untied."""
    if cfg.positions in ("rope", "none"):
        if local == "x":
            return "x = E[id]   (no position added)"
        if local == "pe":
            if cfg.positions == "rope":
                return "PE = 0" + ("   (RoPE turns q and k at step 6 instead)" if turned else "   (RoPE off)")
            return "PE = 0"
    if cfg.gated and local in _GATED:
        title = _GATED[local]
    if not cfg.tied and local == "logits":
        title = "ℓ = z W_U"
    if cfg.norm == "rms" and title is not None:
        title = title.replace("LN(", "RMS(")
    return title


_GATED = {
    "gate_pre": "gate_pre = x′_n W_gate",
    "gate": "gate = activation(gate_pre)",
    "up": "up = x′_n W_up",
    "hidden": "hidden = gate ⊙ up",
    "ffn": "FFN = hidden W_down",
}


# The titles the switches change, as (pre-norm?, residual?) make the step compute them.
_SWITCHED = {
    "x_norm": lambda pre, res: "LN(x)" if pre else "x (post-norm: read as it is)",
    "mha": lambda pre, res: f"MHA({'LN(x)' if pre else 'x'}) = [head_1; head_2] W_O",
    "x_mid": lambda pre, res: (
        f"x′ = {'x + ' if res else ''}MHA(LN(x))" if pre else f"x′ = LN({'x + ' if res else ''}MHA(x))"
    ),
    "x_mid_norm": lambda pre, res: "LN(x′)" if pre else "x′ (post-norm: read as it is)",
    "y": lambda pre, res: (
        f"y = {'x′ + ' if res else ''}FFN" if pre else f"y = LN({'x′ + ' if res else ''}FFN)"
    ),
}


# a head's tensors made per key/value head: with fewer of those than query heads, "kv head 1: K"
_PER_KV_HEAD = ("k", "v", "k_pre")


def _head_title(name: str, switches: Switches | None = None, cfg: ModelConfig | None = None) -> str:
    base, _, h = name.rpartition(".")
    grouped = cfg is not None and cfg.n_kv_heads != cfg.n_heads and base in _PER_KV_HEAD
    masked = switches is None or switches.causal_mask
    what = {
        "q": "Q",
        "k": "K",
        "v": "V",
        "scores": "S = QKᵀ/√d_k",
        "attn": "A = softmax(S + M)" if masked else "A = softmax(S)",
        "head": "A V",
        "q_pre": "Q_pre",  # RoPE: the projections before they are turned
        "k_pre": "K_pre",
    }
    return f"{'kv head' if grouped else 'head'} {h}: {what.get(base, base)}" if h.isdigit() else name


def param_table(
    trace: Trace, params, name: str, picks: Picks | None = None, logits: bool = False
) -> list[Table]:
    """A parameter as tables, axes labelled as the app's grids (display_names.param_axes): 3-d
    per-head weights give one table per head. Given picks, a big one is shown in part (report_window;
    logits: E's rows add the most likely tokens, as at the step that shows the logits)."""
    full = names.canonical(name)
    arr = params[full]
    cfg = trace.cfg
    label = names.label(full, cfg.n_blocks)
    corner, rows, cols = param_axes(cfg, full, arr.ndim, arr.shape[-1])
    if names.split(full)[1] == "E":
        return [windowed(f"{label} (vocab × dims)", corner, rows, cols, arr, full, picks, logits_rows=logits)]
    if arr.ndim == 3:  # W_K and W_V: one table per key/value head ("kv head 1" when they are fewer)
        heads = cfg.kv_head_labels() if arr.shape[0] == cfg.n_kv_heads else cfg.head_labels()
        return [
            windowed(f"{label} {head}", corner, rows, cols, part, full, picks)
            for head, part in zip(heads, arr)
        ]
    if arr.ndim == 1:
        return [windowed(label, corner, (label,), cols, arr[None, :], full, picks)]
    return [windowed(label, corner, rows, cols, arr, full, picks)]
