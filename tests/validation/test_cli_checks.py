"""The command line checks what it is given with tinytui.model.checks, like the app, and says so in
one line with exit status 2; options before a subcommand apply to it."""

import json

import pytest

from tinytui.cli.main import main
from tinytui.model.io.model_file import default_model_path


def run(capsys, *args):
    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def model_file(tmp_path, filename="m.json", **weights):
    """The preset with some changes: top-level keys, or E_row=(token, row) / W_O_row=row."""
    doc = json.loads(default_model_path().read_text())
    if "E_row" in weights:
        token, row = weights.pop("E_row")
        doc["weights"]["E"][doc["vocab"].index(token)] = row
    if "W_O_row" in weights:
        doc["weights"]["blocks"][0]["W_O"][0] = weights.pop("W_O_row")
    doc.update(weights)
    path = tmp_path / filename
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["print", "--lr", "0"],
            "--lr: the learning rate must be a finite number above 0, not 0: a learning rate of 0 would "
            "change nothing",
        ),
        (["print", "--lr", "-5"], "--lr: the learning rate must be a finite number above 0, not -5"),
        (["trace", "--lr", "nan"], "--lr: 'nan' is not a number (try 0.5, -1, 1e-3 or 1/2)"),
        (
            ["trace", "--lr", "1e9"],
            "--lr: the learning rate 1e+09 is not a usable step size (keep it below 1e+06)",
        ),
        (["print", "--prompt", " "], "--prompt: empty: the prompt needs at least one token"),
        (
            ["print", "--prompt", " ".join(["a"] * 17)],
            "--prompt: 17 tokens is longer than the context: it holds at most 16 tokens",
        ),
        (
            ["print", "--target", "beaver"],
            "--target: 'beaver' is not in the vocabulary (a chuck how much wood woodchuck would .)",
        ),
    ],
)
def test_bad_options_are_one_line_and_exit_2(capsys, args, line):
    assert run(capsys, *args) == (2, "", f"tinytui: error: {line}\n")


def test_a_typed_fraction_is_a_learning_rate(capsys):
    rc, out, _ = run(capsys, "trace", "--lr", "1/4")
    assert rc == 0 and json.loads(out)["lr"] == 0.25


@pytest.mark.parametrize("command", [["print"], ["trace", "--json"], []])
@pytest.mark.parametrize(
    ("weights", "tensor"),
    [({"W_O_row": [1e308] * 4}, "x_mid_norm"), ({"E_row": ("woodchuck", [1e155, 0, 0, 0])}, "ln1.var")],
    ids=["W_O 1e308", "E 1e155"],
)
def test_a_model_that_overflows_is_refused_at_setup(tmp_path, capsys, command, weights, tensor):
    path = model_file(tmp_path, **weights)
    rc, out, err = run(capsys, "--model", str(path), *command)  # [] would open the app: it must not
    assert rc == 2 and out == ""  # trace --json wrote NaN/Infinity before; the app ended in a traceback
    assert err.startswith(f"tinytui: error: {path}: running it makes ") and err.count("\n") == 1
    assert "overflow to a non-finite number" in err and tensor in err


def test_options_before_the_subcommand_apply_to_it(tmp_path, capsys):
    path = model_file(tmp_path, "big.json", name="big", prompt=["how", "much"], target="wood")
    rc, out, _ = run(capsys, "--model", str(path), "--lr", "0.25", "--no-mask", "trace")
    doc = json.loads(out)
    assert rc == 0 and doc["model"] == "big" and doc["lr"] == 0.25
    assert doc["prompt"] == ["how", "much"] and doc["switches"]["causal_mask"] is False
    rc, out, _ = run(capsys, "--prompt", "a woodchuck", "print", "--step", "1", "--plain")
    assert rc == 0 and "woodchuck" in out and "would" not in out


def test_the_subcommand_s_own_option_wins(capsys):
    rc, out, _ = run(capsys, "--lr", "0.1", "trace", "--lr", "0.2")
    assert rc == 0 and json.loads(out)["lr"] == 0.2


def test_trace_json_is_strict_json(capsys):
    rc, out, _ = run(capsys, "trace")
    assert rc == 0
    json.loads(out, parse_constant=lambda name: pytest.fail(f"{name} in the output"))


@pytest.mark.parametrize("command", [["print"], ["print", "--markdown"], ["circuits"], ["trace", "--json"]])
@pytest.mark.parametrize(
    ("change", "line"),
    [
        (
            {"name": "wood\udc80"},
            "name: lone UTF-16 surrogate U+DC80 at position 4, which no UTF-8 text can hold",
        ),
        (
            {"dims": ["\ud83d", "action", "quantifier", "wood"]},
            "dims[0]: lone UTF-16 surrogate U+D83D at position 0",
        ),
        ({"vocab": ["a", "chuck", "how", "", "wood", "woodchuck", "would", "."]}, "vocab[3]: an empty token"),
    ],
    ids=["surrogate name", "surrogate dims", "empty token"],
)
def test_a_model_with_text_no_terminal_can_show_is_one_line(tmp_path, capsys, command, change, line):
    path = model_file(tmp_path, **change)  # json.dumps writes a surrogate as its \\u escape
    rc, out, err = run(capsys, "--model", str(path), *command)  # a UnicodeEncodeError traceback before
    assert (rc, out) == (2, "")
    assert err.startswith(f"tinytui: error: {path}: {line}") and err.count("\n") == 1
