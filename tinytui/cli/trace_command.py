"""`tinytui trace --json [--only NAME,…] [--list]`: every tensor, gradient and weight of a run as one JSON
document, or only those named; --list names them all with their shapes, one a line.

A whole trace of a big model is refused in one line that says how big it would be and suggests --only:
GPT-2 small's would be ~250 million numbers (its weights, their gradients, every intermediate), some
5 GB of JSON that took 21 GB of memory before it was stopped, unwritten, after five minutes. The
chapter's models, the presets and the tiny checkpoint are far below the limit (MAX_NUMBERS).

cli.setup_from checks the run's options and hands the result in, so this module never imports
tinytui.cli.main; a bad --only is one CommandError line.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from tinytui.cli.new_command import CommandError
from tinytui.lesson.texts.display_names import canonical_name, display
from tinytui.model import checks
from tinytui.model.names import canonical
from tinytui.model.names import grad as grad_name
from tinytui.model.trace import Trace

# A whole trace of at most this many numbers is written (a few hundred MB of JSON at most); a bigger
# one is refused, pointing to --only. GPT-2 small's is ~250 million; the largest preset's under a million.
MAX_NUMBERS = 2**24
HELP = (
    "every intermediate tensor, gradient and weight as JSON; a model too big for that (a whole GPT-2 "
    "trace would be ~5 GB) is refused in one line: name what you want with --only, see --list"
)


def add_parser(sub, run_options: argparse.ArgumentParser) -> None:
    tr = sub.add_parser("trace", parents=[run_options], help=HELP, description=HELP + ".")
    tr.add_argument("--json", action="store_true", help="JSON output (the only format; accepted for clarity)")
    tr.add_argument(
        "--only",
        metavar="NAME,…",
        help="only these tensors, gradients and weights, canonically or as the screen names them, e.g. "
        "blocks.0.attn.1,logits,grad.E or A_1,ℓ,∂L/∂E (at any size)",
    )
    tr.add_argument(
        "--list",
        action="store_true",
        help="list the names --only takes, with their shapes and the screen's names, as plain text",
    )


def numbers(trace: Trace, params) -> int:
    """How many numbers a whole trace writes: every tensor, a gradient of each weight and (about) of
    each tensor, and the weights (nothing is computed to count them)."""
    return sum(int(t.size) for t in trace.values()) * 2 + params.total() * 2


def names_text(setup: Any) -> str:
    """--list: every name --only takes, its shape, its kind and the name the screen gives it (A_2, x′,
    ∂L/∂W_O), one a line, in the JSON's order."""
    from tinytui.model.backward.gradients import Gradients  # the backward: only when trace runs

    trace, params = setup.trace(), setup.state.params
    rows = [(name, trace[name].shape, "tensor") for name in trace]
    shapes = {**{n: trace[n].shape for n in trace}, **{n: params[n].shape for n in params}}
    for name in Gradients(params, trace):  # lazy: its names, nothing computed
        source = "E" if name.startswith("grad.E.") else name.removeprefix("grad.")
        rows.append((name, shapes[source], "gradient"))
    rows += [(name, params[name].shape, "weight") for name in params]
    wide = max(len(n) for n, _, _ in rows)
    n_blocks = trace.cfg.n_blocks
    lines = [
        f"{n:<{wide}}  {' × '.join(map(str, shape)) or 'scalar':>14}  {kind:<8}  {display(n, n_blocks)}"
        for n, shape, kind in rows
    ]
    return "\n".join(lines) + "\n"


