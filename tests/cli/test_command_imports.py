"""Each command imports what it uses when it runs: the parser and the commands that print text or JSON
(print to a file, trace, why) load no Textual, no Rich, no server (asyncio) and no recorder."""

import json
import subprocess
import sys
import textwrap

WATCHED = ("textual", "rich", "asyncio", "tinytui.tui.app", "tinytui.recording.recorder",
           "tinytui.model.analysis.attribution", "tinytui.model.analysis.circuits")  # fmt: skip


def test_the_parser_and_the_printing_commands_load_only_what_they_use(tmp_path):
    # one fresh interpreter, the commands in turn: what is loaded after each (modules only accumulate)
    script = textwrap.dedent(
        f"""
        import io, json, sys
        from tinytui.cli.main import main
        watched = {WATCHED!r}
        seen = {{}}
        for argv in (["--version"], ["trace", "--list"], ["why", "A_1[0,0]"], ["print", "--step", "1"]):
            sys.stdout = io.StringIO()
            code = main(argv)
            sys.stdout = sys.__stdout__
            assert code == 0, argv
            seen[argv[0]] = [m for m in watched if m in sys.modules]
        print(json.dumps(seen))
        """
    )
    env = {"PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": str(tmp_path), "NO_COLOR": "1"}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen == {"--version": [], "trace": [], "why": [], "print": []}, seen
