"""The gallery on models with modern blocks says what they do: rotary positions paint no mark (they turn
the artists' queries and keys, by the run's angles) and write no attribution part; RMSNorm is named with
the run's divisor; grouped heads, the gated filter and an untied W_U are named as such."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.model.reference_backward import MODERN, random_model
from tinytui.cli.main import main
from tinytui.lesson.gallery_reading import captions, day
from tinytui.model import count, ops
from tinytui.model.analysis.attribution import attribution
from tinytui.model.io.document import ModelFile
from tinytui.model.io.model_file import load
from tinytui.model.io.presets import presets
from tinytui.model.switches import Switches, defaults
from tinytui.model.trace import DEFAULT_LR
from tinytui.present.gallery_lines import plain
from tinytui.present.gallery_pages import PAGES, gallery_page, n_stages
from tinytui.present.view import View
from tinytui.session.session import Session
from tinytui.session.state import State


def view_of(model: ModelFile, switches: Switches | None = None) -> View:
    sw = defaults(model.params.cfg) if switches is None else switches
    state = State(model.params, model.prompt, model.target, sw, DEFAULT_LR)
    return View.of(Session(model, state))


def page(view: View, name: str, stage: int = 0, width: int = 120) -> str:
    return "\n".join(plain(line) for line in gallery_page(view, lambda v: None, name, stage, width))


def flat(text: str) -> str:
    return " ".join(text.split())


def every_page(view: View) -> str:
    days = [page(view, "day", i) for i in range(n_stages(view))]
    return "\n".join([*days, *(page(view, key) for key, _ in PAGES[1:])])


@pytest.fixture(scope="module")
def llama() -> ModelFile:
    return load(presets()["chapter17-llama"])


@pytest.fixture(scope="module")
def chapter_model() -> ModelFile:
    return load(presets()["chapter17"])


def test_rotary_marks_stage_says_turned_with_the_runs_angles(llama):
    view = view_of(llama)
    text = page(view, "day", 1)
    said = flat(text)
    assert "Where they hang: turned, not marked" in said
    assert "rotary (RoPE)" in said and "queries and keys are turned" in said
    assert "small mark" not in said and "tie at" not in said
    assert not re.search(r"position mark\s", text)  # no strip of zeros posing as a mark
    cfg = view.trace.cfg
    angles = ops.rope_angles(len(llama.prompt), cfg.d_head, cfg.rope_theta, cfg.rope_scaling)
    last = view.trace.token_labels[-1]
    assert f"grows by {angles[1, 0] - angles[0, 0]:.2f} radians a position" in said
    assert f"so {last}'s queries and keys are turned by {angles[-1, 0]:.2f} radians" in said
    # the run's own turn: q is q_pre turned by that angle (d_head 2: one pair)
    q_pre, q = view.trace["blocks.0.q_pre.1"][-1], view.trace["blocks.0.q.1"][-1]
    turned = np.arctan2(q[1], q[0]) - np.arctan2(q_pre[1], q_pre[0])
    assert np.isclose(np.mod(turned - angles[-1, 0] + np.pi, 2 * np.pi) - np.pi, 0.0, atol=1e-9)


def test_rotary_with_pe_off_says_nothing_is_turned(llama):
    view = view_of(llama, defaults(llama.params.cfg).toggled("positional_encoding"))
    said = flat(page(view, "day", 1))
    assert "switched off (PE off): nothing is turned either" in said and "radians" not in said
    np.testing.assert_array_equal(view.trace["blocks.0.q.1"], view.trace["blocks.0.q_pre.1"])


def test_under_rope_the_attribution_has_no_positional_part_and_adds_up(llama, chapter_model):
    for view in (view_of(llama), view_of(chapter_model, Switches(positions="rope"))):
        text = page(view, "attribution")
        assert "positional encoding" not in text and "position mark" not in text
        assert "Rotary positions write nothing onto it" in flat(text)
        found = re.findall(r"“(\S+)” \([a-z ]+\): logit (\S+)\n(.*?)\n  sum", text, re.S)
        assert [tok for tok, _, _ in found] == list(dict.fromkeys((view.trace.prediction, view.trace.target)))
        for tok, logit, parts in found:
            values = [float(m.replace("−", "-")) for m in re.findall(r"  [^\n]*?\s([−+]?\d\.\d{4})", parts)]
            split = attribution(view.params, view.trace).tokens[tok].parts
            assert "pe" not in split and len(values) == len(parts.splitlines()) == len(split)
            np.testing.assert_allclose(values, list(split.values()), atol=5e-5)
            assert abs(sum(values) - float(logit.replace("−", "-"))) < 5e-4 * len(values), tok
    # the chapter's own sinusoids are a part, as before
    assert "positional encoding" in page(view_of(chapter_model), "attribution")


def test_the_gated_filters_part_is_its_product_through_w_down(llama, chapter_model):
    text = page(view_of(llama), "attribution")
    assert "FFN (gate⊙up)·W_down (block 1)" in text and "hidden·W_2" not in text
    assert "FFN hidden·W_2" in page(view_of(chapter_model), "attribution")
    evening = flat(page(view_of(llama), "day", 3))
    assert "This filter is gated (SwiGLU)" in evening
    assert "SiLU of the normed painting times W_gate" in evening


def test_rmsnorm_is_named_with_the_runs_divisor(llama, chapter_model):
    for model, switches in ((llama, None), (chapter_model, Switches(norm_kind="rms"))):
        view = view_of(model, switches)
        eps, last = view.trace.cfg.eps, view.trace.token_labels[-1]
        for stage, before in ((2, "x"), (3, "blocks.0.x_mid")):  # day 1's morning, its evening
            said = flat(page(view, "day", stage))
            rms = np.sqrt(np.mean(np.square(view.trace[before][-1])) + eps)
            assert "normed with RMSNorm" in said and "no mean taken away" in said
            assert f"The last painting, {last}, is divided by {rms:.2f} here." in said
        attribution = flat(page(view, "attribution"))
        y = view.trace[f"blocks.{view.trace.cfg.n_blocks - 1}.y"][-1]
        assert f"root mean square √(mean of squares + ε) = {np.sqrt(np.mean(y * y) + eps):.4f}" in attribution
        assert "σ =" not in attribution and "layer norm" not in attribution
    assert "normed with RMSNorm" not in flat(page(view_of(chapter_model), "day", 2))


def test_grouped_heads_are_named_as_such(llama):
    view = view_of(llama)
    morning = flat(page(view, "day", 2))
    assert "Artists 1 and 2 share one set of keys and values, and so do artists 3 and 4" in morning
    artists = page(view, "artists")
    assert "Artist 3 of day 1 reads key/value head 2" in artists
    assert "Head 4 of block 2 (key/value head 2) · QK circuit" in page(view, "circuits")


def test_an_untied_model_is_read_off_its_w_u(tmp_path):
    shape, choices = MODERN["random-mqa-gelu-untied"]
    params, prompt, target = random_model(*shape, **choices)
    view = view_of(ModelFile("untied", "", params, prompt, target))
    cfg = view.trace.cfg
    assert not cfg.tied
    finished, last = flat(page(view, "day", n_stages(view) - 2)), n_stages(view) - 1
    assert "matched against each word's column of W_U" in finished
    prediction = page(view, "day", last)
    tok = view.trace.prediction
    assert f"“{tok}”'s column of W_U" in prediction
    row = next(line for line in prediction.splitlines() if "W_U column" in line)
    shown = [float(v.replace("−", "-")) for v in re.findall(r"[−+]?\d+\.\d\d", row)]
    np.testing.assert_allclose(shown, params["W_U"][:, cfg.token_id(tok)], atol=0.005)
    assert "All four artists share one set of keys and values" in flat(page(view, "day", 2))
    assert "read through its column of W_U" in flat(page(view, "attribution"))


def test_no_page_of_a_new_llama_model_speaks_of_marks_layer_norms_or_w_2(tmp_path, capsys):
    path = tmp_path / "llama.model.json"
    assert main(["new", "--arch", "llama", "-o", str(path)]) == 0
    capsys.readouterr()
    model = load(path)
    for switches in (None, defaults(model.params.cfg).toggled("norm", cfg=model.params.cfg)):
        text = every_page(view_of(model, switches))
        for wrong in ("position mark", "positional encoding", "layer norm", "hidden·W_2", "σ ="):
            assert wrong not in text, wrong
    gallery = day(model.params, view_of(model).trace)
    assert [c.kind for c in captions(gallery)][1] == "mark" and gallery.turns() is not None


def test_the_scale_card_says_who_shares_keys_and_values(llama, chapter_model):
    size, _ = count.PUBLISHED["Llama-3-8B"]
    said = flat(page(view_of(llama), "scale"))
    assert f"with {size.n_heads} artists a day, who share {size.n_kv_heads} sets of keys and values" in said
    assert "its four artists a day sharing two sets of keys and values" in said
    assert "artists a day sharing" not in flat(page(view_of(chapter_model), "scale"))
