"""Rows of E's gradient and of its unembedding share without the whole table (Gradients.rows,
model/backward/rows.py): the same bits as the rows of the whole, and nothing 300 MB made at GPT-2 size
when only a window's rows are read (the overlay at step 14, the inspector on one of its cells)."""

import numpy as np

from tinytui.lesson.why.explain import explain
from tinytui.model.backward.gradients import Gradients


def picked_rows(params, trace) -> np.ndarray:
    """A few of the prompt's tokens, the target, and rows of no token of the prompt, out of order."""
    cfg = params.cfg
    ids = trace["ids"].astype(int)
    others = [t for t in range(cfg.n_vocab) if t not in set(ids.tolist())][:3]
    return np.array([ids[-1], *others, cfg.token_id(trace.target), ids[0]])


def test_rows_are_the_rows_of_the_whole_table_bit_for_bit(gradient_case):
    params, trace, _ = gradient_case
    rows = picked_rows(params, trace)
    for name in ("grad.E", "grad.E.unembed", "grad.E.lookup"):
        lazy = Gradients(params, trace)
        got = lazy.rows(name, rows)
        if name != "grad.E.lookup":
            assert name not in lazy.computed(), "the whole table is not made"
        want = Gradients(params, trace)[name][rows]
        assert got.tobytes() == want.tobytes(), name
    # after the whole table is there, rows read from it (the same bits again)
    lazy = Gradients(params, trace)
    lazy["grad.E"]
    assert lazy.rows("grad.E", rows).tobytes() == Gradients(params, trace)["grad.E"][rows].tobytes()


def test_the_inspector_on_a_cell_of_e_gradient_reads_its_row_only(gradient_case):
    params, trace, _ = gradient_case
    lazy = Gradients(params, trace)
    t = int(trace["ids"][0])
    why = explain(trace, params, "grad.E", (t, 1), lazy)
    assert "grad.E" not in lazy.computed() and "grad.E.unembed" not in lazy.computed()
    full = Gradients(params, trace).everything()
    assert why.value == float(full["grad.E"][t, 1])
    assert why.evaluate() == why.value or abs(why.evaluate() - why.value) <= 1e-15
