"""`tinytui patch` prints each share of the change to two decimals from the unrounded metrics; where the
four-decimal metrics printed beside it give another share, the line says what they give."""

from tinytui.cli.main import main


def test_a_share_the_printed_metrics_do_not_give_says_what_they_give(capsys):
    assert main(["patch", "--corrupt", "a woodchuck a woodchuck", "--foil", "a"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "  clean     'a woodchuck would chuck': +1.5678" in lines
    assert "  corrupted 'a woodchuck a woodchuck': +1.6332" in lines
    # (1.6583 − 1.6332) / (1.5678 − 1.6332) = −0.38; the unrounded metrics give −0.39
    assert "    2:would / a          +1.6583  (-0.39; these four-decimal numbers give -0.38)" in lines
    assert "    3:chuck / woodchuck  +1.5299  (1.58)" in lines  # (1.5299 − 1.6332) / (−0.0654) = 1.58
    assert "    0:a                  +1.6332  (0.00)" in lines


def test_a_one_token_corrupted_prompt_is_one_token(capsys):
    assert main(["patch", "--corrupt", "a", "--foil", "chuck"]) == 2
    assert "--corrupt: 1 token, and the prompt has 4: patching puts" in capsys.readouterr().err
