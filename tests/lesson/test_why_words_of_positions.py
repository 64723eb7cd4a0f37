"""why's words on the embedding's gradient say how x was made in this run: nothing is added for position
with RoPE or with the positional encoding switched off; and E's lookup gradient names one position as
one."""

from tinytui.lesson.why.explain import explain
from tinytui.model.io.checkpoint import load_model
from tinytui.model.io.presets import resolve
from tinytui.model.switches import Switches
from tinytui.model.trace import run


def _formula(params, prompt, target, name, index, switches=None) -> str:
    trace = run(params, prompt, target, switches)
    return explain(trace, params, name, index).formula


def test_the_embeddings_gradient_says_what_was_added_for_position(chapter):
    llama = load_model(resolve("chapter17-llama"))
    rope = _formula(llama.params, llama.prompt, llama.target, "grad.emb", (1, 1))
    assert rope.endswith("(x = emb: RoPE adds nothing to x)") and "+ PE" not in rope
    off = _formula(chapter.params, chapter.prompt, chapter.target, "grad.emb", (1, 1),
                   Switches(positional_encoding=False))  # fmt: skip
    assert off.endswith("(x = emb: the positional encoding is switched off)")
    on = _formula(chapter.params, chapter.prompt, chapter.target, "grad.emb", (1, 1))
    assert on.endswith("(x = emb + PE and PE is fixed)")


def test_one_position_of_a_token_is_one_position(chapter):
    p, t = chapter.params, chapter.target
    assert _formula(p, chapter.prompt, t, "grad.E.lookup", (5, 0)).endswith("(position 1)")  # woodchuck
    assert _formula(p, ("a", "a", "would", "chuck"), t, "grad.E.lookup", (0, 0)).endswith("(positions 0, 1)")
    assert _formula(p, chapter.prompt, t, "grad.E.lookup", (2, 0)).endswith(
        "(none: 'how' is not in the prompt)"
    )


def test_a_learned_position_row_past_a_one_token_prompt_says_one_position():
    from tests.gpt2.checkpoints import TINY

    model = load_model(TINY)
    formula = _formula(model.params, model.prompt[:1], model.target, "grad.P", (3, 0))
    assert formula.endswith("(the prompt has 1 position: row 3 of P was not read)")
