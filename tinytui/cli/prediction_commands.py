"""`tinytui lens` and `tinytui patch`: why this prediction, read at every point of the stream and by patching.

    tinytui lens [--json]                          the next-token distribution read off the residual
                                                   stream at the last position, before each block, after
                                                   its attention and after it (the logit lens)
    tinytui patch --corrupt TEXT --foil TOKEN      the clean run patched into a corrupted prompt's, one
                  [--json]                         piece at a time: logit(target) − logit(foil)

Both take the run's options (--model, --prompt, --target, --no-mask, --no-pe), checked by
cli.setup_from, which hands the result in. Blocks are numbered from 1 here, as on screen.
"""

from __future__ import annotations

import argparse
import json
import textwrap
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np

from tinytui.cli.run_setup import UsageError
from tinytui.model import checks
from tinytui.model.io.field_checks import ModelFileError

if TYPE_CHECKING:
    from tinytui.model.analysis.lens import LensPoint
    from tinytui.model.analysis.patching import Patching

TOP = 5


def add_parsers(sub, run_options: argparse.ArgumentParser) -> None:
    lens = sub.add_parser(
        "lens",
        parents=[run_options],
        help="the logit lens: what the model would predict from the stream before each block, after its "
        "attention and after it (the last is the prediction itself)",
    )
    lens.add_argument("--json", action="store_true", help="JSON instead of plain text")
    pa = sub.add_parser(
        "patch",
        parents=[run_options],
        help="activation patching: the clean prompt's run written into a corrupted prompt's, one block "
        "input at one position or one head at a time, read as logit(target) − logit(foil)",
    )
    pa.add_argument(
        "--corrupt", required=True, metavar="TEXT", help="the corrupted prompt, as long as the clean one"
    )
    pa.add_argument("--foil", required=True, metavar="TOKEN", help="the token the target is compared with")
    pa.add_argument("--json", action="store_true", help="JSON instead of plain text")


# ---- lens ----------------------------------------------------------------------------------------


def run_lens(setup: Any, args: argparse.Namespace, out: TextIO) -> int:
    from tinytui.model.analysis.lens import logit_lens

    trace = setup.trace()
    points = logit_lens(trace, setup.state.params)
    for p in points:
        if not np.all(np.isfinite(p.probs)):
            raise ModelFileError(f"{setup.model.name}: the lens {p.where} overflows to a non-finite number")
    vocab = trace.cfg.vocab
    if args.json:
        document = {
            "prompt": list(trace.prompt),
            "target": trace.target,
            "prediction": trace.prediction,
            "vocab": list(vocab),
            "points": [_point_json(p, vocab) for p in points],
        }
        out.write(json.dumps(document, allow_nan=False) + "\n")
        return 0
    out.write(lens_text(points, trace) + "\n")
    return 0


def _point_json(p: LensPoint, vocab) -> dict:
    from tinytui.report.print_window import ranked  # the app's one rule for a list of the likeliest

    listed = ranked(p.probs, TOP)
    return {
        "block": p.block,
        "at": p.at,
        "stream": p.stream,
        "probs": [float(v) for v in p.probs],
        "top": [{"token": vocab[i], "p": float(p.probs[i])} for i in listed.ids],
        # left out of "top" though they read as likely as its last: exactly, or to 4 decimals only
        "tied_with_last": [vocab[i] for i in listed.tied],
        "printed_as_last": [vocab[i] for i in listed.alike],
    }


def lens_text(points: list[LensPoint], trace) -> str:
    from tinytui.report.print_window import quoted_names, ranked, tie_legend  # one rule for the likeliest

    cfg = trace.cfg  # as the run has it: the norm switch may run RMSNorm for the model's LayerNorm
    vocab, target = cfg.vocab, trace.target
    t = cfg.token_id(target)
    where = [p.where for p in points]
    width = max(len(w) for w in (*where, "read"))
    head = f"p({target})"
    norm = "RMSNorm" if cfg.norm == "rms" else "LayerNorm"
    out = "the tied unembedding Eᵀ" if cfg.tied else "the model's own unembedding W_U"
    first = ranked(points[-1].probs, 1)  # the prediction: a tie for it is decided by the lower id
    tie = (
        f" (it ties {quoted_names(first.tied, vocab)}: of equal ones the lower id is taken)"
        if first.tied
        else ""
    )
    lines = [
        *wrap(
            f"The logit lens at the last position, {trace.token_labels[-1]}: each row is what the model "
            f"would predict if the residual stream stopped there (the final {norm} and {out} applied to "
            f"it, then softmax). The last row is the model's own prediction, {trace.prediction!r}{tie}."
        ),
        "",
        f"{'read':<{width}}  {head:>7}  likeliest {TOP}",
    ]
    lists = [ranked(p.probs, TOP) for p in points]
    for w, p, listed in zip(where, points, lists):
        top = ", ".join(f"{vocab[i]} {p.probs[i]:.4f}" for i in listed.ids)
        row = f"{w:<{width}}  {p.probs[t]:>{max(7, len(head))}.4f}  "
        lines.append(row + top)
        if listed.cut_a_tie:  # under the list, as `tinytui generate` says it
            lines.append(" " * len(row) + listed.note(vocab))
    if legend := tie_legend(lists):
        lines += ["", *wrap(legend)]
    return "\n".join(lines)


def wrap(text: str) -> list[str]:
    return textwrap.wrap(text, 100)


