"""The steps' and the backward walk's titles and words name the model's own parts (W_down where the
feed-forward is gated, a key/value head's W_K and W_V where query heads share them, one head or one unit
where there is one, a narrowing feed-forward) and count what the tables show (every gate shut, logits
that print alike, one token)."""

from dataclasses import replace

import numpy as np

from tests.random_models import random_params
from tinytui.lesson.walk_stages import backward_stage_for
from tinytui.model.io.checkpoint import load_model
from tinytui.model.io.presets import resolve
from tinytui.model.switches import defaults, run_config


def _stage(cfg, number: int, switches=None):
    sw = switches or defaults(cfg)
    return backward_stage_for(number, sw, run_config(cfg, sw))


def test_a_llama_models_walk_names_w_down_and_its_key_value_heads():
    cfg = load_model(resolve("chapter17-llama")).cfg
    assert cfg.gated and cfg.n_kv_heads < cfg.n_heads
    step12 = _stage(cfg, 12)
    assert step12.title == "Through W_down and the second residual"
    assert "∂L/∂W_down = hiddenᵀ · ∂L/∂ffn" in step12.rules and "W_2" not in step12.title
    assert _stage(cfg, 6).explain.startswith("Every query head's W_Q and every key/value head's W_K and W_V")
    words = _stage(cfg, 9).explain
    assert "a key/value head's values gather blame from every query head that reads them" in words


def test_a_single_heads_walk_says_the_head():
    cfg = random_params(seed=1, d=3, heads=1, d_head=3, d_ff=2, vocab=6, blocks=1).cfg
    assert _stage(cfg, 12).title == "Through W_2 and the second residual"
    assert _stage(cfg, 6).explain.startswith("The head's three projections read the same normalised rows")
    assert _stage(cfg, 9).explain.startswith("W_O passes the error back to the one head.")
    off = replace(defaults(cfg), ablated_heads=frozenset({1}))
    assert _stage(cfg, 9, off).explain.startswith(
        "The head is ablated: it outputs a constant 0, so W_O and its"
    )
    assert "Every head" not in _stage(cfg, 9, off).explain + _stage(cfg, 6).explain


def test_rotary_biases_take_the_gradient_of_the_rows_before_the_turn():
    """Qwen2 adds b_Q and b_K before RoPE turns the rows: b_Q's gradient is Σ_p ∂L/∂Q_pre, not ∂L/∂Q."""
    import numpy as np

    from tests.llama.checkpoints import QWEN2
    from tinytui.model.backward.gradients import Gradients
    from tinytui.model.trace import run

    model = load_model(QWEN2)
    rules = _stage(model.cfg, 6).rules
    assert "∂L/∂b_Q[h] = Σ_p ∂L/∂Q_pre_h[p]   (b_K[g], b_V[g]: Σ_p of ∂L/∂K_pre_g, ∂L/∂V_g)" in rules
    grads = Gradients(model.params, run(model.params, model.prompt, model.target))
    b_q, b_k = grads["grad.blocks.0.b_Q"], grads["grad.blocks.0.b_K"]
    assert np.allclose(b_q[0], grads["grad.blocks.0.q_pre.1"].sum(0))
    assert not np.allclose(b_q[0], grads["grad.blocks.0.q.1"].sum(0))
    assert np.allclose(b_k[0], grads["grad.blocks.0.k_pre.1"].sum(0))


