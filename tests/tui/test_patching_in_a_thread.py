"""Activation patching after a change: a costly patching is made in a worker thread while the step says
"patching…", the next change's takes its place, and the chapter's model still shows its tables at once."""

import contextlib
import threading

from textual.worker import WorkerCancelled

from tests.tui.helpers import grid, press
from tinytui.model.analysis.patching import patch
from tinytui.report.tables import fmt
from tinytui.session import second_runs  # the controller's thread makes the patching with it
from tinytui.tui.widgets.step_view import StepView

CORRUPT = "a much would chuck"


async def settle(pilot, n: int = 4) -> None:
    for _ in range(n):
        await pilot.pause()


async def all_workers_done(app) -> None:
    """Every worker finished or stopped (a superseded one ends cancelled)."""
    for worker in list(app.workers):
        with contextlib.suppress(WorkerCancelled):
            await worker.wait()


def on_screen(app) -> str:
    return app.query_one(StepView).text()


def expected_row(app) -> tuple[str, ...]:
    s = app.session
    made = patch(s.params, s.state.prompt, tuple(CORRUPT.split()), s.state.target, "chuck", s.state.switches)
    return tuple(fmt(float(v)) for v in made.resid_pre[0])


async def test_an_edit_with_patching_on_shows_the_new_patching_in_the_next_frame(app):
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply(lambda s: s.set_patching(CORRUPT, "chuck"))
        app.steps.goto(14)
        await settle(pilot)
        before = grid(app, "patch:resid").spec.cells[0]
        app.apply(lambda s: s.edit("W_O", (0, 0), 2.0))
        await pilot.pause()
        after = grid(app, "patch:resid").spec.cells[0]
        assert after == expected_row(app) and after != before


async def test_a_costly_patching_says_patching_then_shows_its_tables(app, monkeypatch):
    gate = threading.Event()  # the thread's runs wait for it: the screen is read while they are made
    made_in_thread = second_runs.make_patching

    def held(*args, **kwargs):
        gate.wait(timeout=10)
        return made_in_thread(*args, **kwargs)

    monkeypatch.setattr(second_runs, "make_patching", held)
    async with app.run_test(size=(120, 40)) as pilot:
        app.session.second_runs.made_at_once_up_to = 0  # as costly as GPT-2's: made in a thread
        await press(pilot, "A")
        app.screen.query_one("Input").value = CORRUPT
        await pilot.press("enter")
        await settle(pilot)
        app.screen.query_one("Input").value = "chuck"
        await pilot.press("enter")
        await settle(pilot)
        assert app.session.step == 14
        assert "patch:resid" not in [t.key for t in app.query_one(StepView).tables()]
        assert "patching… 6 runs of the corrupted prompt" in on_screen(app)
        await press(pilot, "p")  # moving on and back while it is made starts no second thread
        await press(pilot, "n")
        assert len([w for w in app.workers if w.group == "patch"]) == 1
        gate.set()
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert "patching…" not in on_screen(app)
        assert grid(app, "patch:resid").spec.cells[0] == ("0.7542", "0.7120", "0.7542", "0.7542")


async def test_the_next_edit_takes_the_place_of_the_patching_being_made(app):
    async with app.run_test(size=(120, 40)) as pilot:
        app.session.second_runs.made_at_once_up_to = 0
        app.apply(lambda s: s.set_patching(CORRUPT, "chuck"))
        app.steps.goto(14)
        for value in (2.0, -1.0, 0.5):  # three edits, each while the one before may still be made
            app.apply(lambda s, v=value: s.edit("W_O", (0, 0), v))
        await all_workers_done(app)
        await settle(pilot)
        assert grid(app, "patch:resid").spec.cells[0] == expected_row(app)
        s = app.session
        assert s.second_runs.kept(s.state, s.patch_setting) is not None  # kept for the state shown


async def test_a_patching_that_cannot_be_made_turns_patching_off_and_says_why(app, monkeypatch):
    def out_of_memory(*args, **kwargs):
        raise MemoryError("no room for the patched runs")

    monkeypatch.setattr(second_runs, "make_patching", out_of_memory)
    async with app.run_test(size=(120, 40)) as pilot:
        app.session.second_runs.made_at_once_up_to = 0
        app.apply(lambda s: s.set_patching(CORRUPT, "chuck"))
        app.steps.goto(14)
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert app.session.patch_setting is None
        assert "patching…" not in on_screen(app)
        said = [n.message for n in app.toasts.notes() if n.severity == "error"]
        why = "Patching could not be made (no room for the patched runs): it is off; A sets it again"
        assert said == [why]
