"""`tinytui train CORPUS.txt`: train a model file on plain text, next-token prediction at every position
of every line (tinytui.model.training.corpus), and write the trained model to a new file.

Progress goes to stderr: a line every tenth of the run, or one `\\r` bar kept up to date when stderr is
a terminal. The loss curve, the corpus loss before and after, and the file written go to stdout. The
same corpus, starting model and options give the same file, byte for byte.
"""

from __future__ import annotations

import argparse
import contextlib
import time
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from tinytui.cli import new_command, refusal
from tinytui.cli.new_command import CommandError
from tinytui.model import checks
from tinytui.model.io.document import ModelFile
from tinytui.model.io.field_checks import ModelFileError
from tinytui.model.io.model_file import BINARY_ABOVE, load_default
from tinytui.model.io.presets import resolve
from tinytui.model.io.safe_io import check_can_create, sweep_stale
from tinytui.model.training import seeded_model

if TYPE_CHECKING:  # the trainer is imported when train runs: the parser reads this module for its options
    from tinytui.model.training import corpus

MAX_CORPUS_BYTES = 64 * 2**20
DEFAULT_LR = {"adam": 0.01, "sgd": 0.1}  # every optimizer of model.training.corpus, and its step size
DEFAULT_STEPS = 500
DEFAULT_BATCH = 8
CURVE_WIDTH = 60


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "train",
        help="train a model file on a plain-text corpus (next-token prediction) and write the result",
        description="Train on CORPUS: every line's tokens (split on whitespace), predicting the next "
        "token at every position. Starts from --model (default the chapter's) or --new.",
    )
    p.add_argument("corpus", metavar="CORPUS", help="a text file, one sentence (or any token run) a line")
    # SUPPRESS: `tinytui --model F train …` keeps the --model given before the subcommand
    p.add_argument(
        "--model", metavar="FILE", default=argparse.SUPPRESS, help="start from this model file or preset"
    )
    p.add_argument("--new", action="store_true", help="start from random weights (sizes as tinytui new)")
    p.add_argument(
        "--add-vocab",
        action="store_true",
        help="with --new: add the corpus's tokens that the vocabulary lacks (otherwise they are refused)",
    )
    p.add_argument("--optimizer", choices=tuple(DEFAULT_LR), default="adam", help="default adam")
    p.add_argument(
        "--lr", metavar="RATE", default=argparse.SUPPRESS, help="step size (default 0.01 Adam, 0.1 SGD)"
    )
    p.add_argument("--steps", metavar="N", default=str(DEFAULT_STEPS), help=f"default {DEFAULT_STEPS}")
    p.add_argument(
        "--batch", metavar="N", default=str(DEFAULT_BATCH), help=f"lines per step (default {DEFAULT_BATCH})"
    )
    p.add_argument(
        "--seed", metavar="N", default="0", help="the batch order, and with --new the weights (default 0)"
    )
    new_command.add_size_options(p)
    new_command.add_output_options(p)
    return p


SIZE_OPTIONS = ("d", "heads", "blocks", "ff", "d_head", "ctx", "vocab")


def read_corpus(path: str) -> list[corpus.Line]:
    from tinytui.model.training import corpus

    text = new_command.read_text(path, MAX_CORPUS_BYTES, "", "the corpus")
    try:
        return corpus.read_lines(text, path)
    except ValueError as exc:
        raise CommandError(str(exc)) from None


def _whole(args, name: str, flag: str, high: int, low: int = 1) -> int:
    try:
        return seeded_model.whole(getattr(args, name), name, low, high)
    except checks.Invalid as exc:
        raise CommandError(f"{flag}: {exc}") from None


