"""Step 16 for a Qwen2-style model (biases on Q, K and V): the Llama models beside it have no such
biases, so the one formula the four sizes are counted by carries that term as a condition, and the
words say only this model has it; the formula, written out, gives each size's total."""

from tests.llama.checkpoints import QWEN2
from tinytui.lesson.texts.output_texts import count_params as count_text
from tinytui.lesson.texts.stage_facts import count_params as count_facts
from tinytui.model import count
from tinytui.model.io.checkpoint import load_model
from tinytui.model.trace import run


def test_a_model_with_attention_biases_counts_the_llama_sizes_without_them():
    model = load_model(QWEN2)
    cfg = model.cfg
    assert cfg.attn_bias and not cfg.out_bias
    shared = count.sizes_formula(cfg)
    assert shared == (
        "V·d (+ d·V when untied) + N·(d·(H + 2H_kv)·d_k + H·d_k·d (+ (H + 2H_kv)·d_k with biases) + "
        "3d·d_ff + 2d) + d"
    )
    for size in count.four_sizes(cfg):  # the formula as written, each term where the size has it
        d, v, h, kv = size.d_model, size.vocab, size.n_heads, size.n_kv_heads
        dk = (size.d_attn or d) // h
        block = d * (h + 2 * kv) * dk + h * dk * d + 3 * d * size.d_ff + 2 * d
        block += (h + 2 * kv) * dk if size.attn_bias else 0
        assert size.total() == v * d + (0 if size.tied else d * v) + size.n_blocks * block + d, size.name
    trace = run(model.params, model.prompt, model.target)
    assert "only this model has biases on Q, K and V, which Llama-3-8B lacks." in count_text(trace)
    assert count_facts(trace)[0] == (
        "6,472 parameters; by the same formula (+ d·V: its own W_U; no biases) Llama-3-8B has 8,030,261,248"
    )


def test_a_model_without_biases_keeps_the_formula_as_it_was():
    from tinytui.model.io.presets import resolve

    model = load_model(resolve("chapter17-llama"))
    assert "biases" not in count.sizes_formula(model.cfg)
    trace = run(model.params, model.prompt, model.target)
    assert "biases" not in count_text(trace) and "biases" not in count_facts(trace)[0]
