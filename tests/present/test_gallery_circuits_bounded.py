"""The gallery's circuits page on a long vocabulary: each head's QK and OV tables keep the run's own words
(the prompt's, the target and the prediction), so a checkpoint's page draws at once; a short vocabulary
keeps every token."""

import numpy as np

from tests.random_models import config, weights
from tinytui.model.io.document import ModelFile
from tinytui.model.switches import Switches
from tinytui.model.trace import DEFAULT_LR
from tinytui.present.gallery_lines import Words
from tinytui.present.gallery_pages import CIRCUIT_VOCAB, circuits_page
from tinytui.present.gallery_runs import Runs
from tinytui.present.view import View
from tinytui.session.session import Session
from tinytui.session.state import State


def runs_of(n_vocab: int, prompt: tuple[str, ...], target: str) -> Runs:
    cfg = config(4, 2, 2, 4, n_vocab)
    params = weights(np.random.default_rng(3), cfg, 0.5)
    model = ModelFile("wide", "", params, prompt, target)
    view = View.of(Session(model, State(params, prompt, target, Switches(), DEFAULT_LR)))
    return Runs.of(view, None)


def page_text(lines) -> str:
    return "\n".join("".join(p.text for p in line if isinstance(p, Words)) for line in lines)


def test_a_long_vocabulary_gives_tables_of_the_runs_own_words():
    runs = runs_of(2_000, ("t5", "t900", "t5"), "t1999")
    lines = circuits_page(runs, 120)
    words = {"t5", "t900", "t1999", runs.trace.prediction}
    text = page_text(lines)
    assert f"Of the 2,000 tokens, the tables keep the {len(words)} of this run" in text
    tables = [line for line in lines if any(isinstance(p, Words) and "QK circuit" in p.text for p in line)]
    assert len(tables) == 2 and len(lines) < 100  # a table of 2,000 rows would be thousands of lines
    now, _ = runs.circuits(0, 1, tuple(sorted(runs.trace.cfg.vocab.index(w) for w in words)))
    assert now.qk.values.shape == (len(words), len(words))


def test_a_short_vocabulary_keeps_every_token():
    runs = runs_of(CIRCUIT_VOCAB, ("t1", "t2"), "t3")
    assert "the tables keep" not in page_text(circuits_page(runs, 120))
    now, _ = runs.circuits(0, 1)
    assert now.qk.values.shape == (CIRCUIT_VOCAB, CIRCUIT_VOCAB)
