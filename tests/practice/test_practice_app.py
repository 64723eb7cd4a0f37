"""Practice in the app: k hides what a step computes as "?"; Enter on one asks for the value and grades it
(✓ and the value when right; "not quite" and the next hint when wrong); h gives one more hint; the status
line keeps the step's score and the whole practice's. tinytui practice opens a lesson or a sample of a
step."""

from __future__ import annotations

import json
import re

import pytest
from textual.widgets import Input, Static

from tests.apps import make_app
from tinytui.cli.main import main
from tinytui.cli.options import build_parser
from tinytui.cli.practice_command import practice_app
from tinytui.lesson.practice.lesson_file import read_lesson
from tinytui.lesson.practice.questions import cell_text
from tinytui.lesson.why.why import num
from tinytui.present.backward_tables import pane_sections
from tinytui.present.grid_spec import GridSpec
from tinytui.recording.replay import Replayer, load_recording
from tinytui.session.practice_state import Sample
from tinytui.tui.screens.ask_screen import AskScreen
from tinytui.tui.screens.help_screen import HelpScreen, help_rows
from tinytui.tui.screens.path_screen import PathScreen
from tinytui.tui.widgets.status_bar import Inspector, StatusBar
from tinytui.tui.widgets.step_view import StepView
from tinytui.tui.widgets.watch_pane import WatchPane

SIZE = (140, 45)


async def keys(pilot, *pressed: str) -> None:
    for key in pressed:
        await pilot.press(key)
        await pilot.pause()


def shown(app, source) -> str:
    """The text the step's tables draw for one run cell (the first table that shows it), its minus read
    as "-" whichever the tables write."""
    for section in pane_sections(app.view()):
        for row in section.rows:
            for item in row:
                if isinstance(item, GridSpec) and source in item.where:
                    r, c = item.where[source]
                    return item.cells[r][c].strip().replace("−", "-")
    raise AssertionError(f"{source} is not on screen")


def status(app) -> str:
    return app.query_one(StatusBar).text


def inspector(app) -> str:
    return str(app.query_one(Inspector).text)


async def answer(pilot, app, text: str) -> None:
    """Enter on the focused ?, then type text (replacing what the box holds) and Enter."""
    if not isinstance(app.screen, AskScreen):
        await keys(pilot, "enter")
    assert isinstance(app.screen, AskScreen)
    box = app.screen.query_one(Input)
    box.value = ""
    if text.isascii():
        await pilot.press(*text)
    else:  # the Unicode minus, as the app writes numbers: put in the box as a paste would
        box.value = text
    await keys(pilot, "enter")


