"""Each command imports what it uses when it runs: the parser and the commands that print text or JSON
(print to a file, trace, why) load no Textual, no Rich, no server (asyncio), no recorder and no other
command's module, and the debugger's first screen loads none of the screens and actions it has not
opened (the gallery, the parameter browser, replay, recording, practice's questions, learning, the
dialogs, patching, the lens, the backward walk's gradients) nor what only another model or a save
needs (a checkpoint's reader, hashlib, importlib.resources). Each is checked in a fresh interpreter,
where sys.modules holds only what that process imported."""

import importlib.util
import json
import subprocess
import sys
import textwrap

WATCHED = ("textual", "rich", "asyncio", "tinytui.tui.app", "tinytui.recording.recorder",
           "tinytui.model.analysis.attribution", "tinytui.model.analysis.circuits",
           "tinytui.lesson.why.explain", "tinytui.lesson.practice.questions", "tinytui.model.training.learn",
           "tinytui.session.second_runs", "numpy.random",
           # another model's reader and what only a save or a typed ratio needs
           "tinytui.model.io.checkpoint", "hashlib", "importlib.resources", "secrets", "fractions",
           "tinytui.model.analysis.patching", "tinytui.model.generation.continuation",
           # each command's module, imported by its command only (trace's by trace)
           "tinytui.cli.trace_command", "tinytui.cli.generate_command", "tinytui.cli.serve_command",
           "tinytui.cli.quiz_command", "tinytui.cli.practice_command", "tinytui.cli.train_command",
           "tinytui.cli.analysis_commands", "tinytui.cli.prediction_commands",
           "tinytui.cli.handout_command")  # fmt: skip

# what the first screen does not show: each is imported by the action that opens or runs it
NOT_ON_THE_FIRST_SCREEN = (
    "tinytui.tui.screens.gallery_screen",  # v
    "tinytui.tui.screens.help_screen",  # ?
    "tinytui.tui.screens.param_browser",  # the palette's "Edit parameter"
    "tinytui.recording.replay",  # tinytui replay
    "tinytui.recording.transcript",  # ctrl+t, --record
    "tinytui.lesson.why.explain",  # a table's cell in the inspector
    "tinytui.lesson.practice.questions",  # k
    "tinytui.model.training.learn",  # l, the palette's Train
    "tinytui.model.io.checkpoint_save",  # ctrl+s
    "numpy.random",  # a drawn next token (+ with a temperature above 0)
    "tinytui.tui.screens.ask_screen",  # a typed value's box (patching, train, the learning rate)
    "tinytui.tui.screens.pick_screen",  # the compare's list of A
    "tinytui.model.analysis.patching",  # patching set (the palette)
    "tinytui.model.analysis.lens",  # steps 13 and 14, the watch pane
    "tinytui.model.backward.gradients",  # the backward walk (b)
    "tinytui.report.step_report",  # the counts' step
    "tinytui.model.io.checkpoint",  # --model with a GPT-2 or Llama folder
    "hashlib",  # a model's save (its weights' name)
    "importlib.resources",  # (the presets are found beside the package)
    "secrets",  # a file's write (its temporary name)
    "tinytui.cli.new_command",  # the other commands' modules: each when its command runs
    "tinytui.cli.generate_command",
    "tinytui.cli.serve_command",
    "tinytui.cli.trace_command",
)


def _run(script: str, tmp_path) -> dict:
    env = {"PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": str(tmp_path), "NO_COLOR": "1"}
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_the_parser_and_the_printing_commands_load_only_what_they_use(tmp_path):
    # one fresh interpreter, the commands in turn: what is loaded after each (modules only accumulate)
    seen = _run(
        f"""
        import io, json, sys
        from tinytui.cli.main import main
        watched = {WATCHED!r}
        seen = {{}}
        for argv in (["--version"], ["print", "--step", "1"], ["trace", "--list"], ["why", "A_1[0,0]"]):
            sys.stdout = io.StringIO()
            code = main(argv)
            sys.stdout = sys.__stdout__
            assert code == 0, argv
            seen[argv[0]] = [m for m in watched if m in sys.modules]
        print(json.dumps(seen))
        """,
        tmp_path,
    )
    # trace imports its own module; why explains a cell: it, and only it, loads the provenance rules
    trace = ["tinytui.cli.trace_command"]
    assert seen == {
        "--version": [],
        "print": [],
        "trace": trace,
        "why": ["tinytui.lesson.why.explain", *trace],
    }, seen


def test_the_debuggers_first_screen_loads_only_what_it_shows(tmp_path):
    # the app as `tinytui` opens it (cli.debugger.cmd_app), drawn at 120×40
    seen = _run(
        f"""
        import asyncio, json, sys
        import tinytui.cli.main  # what `tinytui` imports before it opens the app
        from tinytui.cli.debugger import app_options
        from tinytui.cli.options import build_parser
        from tinytui.cli.run_setup import setup_from
        from tinytui.tui.app import TinyTuiApp
        from tinytui.tui.widgets.step_view import StepView

        args = build_parser().parse_args([])
        setup = setup_from(args)
        theme, notices, keymap = app_options(args)
        app = TinyTuiApp(setup.session, theme=theme, notices=notices, keymap=keymap)
        watched = {NOT_ON_THE_FIRST_SCREEN!r}
        seen = {{}}

        async def first_screen():
            async with app.run_test(size=(120, 40)) as pilot:
                await pilot.pause()
                assert app.query_one(StepView).size.height > 0  # drawn
                seen["first screen"] = [m for m in watched if m in sys.modules]

        asyncio.run(first_screen())
        print(json.dumps(seen))
        """,
        tmp_path,
    )
    assert seen == {"first screen": []}, seen
    # each name is a module the app has (a renamed one would pass the check above unseen)
    assert all(importlib.util.find_spec(m) is not None for m in NOT_ON_THE_FIRST_SCREEN)
