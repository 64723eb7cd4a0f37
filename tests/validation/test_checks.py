"""tinytui.model.checks: the one validator. Every refusal is a ValueError with a one-line message."""

import math

import pytest

from tinytui.model import checks
from tinytui.model.checks import Invalid

VOCAB = ("a", "chuck", "wood")


@pytest.mark.parametrize(
    ("text", "value"),
    [("0.5", 0.5), ("-1", -1.0), ("1e-3", 1e-3), ("1/2", 0.5), ("\u22120.25", -0.25), (" 3/4 ", 0.75)],
)
def test_number_accepts_what_people_type(text, value):
    assert checks.number(text) == value


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "empty: type a number"),
        ("abc", "'abc' is not a number (try 0.5"),
        ("nan", "'nan' is not a number"),
        ("inf", "'inf' is not a number"),
        ("-inf", "'-inf' is not a number"),
        ("1e309", "'1e309' is too large to be a finite number"),
        ("1/0", "'1/0': division by zero"),
        ("0x10", "'0x10' is not a number"),
        ("1_000", "'1_000' is not a number"),
        ("\u0663", "is not a number"),  # an Arabic-Indic digit: float() takes it, people do not type it
        ("7" * 5000, "(5000 characters) is too long to be a number (at most 100 characters)"),
        ("1" * 400 + "/1", "(402 characters) is too long to be a number"),  # was OverflowError
        ("1/" + "3" * 4400, "(4402 characters) is too long to be a number"),  # was int() digit limit
        ("9e308", "'9e308' is too large to be a finite number"),
    ],
)
def test_number_refuses_with_one_clear_line(text, why):
    with pytest.raises(Invalid) as exc:
        checks.number(text)
    assert why in str(exc.value) and "\n" not in str(exc.value) and len(str(exc.value)) < 200


def test_number_refuses_a_value_that_is_not_text():
    with pytest.raises(Invalid, match="not typed text"):
        checks.number(None)


@pytest.mark.parametrize(("x", "value"), [(0.5, 0.5), ("1/4", 0.25), (3, 3.0), ("1e-3", 1e-3)])
def test_lr_accepts_positive_finite_step_sizes(x, value):
    assert checks.lr(x) == value


@pytest.mark.parametrize(
    ("x", "why"),
    [
        (0, "the learning rate must be a finite number above 0, not 0: a learning rate of 0 would change"),
        ("0", "finite number above 0, not 0"),
        (-5, "finite number above 0, not -5"),
        ("-1", "finite number above 0, not -1"),
        (math.nan, "finite number above 0, not nan"),
        (math.inf, "finite number above 0, not inf"),
        (10**400, "finite number above 0, not inf"),
        (1e6, "the learning rate 1e+06 is not a usable step size (keep it below 1e+06)"),
        (True, "the learning rate True is not a number"),
        (None, "the learning rate None is not a number"),
        ("fast", "'fast' is not a number"),
    ],
)
def test_lr_refuses(x, why):
    with pytest.raises(Invalid) as exc:
        checks.lr(x)
    assert why in str(exc.value)


@pytest.mark.parametrize(("x", "value"), [(1, 1), ("10", 10), (" 1000 ", 1000), ("+5", 5)])
def test_steps_accepts_whole_numbers_in_range(x, value):
    assert checks.steps(x) == value


@pytest.mark.parametrize(
    ("x", "why"),
    [
        (0, "between 1 and 1000, not 0"),
        ("1001", "between 1 and 1000, not 1001"),
        ("9" * 5000, "between 1 and 1000, not '9999"),
        ("abc", "'abc' is not a whole number; type how many steps, 1 to 1000"),
        ("2.5", "'2.5' is not a whole number"),
        (2.5, "must be a whole number, not 2.5"),
        (True, "must be a whole number, not True"),
    ],
)
def test_steps_refuses(x, why):
    with pytest.raises(Invalid) as exc:
        checks.steps(x)
    assert why in str(exc.value)


def test_prompt_and_target():
    assert checks.prompt(["a", "wood"], VOCAB, 4) == ("a", "wood")
    assert checks.target("chuck", VOCAB) == "chuck"
    with pytest.raises(Invalid, match="empty: the prompt needs at least one token"):
        checks.prompt([], VOCAB, 4)
    with pytest.raises(Invalid, match="5 tokens is longer than the context: it holds at most 4 tokens"):
        checks.prompt(["a"] * 5, VOCAB, 4)
    with pytest.raises(Invalid, match=r"'beaver' is not in the vocabulary \(a chuck wood\)") as exc:
        checks.prompt(["a", "beaver"], VOCAB, 4)
    assert exc.value.where == "[1]"
    with pytest.raises(Invalid, match="'beaver' is not in the vocabulary"):
        checks.target("beaver", VOCAB)
    with pytest.raises(Invalid, match="None is not in the vocabulary"):
        checks.target(None, VOCAB)


def test_a_long_vocabulary_is_counted_not_listed():
    vocab = [f"t{i}" for i in range(50257)]
    with pytest.raises(Invalid) as exc:
        checks.target("x", vocab)
    assert str(exc.value) == "'x' is not in the vocabulary (50257 tokens)"


def test_head():
    assert checks.head(2, 2) == 2
    for bad in (0, 3, True, "1"):
        with pytest.raises(Invalid, match=r"there is no head .* \(heads are 1 to 2\)"):
            checks.head(bad, 2)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("evil\x1b[31m", "name: control character U+001B at position 4; use plain text"),
        ("a\nb", "U+000A at position 1"),
        ("abc\u202edcba", "U+202E"),
        ("x" * 300, "name: 300 characters is too long (at most 200)"),
        (3, "name: expected a string"),
        ("wood\udc80", "name: lone UTF-16 surrogate U+DC80 at position 4, which no UTF-8 text can hold"),
        ("\ud83d\ude00", "U+D83D at position 0"),  # a pair of escapes is still two lone halves in a str
    ],
)
def test_plain_text_refuses_what_could_rewrite_the_screen(text, why):
    with pytest.raises(Invalid) as exc:
        checks.plain_text(text, "name", 200)
    assert why in str(exc.value)
    assert checks.plain_text("woodchuck ☃ 😀", "name", 200) == "woodchuck ☃ 😀"
