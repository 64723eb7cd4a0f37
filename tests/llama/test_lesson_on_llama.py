"""The lesson on Llama-family models: chapter17-llama (RMSNorm, RoPE, 4 query heads over 2 key/value
heads, SwiGLU) and the tiny Llama (untied W_U) and Qwen2 (q/k/v biases, one key/value head) folders.
Every forward step and every step of the backward walk is reported, every cell explained by `why`
(its operands give its value back), and the step texts, formulas and facts say what these models do."""

from __future__ import annotations

import numpy as np
import pytest

from tests.llama.checkpoints import LLAMA, QWEN2
from tinytui.lesson import step_path
from tinytui.lesson.arch_names import is_chapters, model_choices
from tinytui.lesson.gallery_reading import scale_card
from tinytui.lesson.practice.questions import step_questions
from tinytui.lesson.stages import STAGE_BY_NUMBER, formula_as_run, latex_for, params_read, title_for
from tinytui.lesson.texts.display_names import pe_columns
from tinytui.lesson.walk_stages import backward_stages
from tinytui.lesson.why.explain import explain, names_of
from tinytui.lesson.why.why import num
from tinytui.model import count
from tinytui.model.backward.gradients import gradients
from tinytui.model.io.checkpoint import load_model
from tinytui.model.io.model_file import load
from tinytui.model.io.presets import presets
from tinytui.model.switches import Switches, defaults
from tinytui.model.trace import run
from tinytui.report import render
from tinytui.report.step_report import backward_report, stage_report
from tinytui.report.tables import title_of
from tinytui.session.session import Session
from tinytui.session.state import State


def arrays_of(trace, params, grads) -> dict[str, np.ndarray]:
    """Every name's array, looked up apart from the why rules: parameters, gradients, trace."""
    return {**{n: params[n] for n in params}, **dict(grads.items()), **dict(trace.items())}


def check_cell(trace, params, grads, arrays, name, index) -> None:
    """why gives the cell's value, its operands are the cells they name, and they give the value back."""
    why = explain(trace, params, name, index, grads)
    want = float(arrays[name][index])
    where = f"{name}{list(index)} under {trace.switches.describe()}"
    assert why.value == want and why.result == (str(int(want)) if name == "ids" else num(want)), where
    looked_up = [float(arrays[op.name][op.index]) for op in why.operands]
    assert [op.value for op in why.operands] == looked_up, where
    got = why.evaluate(looked_up)
    assert abs(got - want) <= 1e-9 * abs(want) + 1e-12, f"{where}: evaluated {got!r}, the trace has {want!r}"
    assert why.filled and "-" not in why.filled.replace("e-0", ""), where  # the Unicode minus only


@pytest.fixture(scope="module")
def llama():
    return load(presets()["chapter17-llama"])


def _model(which):
    return load(presets()["chapter17-llama"]) if which == "chapter17-llama" else load_model(which)


def _trace(model, sw=None):
    return run(model.params, model.prompt, model.target, sw or defaults(model.cfg))


@pytest.mark.parametrize("which", ["chapter17-llama", LLAMA, QWEN2], ids=["preset", "llama", "qwen2"])
def test_every_step_forward_and_back_is_reported(which):
    model = _model(which)
    trace = _trace(model)
    cfg = trace.cfg
    grads = gradients(model.params, trace)
    for step in step_path.forward(cfg.n_blocks):
        report = stage_report(trace, step.stage, model.params, step.block or 0)
        shown = {t.title for t in report.tables}
        written = step_path.resolve_for(step.stage.writes, cfg, step)
        assert all(n in trace for n in written), step  # the table names what the model wrote
        assert report.explain and report.formula and len(shown) == len(report.tables)
        assert {w.title.split(" ")[0] for w in report.weights} <= {
            n.split(".")[-1] for n in params_read(step.stage, cfg)
        } | {"W_Q", "W_K", "W_V"}
    for stage in backward_stages(trace.switches, cfg):
        for block in range(cfg.n_blocks if stage.number in range(5, 13) else 1):
            report = backward_report(grads, stage, cfg.n_heads, block)
            # step 3 of a model without added positions has nothing to pass back, and says so
            assert report.tables or (stage.number == 3 and "rotary" in " ".join(stage.rules)), stage.number


