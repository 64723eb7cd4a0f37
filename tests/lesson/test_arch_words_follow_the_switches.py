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


def test_step_13_under_post_norm_says_how_much_the_final_norm_still_moves():
    """Post-norm's last norm leaves the chapter's rows at mean 0 and variance 1, so the final norm barely
    moves them; a GPT-2 checkpoint's gains and biases rescale them, and the final norm moves an entry by
    more than 1: "changes it very little" was true of the first only."""
    from dataclasses import replace

    import numpy as np

    from tests.gpt2.checkpoints import TINY
    from tinytui.lesson.texts.output_texts import final_norm
    from tinytui.lesson.why.why import num
    from tinytui.model.switches import defaults
    from tinytui.model.trace import run

    for model, rescaled in ((load_default(), False), (load_model(TINY), True)):
        trace = run(model.params, model.prompt, model.target, replace(defaults(model.cfg), norm="post"))
        y, z = trace[f"blocks.{model.cfg.n_blocks - 1}.y"][-1], np.asarray(trace["z"])
        j = int(np.abs(z - y).argmax())
        said = final_norm(trace)
        if rescaled:  # the entry it moves most, both values as the tables write them
            assert f"{model.cfg.dims[j]} moves most, from {num(y[j])} to {num(z[j])}." in said
            assert "rescaled it" in said and abs(z[j] - y[j]) > 1
        else:  # the chapter's: no entry moves at four decimals, and the words say z reads as y's row
            assert [num(v) for v in z] == [num(v) for v in y]
            assert "so z reads as y's last row." in said and "moves most" not in said