@pytest.mark.asyncio
async def test_a_step_hidden_answered_and_scored():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "7", "k")
        cells = [("blocks.0.scores.1", (r, c)) for r in range(4) for c in range(4)]
        assert {shown(app, s) for s in cells} == {"?"}
        assert "practice: 0/32" in status(app)
        await keys(pilot, "tab")  # the first table: scores.1, cursor on [0,0]
        assert app.why.focused_source() == ("blocks.0.scores.1", (0, 0))
        assert inspector(app).startswith("S_1[0,0] = ?")
        assert "−0.4714" not in inspector(app)  # the value is not given away
        true = app.session.trace["blocks.0.scores.1"][0, 0]
        await answer(pilot, app, "0.5")
        assert isinstance(app.screen, AskScreen)  # wrong: the box stays, with the first hint
        said = str(app.screen.query_one("#ask-message").render())
        assert said == (
            "✗ not quite (right is within ±0.00027 of what the numbers on screen give). "
            "hint 1 of 3: computed from Q_1[0,0], K_1[0,0], Q_1[0,1], K_1[0,1]"
        )
        await answer(pilot, app, "seven")  # not a number: refused, and no hint is spent on it
        said = str(app.screen.query_one("#ask-message").render())
        assert said == "✗ 'seven' is not a number (try 0.5, -1, 1e-3 or 1/2)"
        assert app.session.practice.rung(("blocks.0.scores.1", (0, 0))) == 1
        await answer(pilot, app, f"{true + 1e-3:.4f}")
        said = str(app.screen.query_one("#ask-message").render())
        assert "hint 2 of 3: S_1[0,0] = (Q_1[0] · K_1[0]) / √2" in said
        await answer(pilot, app, f"{true - 1e-3:.4f}")
        assert "hint 3 of 3: S_1[0,0] = (" in str(app.screen.query_one("#ask-message").render())
        await answer(pilot, app, f"{true:.4f}")
        assert not isinstance(app.screen, AskScreen)
        assert shown(app, ("blocks.0.scores.1", (0, 0))) == "✓-0.4714"
        assert inspector(app).startswith("S_1[0,0] = (Q_1[0] · K_1[0]) / √2 = ")  # at once, not "= ?"
        assert "−0.4714" in inspector(app) and "= ?" not in inspector(app)
        assert "practice: 1/32" in status(app)
        await keys(pilot, "enter")  # a cell answered right is not asked again
        assert not isinstance(app.screen, AskScreen)
        await keys(pilot, "right")  # the next one, answered to 4 decimals with the Unicode minus
        src = app.why.focused_source()
        assert src == ("blocks.0.scores.1", (0, 1))
        await answer(pilot, app, num(app.session.trace["blocks.0.scores.1"][0, 1]))
        assert "practice: 2/32" in status(app)
        await keys(pilot, "8")  # on a cell answered right a digit jumps: another step asks its own
        assert "practice: 0/48 · in all 2/80" in status(app)
        await keys(pilot, "p")  # (on a ? a digit would start an answer)
        assert shown(app, src).startswith("✓")
        await keys(pilot, "k")  # off: every number is back
        assert shown(app, ("blocks.0.scores.1", (1, 0))) == "1.0170"
        assert "practice" not in status(app)


@pytest.mark.asyncio
async def test_the_hint_key_climbs_the_ladder_and_lights_the_operands():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "7", "k", "tab", "down")  # scores.1[1,0]
        assert app.practice.can_answer()
        lit_before = len(app.why.current().operands)
        await keys(pilot, "h")
        assert "hint 1 of 3: computed from Q_1[1,0], K_1[0,0], Q_1[1,1], K_1[0,1]" in inspector(app)
        assert lit_before == 4
        await keys(pilot, "h")
        assert "hint 2 of 3: S_1[1,0] = (Q_1[1] · K_1[0]) / √2" in inspector(app)
        await keys(pilot, "h", "h")  # the last rung stays
        assert "hint 3 of 3: S_1[1,0] = (" in inspector(app)
        await keys(pilot, "escape")


@pytest.mark.asyncio
async def test_the_backward_walk_asks_its_gradients():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "k", "b")  # the walk starts at step 15: ∂L/∂ℓ, eight cells
        assert app.session.mode.backward
        assert "practice: 0/8" in status(app)
        assert shown(app, ("grad.logits", (4,))) == "?"
        await keys(pilot, "n")  # on to step 14: ∂L/∂E's unembedding share and ∂L/∂z
        assert "practice: 0/36 · in all 0/" in status(app)