def test_the_stage_table_reads_and_writes_the_models_own_names(llama):
    cfg = llama.cfg
    at = lambda n: step_path.at(n, 0, cfg.n_blocks)  # noqa: E731
    writes = lambda n: step_path.resolve_for(STAGE_BY_NUMBER[n].writes, cfg, at(n))  # noqa: E731
    assert writes(5) == ("blocks.0.ln1.mean_sq", "blocks.0.x_norm")  # no mean, no variance
    assert writes(6) == (
        *(f"blocks.0.q_pre.{h}" for h in range(1, 5)),
        *(f"blocks.0.q.{h}" for h in range(1, 5)),
        "blocks.0.k_pre.1",
        "blocks.0.k_pre.2",
        "blocks.0.k.1",
        "blocks.0.k.2",
        "blocks.0.v.1",
        "blocks.0.v.2",
    )
    assert writes(11) == (
        "blocks.0.x_mid_norm",
        "blocks.0.gate_pre",
        "blocks.0.gate",
        "blocks.0.up",
        "blocks.0.hidden",
    )
    assert params_read(STAGE_BY_NUMBER[11], cfg) == ("W_gate", "W_up", "ln2_g")
    assert params_read(STAGE_BY_NUMBER[12], cfg) == ("W_down",)
    untied = load_model(LLAMA).cfg
    assert params_read(STAGE_BY_NUMBER[14], untied) == ("W_U",)


def test_why_explains_every_cell_of_the_hand_scale_llama(llama):
    trace = _trace(llama)
    grads = gradients(llama.params, trace)
    arrays = arrays_of(trace, llama.params, grads)
    assert set(arrays) == set(names_of(trace, llama.params, grads))
    n = 0
    for name, arr in arrays.items():
        for index in np.ndindex(arr.shape):
            check_cell(trace, llama.params, grads, arrays, name, tuple(int(i) for i in index))
            n += 1
    assert n == sum(a.size for a in arrays.values()) > 2000


@pytest.mark.parametrize("which", [LLAMA, QWEN2], ids=["llama", "qwen2"])
def test_why_explains_cells_of_every_tensor_of_the_folders(which):
    model = load_model(which)
    trace = _trace(model)
    grads = gradients(model.params, trace)
    arrays = arrays_of(trace, model.params, grads)
    rng = np.random.default_rng(0)
    for name, arr in arrays.items():
        for i in rng.choice(arr.size, min(arr.size, 3), replace=False):
            index = tuple(int(j) for j in np.unravel_index(i, arr.shape))
            check_cell(trace, model.params, grads, arrays, name, index)


@pytest.mark.parametrize(
    "sw", [Switches(positional_encoding=False, activation="gelu"), Switches(activation="relu", norm="post")]
)
def test_why_under_switches_on_the_hand_scale_llama(llama, sw):
    trace = _trace(llama, sw)
    grads = gradients(llama.params, trace)
    arrays = arrays_of(trace, llama.params, grads)
    rng = np.random.default_rng(1)
    for name, arr in arrays.items():
        for i in rng.choice(arr.size, min(arr.size, 4), replace=False):
            index = tuple(int(j) for j in np.unravel_index(i, arr.shape))
            check_cell(trace, llama.params, grads, arrays, name, index)


