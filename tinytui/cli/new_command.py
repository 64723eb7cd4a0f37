"""`tinytui new`: write a model file with seeded random weights (tinytui.model.training.seeded_model says how
they are drawn) and a vocabulary from a word list or the chapter's eight tokens.

Every bad argument is one line, `tinytui: error: …`, exit status 2, and nothing is written. The output
is never overwritten and never written through a symbolic link. `train --new` reuses these options.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TextIO

from tinytui.cli import refusal
from tinytui.cli.option_types import file_name
from tinytui.lesson.texts.wording import kv_sharing
from tinytui.model import architectures, checks
from tinytui.model.io.document import ModelFile
from tinytui.model.io.field_checks import ModelFileError, look_alike
from tinytui.model.io.model_file import save, sweep_half, weights_written_for
from tinytui.model.io.safe_io import TextFileError, read_utf8, sweep_stale
from tinytui.model.params import Params
from tinytui.model.training import seeded_model

MAX_VOCAB_BYTES = 16 * 2**20  # 100,000 tokens of up to 100 characters fit with room to spare

# the option that carries each field, for messages
FLAGS = {
    "d_model": "--d",
    "n_heads": "--heads",
    "d_head": "--d-head",
    "d_ff": "--ff",
    "n_blocks": "--blocks",
    "n_ctx": "--ctx",
    "seed": "--seed",
    "vocab": "--vocab",
    "prompt": "--prompt",
    "target": "--target",
    "name": "--name",
    "about": "--name",
    "sizes": "",
}
# the chapter's shape, used when a size is not given
DEFAULT_SIZES = {"d": 4, "heads": 2, "blocks": 1, "ff": 8, "ctx": seeded_model.DEFAULT_N_CTX}


class CommandError(Exception):
    """One line for the user after `tinytui: error: `; exit status 2."""


def add_size_options(p: argparse.ArgumentParser) -> None:
    """--d, --heads, --blocks, --ff, --d-head, --ctx, --vocab (text, checked by
    tinytui.model.training.seeded_model, so a non-integer is one line like every other refusal). Unset
    options are None."""
    g = p.add_argument_group("the model's size (default: the chapter's, d 4, 2 heads, 1 block, ff 8)")
    g.add_argument("--d", metavar="N", help="d_model, the width of the residual stream")
    g.add_argument("--heads", metavar="N", help="attention heads per block")
    g.add_argument("--blocks", metavar="N", help="transformer blocks")
    g.add_argument("--ff", metavar="N", help="d_ff, the feed-forward hidden width")
    g.add_argument("--d-head", metavar="N", help="each head's width (default d / heads)")
    g.add_argument(
        "--ctx", metavar="N", help=f"n_ctx, the longest prompt (default {seeded_model.DEFAULT_N_CTX})"
    )
    g.add_argument(
        "--vocab", metavar="FILE", help="a word list, one token per line (default: the chapter's 8 tokens)"
    )


def add_output_options(p: argparse.ArgumentParser, name_default: str = "the output file's stem") -> None:
    # SUPPRESS: `tinytui --prompt … new` keeps the prompt given before the subcommand
    p.add_argument("--prompt", metavar="TEXT", default=argparse.SUPPRESS, help="the file's prompt")
    p.add_argument("--target", metavar="TOKEN", default=argparse.SUPPRESS, help="the file's target")
    p.add_argument("--name", metavar="TEXT", help=f"the model's name (default: {name_default})")
    p.add_argument(
        "-o", "--output", metavar="FILE", type=file_name, help="the model file to write (never overwritten)"
    )


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "new",
        help="write a model file with seeded random weights, of any size",
        description="Write a model file with random weights: N(0, 1/fan_in), zero biases, drawn from "
        "--seed, so the same arguments give the same file, byte for byte.",
    )
    add_size_options(p)
    p.add_argument(
        "--arch",
        choices=architectures.ARCHES,
        default="chapter",
        help="the family: the chapter's (default), GPT-2's (learned positions, norms with gain and bias, "
        "attention biases, GELU) or Llama's (RMSNorm, rotary positions, shared key/value heads, SwiGLU)",
    )
    p.add_argument("--kv-heads", metavar="N", help="--arch llama: key/value heads (default heads / 2)")
    p.add_argument("--seed", metavar="N", default="0", help="the random seed (default 0)")
    add_output_options(p)
    return p


def _field(exc: checks.Invalid) -> CommandError:
    if exc.where == "divisible":
        what = str(exc).removeprefix("d_model ").removesuffix(" (give d_head)")
        return CommandError(f"--d: {what}; give --d-head to choose each head's width")
    flag = FLAGS.get(exc.where, exc.where)
    return CommandError(f"{flag}: {exc}" if flag else str(exc))


def sizes_from(args: argparse.Namespace) -> seeded_model.Sizes:
    def given(name: str):
        value = getattr(args, name, None)
        return DEFAULT_SIZES[name] if value is None and name in DEFAULT_SIZES else value

    try:
        return seeded_model.sizes(
            given("d"),
            given("heads"),
            given("ff"),
            given("blocks"),
            getattr(args, "d_head", None),
            given("ctx"),
        )
    except checks.Invalid as exc:
        raise _field(exc) from None


def read_text(path: str, limit: int, where: str, what: str) -> str:
    """A regular file of at most limit bytes as UTF-8 text, or one CommandError line starting with where."""
    try:
        return read_utf8(path, limit)
    except TextFileError as exc:
        why = exc.reason if exc.byte is not None else f"cannot read {what} ({exc.reason})"
        raise CommandError(f"{where}{path}: {why}") from None


def read_vocab(path: str | None) -> tuple[str, ...]:
    if path is None:
        return seeded_model.DEFAULT_VOCAB
    text = read_text(path, MAX_VOCAB_BYTES, "--vocab: ", "the file")
    try:
        vocab = seeded_model.parse_vocab(text, path)
    except ValueError as exc:
        raise CommandError(f"--vocab: {exc}") from None
    if pair := look_alike(vocab):  # one line a token: the line is its position, counted from 1
        i, j = pair
        raise CommandError(
            f"--vocab: {path}: line {j + 1}: {checks.shown(vocab[j])} looks the same as line {i + 1}'s "
            f"{checks.shown(vocab[i])}: they differ only by invisible characters"
        )
    return vocab


def output_path(
    args: argparse.Namespace,
    what: str = "model file",
    example: str = "my.model.json",
    err: TextIO | None = None,
) -> Path:
    """Where to write: refused if anything is there (a file, a folder, a link, even a dangling one), or
    if its folder does not exist. (A big model's weights go beside it under a name of their own content,
    model_file.weights_name, so no other file there is touched.) What a killed write of a model file
    left there is removed first (sweep_leftovers), so it never blocks the next run."""
    text = getattr(args, "output", None)
    if not text:
        raise CommandError(f"-o: name the {what} to write, e.g. -o {example}")
    path = Path(text)
    if text.endswith(("/", os.sep)) or path.name in ("", ".", "..") or os.path.isdir(text):
        raise CommandError(f"-o: {checks.shown(text)} is a folder; name a file in it, e.g. -o {example}")
    try:
        if what == "model file":
            sweep_leftovers(path, err)
        if os.path.islink(path):
            raise CommandError(f"-o: {path} is a symbolic link; tinytui does not write through links")
        if os.path.lexists(path):
            raise CommandError(f"-o: {path} exists; tinytui never overwrites it (choose another name)")
        if not path.parent.resolve().is_dir():
            raise CommandError(f"-o: there is no folder {path.parent}")
    except (OSError, ValueError) as exc:  # a name too long, a NUL byte
        why = getattr(exc, "strerror", None) or exc
        raise CommandError(f"-o: cannot use {checks.shown(text)} ({why})") from None
    return path


def sweep_leftovers(path: Path, err: TextIO | None) -> None:
    """Remove, and name on err, what a killed tinytui left beside path: its hidden temporaries (their
    process gone) and the weights a save stopped between its two files left without path."""
    for stale in sweep_stale(path.parent):
        if err is not None:
            print(f"removed {stale}, a temporary file left by a tinytui that was stopped", file=err)
    for half in sweep_half(path):
        if err is not None:
            print(f"removed {half}, the weights of a {path.name} whose writing was stopped", file=err)


def default_name(path: Path) -> str:
    stem = path.name.removesuffix(".json")
    try:
        return checks.plain_text(stem, "name", 200)
    except checks.Invalid:
        return "new"


def prompt_from(args: argparse.Namespace) -> tuple[str, ...] | None:
    text = getattr(args, "prompt", None)
    return None if text is None else tuple(text.split())


def write(model: ModelFile, path: Path) -> None:
    """path was free when the command started (output_path); a file put there since is never replaced."""
    try:
        save(model, path, new=True)
    except FileExistsError:
        raise CommandError(f"-o: {path} exists; tinytui never overwrites it (choose another name)") from None
    except OSError as exc:
        raise CommandError(f"-o: cannot write {path} ({exc.strerror or exc})") from None


def written(path: Path) -> str:
    """'wrote m.json', and when save() put the weights beside it, that file's name too: the JSON alone,
    moved or copied without it, is not the model."""
    beside = weights_written_for(path)
    return f"wrote {path}" + (f" and its weights, {beside[0].name}, beside it" if beside else "")


def build(args: argparse.Namespace, err: TextIO | None = None) -> tuple[ModelFile, Path]:
    """The model the arguments ask for and where it goes; CommandError before anything is written."""
    path = output_path(args, err=err)
    s = sizes_from(args)
    vocab = read_vocab(getattr(args, "vocab", None))
    try:
        seed = seeded_model.whole(args.seed, "seed", 0, seeded_model.MAX_SEED)
        about = (
            f"Random weights from tinytui new (seed {seed}): every weight matrix N(0, 1/fan_in), "
            "biases zero. Untrained: its predictions mean nothing yet."
        )
        model = seeded_model.new_model(
            s,
            vocab,
            prompt_from(args),
            getattr(args, "target", None),
            seed,
            args.name if args.name is not None else default_name(path),
            about,
        )
    except checks.Invalid as exc:
        raise _field(exc) from None
    return with_architecture(model, args, seed), path


def with_architecture(model: ModelFile, args: argparse.Namespace, seed: int) -> ModelFile:
    """The model as its --arch family has it, its weights drawn again by the same rule (the chapter's: as
    it is)."""
    arch = getattr(args, "arch", "chapter")
    kv = getattr(args, "kv_heads", None)
    if arch == "chapter":
        if kv is not None:
            raise CommandError("--kv-heads: only --arch llama has key/value heads of their own")
        return model
    try:
        n_kv = None if kv is None else seeded_model.whole(kv, "kv_heads", 1, model.cfg.n_heads)
        cfg = architectures.configured(model.cfg, arch, n_kv)
    except checks.Invalid as exc:
        raise CommandError(f"--kv-heads: {exc}") from None
    except ValueError as exc:
        raise CommandError(f"--arch {arch}: {exc}") from None
    params = Params(cfg, architectures.seeded_arrays(cfg, seed))
    return ModelFile(model.name, model.about, params, model.prompt, model.target)


def counted(n: int, word: str) -> str:
    """'1 head', '2 heads': a count and its noun, plural unless the count is one."""
    return f"{n} {word}{'s' * (n != 1)}"


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    try:
        model, path = build(args, err)
        write(model, path)
    except (CommandError, ModelFileError) as exc:
        refusal.say(str(exc), err)
        return 2
    except MemoryError:  # sizes within the file bounds can still be more than this machine holds
        refusal.say("a model of these sizes is too large to hold in memory here", err)
        return 2
    cfg = model.cfg
    print(
        f"{written(path)}: {model.params.total():,} parameters (d {cfg.d_model}, "
        f"{counted(cfg.n_heads, 'head')} of {cfg.d_head}{kv_sharing(cfg)}, ff {cfg.d_ff}, "
        f"{counted(cfg.n_blocks, 'block')}, {counted(cfg.n_vocab, 'token')}, n_ctx {cfg.n_ctx})",
        file=out,
    )
    return 0


# ---- tinytui presets -----------------------------------------------------------------------------------


def add_presets_parser(sub) -> argparse.ArgumentParser:
    return sub.add_parser("presets", help="list the models that ship with tinytui (use one: --model NAME)")


def run_presets(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """One line a preset: its name (what --model takes), its shape and the first sentence it says."""
    from tinytui.model.io.model_file import load
    from tinytui.model.io.presets import presets

    for name, path in presets().items():
        try:
            model = load(path)
        except ModelFileError as exc:
            refusal.say(str(exc), err)
            return 2
        cfg = model.cfg
        shape = (
            f"d {cfg.d_model}, {counted(cfg.n_heads, 'head')}, {counted(cfg.n_blocks, 'block')}, "
            f"ff {cfg.d_ff}, {counted(cfg.n_vocab, 'token')}, {model.params.total():,} parameters"
        )
        about = model.about.split(". ")[0].rstrip(".")
        print(f"{name:<20} {shape}" + (f" — {about}." if about else ""), file=out)
    return 0
