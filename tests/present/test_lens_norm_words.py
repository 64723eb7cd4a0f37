"""The logit lens says which final norm it reads through, naming a gain and bias only when the model
has them (the chapter's LayerNorm has neither, the Llama preset's RMSNorm a gain, GPT-2's both)."""

from pathlib import Path

import pytest

from tests.gpt2.checkpoints import TINY
from tinytui.model.io.checkpoint import load_checkpoint
from tinytui.model.io.model_file import load
from tinytui.model.switches import defaults
from tinytui.model.trace import DEFAULT_LR
from tinytui.present.lens_tables import how_read, lens_points
from tinytui.present.view import View
from tinytui.session.session import Session
from tinytui.session.state import State

PRESETS = Path(__file__).parents[2] / "model" / "presets"


@pytest.mark.parametrize(
    ("model", "said"),
    [
        (lambda: load(PRESETS / "chapter17.json"), "final LayerNorm and"),
        (lambda: load(PRESETS / "chapter17-llama.json"), "final RMSNorm (lnf_g) and"),
        (lambda: load_checkpoint(TINY), "final LayerNorm (lnf_g, lnf_b) and"),
    ],
)
def test_the_lens_names_only_the_norm_weights_the_model_has(model, said):
    m = model()
    state = State(m.params, m.prompt, m.target, defaults(m.cfg), DEFAULT_LR)
    view = View.of(Session(m, state))
    text = how_read(lens_points(view)[0], view)
    assert said in text
    assert ("lnf_g" in text) == ("lnf_g" in m.params) and ("lnf_b" in text) == ("lnf_b" in m.params)
