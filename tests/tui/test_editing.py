"""Editing weights in place: recompute, highlights, undo/redo, refusals, prompt and target, save."""

import json

import numpy as np
import pytest

from tests.tui.helpers import W_O, grid, logits, open_editor, press, status, steplist, type_into_cell
from tinytui.lesson.step_path import changed_per_step
from tinytui.model.io.model_file import load
from tinytui.present.grid_spec import DOWN, EDITED, UP
from tinytui.report.tables import fmt


async def edit_w_o(pilot, app, text: str):
    await press(pilot, "9")
    return await type_into_cell(pilot, app, W_O, 0, 0, text)


async def test_edit_w_o_recomputes_and_highlights(app):
    async with app.run_test(size=(120, 40)) as pilot:
        before = app.session.trace
        g = await edit_w_o(pilot, app, "0.5")
        assert not g.editing
        assert app.session.params["blocks.0.W_O"][0, 0] == 0.5
        assert g.spec.cells[0][0] == "0.5000"
        assert g.cell_classes(0, 0) == {EDITED}
        assert g.cell_classes(0, 1) == frozenset()
        assert "*" in g.text().splitlines()[1]  # the edited glyph, not colour alone

        # the step list says how far the edit travelled: nothing before step 9 changed
        counts = {int(line[1:].split()[0]): line for line in steplist(app).splitlines()}
        assert all("Δ" not in counts[n] for n in range(1, 9))
        assert all("Δ" in counts[n] for n in (9, 10, 11, 12, 13, 14, 15))

        # the logits pane shows the new numbers, marked up or down
        await press(pilot, "G", "p", "p")  # step 14
        new = app.session.trace["logits"]
        wood = next(line for line in logits(app).splitlines() if line.startswith("wood "))
        assert fmt(new[4]) in wood and fmt(new[4]) != "1.0480"
        assert ("▲" if new[4] > before["logits"][4] else "▼") in wood
        assert "prediction " in status(app) and "→" in status(app)
        assert "1 edited weight" in status(app)

        # highlight classes are on exactly the changed cells of x' (step 10)
        await press(pilot, "9", "n")
        x_mid = grid(app, "output:blocks.0.x_mid")
        d = app.session.diff["blocks.0.x_mid"]
        changed_cells = unchanged_cells = 0
        for r in range(4):
            for c in range(4):
                marks = x_mid.cell_classes(r, c)
                if d.changed[r, c]:
                    assert marks == {UP if d.delta[r, c] > 0 else DOWN}
                    changed_cells += 1
                else:
                    assert not marks & {UP, DOWN}
                    unchanged_cells += 1
        assert changed_cells and unchanged_cells
        rendered = x_mid.text().splitlines()
        assert any("▲" in line or "▼" in line for line in rendered)

        # undo brings back the trace bit for bit; redo makes the edit again
        await press(pilot, "u")
        assert app.session.params["blocks.0.W_O"][0, 0] == 1.0
        assert np.array_equal(app.session.trace["logits"], before["logits"])
        await press(pilot, "G", "p", "p")
        assert "1.0480" in logits(app)
        await press(pilot, "ctrl+r")
        assert app.session.params["blocks.0.W_O"][0, 0] == 0.5
        assert fmt(app.session.trace["logits"][4]) in logits(app)
        await press(pilot, "ctrl+z")
        assert app.session.params["blocks.0.W_O"][0, 0] == 1.0
        await press(pilot, "ctrl+y")
        assert app.session.params["blocks.0.W_O"][0, 0] == 0.5


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("abc", "not a number"),
        ("", "empty"),
        ("nan", "not a number"),
        ("inf", "not a number"),
        ("1e999", "too large"),
    ],
)
async def test_bad_input_changes_nothing_and_says_why(app, text, says):
    async with app.run_test(size=(120, 40)) as pilot:
        before = app.session.trace
        await press(pilot, "9")
        g = await open_editor(pilot, app, W_O, 1, 2)
        await press(pilot, "backspace")  # clear the old value, so "" is really submitted empty
        if text:
            await pilot.press(*text)
        await press(pilot, "enter")
        assert app.session.trace is before
        assert len(app.session.history) == 1
        assert g.editing, "the editor stays open so the value can be fixed"
        assert says in g.error
        # the reason in the table's bottom border (as much as its width holds; the notice has all of it)
        assert g.text().split("\n")[-1] == f"✗ {g.error}"[: g.box.width - 6].rstrip()
        assert any(says in n.message for n in app.toasts.notes())
        await press(pilot, "escape")
        assert not g.editing and g.error == ""
        assert app.session.trace is before


