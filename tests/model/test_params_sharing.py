"""Params share the arrays an edit does not change, and an edited cell is an overlay built on reading."""

import copy
import pickle

import numpy as np
import pytest

from tests.random_models import random_params
from tinytui.model.io.document import ModelFile
from tinytui.model.params import FLATTEN_DEPTH, Params, adopt


def test_an_edit_keeps_every_other_array_the_same_object(chapter):
    p = chapter.params
    q = p.with_edit("blocks.0.W_1", (1, 2), 0.75)
    for name in p:
        if name != "blocks.0.W_1":
            assert q[name] is p[name], name
    assert q["blocks.0.W_1"] is not p["blocks.0.W_1"]
    assert q["blocks.0.W_1"][1, 2] == 0.75 and p["blocks.0.W_1"][1, 2] != 0.75


def test_with_arrays_shares_the_arrays_it_does_not_replace(chapter):
    p = chapter.params
    q = p.with_arrays({"E": np.zeros(p["E"].shape)})
    assert all(q[n] is p[n] for n in p if n != "E")
    assert not q["E"].any()


def test_arrays_stay_read_only_and_outside_arrays_are_copied():
    p = random_params()
    outside = np.ones(p["E"].shape)
    q = p.with_arrays({"E": outside})
    outside[0, 0] = 5.0  # the caller's array is theirs: the Params must not see this
    assert q["E"][0, 0] == 1.0
    edited = q.with_edit("blocks.1.b_2", (3,), 2.0)
    for name in edited:
        assert not edited[name].flags.writeable, name
        with pytest.raises(ValueError):
            edited[name][(0,) * edited[name].ndim] = 1.0


def test_an_edited_array_is_built_once_while_it_is_held():
    q = random_params().with_edit("blocks.0.W_O", (0, 0), 3.0)
    first = q["blocks.0.W_O"]
    assert q["blocks.0.W_O"] is first  # held by us, so not built again


def test_chains_of_edits_read_like_copies_and_merge_when_long():
    p = random_params(1)
    rng = np.random.default_rng(2)
    expected = {n: p[n].copy() for n in p}
    q = p
    for _ in range(3 * FLATTEN_DEPTH):
        name = ("E", "blocks.0.W_1", "blocks.1.b_1")[int(rng.integers(3))]
        index = tuple(int(rng.integers(n)) for n in p[name].shape)
        value = float(rng.normal())
        q = q.with_edit(name, index, value)
        expected[name][index] = value
    assert q._depth < FLATTEN_DEPTH
    for name in p:
        assert q[name].tobytes() == expected[name].tobytes(), name


def test_negative_zero_is_kept_bit_for_bit():
    p = random_params()
    q = p.with_edit("E", (0, 0), -0.0)
    assert np.signbit(q["E"][0, 0])
    assert q.with_edit("E", (0, 0), 0.0)["E"].tobytes() != q["E"].tobytes()


def test_changed_cells_from_the_overlay_match_a_full_scan(chapter):
    p = chapter.params
    q = p.with_edit("blocks.0.W_O", (2, 3), 0.25).with_edit("E", (1, 1), float(p["E"][1, 1]))
    q = q.with_edit("blocks.0.W_1", (0, 5), 9.0).with_edit("blocks.0.W_1", (0, 1), 7.0)
    plain = Params(p.cfg, dict(q.items()))  # the same values, not sharing a base
    expected = {"blocks.0.W_O": [(2, 3)], "blocks.0.W_1": [(0, 1), (0, 5)]}  # E: set to its own value
    assert q.changed_cells(p) == plain.changed_cells(p) == expected
    assert p.changed_cells(q) == expected
    assert q == plain and q != p


def test_pickle_and_deepcopy_give_equal_params(chapter):
    q = chapter.params.with_edit("blocks.0.W_O", (2, 3), 0.25)
    for other in (pickle.loads(pickle.dumps(q)), copy.deepcopy(q)):
        assert other == q and other["blocks.0.W_O"][2, 3] == 0.25


def test_adopt_takes_the_arrays_without_copying(chapter):
    arrays = {n: np.array(a) for n, a in chapter.params.items()}
    p = adopt(chapter.cfg, arrays)
    assert all(p[n] is arrays[n] and not p[n].flags.writeable for n in arrays)
    assert p == chapter.params


def test_contains_does_not_build_arrays(chapter):
    q = chapter.params.with_edit("blocks.0.W_O", (2, 3), 0.25)
    assert "blocks.0.W_O" in q and "W_X" not in q and not q._cache


def test_model_file_keeps_working_with_overlays(chapter, tmp_path):
    from tinytui.model.io.model_file import load, save

    q = chapter.params.with_edit("blocks.0.W_O", (2, 3), 0.25)
    save(ModelFile("m", "", q, chapter.prompt, chapter.target), tmp_path / "m.json")
    assert load(tmp_path / "m.json").params == q
