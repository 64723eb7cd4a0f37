"""The undo history keeps edits as overlays on shared arrays: small at any size, exact bit for bit."""

import tracemalloc

import numpy as np
import pytest

from tests.random_models import config, weights
from tinytui.model.io.document import ModelFile
from tinytui.model.params import Params
from tinytui.session.session import Session


def random_model(seed=0, d=32, heads=4, d_head=8, d_ff=96, vocab=40, blocks=3, tokens=6):
    rng = np.random.default_rng(seed)
    cfg = config(d, heads, d_head, d_ff, vocab, blocks)
    params = weights(rng, cfg, 0.3)
    prompt = tuple(cfg.vocab[i] for i in rng.integers(0, vocab, tokens))
    return ModelFile("random", "", params, prompt, cfg.vocab[int(rng.integers(vocab))])


def snapshot(params):
    return {name: params[name].tobytes() for name in params}


def assert_same_bits(params, expected, where):
    assert set(params) == set(expected)
    for name, bits in expected.items():
        assert params[name].tobytes() == bits, f"{where}: {name}"
        again = np.frombuffer(bits).reshape(params[name].shape)
        assert np.array_equal(again, params[name]), f"{where}: {name}"


def edits(model, rng, n):
    """n edits to random cells, a few of them −0.0 and +0.0 and a few the same cell twice."""
    names = list(model.params)
    out = []
    for i in range(n):
        name = names[int(rng.integers(len(names)))]
        index = tuple(int(rng.integers(k)) for k in model.params[name].shape)
        value = (-0.0, 0.0, float(rng.normal(0, 0.3)))[i % 3]
        out.append((name, index, value))
        if i % 5 == 4:
            out.append((name, index, float(rng.normal(0, 0.3))))
    return out


@pytest.mark.parametrize("which", ["chapter", "random"])
def test_undo_and_redo_restore_params_bit_for_bit(chapter, which):
    model = chapter if which == "chapter" else random_model()
    session = Session(model)
    rng = np.random.default_rng(7)
    expected = [snapshot(session.params)]
    for k, (name, index, value) in enumerate(edits(model, rng, 20)):
        session.edit(name, index, value)
        if k == 8:
            session.learn_step()
        if k == 12:
            session.toggle("causal_mask")
        if k == 15:
            session.reset()
        expected.append(snapshot(session.params))
        while len(expected) < len(session.history):  # the learn, toggle or reset just made
            expected.insert(-1, snapshot(session.history[len(expected) - 1].params))
    assert len(expected) == len(session.history)
    for i, state in enumerate(session.history):
        assert_same_bits(state.params, expected[i], f"history[{i}]")
    while session.can_undo:
        session.undo()
        assert_same_bits(session.params, expected[session.cursor], f"undo to {session.cursor}")
    while session.can_redo:
        session.redo()
        assert_same_bits(session.params, expected[session.cursor], f"redo to {session.cursor}")


def test_negative_zero_survives_undo_and_redo(chapter):
    session = Session(chapter)
    session.edit("blocks.0.W_O", (0, 0), -0.0)
    session.edit("blocks.0.W_O", (0, 0), 0.0)
    session.undo()
    assert np.signbit(session.params["blocks.0.W_O"][0, 0])
    session.redo()
    assert not np.signbit(session.params["blocks.0.W_O"][0, 0])
    session.undo()
    session.undo()
    assert session.params["blocks.0.W_O"].tobytes() == chapter.params["blocks.0.W_O"].tobytes()


def test_history_entries_share_every_array_they_did_not_edit():
    model = random_model(1)
    session = Session(model)
    session.edit("blocks.1.W_1", (3, 4), 1.5)
    session.edit("E", (2, 2), -1.5)
    for state in session.history:
        for name in model.params:
            if name not in ("blocks.1.W_1", "E"):
                assert state.params[name] is model.params[name], name


def test_edit_then_undo_25_times_stays_under_half_the_model_again():
    # weights, not tensors, dominate (as at GPT-2 sizes): the traces are small beside them
    model = random_model(2, d=128, heads=4, d_head=32, d_ff=2048, vocab=300, blocks=4, tokens=2)
    nbytes = sum(a.nbytes for a in model.params.values())
    session = Session(model)
    session.trace_budget = 0  # the history's own entries measured: no traces kept for undo beside them
    rng = np.random.default_rng(3)
    tracemalloc.start()
    try:
        start, _ = tracemalloc.get_traced_memory()
        for _ in range(25):
            index = (int(rng.integers(128)), int(rng.integers(2048)))
            session.edit("blocks.2.W_1", index, float(rng.normal()))
        for _ in range(25):
            session.undo()
        for _ in range(25):
            session.redo()
        now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak - start < 0.5 * nbytes, (peak - start, nbytes)
    assert now - start < 0.25 * nbytes, (now - start, nbytes)


def test_edited_cells_come_from_the_edits_and_match_a_full_scan(chapter):
    session = Session(chapter)
    session.edit("blocks.0.W_O", (2, 3), 0.25)
    session.edit("blocks.0.W_1", (1, 1), 3.0)
    session.edit("blocks.0.W_1", (1, 1), float(chapter.params["blocks.0.W_1"][1, 1]))  # back again
    cells = session.edited_cells()
    assert cells == {"blocks.0.W_O": [(2, 3)]}
    plain = Params(chapter.cfg, dict(session.params.items()))
    assert plain.changed_cells(chapter.params) == cells
    cells["blocks.0.W_O"].append((0, 0))  # the caller's copy: the session's own stays as it was
    assert session.edited_cells() == {"blocks.0.W_O": [(2, 3)]}
    session.undo()
    assert session.edited_cells() == {"blocks.0.W_O": [(2, 3)], "blocks.0.W_1": [(1, 1)]}
    session.learn_step()
    assert session.edited_cells() == Params(chapter.cfg, dict(session.params.items())).changed_cells(
        chapter.params
    )