@pytest.mark.asyncio
async def test_findable_in_palette_and_help():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        titles = [c.title for c in app.palette_commands()]
        assert "Practice: work out each step's values by hand" in titles
        assert "Mark the cell as a lesson question…" in titles
        assert "Save the marked cells as a lesson…" not in titles  # nothing marked yet
        rows = help_rows(app, app.help_sources())
        assert ("anywhere", "k", "Practice") in [row[:3] for row in rows]
        assert any(row[1] == "h" and row[2] == "Hint" for row in rows)
        await keys(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        await keys(pilot, "escape")


NOTE = (
    "Compute this dot product by hand, pairing each entry of the query with the same entry of the key; "
    "add the two products, then divide by √2, the square root of the head's width."
)


def lesson_file(tmp_path, **changes) -> str:
    doc = {
        "format": "tinytui-lesson/1",
        "model": None,
        "prompt": ["a", "woodchuck", "would", "chuck"],
        "target": "wood",
        "cells": [
            {"name": "blocks.0.scores.2", "index": [1, 0], "note": NOTE},
            {"name": "blocks.0.scores.2", "index": [2, 1]},
            {"name": "grad.logits", "index": [4]},
        ],
        **changes,
    }
    path = tmp_path / "lesson.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


@pytest.mark.asyncio
async def test_a_lesson_asks_only_its_cells(tmp_path):
    app = practice_app(build_parser().parse_args(["practice", lesson_file(tmp_path)]))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.session.step == 7  # where the first question is made
        assert shown(app, ("blocks.0.scores.2", (1, 0))) == "?"
        assert shown(app, ("blocks.0.scores.2", (2, 1))) == "?"
        not_asked = app.session.trace["blocks.0.scores.2"][1, 1]
        assert shown(app, ("blocks.0.scores.2", (1, 1))) == f"{not_asked:.4f}"  # not asked: shown
        assert "practice: 0/2 · in all 0/3" in status(app)
        await keys(pilot, "tab")
        await keys(pilot, *["right"] * 4, "down")  # head 2's table sits right of head 1's: scores.2[1,0]
        assert app.why.focused_source() == ("blocks.0.scores.2", (1, 0))
        assert f"note: {NOTE}" in " ".join(inspector(app).split())  # whole, where it is asked
        await keys(pilot, "enter")
        box = " ".join(str(app.screen.query_one(".hint", Static).render()).split())
        assert box.startswith(NOTE)  # the answer box gives it whole too, on lines of its own
        assert "right: within ±0.00026 of what the numbers on screen give" in box
        await answer(pilot, app, "−0.2429")
        assert "practice: 1/2 · in all 1/3" in status(app)


@pytest.mark.asyncio
async def test_a_sample_of_one_step(tmp_path):
    args = build_parser().parse_args(["practice", "--step", "9", "--backward", "--count", "3", "--seed", "1"])
    app = practice_app(args)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.session.mode.backward and app.session.step == 9
        assert "practice: 0/3" in status(app)
        await keys(pilot, "n")  # the walk's next step asks nothing
        assert "practice: none here · in all 0/3" in status(app)


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"prompt": ["a", "tree"]}, "prompt[1]: 'tree' is not in the vocabulary"),
        ({"target": "tree"}, "target: 'tree' is not in the vocabulary"),
        ({"cells": [{"name": "scores.9", "index": [0, 0]}]}, "cells[0]: no tensor named 'scores.9'"),
        ({"cells": [{"name": "loss", "index": [0]}]}, "cells[0]: L is a single number: give no index"),
        ({"cells": []}, "cells: the lesson asks no cell"),
        (
            {"edits": [{"name": "blocks.0.W_Q", "index": [9, 0, 0], "value": 1}]},
            "edits[0]: W_Q[9, 0, 0] is outside",
        ),
        ({"switches": {"ablated_heads": [3]}}, "switches.ablated_heads: there is no head 3"),
        ({"format": "tinytui-lesson/9"}, "format: expected"),
    ],
)
def test_a_lesson_that_does_not_fit_is_one_line(tmp_path, capsys, changes, says):
    path = lesson_file(tmp_path, **changes)
    assert main(["practice", path]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"tinytui: error: {path}: {says}") and err.count("\n") == 1


def test_practice_needs_a_lesson_or_a_step(capsys):
    assert main(["practice"]) == 2
    assert "give a lesson file, or --step N" in capsys.readouterr().err
    assert main(["practice", "--step", "16"]) == 2
    assert "step 16 computes nothing to check by hand" in capsys.readouterr().err


@pytest.mark.asyncio
async def test_a_teacher_marks_cells_and_saves_a_lesson(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "7", "tab", "down", "X")
        assert isinstance(app.screen, AskScreen)
        await pilot.press(*"dot product")
        await keys(pilot, "enter")
        await keys(pilot, "8", "X", "enter")  # A, the first table of step 8 (the cursor is on it); no note
        assert "lesson: 2 cells marked" in status(app)
        app.action_do("lesson-save")
        await pilot.pause()
        assert isinstance(app.screen, PathScreen)
        app.screen.query_one(Input).value = ""
        await pilot.press(*"class1")
        await keys(pilot, "enter")
    lesson = read_lesson(tmp_path / "class1.json")
    assert [(c.name, c.index, c.note) for c in lesson.cells] == [
        ("blocks.0.scores.1", (1, 0), "dot product"),
        ("blocks.0.attn.1", (0, 0), ""),
    ]
    assert lesson.prompt == ("a", "woodchuck", "would", "chuck") and lesson.model is None


