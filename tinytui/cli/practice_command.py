"""`tinytui practice LESSON.json` and `tinytui practice --step N [--backward] [--count K --seed S]`: the
debugger opened in practice mode (tinytui/tui/controllers/practice_controller.py).

A lesson (lesson/practice/lesson_file.py, format tinytui-lesson/1) brings its own model, prompt, target,
switches, learning rate and edits, and asks only its cells, opening at the step of the first; each is
checked against the model here, so a lesson that does not fit is one line before the screen is taken.
Without a lesson the run options say what runs, and step N asks its cells (or a sample of K of them).
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import TYPE_CHECKING

from tinytui.cli.debugger import app_options, has_terminal, require_terminal, run_app
from tinytui.cli.quiz_command import add_step_options
from tinytui.cli.run_setup import Setup, UsageError, record_option, setup_from
from tinytui.model import checks
from tinytui.model.io.model_file import load_default
from tinytui.model.io.presets import resolve
from tinytui.model.switches import defaults
from tinytui.model.trace import DEFAULT_LR, run
from tinytui.session.session import Session
from tinytui.session.state import Refused, State

# Lessons, questions and their checks are imported when practice runs: the parser reads this module for
# its options whatever the command.
if TYPE_CHECKING:
    from tinytui.lesson.practice.lesson_file import Lesson
    from tinytui.session.practice_state import Sample

HELP = "open the debugger in practice mode: a lesson file's cells, or step N's, to work out by hand"


def add_parser(sub, run_options: argparse.ArgumentParser) -> None:
    p = sub.add_parser("practice", parents=[run_options], help=HELP, description=HELP + ".")
    p.add_argument(
        "lesson", nargs="?", metavar="LESSON", help="a lesson file (tinytui-lesson/1) from a teacher"
    )
    add_step_options(p, required=False)


def lesson_setup(path: str, lesson: Lesson, record: str | None) -> Setup:
    """The run a lesson describes, every field checked against its model; UsageError names the field."""
    from tinytui.lesson.practice.lesson_file import LessonError, check_on, edited_params, model_path
    from tinytui.lesson.practice.questions import BY_TOKEN, cell_text
    from tinytui.lesson.texts.display_names import display
    from tinytui.lesson.why.explain import CellError, explain
    from tinytui.model.backward.gradients import Gradients
    from tinytui.model.io.checkpoint import load_model
    from tinytui.present.top_tokens import TOP
    from tinytui.tui.controllers.practice_controller import listed_tokens

    def fail(field: str, why: object) -> UsageError:
        return UsageError(f"{path}: {field}: {why}")

    where = model_path(lesson, path)
    model = load_model(resolve(where)) if where is not None else load_default()
    cfg = model.cfg
    try:
        prompt = checks.prompt(lesson.prompt, cfg.vocab, cfg.n_ctx)
    except checks.Invalid as exc:
        raise fail(f"prompt{exc.where}", exc) from None
    try:
        target = checks.target(lesson.target, cfg.vocab)
        check_on(lesson, cfg.n_heads, cfg.n_blocks, cfg)
        params = edited_params(lesson, model.params)
    except checks.Invalid as exc:
        raise fail("target", exc) from None
    except LessonError as exc:
        raise UsageError(f"{path}: {exc}") from None
    # the lesson's switches, with the model's own activation unless the lesson says otherwise
    named = "activation" in lesson.switches_named
    switches = lesson.switches if named else replace(lesson.switches, activation=defaults(cfg).activation)
    state = State(params, prompt, target, switches, DEFAULT_LR if lesson.lr is None else lesson.lr)
    try:
        Session(model, state)
    except Refused as exc:
        raise UsageError(f"{path}: running it {str(exc).removesuffix('; nothing was changed')}") from None
    trace = run(params, prompt, target, switches, state.lr)
    if not lesson.cells:
        raise UsageError(f"{path}: cells: the lesson asks no cell")
    grads = Gradients(params, trace)  # one backward pass for every cell asked
    asked = askable(trace, params)
    listed = listed_tokens(trace)
    for i, cell in enumerate(lesson.cells):
        try:
            explain(trace, params, cell.name, cell.index, grads)
        except CellError as exc:
            raise fail(f"cells[{i}]", exc) from None
        if cell.name not in asked:  # a weight: read from the file, so no step has it worked out
            shown = display(cell.name, cfg.n_blocks)
            raise fail(
                f"cells[{i}]", f"{shown} is a weight, which no step computes: ask a value a step makes"
            )
        if cell.name in BY_TOKEN and cell.index and cell.index[0] not in listed:
            named = f"{cell_text(cell.name, cell.index, cfg.n_blocks)} ({cfg.vocab[cell.index[0]]!r})"
            raise fail(
                f"cells[{i}]",
                f"{named} cannot be worked out from the screen: the logit pane lists only the {TOP} most "
                f"likely of {len(cfg.vocab):,} tokens and the target",
            )
    return Setup(model, state, record)


def askable(trace, params) -> frozenset[str]:
    """The names some step computes, forward or in the backward walk: the cells practice can ask."""
    from tinytui.lesson.practice.questions import BACKWARD_STEPS, FORWARD_STEPS, step_names

    return frozenset(
        name
        for backward, steps in ((False, FORWARD_STEPS), (True, BACKWARD_STEPS))
        for number in steps
        for block in range(trace.cfg.n_blocks)
        for name in step_names(trace, params, number, backward, block)
    )


def run_practice(args: argparse.Namespace) -> int:
    """Every option checked (each refusal one line), then the terminal: without one Textual would spin
    on an endless end of file, or pour its drawing into a pipe."""
    app = practice_app(args, remember_theme=has_terminal())
    require_terminal()
    return run_app(app)


def practice_app(args: argparse.Namespace, remember_theme: bool = True):
    """The debugger in practice mode as the options ask, at the step of its first question."""
    from tinytui.lesson.practice.lesson_file import LessonError, model_path, read_lesson
    from tinytui.lesson.practice.questions import QuestionError, step_cells
    from tinytui.session.practice_state import Sample

    record = record_option(getattr(args, "record", None))  # checked before anything else
    lesson: Lesson | None = None
    sample: Sample | None = None
    if args.lesson is not None:
        try:
            lesson = read_lesson(args.lesson)
        except LessonError as exc:
            raise UsageError(f"{args.lesson}: {exc}") from None
        setup = lesson_setup(args.lesson, lesson, record)
    else:
        if args.step is None:
            raise UsageError("practice: give a lesson file, or --step N for the cells of step N")
        setup = setup_from(args)
        sample = Sample(args.step, args.backward, args.block - 1, args.count, args.seed)
        trace = setup.trace()
        try:
            cells = step_cells(
                trace, setup.state.params, args.step, args.backward, args.block - 1, args.count
            )
        except QuestionError as exc:
            raise UsageError(f"--{exc.option}: {exc}") from None
        if not cells:
            walk = "the backward walk's " if args.backward else ""
            raise UsageError(f"--step {args.step}: {walk}step {args.step} computes nothing to check by hand")
    theme, notices, keymap = app_options(args, remember_choice=remember_theme)
    from tinytui.tui.app import TinyTuiApp

    session = Session(setup.model, setup.state)
    app = TinyTuiApp(session, theme=theme, notices=notices, record=setup.record, keymap=keymap)
    app.practice.begin(lesson, sample)
    app.practice.model_source = args.model if lesson is None else model_path(lesson, args.lesson)
    return app
