"""The status line's architecture words (lesson/arch_names.model_choices) name the feed-forward the run
has: a gate switched to ReLU is ReGLU, not SwiGLU, and the chapter's model with RMSNorm switched in and
GELU says GELU, as the switch line beside it does."""

from rich.style import Style

from tinytui.lesson.arch_names import model_choices
from tinytui.model.io.checkpoint import load_model
from tinytui.model.io.model_file import load_default
from tinytui.model.io.presets import resolve
from tinytui.present.status_words import status_lines
from tinytui.present.view import View
from tinytui.session.session import Session


def outcome_words(s: Session) -> str:
    return " ".join(t.plain for t in status_lines(View.of(s), lambda name: Style())[1])


def test_a_gated_model_switched_to_relu_is_reglu():
    s = Session(load_model(resolve("chapter17-llama")))
    assert "RMSNorm·RoPE·4q/2kv·SwiGLU·tied" in outcome_words(s)
    s.toggle("activation")
    assert "RMSNorm·RoPE·4q/2kv·ReGLU·tied" in outcome_words(s)


def test_the_chapter_with_rmsnorm_and_gelu_says_gelu():
    s = Session(load_default())
    s.toggle("norm_kind")
    s.toggle("activation")
    assert "RMSNorm·sinusoids·2q/2kv·GELU·tied" in outcome_words(s)
    assert model_choices(s.model.cfg) == "LayerNorm·sinusoids·2q/2kv·ReLU·tied"  # the model's own


def test_step_11_names_a_relu_gate_reglu():
    from tinytui.lesson.texts.output_texts import ffn

    s = Session(load_model(resolve("chapter17-llama")))
    assert "This feed-forward is gated (SwiGLU): " in ffn(s.trace)
    s.toggle("activation")
    said = ffn(s.trace)
    assert "This feed-forward is gated (ReGLU): " in said and "ReLU of gate_pre is the gate" in said