def document(setup: Any, only_text: str | None, where: str) -> dict[str, Any]:
    """The JSON document of the run: the trace's fields, its tensors and gradients, the weights; with
    only_text, just the names it lists, in its order (gradients computed only if one is asked for)."""
    trace = setup.trace()
    params = setup.state.params
    only = None if only_text is None else only_names(only_text, trace, params)
    if only is None and (n := numbers(trace, params)) > MAX_NUMBERS:
        raise CommandError(
            f"{where}: a whole trace of it is about {n / 1e6:,.0f} million numbers "
            f"(~{n * 20 / 2**30:,.0f} GB of JSON); ask for a few with --only NAME,… "
            "(e.g. --only logits,probs; --list names them all)"
        )
    if only is None:
        doc = {"model": setup.model.name, **trace.to_json()}
    else:  # the trace's own fields, and of its tensors only those asked for
        doc = {
            "model": setup.model.name,
            "prompt": list(trace.prompt),
            "target": trace.target,
            "switches": trace.switches.to_dict(),
            "lr": trace.lr,
            "prediction": trace.prediction,
            "tensors": {n: trace.tensor(n).to_json() for n in only if n in trace.tensors},
        }
    # grad.<param> and grad.<tensor> (model/backward/gradients.py names them) sit beside the forward tensors
    if only is None or any(name.startswith("grad.") for name in only):
        from tinytui.model.backward.gradients import Gradients, gradients

        # with --only, a lazy Gradients computes only the parts the names asked for need
        grads = gradients(setup.model.params, trace) if only is None else Gradients(setup.model.params, trace)
        asked = [n for n in grads if only is None or n in only]
        bad = [name for name in asked if not np.all(np.isfinite(grads.tensor(name).values))]
        if bad:  # JSON has no NaN or Infinity: refuse rather than write what other tools cannot read
            raise CommandError(f"{where}: its gradient {bad[0]} overflows to a non-finite number")
        doc["tensors"].update({name: grads.tensor(name).to_json() for name in asked})
    doc["weights"] = weights_json(params, trace, only)
    if only is not None:  # in the order asked
        doc["tensors"] = {name: doc["tensors"][name] for name in only if name in doc["tensors"]}
    return doc


def only_names(text: str, trace: Trace, params) -> list[str]:
    """--only's names, each a tensor of the trace, a gradient or a weight: as the screen shows it (A_2,
    x′ (block 2), ∂L/∂W_O) or in any spelling names.canonical reads (attn.2 is blocks.0.attn.2); an
    unknown one is a CommandError naming it."""
    known_grads = {grad_name(n) for n in (*trace.tensors, *params)} | {"grad.E.lookup", "grad.E.unembed"}
    names: list[str] = []
    for raw in text.split(","):
        name = raw.strip()
        if not name:
            continue
        spellings = (name, canonical(name), canonical(canonical_name(name)))
        found = next(
            (n for n in spellings if n in trace.tensors or n in params or n in known_grads),
            None,
        )
        if found is None:
            raise CommandError(
                f"--only: {checks.shown(name)} is not a tensor, gradient or weight of this model "
                f"(e.g. x, {canonical('attn.1')} or A_1, logits, grad.logits, E; "
                "`tinytui trace --list` names them all)"
            )
        if found not in names:
            names.append(found)
    if not names:
        raise CommandError("--only: name at least one tensor, e.g. --only logits,loss")
    return names


def weights_json(params, trace: Trace, only: list[str] | None = None) -> dict:
    """Every parameter's values (or only those named) with the axis labels the app's grids use
    (display_names.param_axes): {"blocks.0.W_O": {"label": "W_O", "shape": [4, 4], "axes": [["h1.k0", …],
    ["thing", …]], "values": [[…], …]}}: one list of labels per dimension of values (a per-head weight's
    first is ["h1", "h2"]). Floats as stored, so the arithmetic can be redone by hand."""
    from tinytui.lesson.texts.display_names import param_axes
    from tinytui.model.names import label

    cfg = trace.cfg
    out = {}
    for name, arr in params.items():
        if only is not None and name not in only:
            continue
        _, rows, cols = param_axes(cfg, name, arr.ndim, arr.shape[-1])
        axes = [list(cols)] if arr.ndim == 1 else [list(rows), list(cols)]
        if arr.ndim == 3:
            axes.insert(0, [f"h{h + 1}" for h in range(arr.shape[0])])
        out[name] = {"label": label(name, cfg.n_blocks), "shape": list(arr.shape), "axes": axes}
        out[name]["values"] = arr.tolist()
    return out
