"""Every number the chapter prints (../shared/chapter17/figures.md), at its printed precision."""

import numpy as np
import pytest

from tinytui.lesson.stages import STAGES
from tinytui.model import count


def r4(x):
    return np.round(np.asarray(x, dtype=float), 4)


def test_prompt_ids(trace):
    assert trace["ids"].tolist() == [0, 5, 6, 1]
    assert trace.cfg.vocab == ("a", "chuck", "how", "much", "wood", "woodchuck", "would", ".")
    assert trace.cfg.dims == ("thing", "action", "quantifier", "wood")


def test_embedding_rows(chapter):
    E = chapter.params["E"]
    expected = [
        (0, 0, 1, 0),
        (0, 1, 0, 0.5),
        (0, 0, 0.5, 0),
        (0, 0, 0.5, 0),
        (1, 0, 0, 1),
        (1, 0, 0, 0.5),
        (0, 1, 0, 0),
        (0, 0, 0, 0),
    ]
    assert E.tolist() == [list(map(float, row)) for row in expected]


def test_step4_input(trace):
    assert trace["x"][0].tolist() == [0.0, 1.0, 1.0, 1.0]
    assert r4(trace["x"][3, 3]) == 1.4996


def test_step5_layer_norm_row_a(trace):
    assert trace["blocks.0.ln1.mean"][0] == pytest.approx(0.75)
    assert trace["blocks.0.ln1.var"][0] == pytest.approx(0.1875)
    assert r4(trace["blocks.0.x_norm"][0, 0]) == -1.7320


def test_step7_scale(trace):
    # the scores are QKᵀ divided by √2 = 1.4142
    q, k = trace["blocks.0.q.1"], trace["blocks.0.k.1"]
    assert np.allclose(trace["blocks.0.scores.1"] * 1.4142135623730951, q @ k.T)
    assert round(np.sqrt(trace.cfg.d_head), 4) == 1.4142


def test_step8_attention(trace):
    for h in (1, 2):
        a = trace[f"blocks.0.attn.{h}"]
        assert a[0, 0] == 1.0
        assert np.allclose(a.sum(axis=1), 1.0)
        assert a[-1].argmax() == len(a) - 1  # the last row keeps most weight on the current token
    assert r4(trace["blocks.0.attn.1"][1, 0]) == 0.7588
    assert r4(trace["blocks.0.attn.2"][1, 1]) == 0.8618


def test_step10_wood_after_attention(trace):
    assert r4(trace["blocks.0.x_mid"][3, 3]) == 3.2507


def test_step11_sparsity(trace):
    assert trace["blocks.0.hidden"].size == 32
    assert int((trace["blocks.0.hidden"] == 0).sum()) == 24


def test_step13_z(trace):
    assert r4(trace["z"]).tolist() == [-0.6805, -0.5283, -0.5198, 1.7285]


def test_step14_prediction(trace):
    assert trace.prediction == "wood"
    assert r4(trace["probs"][4]) == 0.3107
    assert trace["logits"][2] == trace["logits"][3]
    assert r4(trace["logits"][2]) == -0.2599


def test_step15_loss_and_gradient(trace):
    assert r4(trace["loss"]) == 1.1690
    g = trace["grad_logits"]
    assert (g < 0).sum() == 1 and (g > 0).sum() == 7
    assert np.allclose(g, trace["probs"] - np.eye(8)[4])
    assert r4(trace["loss_stepped"]) == 0.9119
    assert r4(trace["loss"] - trace["loss_stepped"]) == 0.2570


def test_step16_parameter_count(chapter):
    assert chapter.params.total() == 172
    comps = count.this_model(chapter.cfg).components()
    assert comps == {"E": 32, "W_Q/W_K/W_V": 48, "W_O": 16, "W_1": 32, "b_1": 8, "W_2": 32, "b_2": 4}
    assert count.tying_saves(chapter.cfg) == 32


def test_four_sizes_by_one_formula(chapter):
    totals = {s.name: s.total() for s in count.four_sizes(chapter.cfg)}
    assert totals["this model"] == 172
    assert totals["GPT-2 small"] == 123_578_112  # 124M less the omitted LN gains, biases, positions
    assert round(totals["GPT-3"] / 1e9) == 175
    # tying saves V·d: 38.6 million in GPT-2, as the chapter says
    assert round(50257 * 768 / 1e6, 1) == 38.6


def test_stage_table_is_sixteen_steps():
    assert [s.number for s in STAGES] == list(range(1, 17))
    assert len({s.id for s in STAGES}) == 16
    eqs = [s.equation for s in STAGES if s.equation]
    assert eqs[0] == "17.1" and eqs[-1] == "17.12–17.13"
