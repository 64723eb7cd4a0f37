"""Big weights and tensors are built as a window (tinytui/present/windows.py): E's rows of the prompt's
tokens at step 2, the first 64 × 64 of W_1, the parameter browser paging to any cell; each window's cells
name the weight's own cells, so an edit, the inspector and f land on the right one.

The model: vocab 300 × d 96 (E has 28,800 cells) and d_ff 300 (W_1 96 × 300), over windows.CELLS, small
enough to run the forward in a moment."""

import numpy as np

from tests.random_models import config, weights
from tests.tui.helpers import grid, press
from tinytui.model.io.document import ModelFile
from tinytui.model.switches import Switches
from tinytui.model.trace import DEFAULT_LR
from tinytui.present import windows
from tinytui.present.token_cells import token_grid
from tinytui.present.view import View
from tinytui.report.tables import fmt, on_screen
from tinytui.session.session import Session
from tinytui.session.state import State
from tinytui.tui.app import TinyTuiApp
from tinytui.tui.screens.param_browser import ParamScreen
from tinytui.tui.widgets.status_bar import Inspector
from tinytui.tui.widgets.step_view import StepView

PROMPT_IDS = (5, 250, 17, 5, 99)  # t5 twice: its row is shown once
TARGET = 299
W_1 = "blocks.0.W_1"


def model() -> ModelFile:
    cfg = config(96, 4, 24, 300, 300, n_ctx=16)
    params = weights(np.random.default_rng(8), cfg, 0.1)
    prompt = tuple(cfg.vocab[i] for i in PROMPT_IDS)
    return ModelFile("windows", "", params, prompt, cfg.vocab[TARGET])


def app_of(m: ModelFile) -> TinyTuiApp:
    return TinyTuiApp(Session(m, State(m.params, m.prompt, m.target, Switches(), DEFAULT_LR)))


def screen_text(app) -> str:
    views = list(app.screen.query(StepView))
    headings = [h.text for v in views for h in v.blocks.headings]
    return "\n".join(headings + [b.item.title for v in views for b in v.blocks.boxes])


async def go(pilot, app, step: int) -> None:
    app.steps.goto(step)
    await pilot.pause()
    await pilot.pause()


async def test_step_2_shows_the_rows_of_E_the_prompt_reads():
    app = app_of(model())
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "2")
        e = grid(app, "param:E")
        spec, E = e.spec, app.session.params["E"]
        rows = (5, 250, 17, 99, TARGET)  # the prompt's ids in order, each once, then the target's
        assert spec.rows == tuple(f"t{i}" for i in rows)
        assert spec.cols == tuple(f"d{j}" for j in range(64))  # the first 64 of 96 dims
        assert spec.title == "E (vocab × dims) — 5 of 300 rows (prompt and target) · columns 0–63 of 96"
        assert spec.title in screen_text(app)  # drawn as the table's title
        # and where the rest is, in the heading over the weights
        heading = "Weights it uses — Enter edits a cell · all of a big one: ctrl+p → Edit parameter…"
        assert heading in screen_text(app)
        for r, i in enumerate(rows):
            for c in (0, 7, 63):
                assert spec.sources[r][c] == ("E", (i, c))  # E's own cell, not the window's
                assert spec.refs[r][c].index == (i, c) and spec.refs[r][c].label == f"E[t{i}, d{c}]"
                assert spec.cells[r][c] == on_screen(fmt(float(E[i, c])))
        # the token table beside it: 5 positions × 96 dims is small, so it is built whole as before
        tokens = grid(app, "tokens")
        assert tokens.spec.shape == (5, 2 + 96) and "the rest" not in tokens.spec.title


async def test_f_from_a_looked_up_value_lands_on_its_row_of_the_window():
    app = app_of(model())
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "2")
        tokens = grid(app, "tokens")
        tokens.focus()
        await pilot.pause()
        tokens.move_to(1, 2 + 7)  # e_1[d7] = E[t250, d7]
        await pilot.pause()
        assert "E[250, 7]" in app.query_one(Inspector).text  # the formula names E's own cell
        await press(pilot, "F", "f")  # its second operand (the first is id[1])
        e = grid(app, "param:E")
        assert app.focused is e.view and e.source == ("E", (250, 7)) and (e.row, e.col) == (1, 7)


async def test_an_edit_in_the_window_lands_on_the_weights_own_cell():
    m = model()
    app = app_of(m)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "2")
        e = grid(app, "param:E")
        e.focus()
        await pilot.pause()
        e.move_to(3, 10)  # the window's row 3 is t99
        await press(pilot, "enter", *"0.625", "enter")
        E = app.session.params["E"]
        assert E[99, 10] == 0.625
        changed = np.argwhere(m.params["E"] != E)
        assert changed.tolist() == [[99, 10]]  # that cell and no other
        assert grid(app, "param:E").spec.cells[3][10] == "0.6250"
        assert float(app.session.trace["emb"][4, 10]) == 0.625  # position 4 is t99: its lookup follows


