"""The lens and patching on a Llama-family folder: the lens names its untied W_U where the chapter's model
says Eᵀ, its last row the prediction bit for bit; patching's heading writes a negative metric with −."""

from tests.llama.checkpoints import LLAMA
from tinytui.model.io.checkpoint import load_model
from tinytui.present.lens_tables import lens_grid
from tinytui.present.patch_tables import patch_sections
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


def test_patching_a_llama_folder_heads_its_tables_with_the_screens_minus():
    model = load_model(LLAMA)
    s = Session(model)
    s.set_prompt(model.prompt_pieces("The cat is a"))
    s.set_target("Ġthe")
    s.set_patching("The cat is the", "Ġa")
    s.goto(14)
    (section,) = patch_sections(View.of(s))
    result = s.patching()
    assert result.clean < 0 < result.corrupt
    assert f"clean −{abs(result.clean):.4f}, corrupted {result.corrupt:.4f}" in section.title
    resid, heads = (row[0] for row in section.rows)
    assert resid.cells[0][-1] == f"{result.resid_pre[0, -1]:.4f}".replace("-", "−")
    assert heads.cols == ("head 1", "head 2", "head 3", "head 4")  # query heads, though K and V are shared
