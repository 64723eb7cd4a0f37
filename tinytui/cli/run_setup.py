"""What the command line asks to run: the model and the session's first state (Setup), built from the
parsed options and checked by the same functions as the app's; UsageError, a bad option in one line."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from tinytui.model import checks
from tinytui.model.io.document import ModelFile
from tinytui.model.io.model_file import default_model_path, load_default
from tinytui.model.io.presets import resolve
from tinytui.model.switches import defaults, run_config
from tinytui.model.trace import DEFAULT_LR, Trace, run
from tinytui.session.session import Session
from tinytui.session.state import Refused, State

if TYPE_CHECKING:  # argparse: `tinytui` alone is read without it (tinytui.cli.main)
    import argparse

    from tinytui.model.io.checkpoint import CheckpointModel


class UsageError(Exception):
    """Bad command-line input: printed as one line, exit status 2."""


# a NamedTuple: every command makes one as it starts, and its class costs a sixth of a frozen
# dataclass's (which compiles its methods from source as the class is made)
class Setup(NamedTuple):
    """What the command line asks to run: the model and the session's first state (weights, prompt,
    target, switches, learning rate)."""

    model: ModelFile
    state: State
    record: str | None = None  # --record FILE: the app attaches a recording.recorder.Recorder at start
    # the session setup_from ran the model in to check it, and its first trace: the app opens on that
    # session and trace() is that trace, so a command runs the model once (GPT-2 small: ~0.3 s a run)
    session: Session | None = None
    first_trace: Trace | None = None

    def trace(self) -> Trace:
        if self.first_trace is not None:
            return self.first_trace
        s = self.state
        return run(s.params, s.prompt, s.target, s.switches, s.lr)


def _option(flag: str, check, *values):
    """check(*values) from tinytui.model.checks; its message becomes "FLAG: message" (exit 2)."""
    try:
        return check(*values)
    except ValueError as exc:
        raise UsageError(f"{flag}: {exc}") from None


def record_option(record: str | None, loading: Path | None = None) -> str | None:
    """--record FILE, checked before the app starts: a transcript name where neither it nor its .jsonl
    exists, never the model being loaded (loading) nor a preset (tinytui.recording.recorder)."""
    if record is None:
        return None
    from tinytui.recording.recorder import target_problem  # the transcript's modules: only with --record

    try:
        problem = target_problem(record, loading)
    except (OSError, ValueError) as exc:  # a name too long, a NUL byte
        problem = f"{record!r}: cannot use that path ({getattr(exc, 'strerror', None) or exc})"
    if problem:
        raise UsageError(f"--record: {problem}")
    return record


def setup_from(args: argparse.Namespace) -> Setup:
    """The model and first state the options ask for, checked by the same functions as the app's; the
    model is run once here, so one that overflows is one line now rather than a traceback later."""
    source = resolve(args.model) if args.model else default_model_path()
    record = record_option(getattr(args, "record", None), source)
    checkpoint: CheckpointModel | None = None  # the default model is a model file
    if args.model:  # a model file or a checkpoint folder: the checkpoints' readers only then
        from tinytui.model.io.checkpoint import CheckpointModel, load_model

        model = load_model(source)
        if isinstance(model, CheckpointModel):
            checkpoint = model
    else:
        model = load_default()
    cfg = model.cfg
    prompt, target = model.prompt, model.target
    if checkpoint is not None:  # text, split by the checkpoint's own BPE
        if args.prompt is not None:
            prompt = _option("--prompt", checkpoint.prompt_pieces, args.prompt)
        if args.target is not None:
            target = _option("--target", checkpoint.target_piece, args.target)
    else:
        if args.prompt is not None:
            prompt = _option("--prompt", checks.prompt, args.prompt.split(), cfg.vocab, cfg.n_ctx)
        if args.target is not None:
            target = _option("--target", checks.target, args.target, cfg.vocab)
    lr = DEFAULT_LR if args.lr is None else _option("--lr", checks.lr, args.lr)
    # the model's own activation (GELU for GPT-2), with the options' switches
    switches = replace(defaults(cfg), causal_mask=not args.no_mask, positional_encoding=not args.no_pe)
    for flag, name, own in (("--norm", "norm_kind", cfg.norm), ("--positions", "positions", cfg.positions)):
        asked = getattr(args, name.removesuffix("_kind"), None)  # --norm's value is args.norm
        if asked is not None and asked != own:  # the model's own is no switch (None)
            switches = replace(switches, **{name: asked})
            _option(flag, run_config, cfg, switches)  # a model with norm gains or a learned P: one line
    state = State(model.params, prompt, target, switches, lr)
    try:
        session = Session(model, state)  # the session refuses a run with a non-finite intermediate
    except Refused as exc:
        why = str(exc).removesuffix("; nothing was changed").removeprefix("that ")
        raise UsageError(f"{args.model or 'the model'}: running it {why}") from None
    return Setup(model, state, record, session, session.trace)
