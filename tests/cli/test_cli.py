import io
import json
import re
import subprocess
import sys

import numpy as np
import pytest

from tinytui.cli.main import main


def run_cli(*args):
    out = subprocess.run([sys.executable, "-m", "tinytui", *args], capture_output=True, text=True)
    return out.returncode, out.stdout, out.stderr


def test_print_all_steps_plain_when_piped():
    rc, out, err = run_cli("print")
    assert rc == 0, err
    assert "\x1b[" not in out
    for n in range(1, 17):
        assert f"Step {n}/16 · " in out
    for figure in (
        "-1.7320",
        "0.7588",
        "0.8618",
        "3.2507",
        "24 of 32",
        "-0.6805",
        "1.7285",
        "0.3107",
        "-0.2599",
        "1.1690",
        "0.9119",
        "0.2570",
        "172",
    ):
        assert figure in out, figure


def test_print_step_and_groups():
    rc, out, _ = run_cli("print", "--step", "8")
    assert rc == 0
    assert "Step 8/16" in out and "Step 7/16" not in out and "0.8618" in out
    rc, out, _ = run_cli("print", "--ffn", "--loss")
    assert [n for n in range(1, 17) if f"Step {n}/16" in out] == [11, 12, 15]


def test_print_switches_change_the_numbers():
    _, base, _ = run_cli("print", "--step", "8")
    _, nomask, _ = run_cli("print", "--step", "8", "--no-mask")
    assert "causal mask OFF" in nomask and "0.7588" not in nomask and base != nomask
    _, nope, _ = run_cli("print", "--step", "4", "--no-pe")
    # without PE, x for "a" is just its embedding row (0, 0, 1, 0)
    assert re.search(r"^0:a\s+0\.0000\s+0\.0000\s+1\.0000\s+0\.0000$", nope, re.M)


def test_print_in_a_terminal_uses_rich(monkeypatch):
    class Tty(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("FORCE_COLOR", "1")
    out = Tty()
    from tinytui.cli.main import cmd_print
    from tinytui.cli.options import build_parser

    cmd_print(build_parser().parse_args(["print", "--step", "14"]), out)
    assert "0.3107" in out.getvalue() and "\x1b[" in out.getvalue()


def test_markdown_handout():
    rc, out, _ = run_cli("print", "--markdown")
    assert rc == 0
    assert out.startswith("# tinytui walk-through")
    assert "## Step 8. Causal mask and softmax (Equation 17.6)" in out
    assert r"$$ \ell = z E^{\top}, \qquad p = \mathrm{softmax}(\ell) $$" in out
    assert "| 1:woodchuck | 0.1382 | 0.8618 | 0.0000 | 0.0000 |" in out


def test_trace_json_round_trips(chapter, trace):
    rc, out, err = run_cli("trace", "--json")
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["prompt"] == ["a", "woodchuck", "would", "chuck"]
    assert doc["switches"]["causal_mask"] is True
    for name in trace:
        got = np.array(doc["tensors"][name]["values"])
        assert np.array_equal(got, trace[name]), name
    assert doc["tensors"]["blocks.0.attn.2"]["axes"][1]["labels"][1] == "1:woodchuck"
    assert doc["tensors"]["blocks.0.hidden"]["axes"][1]["name"] == "units"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["print", "--prompt", "a beaver"], "--prompt: 'beaver' is not in the vocabulary"),
        (["print", "--target", "beaver"], "--target: 'beaver'"),
        (["print", "--step", "17"], "--step: 17 is not a step"),
        (["print", "--model", "/nonexistent.json"], "/nonexistent.json: cannot read"),
    ],
)
def test_bad_input_is_one_line_and_nonzero(args, needle):
    rc, out, err = run_cli(*args)
    assert rc == 2 and out == ""
    assert needle in err and err.count("\n") == 1


def test_bad_model_file_exit(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text("{not json")
    assert main(["trace", "--model", str(p)]) == 2


def test_help_lists_subcommands():
    rc, out, _ = run_cli("--help")
    assert rc == 0 and "print" in out and "trace" in out
