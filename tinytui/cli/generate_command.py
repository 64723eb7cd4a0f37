"""`tinytui generate --tokens N [--temperature T] [--top-k K] [--top-p P] [--seed S] [--json]`: the
prompt continued one token at a time (tinytui.model.generation), with each new token's probability and
the five most likely, or as JSON for tools.

Temperature 0 (the default) is greedy. The draw for the token at position p is the p-th number of
Generator(PCG64(seed)), so the same options give the same tokens on every machine. Takes the run's
options (--model, --prompt, --target, --no-mask, --no-pe, --lr), checked by cli.run_setup.setup_from,
which hands the result in; a bad option here is one CommandError line. A GPT-2 checkpoint's new pieces
are shown as vocab.json spells them and the continuation as text, through its own BPE.
"""

from __future__ import annotations

import argparse
import json
import textwrap
from dataclasses import asdict
from typing import TYPE_CHECKING, Any, TextIO

from tinytui.cli.new_command import CommandError
from tinytui.lesson.texts.wording import in_words
from tinytui.model.generation import kv_cache, sampling
from tinytui.model.generation.continuation import MAX_TOKENS, Continuation, generate
from tinytui.report.pick_ties import pick_tie
from tinytui.report.print_window import ranked, tie_legend

if TYPE_CHECKING:
    from tinytui.cli.run_setup import Setup

HELP = "continue the prompt one token at a time: greedy, or sampled with a temperature, top-k and top-p"
TOP = 5  # the most likely tokens shown beside each new one
TOKEN_WIDTH = 14


def add_parser(sub, run_options: argparse.ArgumentParser) -> None:
    ge = sub.add_parser("generate", parents=[run_options], help=HELP, description=HELP + ".")
    ge.add_argument("--tokens", metavar="N", required=True, help=f"how many tokens to add (1–{MAX_TOKENS})")
    ge.add_argument("--temperature", metavar="T", default="0", help="≥ 0; 0 (the default) is greedy")
    ge.add_argument("--top-k", metavar="K", help="draw only from the K most likely tokens")
    ge.add_argument("--top-p", metavar="P", help="draw only from the likeliest tokens whose total reaches P")
    ge.add_argument("--seed", metavar="S", default="0", help="the generator's seed (default 0)")
    ge.add_argument("--json", action="store_true", help="JSON: the new tokens, and each one's distribution")


def _checked(check, *values):
    try:
        return check(*values)
    except ValueError as exc:
        raise CommandError(str(exc)) from None


def options(args: argparse.Namespace, n_vocab: int) -> tuple[int, sampling.Sampling]:
    """--tokens and the sampling options, each checked; CommandError (one line) for the first bad one."""
    text = str(args.tokens).strip()
    if not text.isdigit() or len(text) > 6 or not 1 <= int(text) <= MAX_TOKENS:
        raise CommandError(f"--tokens {text!r}: ask for a whole number of tokens from 1 to {MAX_TOKENS}")
    n = int(text)
    top_p = "1" if args.top_p is None else args.top_p
    chosen = _checked(
        lambda *v: sampling.checked(*v, n_vocab=n_vocab), args.temperature, args.top_k, top_p, args.seed
    )
    if chosen.greedy and (args.top_k is not None or args.top_p is not None):
        raise CommandError(
            "--top-k and --top-p shape a random draw: give a --temperature above 0 with them "
            "(0, the default, is greedy)"
        )
    return n, chosen


def run(setup: Setup, args: argparse.Namespace, out: TextIO) -> int:
    s = setup.state
    cfg = s.params.cfg
    n, chosen = options(args, cfg.n_vocab)
    found = generate(s.params, s.prompt, s.target, s.switches, n, chosen)
    if args.json:
        out.write(json.dumps(document(setup, found), indent=1, ensure_ascii=False, allow_nan=False) + "\n")
        return 0
    out.write("\n".join(text_lines(setup, found)) + "\n")
    return 0


