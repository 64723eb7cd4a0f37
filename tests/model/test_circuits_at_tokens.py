"""Circuits read at a few tokens (what a GPT-2-sized vocabulary gets): the whole tables' cells at them."""

import numpy as np
import pytest

from tinytui.model.analysis.circuits import circuits, circuits_json, head_circuits


def test_circuits_at_some_tokens_are_the_whole_tables_cells(chapter):
    ids = (5, 0, 7)
    whole, part = head_circuits(chapter.params, 0, 2), head_circuits(chapter.params, 0, 2, ids)
    np.testing.assert_allclose(part.qk.values, whole.qk.values[np.ix_(ids, ids)], rtol=0, atol=1e-12)
    np.testing.assert_allclose(part.ov.values, whole.ov.values[np.ix_(ids, ids)], rtol=0, atol=1e-12)
    vocab = chapter.cfg.vocab
    assert part.qk.axes[0].labels == part.ov.axes[1].labels == (vocab[5], vocab[0], vocab[7])
    assert part.ids == ids and whole.ids is None


def test_circuits_json_at_some_tokens_names_them(chapter):
    doc = circuits_json(chapter.params, [3, 1])
    assert doc["ids"] == [3, 1] and doc["n_vocab"] == 8
    assert doc["vocab"] == [chapter.cfg.vocab[3], chapter.cfg.vocab[1]]
    assert [np.shape(h["qk"]) for h in doc["heads"]] == [(2, 2), (2, 2)]
    assert set(circuits_json(chapter.params)) == {"heads", "vocab", "ignores"}  # the whole, as before
    assert len(circuits(chapter.params, [3])) == 2


def test_a_token_outside_the_vocabulary_is_refused(chapter):
    with pytest.raises(ValueError, match=r"not in the vocabulary \(0–7\)"):
        head_circuits(chapter.params, 0, 1, [8])