def test_practice_asks_every_step_forward_and_back(llama):
    trace = _trace(llama)
    grads = gradients(llama.params, trace)
    for number in range(2, 16):
        if number != 3:
            assert step_questions(trace, llama.params, number, backward=True, grads=grads)
        if number >= 2:
            questions = step_questions(trace, llama.params, number, grads=grads)
            assert questions or number == 16
    sixth = step_questions(trace, llama.params, 6, grads=grads)
    asked = {q.why.name.split(".")[2] for q in sixth}
    assert asked == {"q_pre", "q", "k_pre", "k", "v"}


def test_the_words_say_what_these_models_compute(llama):
    trace = _trace(llama)
    sw, cfg = trace.switches, trace.cfg
    formula = {n: formula_as_run(STAGE_BY_NUMBER[n], sw, cfg) for n in (3, 4, 5, 6, 11, 12, 13)}
    assert "nothing is added" in formula[3] and formula[4] == "x_p = E[id_p]   (no position added)"
    assert formula[5].startswith("x_n = x / √(mean(x²) + ε) · g₁") and "μ" not in formula[5]
    assert "Q = RoPE(Q_pre, p)" in formula[6] and "K and V per key/value head: 4 and 2" in formula[6]
    assert formula[11] == "h = SiLU((g₂ ⊙ RMS(x')) W_gate) ⊙ ((g₂ ⊙ RMS(x')) W_up)"
    assert formula[12] == "y = x' + (h W_down)" and formula[13] == "z = g_f ⊙ RMS(y_last)"
    combine = formula_as_run(STAGE_BY_NUMBER[9], sw, cfg)
    assert "head_h = A_h V_g,  g = the key/value head h reads (2 per g)" in combine and "b_O" not in combine
    untied = _trace(load_model(LLAMA))
    assert "W_U" in formula_as_run(STAGE_BY_NUMBER[14], untied.switches, untied.cfg)
    texts = {
        n: STAGE_BY_NUMBER[n].explain(step_path.focus(trace, step_path.at(n, 0, 2))) for n in range(3, 16)
    }
    assert "adds nothing here" in texts[3] and texts[4].startswith("Nothing is added")
    assert "No mean is taken away" in texts[5] and "mean 0" not in texts[5]
    assert "four query heads read two key/value heads" in texts[6] and "RoPE" in texts[6]
    assert "its own three matrices" not in texts[6]  # W_K and W_V are shared by two query heads
    # chapter17-llama's gate is as wide as the stream (d_ff = d_model = 4): W_down maps, it does not narrow
    assert "gated (SwiGLU)" in texts[11] and "W_down maps the 4 detectors back to 4" in texts[12]
    assert "RMSNorm" in texts[13] and "bias" not in texts[13]
    shut = int((np.abs(trace["blocks.0.gate"]) < 0.05).sum())
    size = trace["blocks.0.gate"].size
    said = f"Here {shut} of {size} gate values" if shut else f"Here none of the {size} gate values"
    assert said in texts[11]
    mean_sq = float(np.mean(trace["x"][0] ** 2))
    facts = STAGE_BY_NUMBER[5].facts(step_path.focus(trace, step_path.at(5, 0, 2)))
    assert f"mean of squares {mean_sq:.4f}" in facts[0]


def test_the_activation_goes_round_what_a_gated_model_runs(llama):
    session = Session(llama, State(llama.params, llama.prompt, llama.target, defaults(llama.cfg), 0.5))
    seen = [session.state.switches.activation]
    for _ in range(3):
        session.toggle("activation")
        seen.append(session.state.switches.activation)
    assert seen == ["silu", "relu", "gelu", "silu"]
    assert Switches().toggled("activation").toggled("activation").activation == "relu"  # the chapter's two


def test_the_status_line_names_the_models_choices(llama):
    assert model_choices(llama.cfg) == "RMSNorm·RoPE·4q/2kv·SwiGLU·tied"
    assert model_choices(load_model(QWEN2).cfg) == "RMSNorm·RoPE·4q/1kv·SwiGLU·tied"
    assert model_choices(load_model(LLAMA).cfg).endswith("·untied")
    assert not is_chapters(llama.cfg) and is_chapters(load(presets()["chapter17"]).cfg)


