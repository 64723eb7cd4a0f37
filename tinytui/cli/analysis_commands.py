"""`tinytui circuits` and `tinytui attribution`: the model side of the gallery, for the terminal and tools.

    tinytui circuits [--json]      every head's QK and OV circuit, token by token (weights only); a
                                   vocabulary too big for V × V tables (GPT-2's), at the prompt's
                                   tokens and the target
    tinytui attribution [--json]   the final logit of the prediction and the target, split into the
                                   parts written into the residual stream at the last position

Both take the run's options (--model, --prompt, --target, --no-mask, --no-pe, --lr), checked by
cli.setup_from, which hands the result in; so this module never imports tinytui.cli.main. In the JSON a block
is numbered from 0 and a head from 1, as in the canonical names ("blocks.0.attn.1").
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np

from tinytui.model.io.field_checks import ModelFileError

if TYPE_CHECKING:
    from tinytui.model.analysis.attribution import Attribution
    from tinytui.model.analysis.circuits import HeadCircuits


def add_parsers(sub, run_options: argparse.ArgumentParser) -> None:
    ci = sub.add_parser(
        "circuits",
        parents=[run_options],
        help="every head's QK and OV circuit, vocabulary × vocabulary (a GPT-2-sized vocabulary: at the "
        "prompt's tokens and the target)",
    )
    ci.add_argument("--json", action="store_true", help="JSON instead of plain text")
    at = sub.add_parser(
        "attribution",
        parents=[run_options],
        help="the final logit split into what each part of the model wrote (direct logit attribution)",
    )
    at.add_argument("--json", action="store_true", help="JSON instead of plain text")


def _where(setup: Any) -> str:
    return setup.model.name


def _finite_or_refuse(what: str, values, setup: Any) -> None:
    """JSON has no NaN or Infinity: a model whose weights overflow is one line, not a traceback."""
    if not np.all(np.isfinite(values)):
        raise ModelFileError(f"{_where(setup)}: {what} overflows to a non-finite number")


# ---- circuits -------------------------------------------------------------------------------------


MAX_CIRCUIT_CELLS = 2**27  # 1 GB of float64: the chapter's models need a few thousand cells


def run_circuits(setup: Any, args: argparse.Namespace, out: TextIO) -> int:
    from tinytui.model.analysis.circuits import circuit_ignores, circuits, circuits_json, ov_formula
    from tinytui.model.switches import run_config

    params = setup.model.params
    cfg = params.cfg
    running = run_config(cfg, setup.state.switches)  # the words name the norm and positions it runs with
    heads, cells = cfg.n_blocks * cfg.n_heads, 2 * cfg.n_blocks * cfg.n_heads * cfg.n_vocab**2
    # GPT-2's whole tables would be terabytes: read them at the prompt's tokens and the target instead
    ids = None if cells <= MAX_CIRCUIT_CELLS else prompt_tokens(setup)
    found = circuits(params, ids)
    for c in found:
        _finite_or_refuse(
            f"the circuits of head {c.head} of block {c.block + 1}", [c.qk.values, c.ov.values], setup
        )
    if args.json:
        out.write(json.dumps(circuits_json(params, ids, running), indent=1, allow_nan=False) + "\n")
        return 0
    if ids is None:
        lines = [
            f"Circuits of {setup.model.name}: read off the weights alone (the prompt and the switches do "
            "not enter them)."
        ]
    else:
        lines = [
            f"Circuits of {setup.model.name}, only at the prompt's tokens and the target ({len(ids)} of "
            f"{cfg.n_vocab:,} tokens; the whole tables of its {heads} heads would take "
            f"{cells * 8 / 2**30:,.0f} GB): each cell is the whole table's, read off the weights alone "
            "(the prompt picks the tokens; it and the switches do not enter the numbers)."
        ]
    ignores = circuit_ignores(running)
    lines += [
        f"QK = E W_Q W_Kᵀ Eᵀ / √d_head: row attends to column. It ignores {ignores['qk']}.",
        f"OV = {ov_formula(cfg)}: attending to the row token pushes each column token's logit. "
        f"It ignores {ignores['ov']}.",
    ]
    if cfg.group_size > 1:
        lines.append(
            f"The {cfg.n_heads} query heads share {cfg.n_kv_heads} key/value "
            f"head{'s' if cfg.n_kv_heads > 1 else ''}: a head's W_K and W_V are those of the key/value head "
            "it reads."
        )
    for c in found:
        lines += ["", *_circuit_tables(c, params.cfg.n_blocks)]
    out.write("\n".join(lines) + "\n")
    return 0


def prompt_tokens(setup: Any) -> tuple[int, ...]:
    """The ids of the prompt's tokens, each once in order, then the target's (if not among them)."""
    cfg, state = setup.model.cfg, setup.state
    return tuple(dict.fromkeys(cfg.token_id(t) for t in (*state.prompt, state.target)))


def _circuit_tables(c: HeadCircuits, n_blocks: int) -> list[str]:
    where = f"head {c.head}" + (f" of block {c.block + 1}" if n_blocks > 1 else "")
    return [
        f"{where}, QK (rows: attending token, columns: attended token)",
        *_table(c.qk.values, c.qk.axes[0].labels),
        "",
        f"{where}, OV (rows: attended token, columns: output token)",
        *_table(c.ov.values, c.ov.axes[0].labels),
    ]


def _table(values: np.ndarray, labels) -> list[str]:
    cells = [[f"{v:.4f}" for v in row] for row in values]
    width = max(len(s) for s in (*labels, *(x for row in cells for x in row)))
    first = max(len(s) for s in labels)
    head = " " * first + "".join(f"  {s:>{width}}" for s in labels)
    return [
        head,
        *(f"{lab:<{first}}" + "".join(f"  {x:>{width}}" for x in row) for lab, row in zip(labels, cells)),
    ]


# ---- attribution ----------------------------------------------------------------------------------


def run_attribution(setup: Any, args: argparse.Namespace, out: TextIO) -> int:
    from tinytui.model.analysis.attribution import attribution

    trace = setup.trace()
    params = setup.model.params
    result = attribution(params, trace)
    for tok, a in result.tokens.items():
        _finite_or_refuse(f"the attribution of {tok!r}", [a.logit, result.scale, *a.parts.values()], setup)
    if args.json:
        out.write(json.dumps(result.to_json(), indent=1, allow_nan=False) + "\n")
        return 0
    out.write(attribution_text(result, trace) + "\n")
    return 0


def attribution_text(result: Attribution, trace) -> str:
    from tinytui.model.analysis.attribution import part_labels

    label = trace.token_labels[result.position]
    # RMSNorm divides by the root mean square and takes no mean away; LayerNorm by the standard deviation
    held = "RMSNorm's root mean square" if trace.cfg.norm == "rms" else "layer norm's scale σ ="
    lines = [
        f"Direct logit attribution at the last position, {label}; the final {held} "
        f"{result.scale:.4f} is held at its value in the run.",
    ]
    if not result.exact:
        lines.append(
            f"Not split into parts under these switches ({trace.switches.describe()}): {result.reason}."
        )
    for tok, a in result.tokens.items():
        roles = [
            r for r, t in (("the prediction", trace.prediction), ("the target", trace.target)) if t == tok
        ]
        lines += ["", f"logit of {tok!r} ({' and '.join(roles) or 'asked for'}): {a.logit:.4f}"]
        if not a.parts:
            continue
        names = part_labels(a.parts, trace)
        width = max(len(n) for n in (*names, "sum"))
        lines += [f"  {n:<{width}}  {v:>8.4f}" for n, v in zip(names, a.parts.values())]
        total = f"{sum(a.parts.values()):.4f}"
        lines.append(f"  {'sum':<{width}}  {total:>8}")
        shown = f"{sum(float(f'{v:.4f}') for v in a.parts.values()):.4f}"  # as a reader adds the lines up
        if shown != total:
            lines.append(f"  (the parts as printed add to {shown}: each is rounded to four decimals)")
    return "\n".join(lines)
