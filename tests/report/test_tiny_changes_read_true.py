"""A change too small for 4 decimals (an edit of a millionth) is written so that it still reads as a
change in the transcript's and the handout's table of largest changes, never as +0.0000 or −0.0000;
the transcript's header says how many key/value heads the query heads share."""

from pathlib import Path

import numpy as np

from tinytui.model.io.model_file import load, load_default
from tinytui.model.switches import defaults
from tinytui.model.trace import DEFAULT_LR, run
from tinytui.recording.transcript import largest_changes, signed_change, state_lines
from tinytui.session.session import Session
from tinytui.session.state import State

CHAPTER = load_default()


def test_a_millionth_of_an_edit_is_quoted_as_what_it_moved():
    before = run(CHAPTER.params, CHAPTER.prompt, CHAPTER.target)
    E = np.array(CHAPTER.params["E"])
    E[0, 0] += 1e-6
    after = run(CHAPTER.params.with_arrays({"E": E}), CHAPTER.prompt, CHAPTER.target)
    table = largest_changes(before, after, CHAPTER.cfg.n_heads)
    assert table.rows  # the edit moved values in several steps
    for old, new, change, _ in table.cells:
        assert change not in ("+0.0000", "-0.0000")
        assert old == new or abs(float(new) - float(old) - float(change)) <= 1e-4
    moved = after.loss - before.loss
    assert moved != 0 and signed_change(before.loss, after.loss) == f"{moved:+.1e}"
    assert signed_change(1.0, 1.25) == "+0.2500" and signed_change(2.0, 2.0) == "+0.0000"
    # shown 1.1690 → 0.9120: by hand −0.2570, though the values themselves differ by −0.25708
    assert signed_change(1.16904, 0.91196) == "-0.2570"


def test_the_transcript_header_names_the_key_value_heads_a_model_shares():
    for name, said in (
        ("chapter17", "· 2 heads · d_ff 8 ·"),
        ("chapter17-llama", "· 4 heads over 2 key/value heads ·"),
    ):
        m = load(Path(__file__).parents[2] / "model" / "presets" / f"{name}.json")
        session = Session(m, State(m.params, m.prompt, m.target, defaults(m.cfg), DEFAULT_LR))
        header = " ".join(" ".join(state_lines(session)).split())
        assert said in header
