"""Memory stays flat across rounds of edit, undo, d and b: nothing keeps the traces of earlier moves but
the session's own kept traces, within its budget.

Sizes, not timings: every trace the session ever made is watched through a weak reference, and after any
number of rounds only the ones the session holds are alive (the trace shown, the one before the last
change, the model file's own, and the traces of recent states kept for undo within trace_budget); a
cache that grows with the rounds fails here.
"""

import gc
import weakref

import numpy as np
import pytest
from rich.text import Text

from tests.apps import make_app
from tests.random_models import config, weights
from tinytui.model.io.document import ModelFile
from tinytui.present.grid_spec import GridSpec
from tinytui.session import history
from tinytui.session.session import Session

ROUNDS = 12
APP_ROUNDS = 6  # each makes two traces (its edit's, cut from the history by the next edit): a cache of
# more than three fails by the second


@pytest.fixture
def model():
    cfg = config(8, 2, 4, 12, 10, blocks=4, n_ctx=8)
    return ModelFile("random", "", weights(np.random.default_rng(29), cfg, 0.5), ("t3", "t1", "t4"), "t7")


def watched(session) -> list[weakref.ref]:
    """Weak references to every trace the session shows from now on (each move's event.after)."""
    refs = [weakref.ref(session.trace)]
    session.listeners.append(lambda event: refs.append(weakref.ref(event.after)))
    return refs


def specs_alive() -> int:
    """How many table specs exist: what the screen shows, what the caches of present/ keep."""
    gc.collect()
    return sum(isinstance(o, GridSpec) for o in gc.get_objects())


def alive(refs) -> int:
    gc.collect()
    return len({id(t) for r in refs if (t := r()) is not None})


def held_by(session) -> set[int]:
    """The traces the session holds: shown, before the last change, the original's, kept for undo."""
    kept = {id(t) for _, t, _ in session._kept}
    return kept | {id(session.trace), id(session.previous), id(session.original_trace)}


def alive_bytes(refs) -> int:
    gc.collect()
    return history._bytes_of(*(t for r in refs if (t := r()) is not None))


@pytest.mark.parametrize("budget", [0, history.TRACE_BUDGET])  # GPT-2's case: two traces; a small model's
def test_a_sessions_rounds_keep_the_traces_within_the_budget(model: ModelFile, budget: int):
    session = Session(model)
    session.trace_budget = budget
    refs = watched(session)
    grads = []
    counts = []
    for i in range(ROUNDS):
        session.edit(f"blocks.{i % 4}.W_1", (i % 8, 1), 0.1 * i)
        grads.append(weakref.ref(session.gradients.everything()))
        session.undo()
        session.redo()
        session.set_compare_to_original(i % 3 == 0)
        session.toggle("ablated_heads", 1 + i % 2)
        session.undo()
        counts.append(alive(refs))
        gc.collect()
        assert {id(t) for r in refs if (t := r()) is not None} <= held_by(session)
        assert alive_bytes(refs) <= max(budget, history._bytes_of(session.trace, session.previous))
    if budget == 0:
        assert max(counts) <= 3, counts  # the trace, the one before, the original
    else:  # every state still in the history (each edit, and the toggle undone) keeps its trace
        assert counts[-1] == len(session.history) == 1 + ROUNDS + 1, counts
    gc.collect()
    assert sum(g() is not None for g in grads) <= 1  # the gradients of the trace shown, if any
    # an entry per change kept: the start, each edit and the last toggle (undone, kept for redo); each
    # holds its edited cells, not arrays: entry k at most the k cells edited so far
    assert len(session.history) == 1 + ROUNDS + 1
    cells = [sum(len(c) for c in s.params.overlay().values()) for s in session.history]
    assert cells == [min(k, 8) for k in range(ROUNDS + 1)] + [8], cells


async def test_the_apps_rounds_hold_no_more_traces_than_the_session():
    """The app's own listeners (the gallery's, the recorder's) keep no trace either."""
    app = make_app()
    session = app.session
    refs = watched(session)
    counts, specs = [], []
    async with app.run_test(size=(80, 24)) as pilot:  # narrow: heads' tables split, one under another
        await pilot.press("9")
        await pilot.pause()
        cfg = session.model.cfg
        for i in range(APP_ROUNDS):
            app.apply(lambda s, i=i: s.edit("blocks.0.W_O", (i % cfg.d_model, 0), 0.5 + i), "edit")
            for key in ("u", "d", "d", "b", "b"):
                await pilot.press(key)
            await pilot.pause()
            counts.append(alive(refs))
            specs.append(specs_alive())
    assert max(counts) <= 3, counts
    assert specs[-1] <= specs[1], specs  # after the first rounds, no more tables kept than the screen's
    assert len(refs) == 2 + 6 * APP_ROUNDS  # the start, 9, and each round's edit, u, d, d, b, b
    assert np.isfinite(session.trace["loss"])