def document(setup: Setup, found: Continuation) -> dict[str, Any]:
    """The JSON: the new tokens in order, and per token the distribution drawn from (after temperature,
    top-k and top-p, vocabulary order), the logits before them and the uniform number used (null when
    greedy); the prompt, the settings, whether the KV cache was used and why it stopped early (or null)."""
    from tinytui.model.io.checkpoint import CheckpointModel

    cfg = setup.state.params.cfg
    s = found.picks[0].sampling if found.picks else None
    doc: dict[str, Any] = {"prompt": list(found.prompt), "tokens": list(found.tokens)}
    if isinstance(setup.model, CheckpointModel) and setup.model.tokenizer is not None:
        doc["text"] = setup.model.tokenizer.text(list(found.tokens))
    doc["steps"] = [
        {
            "token": cfg.vocab[p.token],
            "id": p.token,
            "position": p.position,
            "probs": [float(v) for v in p.probs],
            "logits": [float(v) for v in p.logits],
            "draw": p.draw,
            "tie": tie.said if (tie := pick_tie(p, cfg.vocab)) else None,  # what decided it, if not p
        }
        for p in found.picks
    ]
    if s is not None:
        doc["sampling"] = asdict(s)
    doc["kv_cache"] = found.cached and len(found.picks) > 1  # a pass after the prompt's own run reused rows
    doc["stopped"] = found.stopped
    return doc


def text_lines(setup: Setup, found: Continuation) -> list[str]:
    from tinytui.model.io.checkpoint import CheckpointModel

    cfg, state = setup.state.params.cfg, setup.state
    s = found.picks[0].sampling if found.picks else sampling.Sampling()
    model = setup.model
    lines = [
        f"{len(found.tokens)} new token{'s' if len(found.tokens) != 1 else ''} · {s.describe()} · "
        f"{model.name} · {state.switches.describe()}"
    ]
    if len(found.picks) < 2:  # no pass after the prompt's own run: there was nothing to reuse rows in
        lines.append(
            "KV cache: not needed: no new token fits in the context."
            if not found.picks
            else "KV cache: not needed: the one new token is read off the prompt's own run."
        )
    elif not found.cached:
        lines += ["KV cache: not used;", f"{kv_cache.NOT_REUSABLE}."]
    else:
        reused = sum(p.position - 1 for p in found.picks[1:])  # the pass before each pick after the first
        lines.append("KV cache: each new position computes its own row of Q, K and V in every block and head")
        per = "head" if cfg.n_kv_heads == cfg.n_heads else "key/value head"
        lines.append(
            f"and reuses the K and V rows of the positions before it ({reused} rows of each, per {per})."
        )
        if shared := kv_cache.saving(cfg):
            lines.append(f"It holds {shared}.")
    lines.append("")
    if isinstance(model, CheckpointModel) and model.tokenizer is not None:
        lines.append(f"prompt  {_visible(model.tokenizer.text(list(found.prompt)))}")
        lines.append(f"new     {_visible(model.tokenizer.text(list(found.tokens)))}")
    else:
        lines.append(f"prompt  {' '.join(found.prompt)}")
        lines.append(f"new     {' '.join(found.tokens)}")
    if found.picks:
        lines.append("")
        drawn = not s.greedy
        head = f"{'pos':>4}  {'token':<{TOKEN_WIDTH}} {'p':>7}"
        if drawn:
            head += f"  {'p drawn':>7}  {'draw':>6}"
        shown = min(TOP, cfg.n_vocab)  # a vocabulary of fewer tokens shows them all
        lines.append(f"{head}  {in_words(shown)} most likely (the model's p)")
        lists, decided = [], []
        for p in found.picks:
            row = f"{p.position:>4}  {_cut(cfg.vocab[p.token]):<{TOKEN_WIDTH}} {p.before[p.token]:>7.4f}"
            if drawn:
                row += f"  {p.probs[p.token]:>7.4f}  {p.draw:>6.4f}"
            listed = ranked(p.before, TOP)
            lists.append(listed)
            top = " · ".join(f"{_cut(cfg.vocab[t])} {p.before[t]:.4f}" for t in listed.ids)
            lines.append(f"{row}  {top}")
            if listed.cut_a_tie:  # under the list: a row is as wide as 100 columns hold already
                lines.append(" " * (len(row) + 2) + listed.note(cfg.vocab))
            if tie := pick_tie(p, cfg.vocab):
                decided.append(f"pos {p.position}: {tie.said}")
        if legend := tie_legend(lists):
            lines += ["", *textwrap.wrap(legend, 100)]
        if decided:
            lines += ["", *(wrapped for line in decided for wrapped in textwrap.wrap(line, 100))]
    if found.stopped:
        lines += ["", found.stopped]
    return lines


def _cut(token: str) -> str:
    token = _visible(token)
    return token if len(token) <= TOKEN_WIDTH else token[: TOKEN_WIDTH - 1] + "…"


def _visible(text: str) -> str:
    """Text on one line: newlines, tabs and other control characters written as escapes."""
    return "".join(c if c.isprintable() or c == " " else c.encode("unicode_escape").decode() for c in text)