async def test_overflow_after_recompute_is_refused(app):
    async with app.run_test(size=(120, 40)) as pilot:
        before = app.session.trace
        await press(pilot, "2")
        g = await open_editor(pilot, app, "param:E", 5, 3)  # E[woodchuck, wood]
        await pilot.press(*"1e200")
        await press(pilot, "enter")
        assert app.session.trace is before
        assert app.session.params["E"][5, 3] == 0.5
        assert "overflow" in g.error
        assert g.spec.cells[5][3] == "0.5000"


async def test_fractions_and_plain_numbers_are_accepted(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9")
        for text, value in (("1/2", 0.5), ("-1", -1.0), ("1e-3", 0.001)):
            await open_editor(pilot, app, W_O, 2, 1)
            await pilot.press(*text)
            await press(pilot, "enter")
            assert app.session.params["blocks.0.W_O"][2, 1] == value


async def test_escape_cancels_and_keys_type_into_the_editor(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9")
        g = await open_editor(pilot, app, W_O, 0, 0)
        await pilot.press(*"3nq")  # n and q are keys elsewhere; in the editor they are just text
        await pilot.pause()
        assert g.buffer == "3nq" and app.session.step == 9 and app.is_running
        await press(pilot, "escape")
        assert not g.editing and len(app.session.history) == 1


async def test_keys_sent_at_once_go_into_the_editor_in_order(app):
    """e, a digit and Enter arriving in one burst (a fast typist, a script driving the terminal): the
    editor opens with the e, the digit goes into the cell and Enter commits it."""
    from textual import events

    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9")
        g = grid(app, W_O)
        g.focus()
        await pilot.pause()
        g.move_to(0, 1)
        await pilot.pause()
        for key, character in (("e", "e"), ("7", "7"), ("enter", "\r")):
            app.post_message(events.Key(key, character))
        await press(pilot)
        await pilot.pause()
        assert app.session.params["blocks.0.W_O"][0, 1] == 7.0
        assert len(app.session.history) == 2 and not g.editing


async def test_enter_on_the_value_as_shown_changes_nothing():
    """The editor opens with the value to four places; Enter on it untouched leaves the weight as it
    was, to the last bit, and makes nothing to undo."""
    from tests.apps import random_app

    app = random_app(tokens=4)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9")
        g = grid(app, W_O)
        exact = float(app.session.params["blocks.0.W_O"][0, 0])
        assert fmt(exact) != repr(exact)  # more places than the cell shows
        await open_editor(pilot, app, W_O, 0, 0)
        await press(pilot, "enter")
        assert not g.editing
        assert float(app.session.params["blocks.0.W_O"][0, 0]) == exact
        assert len(app.session.history) == 1 and not app.session.can_undo


async def test_tab_reaches_the_weights_and_arrows_move_the_cursor(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9")
        for _ in range(10):
            await press(pilot, "tab")
            if getattr(app.focused, "spec", None) is not None and app.focused.spec.key == W_O:
                break
        g = app.focused
        assert g.spec.key == W_O
        await press(pilot, "down", "right", "right")
        assert (g.row, g.col) == (1, 2)
        assert app.session.step == 9, "arrows in a table move the cursor, not the step"
        assert app.query_one("#inspector").text.startswith("W_O[h1.k1, quantifier] = 0.0000")


async def test_computed_values_are_not_editable(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9")
        g = grid(app, "output:blocks.0.mha")
        g.focus()
        await press(pilot, "enter")
        assert not g.editing
        assert any("computed from the weights" in n.message for n in app.toasts.notes())


async def test_compare_to_original(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await edit_w_o(pilot, app, "0.5")
        await open_editor(pilot, app, W_O, 3, 3)
        await pilot.press(*"2")
        await press(pilot, "enter")
        # since the last change, only the second edit's effects are marked
        last = app.session.diff["blocks.0.mha"].n_changed
        await press(pilot, "c")
        assert app.session.compare_to_original
        assert "▲▼ vs original model (c)" in status(app)
        both = app.session.diff["blocks.0.mha"].n_changed
        assert both > last
        mha = grid(app, "output:blocks.0.mha")
        marked = sum(bool(mha.cell_classes(r, c) & {UP, DOWN}) for r in range(4) for c in range(4))
        assert marked == both
        await press(pilot, "c")
        assert not app.session.compare_to_original


async def test_reset_asks_first_when_there_are_edits(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await edit_w_o(pilot, app, "0.5")
        await press(pilot, "R")
        from tinytui.tui.screens.confirm_screen import ConfirmScreen

        assert isinstance(app.screen, ConfirmScreen)
        await press(pilot, "n")
        assert app.session.params["blocks.0.W_O"][0, 0] == 0.5
        await press(pilot, "R", "y")
        assert app.session.params["blocks.0.W_O"][0, 0] == 1.0
        assert app.session.edited_cells() == {}
        await press(pilot, "u")  # the reset itself can be undone
        assert app.session.params["blocks.0.W_O"][0, 0] == 0.5


async def test_reset_asks_first_after_a_prompt_change_and_says_when_nothing_to_do(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "R")
        assert any("Already the model file" in n.message for n in app.toasts.notes())
        app.apply(lambda s: s.set_target("a"))
        await press(pilot, "R")
        from tinytui.tui.screens.confirm_screen import ConfirmScreen

        assert isinstance(app.screen, ConfirmScreen)
        assert "the prompt and target" in app.screen.question
        await press(pilot, "y")
        assert app.session.state.target == "wood"


async def test_change_a_token_insert_remove_and_target(app):
    async with app.run_test(size=(120, 40)) as pilot:
        tokens = grid(app, "tokens")
        tokens.focus()
        tokens.move_to(1, 0)
        await press(pilot, "enter")  # pick a token for position 1
        await press(pilot, "home", "down", "enter")  # vocab[1] = chuck
        assert app.session.state.prompt == ("a", "chuck", "would", "chuck")
        assert grid(app, "tokens").spec.cells[1][:2] == ("chuck", "1")
        assert "◆" in grid(app, "tokens").text()

        grid(app, "tokens").move_to(0, 0)
        await press(pilot, "i", "home", "enter")  # insert "a" after position 0
        assert app.session.state.prompt == ("a", "a", "chuck", "would", "chuck")
        await press(pilot, "delete")  # removes the cursor's row (0)
        assert app.session.state.prompt == ("a", "chuck", "would", "chuck")

        await press(pilot, "y", "home", "enter")  # target a
        assert app.session.state.target == "a"
        assert "target a" in status(app)


async def test_removing_the_only_token_is_refused(app):
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply(lambda s: s.set_prompt(["a"]))
        await pilot.pause()
        before = app.session.trace
        await press(pilot, "delete")
        assert app.session.trace is before
        assert any("at least one token" in n.message for n in app.toasts.notes())


async def test_parameter_browser_from_the_palette(app):
    async with app.run_test(size=(120, 40)) as pilot:
        titles = [c.title for c in app.palette_commands()]
        for name in ("E", "W_Q", "W_K", "W_V", "W_O", "W_1", "b_1", "W_2", "b_2"):
            assert f"Edit parameter {name}" in titles
        app.edits.edit_parameter("b_2")
        await pilot.pause()
        from tinytui.tui.screens.param_browser import ParamScreen

        assert isinstance(app.screen, ParamScreen)
        g = app.focused
        assert g.spec.key == "param:blocks.0.b_2"
        g.move_to(0, 3)
        await press(pilot, "enter")
        await pilot.press(*"-1")
        await press(pilot, "enter")
        assert app.session.params["blocks.0.b_2"][3] == -1.0
        per = {step.number: n for step, n in changed_per_step(app.session.diff, 2, 1).items()}
        assert [n for n, k in per.items() if k] == [12, 13, 14, 15]
        assert "1 edited weight" in app.screen.query_one("#params-status").text
        assert g.cell_classes(0, 3) == {EDITED}
        await press(pilot, "u")  # undo works inside the browser too
        assert app.session.params["blocks.0.b_2"][3] == 1.0
        assert g.cell_classes(0, 3) == frozenset()
        await press(pilot, "ctrl+r")
        assert app.session.params["blocks.0.b_2"][3] == -1.0
        await press(pilot, "escape")
        assert not isinstance(app.screen, ParamScreen)


async def test_edit_parameter_picker_reaches_every_matrix(app):
    async with app.run_test(size=(120, 40)) as pilot:
        app.edits.edit_parameter()
        await pilot.pause()
        from tinytui.tui.screens.pick_screen import PickScreen

        assert isinstance(app.screen, PickScreen)
        assert [v for v, _ in app.screen.choices] == ["E"] + [
            f"blocks.0.{n}" for n in ("W_Q", "W_K", "W_V", "W_O", "W_1", "b_1", "W_2", "b_2")
        ]
        assert app.screen.choices[1][1].split() == ["W_Q", "2×4×2", "(16", "weights)"]
        await press(pilot, "down", "enter")
        g = app.focused
        assert g.spec.key == "param:blocks.0.W_Q"
        assert g.spec.groups == (("head 1", 2), ("head 2", 2))
        assert sum(len(r) for r in g.spec.refs) == 16


async def test_save_asks_for_a_path_and_never_overwrites_silently(app, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await edit_w_o(pilot, app, "0.5")
        await press(pilot, "ctrl+s")
        from tinytui.tui.screens.save_screen import SaveScreen

        assert isinstance(app.screen, SaveScreen)
        await press(pilot, "enter")  # the suggested name
        saved = tmp_path / "chapter17-edited.json"
        assert saved.exists()
        assert load(saved).params["blocks.0.W_O"][0, 0] == 0.5
        assert json.loads(saved.read_text())["format"] == "tinytui-model/1"

        await press(pilot, "ctrl+s", "enter")  # the same name again: asks before overwriting
        assert isinstance(app.screen, SaveScreen)
        assert "exists" in str(app.screen.query_one("#save-message").render())
        await press(pilot, "enter")
        assert not isinstance(app.screen, SaveScreen)


async def test_save_refuses_the_preset(app):
    from tinytui.model.io.model_file import default_model_path
    from tinytui.tui.output_paths import check_save_path

    path, why = check_save_path(str(default_model_path()), confirmed=default_model_path().resolve())
    assert path is None and "never overwritten" in why
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "ctrl+s")
        inp = app.screen.query_one("#save-path")
        inp.value = str(default_model_path())
        await press(pilot, "enter", "enter")
        assert "never overwritten" in str(app.screen.query_one("#save-message").render())


async def test_mouse_moves_the_cursor_and_double_click_edits(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9")
        g = grid(app, W_O)
        v = g.view
        g.move_to(1, 1)  # scrolls the table into view
        await pilot.pause()
        box = g.box
        x = box.x + 2 + box.shape.xs[3] + 2 - round(v.scroll_x)
        y = box.y + box.first_row + 2 - round(v.scroll_y)
        offset = (x, y)
        await pilot.click(v, offset=offset)
        await pilot.pause()
        assert (g.row, g.col) == (2, 3) and app.focused is v
        assert not g.editing
        await pilot.double_click(v, offset=offset)
        await pilot.pause()
        assert g.editing and g.buffer == "0.0000"


async def test_changed_and_edited_cells_are_drawn_in_their_theme_styles(app):
    from textual.color import Color

    async with app.run_test(size=(120, 40)) as pilot:
        w_o = await edit_w_o(pilot, app, "0.5")
        mha = grid(app, "output:blocks.0.mha")
        colour = {k: Color.parse(app.theme_variables[k]).rich_color for k in ("tt-changed-up", "tt-edited")}
        assert mha.cell_classes(0, 0) == {UP}
        assert mha.cell_style(0, 0).bgcolor == colour["tt-changed-up"]
        assert mha.cell_style(0, 1).bgcolor != colour["tt-changed-up"]
        assert w_o.cell_style(0, 0).bgcolor == colour["tt-edited"]
        assert w_o.cell_style(0, 1).bgcolor != colour["tt-edited"]


async def test_an_edit_says_what_changed_and_why_the_prediction_moved_or_not(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await edit_w_o(pilot, app, "0.5")
        notes = [n.message for n in app.toasts.notes() if n.title == "Edited"]
        assert len(notes) == 1 and notes[0].startswith("edit W_O[h1.k0, thing]: 1.0000 → 0.5000")
        assert "steps 9–15 changed" in notes[0] and "the prediction stays 'wood'" in notes[0]
        await edit_w_o(pilot, app, "0.25")  # a second edit's note takes the first's place
        notes = [n.message for n in app.toasts.notes() if n.title == "Edited"]
        assert len(notes) == 1 and notes[0].startswith("edit W_O[h1.k0, thing]: 0.5000 → 0.2500")


async def test_an_edit_of_a_dead_relu_unit_s_w_2_row_says_why_nothing_moved(app):
    """Unit 0 of the chapter's feed-forward is zero at every position, so its row of W_2 is multiplied by
    zero: the edit's notice says so, naming the unit as the tables label it."""
    async with app.run_test(size=(120, 40)) as pilot:
        hidden = app.session.trace["blocks.0.hidden"]
        assert (hidden[:, 0] == 0).all()
        await press(pilot, "G", "p", "p", "p", "p")  # step 12: y = hidden W_2 + b_2
        g = await type_into_cell(pilot, app, "param:blocks.0.W_2", 0, 0, "3")
        assert not g.editing and app.session.params["blocks.0.W_2"][0, 0] == 3.0
        said = " ".join(note.message for note in app.toasts.notes())
        assert "nothing in the run changed: unit 0 is zero at every position (ReLU cuts it)" in said