def starting_model(args: argparse.Namespace, lines: list[corpus.Line], seed: int) -> tuple[ModelFile, str]:
    """The model to train and how to say where it came from."""
    from tinytui.model.io.checkpoint import CheckpointModel, load_model
    from tinytui.model.training import corpus

    given = [f"--{n.replace('_', '-')}" for n in SIZE_OPTIONS if getattr(args, n, None) is not None]
    model_arg = getattr(args, "model", None)
    if not args.new:
        if given:
            raise CommandError(f"{given[0]}: only with --new (a model file has its sizes)")
        if args.add_vocab:
            raise CommandError(
                "--add-vocab: only with --new (a model's embedding has one row per token it knows)"
            )
        model = load_model(resolve(model_arg)) if model_arg else load_default()
        if isinstance(model, CheckpointModel):  # its corpus would need its BPE, not split on spaces
            raise CommandError(
                f"--model: {model_arg} is a GPT-2 checkpoint; tinytui train reads corpora of space-separated "
                "tokens for tinytui's own models (a checkpoint takes single learning steps in the app)"
            )
        return model, f"the model {model.name}"
    if model_arg:
        raise CommandError("--new: give --model or --new, not both")
    s = new_command.sizes_from(args)
    vocab = new_command.read_vocab(getattr(args, "vocab", None))
    if args.add_vocab:
        vocab = vocab + corpus.new_tokens(lines, vocab)
    first = lines[0].tokens[: s.n_ctx + 1]
    prompt = new_command.prompt_from(args) or first[:-1]
    target = getattr(args, "target", None) or first[-1]
    name = args.name if args.name is not None else new_command.default_name(Path(args.output))
    try:
        model = seeded_model.new_model(s, vocab, prompt, target, seed, name)
    except checks.Invalid as exc:
        raise new_command._field(exc) from None
    return model, f"random weights, N(0, 1/fan_in) with zero biases (seed {seed})"


