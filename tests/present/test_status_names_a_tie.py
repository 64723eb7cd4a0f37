"""The status line's prediction, when it shares the largest logit with another token, says the tie
decided it (the lower id), in pick_ties' short words; a clear winner says nothing more."""

from __future__ import annotations

from rich.style import Style

from tinytui.model.io.model_file import load_default
from tinytui.present.status_words import status_lines
from tinytui.present.view import View
from tinytui.session.session import Session


def _prediction(s: Session) -> str:
    return status_lines(View.of(s), lambda name: Style())[1][0].plain


def test_a_prediction_tied_for_first_says_the_lower_id_took_it():
    s = Session(load_default())
    assert _prediction(s) == "prediction wood 0.3107"
    s.edit("E", (5, 3), "1")  # woodchuck's row becomes wood's: the same logit
    probs = s.trace["probs"]
    assert probs[4] == probs[5] and s.trace.prediction == "wood"
    assert _prediction(s).endswith(f"wood {probs[4]:.4f} (tie: lower id)")
