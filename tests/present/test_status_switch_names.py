"""The status line names the positions switch for what it switches: under rotary positions it turns q
and k and adds nothing to x, so it reads RoPE on / off, not PE."""

from rich.style import Style

from tinytui.model.io.checkpoint import load_model
from tinytui.model.io.presets import resolve
from tinytui.present.status_words import switch_words
from tinytui.present.view import View
from tinytui.session.session import Session


def _switches(s: Session) -> str:
    return switch_words(View.of(s), lambda name: Style()).plain


def test_a_rotary_models_positions_switch_is_named_rope():
    s = Session(load_model(resolve("chapter17-llama")))
    assert _switches(s).startswith("mask on · RoPE on · SiLU")
    s.toggle("positional_encoding")
    assert _switches(s).startswith("mask on · RoPE off · SiLU") and "PE off" not in _switches(s).replace(
        "RoPE", ""
    )


def test_sinusoids_keep_the_name_pe(chapter):
    s = Session(chapter)
    assert _switches(s) == "mask on · PE on · ReLU · pre-norm · residual on"