async def test_W_1_shows_its_first_64_rows_and_columns_and_the_browser_pages_to_its_last_cell():
    m = model()
    app = app_of(m)
    async with app.run_test(size=(120, 40)) as pilot:
        await go(pilot, app, 11)
        w1 = grid(app, f"param:{W_1}")
        assert w1.spec.shape == (64, 64)
        assert w1.spec.title == "W_1 — rows 0–63 of 96 · columns 0–63 of 300"
        assert w1.spec.sources[63][63] == (W_1, (63, 63))
        hidden = grid(app, "output:blocks.0.hidden_pre")
        assert hidden.spec.shape == (5, 300)  # 1,500 cells: whole, as before

        app.edits.edit_parameter(W_1)
        await pilot.pause()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ParamScreen)
        footer = {b.binding.description for b in screen.active_bindings.values() if b.binding.show}
        assert {"Rows ↓", "Rows ↑", "Cols →", "Cols ←"} <= footer
        table = screen.query_one(StepView)
        assert table.spec.title.endswith("rows 0–63 of 96 · columns 0–63 of 300 · J K: rows · H L: columns")
        await press(pilot, "J", "L", "L", "L", "L")  # rows: the last page; columns: four pages right
        assert table.spec.title.startswith("W_1 — rows 32–95 of 96 · columns 236–299 of 300")
        await press(pilot, "J")  # no further: the page stays, a bell and a note
        assert table.spec.rows[0] == "d32"
        table.focus()
        table.move_to(63, 63)
        await pilot.pause()
        assert table.source == (W_1, (95, 299))
        assert table.spec.cells[63][63] == on_screen(fmt(float(m.params[W_1][95, 299])))
        await press(pilot, "enter", *"-1.5", "enter")
        assert app.session.params[W_1][95, 299] == -1.5
        assert np.argwhere(app.session.params[W_1] != m.params[W_1]).tolist() == [[95, 299]]
        await press(pilot, "d")  # the gradient shows the same page
        gradient = table.blocks.boxes[1].item
        assert gradient.sources[63][63] == (f"grad.{W_1}", (95, 299))
        await press(pilot, "K", "H")
        assert table.spec.title.startswith("W_1 — rows 0–63 of 96 · columns 172–235 of 300")
        assert table.blocks.boxes[1].item.sources[0][0] == (f"grad.{W_1}", (0, 172))


async def test_a_small_weight_has_no_pages():
    app = app_of(model())
    async with app.run_test(size=(120, 40)) as pilot:
        app.edits.edit_parameter("blocks.0.W_Q")  # 96 × 4 heads of 24: 9,216 cells, whole
        await pilot.pause()
        await pilot.pause()
        screen = app.screen
        tables = [b.item for b in screen.query_one(StepView).blocks.boxes]
        assert sum(t.shape[1] for t in tables) == 96 and all(t.shape[0] == 96 for t in tables)
        assert not any(b.binding.action.startswith("pan") for b in screen.active_bindings.values())


def test_a_50257_token_vocabulary_builds_a_few_rows_of_E():
    cfg = config(8, 2, 4, 8, 50_257)
    params = weights(np.random.default_rng(2), cfg, 0.5)
    prompt = ("t7", "t40000", "t7")
    m = ModelFile("wide", "", params, prompt, "t50000")
    session = Session(m, State(m.params, prompt, m.target, Switches(), DEFAULT_LR))
    view = View.of(session)
    from tinytui.present.cells import param_grid
    from tinytui.present.tensor_cells import tensor_grid

    session.goto(2)
    e = param_grid(View.of(session), "E")
    assert e.rows == ("t7", "t40000", "t50000") and e.shape == (3, 8)
    session.goto(14)
    at_14 = param_grid(View.of(session), "E")
    pane = windows.token_ids(View.of(session))
    assert at_14.rows == tuple(f"t{i}" for i in pane) and len(pane) <= 3 + 10
    session.goto(15)  # ∂L/∂ℓ over 50,257 tokens: the logit pane's tokens only
    g = tensor_grid(View.of(session), "grad_logits", "output")
    assert g.title.startswith("∂L/∂ℓ") and "— 11 of 50,257 columns (top logits and target)" in g.title
    assert len(g.cols) == 11 and g.sources[0][-1] == ("grad_logits", (50_000,))
    assert token_grid(view).shape == (3, 2)


async def test_f_to_a_cell_outside_the_window_says_where_it_is():
    app = app_of(model())
    async with app.run_test(size=(120, 40)) as pilot:
        app.steps.goto(11)  # h_pre = x′_n W_1 + b_1, all 300 units shown (1,500 cells)
        await pilot.pause()
        pre = grid(app, "output:blocks.0.hidden_pre")
        pre.focus()
        await pilot.pause()
        pre.move_to(0, 100)  # unit 100: its W_1 column is outside W_1's window (columns 0–63)
        await pilot.pause()
        await press(pilot, "F", "f")  # the second operand: W_1[0,100]
        for _ in range(30):
            await pilot.pause()
        said = [n.message for n in app.toasts.notes()]
        assert any("W_1[0,100] is not in the part of its table shown here" in m for m in said), said
        assert app.session.step == 11