@pytest.mark.asyncio
async def test_a_later_block_asks_its_own_cells():
    app = make_app("--model", "woodland")
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "7", "right_square_bracket", "k")
        assert app.session.here.block == 1
        n_prompt, heads = len(app.session.trace.prompt), app.session.trace.cfg.n_heads
        asked = heads * n_prompt * n_prompt
        assert f"practice: 0/{asked}" in status(app)
        assert shown(app, ("blocks.1.scores.1", (0, 0))) == "?"
        await keys(pilot, "left_square_bracket")  # block 1's step 7: its own cells, shown as ? too
        assert shown(app, ("blocks.0.scores.1", (0, 0))) == "?"
        assert f"practice: 0/{asked} · in all 0/{2 * asked}" in status(app)


@pytest.mark.asyncio
async def test_a_practice_in_the_app_is_recorded_and_replays(tmp_path):
    path = tmp_path / "class.txt"
    args = build_parser().parse_args(
        ["--record", str(path), "practice", "--step", "7", "--count", "2", "--seed", "3"]
    )
    app = practice_app(args)
    first = ("blocks.0.scores.1", (0, 2))  # the sample's first cell with this seed
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "practice: 0/2" in status(app)
        assert shown(app, first) == "?"
        await keys(pilot, "tab", "right", "right")
        assert app.why.focused_source() == first
        await answer(pilot, app, "1")
        await keys(pilot, "escape", "h")
        await keys(pilot, "escape", "q")
    text = path.read_text(encoding="utf-8")
    assert "practice on: step 7, 2 of its cells hidden as ? until worked out" in text
    assert f"practice: answered {cell_text(*first)} =" in text  # named as the screen names it
    assert "practice: asked for a hint on" in text
    replayer = Replayer(load_recording(path))
    again = replayer.new_session()
    replayer.apply_all(again)
    assert replayer.diverged is None
    assert again.practice.rung(first) == 2 and again.practice.sample == Sample(7, False, 0, 2, 3)


@pytest.mark.asyncio
async def test_typing_a_digit_on_a_question_starts_the_answer():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "7", "k", "tab", "down", "1")  # scores.1[1,0] is 1.0170; "1" opens the box with it
        assert isinstance(app.screen, AskScreen) and app.session.step == 7  # not a jump to step 1
        assert app.screen.query_one(Input).value == "1"
        await keys(pilot, "full_stop", "0", "1", "7", "0", "enter")
        assert shown(app, ("blocks.0.scores.1", (1, 0))) == "✓1.0170"
        await keys(pilot, "1")  # on a cell answered right a digit is a step again
        assert app.session.step == 1


@pytest.mark.asyncio
async def test_an_answer_typed_in_one_burst_arrives_whole():
    """Keys that reach the app together (a fast typist, a terminal script): the digit opens the box and
    the rest go on after it, none replacing it, so the answer graded is the one typed."""
    from textual import events

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "7", "k", "tab", "down")  # scores.1[1,0] is 1.0170
        for key, character in [("1", "1"), ("full_stop", "."), *((c, c) for c in "0170"), ("enter", "\r")]:
            app.post_message(events.Key(key, character))
        await keys(pilot)
        await pilot.pause()
        assert not isinstance(app.screen, AskScreen)
        assert shown(app, ("blocks.0.scores.1", (1, 0))) == "✓1.0170"


