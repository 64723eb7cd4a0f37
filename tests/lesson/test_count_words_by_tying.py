"""Step 16 says "by the same formula" only where it is: Llama-3-8B's W_U is its own, so a tied model's
formula (no d·V term for W_U) counts it only with d·V added, and the words say so."""

from tinytui.lesson.texts.output_texts import count_params as count_text
from tinytui.lesson.texts.stage_facts import count_params as count_facts
from tinytui.model import count
from tinytui.model.io.checkpoint import load_model
from tinytui.model.io.presets import resolve
from tinytui.model.trace import run


def test_a_tied_llama_model_says_llama_3_8b_adds_its_own_w_u():
    model = load_model(resolve("chapter17-llama"))
    trace = run(model.params, model.prompt, model.target)
    big = count.four_sizes(model.cfg)[-1]
    assert model.cfg.tied and not big.tied and "d·V" not in count.formula(model.cfg).removeprefix("V·d")
    assert "and Llama-3-8B adds d·V for a W_U of its own." in count_text(trace)
    want = "340 parameters; by the same formula (+ d·V: its own W_U) Llama-3-8B has 8,030,261,248"
    assert count_facts(trace)[0] == want