def test_every_gate_shut_is_said_as_all():
    """W_gate zeroed: every gate is SiLU(0) = 0, all 16 of them; "16 of 16" read as a part of them."""
    import numpy as np

    from tinytui.lesson.stages import STAGE_BY_NUMBER
    from tinytui.model.trace import run

    model = load_model(resolve("chapter17-llama"))
    zero = {f"blocks.{b}.W_gate": np.zeros_like(model.params[f"blocks.{b}.W_gate"]) for b in range(2)}
    trace = run(model.params.with_arrays(zero), model.prompt, model.target)
    assert not trace["blocks.0.gate"].any() and trace["blocks.0.gate"].size == 16
    words, facts = STAGE_BY_NUMBER[11].explain(trace), STAGE_BY_NUMBER[11].facts(trace)
    assert "Here all 16 gate values are exactly 0." in words and "16 of 16" not in words
    up = float(np.abs(trace["blocks.0.up"]).max())
    assert facts == [f"all 16 gate values are exactly 0, so no unit passes any of up (largest size {up:.4f})"]
    near = {f"blocks.{b}.W_gate": np.full_like(model.params[f"blocks.{b}.W_gate"], 0.001) for b in range(2)}
    trace = run(model.params.with_arrays(near), model.prompt, model.target)
    assert (np.abs(trace["blocks.0.gate"]) < 0.05).all() and trace["blocks.0.gate"].any()
    assert "Here all 16 gate values are within 0.05 of zero." in STAGE_BY_NUMBER[11].explain(trace)
    assert (
        STAGE_BY_NUMBER[11].facts(trace)[0].startswith("all 16 gate values are within 0.05 of zero, so every")
    )


def test_a_one_token_prompt_under_rope_says_its_scores_do_not_change():
    from tinytui.lesson.stages import STAGE_BY_NUMBER
    from tinytui.model.trace import run

    model = load_model(resolve("chapter17-llama"))
    one = STAGE_BY_NUMBER[7].facts(run(model.params, ("a",), model.target))
    assert one[1] == (
        "every position moved one place later: head 1's scores do not change at all, so they depend only on "
        "how far apart the tokens are"
    )
    assert "change by at most" in STAGE_BY_NUMBER[7].facts(run(model.params, model.prompt, model.target))[1]


def test_logits_that_print_alike_are_not_said_to_differ(chapter):
    """'how' and 'much' made wood's row but for 1e-6 and 2e-6: three logits differ only past the four
    decimals the table prints. "No two tokens get the same logit" beside three equal numbers read false,
    and "'how' and 'wood' also shows" lacked its plural."""
    import numpy as np

    from tinytui.lesson.stages import STAGE_BY_NUMBER
    from tinytui.model.trace import run

    cfg, E = chapter.cfg, np.array(chapter.params["E"])
    wood = cfg.token_id("wood")
    E[cfg.token_id("how")] = E[wood] + [0, 0, 0, 1e-6]
    E[cfg.token_id("much")] = E[wood] + [0, 0, 0, 2e-6]
    trace = run(chapter.params.with_arrays({"E": E}), chapter.prompt, chapter.target)
    shown = {f"{trace['logits'][cfg.token_id(t)]:.4f}" for t in ("how", "much", "wood")}
    assert len(shown) == 1 and len(set(trace["logits"].tolist())) == 8
    words = STAGE_BY_NUMBER[14].explain(trace)
    assert words.endswith(
        "No two tokens get exactly the same logit, though 'how', 'much' and 'wood' print alike at four "
        "decimals."
    )
    fact = STAGE_BY_NUMBER[14].facts(trace)[0]
    assert fact.startswith(
        "prediction: 'much' at 0.2138 ('how' and 'wood' also show 0.2138, only a little less)"
    )
    plain = run(chapter.params, chapter.prompt, chapter.target)  # how and much: exact copies, no note
    assert (
        STAGE_BY_NUMBER[14].explain(plain).endswith("here 'how' and 'much' tie, with exactly the same logit.")
    )


def test_one_token_with_the_mask_off_has_no_positions_to_spread_over(chapter):
    from tinytui.lesson.stages import STAGE_BY_NUMBER
    from tinytui.model.switches import Switches
    from tinytui.model.trace import run

    trace = run(chapter.params, ("a",), chapter.target, Switches(causal_mask=False))
    assert trace["blocks.0.attn.1"].tolist() == [[1.0]] == trace["blocks.0.attn.2"].tolist()
    words = STAGE_BY_NUMBER[8].explain(trace)
    assert "over all 1 positions" not in words  # the old words
    assert words == (
        "The mask is off, so no score is blocked, but the prompt has one token: its row has one key, the "
        "token itself. That one weight is the row's whole sum: 1.0000 in every head."
    )
    assert STAGE_BY_NUMBER[8].facts(trace)[0] == "causal mask OFF: one token, nothing later to see"