def test_the_scale_card_has_llama_3_8b_as_count_py_publishes_it(llama):
    rows = {r.key: r.llama3 for r in scale_card(llama.cfg)}
    size, published = count.PUBLISHED["Llama-3-8B"]
    assert published == "8.03B" and f"{size.total() / 1e9:.2f}B" == published
    assert rows == {
        "paintings": 8192,
        "days": 32,
        "artists": 32,
        "painting size": 4096,
        "picture": None,
        "filter width": 14336,
        "head width": 128,
    }


def test_the_titles_name_the_models_own_parts(llama):
    assert title_for(STAGE_BY_NUMBER[5], llama.cfg) == "RMSNorm"
    assert title_for(STAGE_BY_NUMBER[11], llama.cfg) == "Feed-forward: map and gate"  # d 4 to d_ff 4
    assert title_for(STAGE_BY_NUMBER[11], load_model(LLAMA).cfg) == "Feed-forward: widen and gate"
    assert title_for(STAGE_BY_NUMBER[14], llama.cfg) == "Tied unembedding"  # chapter17-llama ties E
    assert title_for(STAGE_BY_NUMBER[14], load_model(LLAMA).cfg) == "Unembedding (its own W_U)"
    report = stage_report(_trace(llama), STAGE_BY_NUMBER[5], llama.params)
    assert render.stage_heading(report) == "Block 1/2 · step 5/16 · RMSNorm  (RMSNorm is not in the chapter)"


def test_the_tables_titles_say_what_these_models_compute(llama):
    trace = _trace(llama)
    titles = {n: title_of(n, trace.cfg) for n in ("x", "pe", "x_norm", "hidden", "ffn", "z", "gate_pre")}
    assert titles["x"] == "x = E[id]   (no position added)" and titles["pe"].startswith("PE = 0")
    assert titles["x_norm"] == "g₁ ⊙ RMS(x)" and titles["z"] == "z = g_f ⊙ RMS(y_last)"  # the gains
    assert titles["hidden"] == "hidden = gate ⊙ up" and titles["ffn"] == "FFN = hidden W_down"
    assert titles["gate_pre"] == "gate_pre = x′_n W_gate"
    assert pe_columns(trace.cfg) == trace.cfg.dims  # no wave is added, so none is named
    assert title_of("logits", load_model(LLAMA).cfg) == "ℓ = z W_U"


def test_the_handouts_latex_is_the_models(llama):
    latex = {n: latex_for(STAGE_BY_NUMBER[n], llama.cfg) for n in (3, 4, 5, 6, 9, 10, 11, 12, 13)}
    assert latex[3] == "PE = 0" and latex[4] == r"x_p = E[\mathrm{id}_p]"
    assert r"\mathrm{RMS}" in latex[5] and r"\mu" not in latex[5] and r"\mathrm{RoPE}" in latex[6]
    assert "V_{g(h)}" in latex[9] and r"\mathrm{RMS}(x)" in latex[10]
    assert r"W_{\mathrm{gate}}" in latex[11] and r"W_{\mathrm{down}}" in latex[12] and "RMS" in latex[13]
    assert latex_for(STAGE_BY_NUMBER[5], load(presets()["chapter17"]).cfg) == STAGE_BY_NUMBER[5].latex


def test_step_16_of_an_untied_model_says_what_w_u_costs():
    trace = _trace(load_model(LLAMA))
    text = STAGE_BY_NUMBER[16].explain(trace)
    saved = trace.cfg.n_vocab * trace.cfg.d_model
    assert "this model and Llama-3-8B alike" in text and "Tying the unembedding to E saves" not in text
    assert f"own W_U costs V·d = {trace.cfg.n_vocab}·{trace.cfg.d_model} = {saved:,}" in text
    assert f"the untied W_U adds {saved:,}" in STAGE_BY_NUMBER[16].facts(trace)[1]