# ---- patch ---------------------------------------------------------------------------------------


def corrupt_prompt(setup: Any, text: str) -> tuple[str, ...]:
    """--corrupt read as --prompt is: the checkpoint's own pieces, or tokens of the vocabulary."""
    from tinytui.model.io.checkpoint import CheckpointModel

    model, cfg = setup.model, setup.model.cfg
    try:
        if isinstance(model, CheckpointModel):
            return tuple(model.prompt_pieces(text))
        return checks.prompt(text.split(), cfg.vocab, cfg.n_ctx)
    except ValueError as exc:
        raise UsageError(f"--corrupt: {exc}") from None


def foil_token(setup: Any, token: str) -> str:
    from tinytui.model.io.checkpoint import CheckpointModel

    model, cfg = setup.model, setup.model.cfg
    try:
        if isinstance(model, CheckpointModel):
            return model.target_piece(token)
        return checks.target(token, cfg.vocab)
    except ValueError as exc:
        from tinytui.session.second_runs import foil_words  # with the patching: for a bad --foil only

        raise UsageError(f"--foil: {foil_words(exc)}") from None


def run_patch(setup: Any, args: argparse.Namespace, out: TextIO) -> int:
    from tinytui.model.analysis.patching import patch
    from tinytui.session.second_runs import counted

    state = setup.state
    corrupt = corrupt_prompt(setup, args.corrupt)
    foil = foil_token(setup, args.foil)
    if len(corrupt) != len(state.prompt):
        raise UsageError(
            f"--corrupt: {counted(len(corrupt))}, and the prompt has {len(state.prompt)}: patching puts "
            "position p of one run into position p of the other, so both need the same length"
        )
    if foil == state.target:
        raise UsageError(f"--foil: {foil!r} is the target itself; the metric compares two tokens")
    result = patch(state.params, state.prompt, corrupt, state.target, foil, state.switches)
    values = [result.clean, result.corrupt, result.resid_pre, result.heads]
    if not all(np.all(np.isfinite(v)) for v in values):
        raise ModelFileError(f"{setup.model.name}: a patched run overflows to a non-finite number")
    if args.json:
        document = {
            "prompt": list(state.prompt),
            "corrupt_prompt": list(corrupt),
            "target": state.target,
            "foil": foil,
            "metric": "logit(target) - logit(foil) at the last position",
            "clean": result.clean,
            "corrupt": result.corrupt,
            "resid_pre": result.resid_pre.tolist(),
            "heads": result.heads.tolist(),
        }
        out.write(json.dumps(document, allow_nan=False) + "\n")
        return 0
    out.write(patch_text(result, state.prompt, corrupt, state.params.cfg.n_kv_heads) + "\n")
    return 0


def patch_text(result: Patching, clean: tuple[str, ...], corrupt: tuple[str, ...], kv_heads: int = 0) -> str:
    """The patching as text; kv_heads: the model's key/value heads, when fewer than its query heads."""
    t, f = result.target, result.foil
    lines = [
        f"Metric: logit({t}) − logit({f}) at the last position.",
        f"  clean     {' '.join(clean)!r}: {result.clean:+.4f}",
        f"  corrupted {' '.join(corrupt)!r}: {result.corrupt:+.4f}",
        *wrap(
            "Each value below is the metric when one piece of the clean run replaces the corrupted run's; "
            "in brackets, the share of the corrupted → clean change it brings back (1.00: all of it). A "
            "position shows clean / corrupted where the prompts differ."
        ),
        "",
        "Block input (the residual stream entering the block), one position at a time:",
    ]
    labels = [f"{p}:{c}" if c == k else f"{p}:{c} / {k}" for p, (c, k) in enumerate(zip(clean, corrupt))]
    width = max(len(s) for s in labels)
    for b, row in enumerate(result.resid_pre):
        lines.append(f"  block {b + 1}")
        lines += [f"    {lab:<{width}}  {v:+.4f}  ({_share(result, v)})" for lab, v in zip(labels, row)]
    lines += ["", "Each head's output (A·V, before W_O), at every position:"]
    n_heads = result.heads.shape[1]
    if 0 < kv_heads < n_heads:  # grouped-query attention: K and V are shared, the output is not
        lines += wrap(
            f"{n_heads} query heads read {kv_heads} key/value heads: one query head's output is patched, "
            "and the others on its key/value head still read the corrupted run's K and V."
        )
    for b, row in enumerate(result.heads):
        cells = "  ".join(f"head {h + 1} {v:+.4f} ({_share(result, v)})" for h, v in enumerate(row))
        lines.append(f"  block {b + 1}: {cells}")
    return "\n".join(lines)


def _share(result: Patching, value: float) -> str:
    """The share, from the unrounded metrics; where the four-decimal numbers printed give another (a gap
    of a few ten-thousandths), or show no gap, it says so."""
    share = result.restored(value)
    if np.isnan(share):
        return "no gap"
    said = f"{round(share, 2) + 0.0:.2f}"  # + 0.0: no "-0.00"
    clean, corrupt, shown = (round(v, 4) for v in (result.clean, result.corrupt, value))
    if clean == corrupt:
        return f"{said}, of a gap four decimals do not show"
    given = f"{round((shown - corrupt) / (clean - corrupt), 2) + 0.0:.2f}"
    return said if given == said else f"{said}; these four-decimal numbers give {given}"
