"""The app's tables and inspector name tensors as the transcript and the handouts do
(tinytui.lesson.texts.display_names): x′ not x_mid, h_pre, MHA, A_1, ∂L/∂ℓ; one naming for the app, the
transcript and print."""

import re

from tests.apps import make_app
from tests.tui.helpers import grid, tables
from tinytui.lesson.texts.display_names import in_formula
from tinytui.present.backward_tables import pane_sections
from tinytui.present.cells import all_items
from tinytui.present.grid_spec import GridSpec
from tinytui.report.tables import TENSOR_TITLES
from tinytui.tui.widgets.status_bar import Inspector

INTERNAL = re.compile(
    r"(?<![\w.])(x_mid_norm|x_mid|x_norm|hidden_pre|mha|ffn|emb|grad_logits|logits_stepped|probs_stepped|"
    r"loss_stepped|ln1\.\w+|grad\.\w+|(?:q|k|v|scores|attn)\.\d)(?![\w])"
)


def words_of(spec: GridSpec) -> list[str]:
    """What a table writes: its title, labels, headers and the inspector line of each cell."""
    lines = [spec.title, spec.corner, *spec.rows, *spec.cols, *(g for g, _ in spec.groups)]
    return lines + [line for row in spec.details for line in row]


def test_no_table_of_any_step_or_walk_step_uses_an_internal_name():
    app = make_app()
    session, checked = app.session, 0
    for backward, steps in ((False, range(1, 17)), (True, range(15, 1, -1))):
        for step in steps:
            session.goto(step, backward=backward)
            for item in all_items(pane_sections(app.view())):
                if isinstance(item, GridSpec):
                    for line in words_of(item):
                        assert not INTERNAL.search(line), (step, backward, line)
                        checked += 1
    assert checked > 2000


def test_formulas_are_written_in_the_tables_names():
    assert in_formula("x_mid[3,3] = x[3,3] + mha[3,3]") == "x′[3,3] = x[3,3] + MHA[3,3]"
    assert in_formula("attn.2[3,3] = exp(scores.2[3,3]) / Σ_(k ≤ 3) exp(scores.2[3,k])") == (
        "A_2[3,3] = exp(S_2[3,3]) / Σ_(k ≤ 3) exp(S_2[3,k])"
    )
    assert (
        in_formula("grad.W_2[7,3] = Σ_p hidden[p,7]·grad.ffn[p,3]")
        == "∂L/∂W_2[7,3] = Σ_p hidden[p,7]·∂L/∂FFN[p,3]"
    )
    assert in_formula("loss = −log probs[4]   (the target, 'wood')") == "L = −log p[4]   (the target, 'wood')"
    assert in_formula("grad.z[3] = Σ_v grad.logits[v]·E[v,3]") == "∂L/∂z[3] = Σ_v ∂L/∂ℓ[v]·E[v,3]"
    assert (
        in_formula("ln1.var[3] = (1/d) Σ_j (x[3,j] − ln1.mean[3])²") == "σ²[3] = (1/d) Σ_j (x[3,j] − μ[3])²"
    )
    # words that are also names stay words; a weight's cell stays the weight's
    assert (
        in_formula("how the loss moves the logits; W_Q[1,:,0]") == "how the loss moves the logits; W_Q[1,:,0]"
    )


async def test_the_first_residual_says_x_prime_in_its_title_and_the_inspector():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.steps.goto(10)
        await pilot.pause()
        await pilot.pause()
        x_mid = grid(app, "output:blocks.0.x_mid")
        assert x_mid.spec.title == TENSOR_TITLES["x_mid"] == "x′ = x + MHA(LN(x))"
        x_mid.focus()
        x_mid.move_to(3, 3)
        await pilot.pause()
        shown = app.query_one(Inspector).text
        assert shown.startswith(
            "x′[3,3] = x[3,3] + MHA[3,3] = 1.4996 + 1.7512 ≈ 3.2507   (these rounded numbers give 3.2508)"
        ), shown
        assert "f: follow x[3,3]" in shown
        app.steps.goto(11)
        await pilot.pause()
        await pilot.pause()
        assert grid(app, "output:blocks.0.hidden_pre").spec.title.startswith("h_pre = x′_n W_1 + b_1")
        app.steps.goto(15)
        await pilot.pause()
        rows = [g.spec.rows[0] for g in tables(app) if g.spec.title.startswith(("∂L/∂ℓ", "ℓ′", "p′"))]
        assert rows == ["∂L/∂ℓ", "ℓ′", "p′"]


def test_prose_and_step_formulas_use_the_same_names():
    from tinytui.lesson.texts.display_names import in_words

    assert in_words("the skip hands ∂L/∂ffn to x' as well") == "the skip hands ∂L/∂FFN to x′ as well"
    assert in_words("∂L/∂b_2 = Σ_p ∂L/∂ffn_p") == "∂L/∂b_2 = Σ_p ∂L/∂FFN_p"
    assert in_words("h = GELU(LN(x') W_1 + b_1)") == "h = GELU(LN(x′) W_1 + b_1)"
    assert in_words("mha_out, x_mid_norm") == "mha_out, x′_n"  # a longer word is not a name