@pytest.mark.asyncio
async def test_the_step_s_words_give_no_answer_away_while_practising():
    import re

    from rich.style import Style

    from tinytui.present.step_words import PRACTICE_NOTE, step_words

    def words(app) -> str:
        return step_words(app.view(), lambda name: Style(), compact=False, width=140).plain

    value = re.compile(r"\d\.\d{2}")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "5")
        before = words(app)
        assert value.search(before)  # step 5's words quote its means and variances
        await keys(pilot, "k")
        hidden = words(app)
        assert PRACTICE_NOTE in hidden and not value.search(hidden)
        assert "loss ?" in status(app) and not value.search(status(app).split("\n")[1])
        await keys(pilot, "b")  # the walk's words too
        assert not value.search(words(app))
        await keys(pilot, "b", "k")  # practice off: the numbers are back
        assert words(app) == before
        assert "loss 1.1690" in status(app)


async def test_the_watch_pane_keeps_its_numbers_back_while_a_step_is_practised():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "15", "W")
        pane = app.query_one(WatchPane)
        p = f"{float(app.session.trace['probs'].max()):.4f}"  # the prediction's probability: step 15's answer
        assert p in pane.text() and "Attention\n" in pane.text()
        await keys(pilot, "k")  # practise step 15: the probabilities are what it asks for
        assert p not in pane.text() and "Hidden while you practise" in pane.text()
        loss = f"loss {float(app.session.trace['loss']):.4f}"
        assert "Attention\n" not in pane.text() and loss not in pane.text()
        await keys(pilot, "k")  # practice ends: the pane's numbers are back
        assert p in pane.text() and "Hidden" not in pane.text()
        app.session.set_practice(True, sample=Sample(7, count=2))  # only step 7 asks, two of its cells
        app.refresh_views()
        await pilot.pause()
        assert not app.view().practising  # nothing of step 15 is asked, yet its numbers answer step 7's
        assert p not in pane.text() and "Attention\n" not in pane.text()
        assert "loss ?" in status(app) and "1.1690" not in status(app)  # nor the status line
        app.action_do("gallery")  # the gallery's paintings would too: it waits for practice to end
        await pilot.pause()
        assert not app.gallery.is_open()


def grid_of(app, source) -> GridSpec:
    for section in pane_sections(app.view()):
        for row in section.rows:
            for item in row:
                if isinstance(item, GridSpec) and source in item.where:
                    return item
    raise AssertionError(f"{source} is not on screen")


@pytest.mark.asyncio
async def test_the_shade_key_of_a_practised_table_reads_only_the_numbers_shown():
    """The key under a shaded table ("−2.44 0 +2.44") is its largest |value|: while practising, the
    largest of the numbers still shown, never a hidden one's."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "7")
        table = app.session.trace["blocks.0.scores.1"]
        largest = max(float(abs(app.session.trace[f"blocks.0.scores.{h}"]).max()) for h in (1, 2))
        first = ("blocks.0.scores.1", (0, 0))
        assert grid_of(app, first).limit == pytest.approx(largest)  # the two heads' tables share a key
        await keys(pilot, "k", "tab")
        assert not grid_of(app, first).shaded  # every cell a ?: no shade and no key
        await answer(pilot, app, f"{table[0, 0]:.4f}")
        spec = grid_of(app, first)
        assert spec.shaded and spec.limit == pytest.approx(abs(float(table[0, 0])))
        assert spec.limit < float(abs(table).max()) < largest  # the hidden cells' size stays hidden


@pytest.mark.asyncio
async def test_a_narrow_screen_draws_each_heads_table_with_its_questions_hidden(tmp_path):
    """At 80 columns the two heads' score tables stand one under the other, each cut from the joined
    table: the hidden S_2[1,0] is drawn as ?, never its value (the heads' own tables showed it)."""
    app = practice_app(build_parser().parse_args(["practice", lesson_file(tmp_path)]))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        view = app.query_one(StepView)
        drawn = [view.render_line(y).text for y in range(view.size.height)]
        rows = [line for line in drawn if "1:woodchuck" in line]
        assert len(rows) == 2  # head 1's row, then head 2's under it
        assert re.search(r"1:woodchuck\s+1\.0170", rows[0])  # S_1[1,0] is not asked: shown
        assert re.search(r"1:woodchuck\s+\?\s", rows[1]) and "−0.2429" not in rows[1]
