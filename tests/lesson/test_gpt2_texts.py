"""Stage formulas, texts, facts and weights show GPT-2's terms when the model has them, and only then."""

from __future__ import annotations

import numpy as np

from tests.random_models import config, weights
from tinytui.lesson.stages import STAGE_BY_NUMBER, STAGES, formula_as_run, params_read
from tinytui.lesson.texts.facts import stage_facts
from tinytui.lesson.texts.wording import tied_groups
from tinytui.model.io.document import ModelFile
from tinytui.model.switches import Switches, defaults
from tinytui.model.trace import run
from tinytui.session.session import Session

GPT2 = {"positions": "learned", "norm_affine": True, "attn_bias": True, "activation": "gelu"}


def gpt2_trace(sw: Switches | None = None, d: int = 12):
    cfg = config(d, 3, 4, 16, 9, blocks=2, n_ctx=6, **GPT2)
    params = weights(np.random.default_rng(5), cfg, 0.5)
    return params, run(params, ("t1", "t2", "t3"), "t4", sw)


def test_the_chapters_config_gives_the_chapters_formulas(chapter):
    for stage in STAGES:
        assert formula_as_run(stage, Switches(), chapter.cfg) == stage.formula, stage.number
        assert params_read(stage, chapter.cfg) == tuple(r for r in stage.reads if r[0] in "EWb")


def test_gpt2s_formulas_show_its_terms():
    _, trace = gpt2_trace()
    f = {s.number: formula_as_run(s, trace.switches, trace.cfg) for s in STAGES}
    assert f[3] == "PE_p = P[p]   (row p of the learned position table P, 6 × 12)" and "sin" not in f[3]
    assert f[4] == "x_p = E[id_p] + P[p]"
    assert f[5].startswith("x_n = g₁ ⊙ LN(x) + b₁,  LN(x) = (x − μ) / √(σ² + ε)")
    assert f[6] == "Q = Xn W_Q + b_Q,  K = Xn W_K + b_K,  V = Xn W_V + b_V   (per head)"
    assert f[7] == "S = Q Kᵀ / √d_k,   d_k = 4,  √d_k = 2.0000"
    assert f[9] == "MHA(X) = [head_1 ; head_2 ; head_3] W_O + b_O,   head_h = A_h V_h"
    assert f[10] == "x' = x + MHA(g₁ ⊙ LN(x) + b₁)"
    assert f[11] == "h = GELU((g₂ ⊙ LN(x') + b₂) W_1 + b_1)"
    assert f[13] == "z = g_f ⊙ LN(y_last) + b_f"
    assert f[16] == "V·d + n_ctx·d + N·(3d² + d² + d·d_ff + d_ff + d_ff·d + d + 3d + d + 4d) + 2d"
    post = {s.number: formula_as_run(s, Switches(norm="post"), trace.cfg) for s in STAGES}
    assert post[10] == "x' = g₁ ⊙ LN(x + MHA(x)) + b₁" and post[12] == "y = g₂ ⊙ LN(x' + (h W_2 + b_2)) + b₂"
    assert post[11] == "h = max(0, x' W_1 + b_1)"


def test_gpt2s_step_texts_say_what_it_has():
    _, trace = gpt2_trace()
    text = {s.number: s.explain(trace) for s in STAGES}
    assert "learned its positions" in text[3] and "wave" not in text[3] and "radian" not in text[3]
    assert "gain (ln1_g)" in text[5] and "bias (ln1_b)" in text[5]
    assert "(b_Q, b_K, b_V)" in text[6]
    assert "b_O" in text[9]
    assert "lnf_g, lnf_b" in text[13]
    chapter_like = config(4, 2, 2, 8, 8)
    plain = run(weights(np.random.default_rng(1), chapter_like, 0.5), ("t1", "t2"), "t3")
    assert "wave" in STAGE_BY_NUMBER[3].explain(plain) and "ln1_g" not in STAGE_BY_NUMBER[5].explain(plain)


def test_gpt2s_weights_are_read_at_their_steps():
    _, trace = gpt2_trace()
    read = {s.number: params_read(s, trace.cfg) for s in STAGES}
    assert read[3] == ("P",) and read[5] == ("ln1_g", "ln1_b") and read[13] == ("lnf_g", "lnf_b")
    assert read[6] == ("W_Q", "W_K", "W_V", "b_Q", "b_K", "b_V") and read[9] == ("W_O", "b_O")
    assert read[11] == ("W_1", "b_1", "ln2_g", "ln2_b")


def test_long_vectors_in_facts_are_cut_and_the_count_is_complete():
    _, trace = gpt2_trace(d=20)
    (z,) = stage_facts(trace, STAGE_BY_NUMBER[13])
    assert z.endswith(", … 20 numbers)") and z.count(",") == 8
    facts = stage_facts(trace, STAGE_BY_NUMBER[16])
    assert "Every parameter is counted" in facts[2]
    params, _ = gpt2_trace(d=20)
    assert facts[0].startswith(f"{params.total():,} parameters")  # P, the gains and the biases included
    # GPT-3 counted with the same terms: the learned positions (2,048 × 12,288) and the biases too
    assert facts[0].endswith("GPT-3 has 174,604,259,328") and facts[1] == "tying the unembedding saves 180"


def test_ties_are_found_by_sorting():
    logits = np.array([0.5, 1.0, 0.5, 2.0, 1.0, 0.5, 3.0])
    assert tied_groups(logits) == [[0, 2, 5], [1, 4]]
    assert tied_groups(np.arange(50_257.0)) == []


def test_a_model_starts_with_its_own_activation():
    params, _ = gpt2_trace()
    assert defaults(params.cfg) == Switches(activation="gelu")
    assert run(params, ("t1",), "t2").switches.activation == "gelu"
    session = Session(ModelFile("g", "", params, ("t1", "t2"), "t3"))
    assert session.state.switches.activation == "gelu"
    session.toggle("activation")
    assert session.state.switches.activation == "relu"
    session.reset()
    assert session.state.switches.activation == "gelu"


def test_gpt2s_weight_cells_are_labelled_by_their_axes():
    from tinytui.lesson.texts.display_names import cell

    params, _ = gpt2_trace()
    cfg = params.cfg
    assert cell(cfg, "P", (3, 1), params["P"].shape) == "P[pos 3, d1]"
    assert cell(cfg, "blocks.1.b_K", (2, 0), params["blocks.1.b_K"].shape) == "b_K (block 2)[head 3, k0]"
    assert cell(cfg, "lnf_g", (4,), params["lnf_g"].shape) == "lnf_g[d4]"


def test_a_head_that_copies_dims_is_read_at_any_width():
    from tinytui.lesson.texts.attention_texts import _reads

    rng = np.random.default_rng(2)
    x_norm = rng.normal(size=(5, 40))
    assert _reads(x_norm[:, [7, 3, 7]], x_norm, tuple(f"d{i}" for i in range(40))) == ["d7", "d3", "d7"]
    assert _reads(x_norm[:, [7, 3]] + 1e-6, x_norm, tuple(f"d{i}" for i in range(40))) is None
    twins = np.concatenate([x_norm, x_norm[:, :1]], axis=1)  # a column matching two dims reads as neither
    assert _reads(twins[:, [0]], twins, tuple(f"d{i}" for i in range(41))) is None
