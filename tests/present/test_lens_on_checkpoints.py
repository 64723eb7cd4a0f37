"""The lens table on a Llama-family folder: its untied W_U named where the chapter's model says Eᵀ, and
its last row the prediction bit for bit."""

from tests.llama.checkpoints import LLAMA
from tinytui.model.io.checkpoint import load_model
from tinytui.present.lens_tables import lens_grid
from tinytui.present.view import View
from tinytui.session.session import Session


def test_an_untied_models_lens_reads_through_its_own_w_u(chapter):
    model = load_model(LLAMA)
    s = Session(model)
    s.goto(14)
    spec = lens_grid(View.of(s))
    assert spec.title.endswith("through the final norm and W_U")
    assert "RMSNorm (lnf_g)" in spec.details[0][0] and "(W_U)" in spec.details[0][0]
    assert spec.values[-1][0] == float(s.trace["probs"][model.cfg.token_id(s.trace.target)])
    chapter_session = Session(chapter)
    chapter_session.goto(14)
    assert lens_grid(View.of(chapter_session)).title.endswith("through the final norm and Eᵀ")