def test_a_single_silent_unit_is_the_one_unit():
    import numpy as np

    from tinytui.lesson.stages import STAGE_BY_NUMBER
    from tinytui.model.trace import run

    params = random_params(seed=2, d=3, heads=1, d_head=3, d_ff=1, vocab=6, blocks=1)
    params = params.with_arrays({"blocks.0.b_1": np.array([-50.0])})
    trace = run(params, ("t1", "t2"), "t3")
    assert not trace["blocks.0.hidden"].any()
    words = STAGE_BY_NUMBER[12].explain(trace)
    assert "The one unit is zero at every position, so W_2 contributes nothing" in words
    assert "1 units" not in words


def test_step_11_is_titled_by_what_it_does_to_the_width():
    """A d_ff below d narrows, as the step's words say: the title said 'widen' for every model."""
    from tinytui.lesson.stages import STAGE_BY_NUMBER, title_for
    from tinytui.model.trace import run

    params = random_params(seed=2, d=3, heads=1, d_head=3, d_ff=1, vocab=6, blocks=1)
    assert title_for(STAGE_BY_NUMBER[11], params.cfg) == "Feed-forward: narrow and rectify"
    words = STAGE_BY_NUMBER[11].explain(run(params, ("t1",), "t3"))
    assert words.startswith(
        "Each position on its own is normalised and narrowed from 3 to one feature detector."
    )
    assert (
        title_for(STAGE_BY_NUMBER[11], load_model(resolve("chapter17-llama")).cfg)
        == "Feed-forward: map and gate"
    )
    assert (
        title_for(STAGE_BY_NUMBER[11], load_model(resolve("chapter17")).cfg)
        == "Feed-forward: widen and rectify"
    )


def test_the_hidden_layers_zeros_are_counted_as_all_or_none(chapter):
    from tinytui.lesson.stages import STAGE_BY_NUMBER
    from tinytui.model.trace import run

    params = chapter.params
    for unit in range(8):  # every detector silent
        params = params.with_edit("blocks.0.b_1", (unit,), -10.0)
    silent = STAGE_BY_NUMBER[11].facts(run(params, chapter.prompt, chapter.target))[0]
    assert silent.startswith("all 32 hidden values are exactly zero: ReLU cut every negative pre-activation")
    for unit in range(8):  # every detector fires
        params = params.with_edit("blocks.0.b_1", (unit,), 10.0)
    live = STAGE_BY_NUMBER[11].facts(run(params, chapter.prompt, chapter.target))[0]
    assert live.startswith("none of the 32 hidden values is exactly zero: no pre-activation was negative")
    one = random_params(seed=2, d=3, heads=1, d_head=3, d_ff=1, vocab=6, blocks=1)
    one = one.with_arrays({"blocks.0.b_1": np.array([-50.0])})
    trace = run(one, ("t1",), "t3")
    assert "Count the zeros: the one hidden value is zero, so the detector did not fire." in (
        STAGE_BY_NUMBER[11].explain(trace)
    )
    assert STAGE_BY_NUMBER[11].facts(trace)[0].startswith("the one hidden value is exactly zero")


def test_gelu_leaving_no_zero_is_said_as_none():
    from tests.gpt2.checkpoints import TINY
    from tinytui.lesson.stages import STAGE_BY_NUMBER
    from tinytui.model.trace import run

    model = load_model(TINY)
    trace = run(model.params, model.prompt, model.target)
    assert trace["blocks.0.hidden"].all()  # GELU: no hidden value is exactly zero
    fact = STAGE_BY_NUMBER[11].facts(trace)[0]
    assert fact.startswith(
        f"GELU leaves none of the {trace['blocks.0.hidden'].size} hidden values exactly zero"
    )