class Progress:
    """Plain lines on a pipe, one `\\r` bar on a terminal."""

    def __init__(self, err: TextIO, steps: int) -> None:
        self.err, self.steps = err, steps
        self.tty = bool(getattr(err, "isatty", lambda: False)())
        self.every = max(1, steps // 10)
        self.last = 0.0

    def __call__(self, step: int, loss: float) -> None:
        if self.tty:
            now = time.monotonic()
            if step != self.steps and now - self.last < 0.1:
                return
            self.last = now
            width = 24
            done = round(width * step / self.steps)
            bar = "#" * done + "-" * (width - done)
            self.err.write(f"\r[{bar}] step {step}/{self.steps}  loss {loss:.4f}")
            if step == self.steps:
                self.err.write("\n")
            self.err.flush()
        elif step % self.every == 0 or step == self.steps:
            print(f"step {step}/{self.steps}  loss {loss:.4f}", file=self.err, flush=True)


def curve(losses: tuple[float, ...], width: int = CURVE_WIDTH) -> str:
    """The batch losses as block characters, each the mean of an equal share of the steps (so the
    noise of single batches is smoothed); lowest ▁, highest █."""
    from tinytui.present.sparkline import BLOCKS

    n = len(losses)
    cells = min(width, n)
    shares = [losses[i * n // cells : (i + 1) * n // cells] for i in range(cells)]
    means = [sum(share) / len(share) for share in shares]
    lo, hi = min(means), max(means)
    if hi == lo:
        return BLOCKS[3] * cells
    top = len(BLOCKS) - 1
    return "".join(BLOCKS[round((v - lo) / (hi - lo) * top)] for v in means)


def writable(path: Path, err: TextIO) -> None:
    """CommandError unless path can be created now (its name fits, its folder takes a file): said
    before training, not after. Temporaries a killed run left beside it are removed and named."""
    for stale in sweep_stale(path.parent):
        print(f"removed {stale}, a temporary file left by a tinytui that was stopped", file=err)
    try:
        check_can_create(path)
    except OSError as exc:
        raise CommandError(f"-o: cannot write {checks.shown(str(path))} ({exc.strerror or exc})") from None


class Stopped(SystemExit):
    """SIGTERM while training or writing: raised where the program is, so a write in progress removes
    its temporary file on the way out (a SIGKILL cannot be caught: the next write sweeps it)."""


def _stop(signum, frame) -> None:
    raise Stopped(128 + signum)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import signal

    previous = None
    with contextlib.suppress(ValueError):  # only the main thread may set a handler
        previous = signal.signal(signal.SIGTERM, _stop)
    try:
        return _run(args, out, err)
    except Stopped as exc:
        print("tinytui: stopped by SIGTERM (no temporary file left behind)", file=err)
        return int(exc.code)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from tinytui.model.training import corpus

    try:
        path = new_command.output_path(args, err=err)  # also sweeps what a killed run left
        writable(path, err)
        if args.name is not None:  # checked again with the model's name after training
            try:
                checks.plain_text(args.name, "--name", 200)
            except checks.Invalid as exc:
                raise CommandError(str(exc)) from None
        lines = read_corpus(args.corpus)
        seed = _whole(args, "seed", "--seed", seeded_model.MAX_SEED, low=0)
        steps = _whole(args, "steps", "--steps", corpus.MAX_STEPS)
        batch = _whole(args, "batch", "--batch", corpus.MAX_BATCH)
        lr_text = getattr(args, "lr", None)
        lr = DEFAULT_LR[args.optimizer] if lr_text is None else _checked(checks.lr, "--lr", lr_text)
        model, start = starting_model(args, lines, seed)
        if model.params.total() > BINARY_ABOVE:  # save() puts the weights in <stem>.safetensors
            writable(path.with_name(path.stem + ".safetensors"), err)
        cfg = model.cfg
        try:
            corpus.check_lines(lines, cfg.vocab, cfg.n_ctx, args.corpus)
        except ValueError as exc:
            hint = "; --new --add-vocab makes a model that knows them" if "vocabulary" in str(exc) else ""
            raise CommandError(f"{exc}{hint}") from None
        prompt, target = model.prompt, model.target
        if getattr(args, "prompt", None) is not None:
            prompt = _checked(checks.prompt, "--prompt", args.prompt.split(), cfg.vocab, cfg.n_ctx)
        if getattr(args, "target", None) is not None:
            target = _checked(checks.target, "--target", args.target, cfg.vocab)
        print(
            f"training {model.params.total():,} parameters on {len(lines)} lines of {args.corpus}: "
            f"{args.optimizer}, lr {lr:g}, {steps} steps of {min(batch, len(lines))} lines "
            "(loss: next-token cross-entropy per token)",
            file=err,
            flush=True,
        )
        try:
            result = corpus.train(
                model.params, lines, steps, lr, args.optimizer, batch, seed, on_step=Progress(err, steps)
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        about = (
            f"Trained by tinytui train on {Path(args.corpus).name} ({len(lines)} lines): {args.optimizer}, "
            f"lr {lr:g}, {steps} steps of {min(batch, len(lines))} lines, seed {seed}, from {start}. "
            f"Next-token loss per token over the corpus {result.loss_before:.4f} → "
            f"{result.loss_after:.4f}."
        )
        # A trained model is a model of its own: named after its file, and its dimensions only numbered
        # (what a starting model's names said of each dimension, training does not keep).
        name = args.name if args.name is not None else new_command.default_name(path)
        try:
            about = checks.plain_text(about, "about", 5000)
            name = checks.plain_text(name, "--name", 200)
        except checks.Invalid as exc:
            raise CommandError(str(exc)) from None
        trained = ModelFile(name, about, seeded_model.with_neutral_dims(result.params), tuple(prompt), target)
        new_command.write(trained, path)
    except (CommandError, ModelFileError) as exc:
        refusal.say(str(exc), err)
        return 2
    except MemoryError:
        refusal.say("the model is too large to train in memory here", err)
        return 2
    losses = result.losses
    print(
        f"loss curve ({steps} steps, batch loss per token): {curve(losses)} "
        f"{losses[0]:.4f} → {losses[-1]:.4f}",
        file=out,
    )
    print(
        "corpus loss (next-token cross-entropy per token): "
        f"{result.loss_before:.4f} → {result.loss_after:.4f}",
        file=out,
    )
    print(new_command.written(path), file=out)
    return 0


def _checked(check, flag: str, *values):
    try:
        return check(*values)
    except ValueError as exc:
        raise CommandError(f"{flag}: {exc}") from None