@pytest.mark.parametrize("step", [2, 9])  # the prompt's table with E[id]; the heads' A V tables
def test_a_table_kept_for_later_keeps_no_trace(model: ModelFile, step: int):
    """A step's tables are kept while nothing in them moves (grid_spec's kept specs); their inspector
    lines are written later, from what the table was made of, not from the view: the traces go."""
    from tinytui.present.backward_tables import pane_sections
    from tinytui.present.view import View

    session = Session(model)
    session.trace_budget = 0  # the session keeps no trace for undo: what stays alive is the tables'
    session.goto(step)
    session.edit("blocks.3.W_2", (0, 0), 0.3)  # nothing of these steps' tables moves
    made = weakref.ref(session.trace)
    pane_sections(View.of(session))
    for i in range(3):
        session.edit("blocks.3.W_2", (1, i), 0.1 * i)
    assert alive([made]) == 0


def test_a_switch_flipped_back_and_forth_holds_two_traces_however_many_rounds(model: ModelFile):
    """bench_view's rounds: an edit taken back, then a switch flipped and flipped back. Each flip is a
    new state of the history, but it runs like a state before it (the same weights, the same inputs):
    it takes that state's trace, so the traces held after any number of rounds are those after two,
    within the budget or not."""
    session = Session(model)
    refs = watched(session)
    alive_after, kept_after = [], []
    for i in range(ROUNDS):
        session.edit("blocks.1.W_1", (i % 8, 0), 0.5)
        session.undo()  # the next round's edit cuts this one off: no undo or redo reaches it again
        session.toggle("ablated_heads", 2)
        session.toggle("ablated_heads", 2)
        alive_after.append(alive(refs))
        kept_after.append(len(session._kept))
    assert len(session.history) == 1 + 2 * ROUNDS  # every flip is in the history, for undo
    assert alive_after[-1] == alive_after[1], alive_after
    assert kept_after[-1] == kept_after[1] == 2, kept_after  # the file's weights, flipped and not
    # undo all the way back: every state takes one of those two traces, and no other trace is made
    flipped, unflipped = session.history[-2], session.history[-1]
    traces = set()
    for _ in range(2 * ROUNDS):
        session.undo()
        traces.add(id(session.trace))
        assert session.trace.switches == session.state.switches
    assert session.state is session.history[0]
    assert alive(refs) == alive_after[-1]
    assert len(traces) == 2
    assert flipped.switches != unflipped.switches == session.state.switches


LONG = (
    "A notice of many words, more than a row of the notice line holds at any width: it says which weight "
    "was edited, what changed, by how much, and what to look at next, so it is wrapped over two rows."
)


def drawn_texts(note) -> list[Text]:
    """The Rich texts an object holds, directly or through its dicts, lists and tuples (not through
    other objects: a notice holds its words, its timer and what was drawn of it)."""
    found, todo, seen = [], [note], set()
    while todo:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, Text):
            found.append(obj)
        elif obj is note or isinstance(obj, (dict, list, tuple)):
            todo += gc.get_referents(obj)
    return found


async def test_the_notice_log_keeps_the_words_of_notices_gone_not_their_drawn_lines():
    """The log keeps the session's last notices (M writes them anew from their words): a notice no line
    shows any more holds nothing drawn, so a long session's log is its words."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        for i in range(8):  # at most three live: the older are taken away, each drawn before it went
            app.notify(f"{i}: {LONG}", title="Edited", timeout=30)
            await pilot.pause()
        live = app.toasts.notes()
        gone = [note for note in app.toasts.log if note not in live]
        assert len(gone) == 5 and len(live) == 3
        assert all(drawn_texts(note) for note in live)  # what the line draws now, kept while it shows
        assert [drawn_texts(note) for note in gone] == [[]] * 5
        assert [note.message for note in app.toasts.log] == [f"{i}: {LONG}" for i in range(8)]


async def test_what_the_keys_let_go_is_freed_in_the_pause_after_them():
    """Every line Textual draws is a reference cycle (a Strip keeps itself in its own cache), so the
    lines and layouts a key lets go of wait for the cycle collector; the app runs it in the pause after
    the keys. With the automatic collector off, what is left for it after the pause is nothing; without
    the pass, these three keys leave thousands of objects to it."""
    app = make_app()
    app.idle_collection.idle = 0.05
    gc.disable()
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("9", "m", "m")
            for _ in range(40):  # the pass comes 0.05 s after the last key
                await pilot.pause(0.05)
                if not app.idle_collection.waiting:
                    break
            assert not app.idle_collection.waiting
            assert gc.collect() < 50
    finally:
        gc.enable()
