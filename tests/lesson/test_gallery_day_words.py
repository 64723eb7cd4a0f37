"""The gallery day's own sentences against the run: which artists stayed at home on which day, and
whether the last painting grew or shrank over the day."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tests.gpt2.checkpoints import TINY
from tinytui.lesson.gallery_reading import captions, day, day_captions
from tinytui.model.io.checkpoint import load_checkpoint
from tinytui.model.io.model_file import load, load_default
from tinytui.model.switches import Switches, defaults
from tinytui.model.trace import DEFAULT_LR, run
from tinytui.present.gallery_day import DayStage, stage_caption
from tinytui.present.gallery_pages import gallery_page, n_stages
from tinytui.present.gallery_runs import Runs
from tinytui.present.view import View
from tinytui.session.session import Session
from tinytui.session.state import State

LLAMA = Path(__file__).parents[2] / "model" / "presets" / "chapter17-llama.json"


def runs_of(model, switches: Switches) -> Runs:
    trace = run(model.params, model.prompt, model.target, switches)
    gallery = day(model.params, trace)
    return Runs(trace, model.params, gallery, trace, model.params, gallery)


def morning(runs: Runs, block: int) -> str:
    return " ".join(stage_caption(runs, DayStage("morning", block, "")))


@pytest.mark.parametrize(
    ("switches", "day_1", "day_2"),
    [
        (Switches(ablated={(1, 2)}), None, "Artist 2 stayed at home today (ablated): no strokes from it."),
        (
            Switches(ablated_heads={3}, ablated={(0, 1)}),
            "Artists 1 and 3 stayed at home today (ablated): no strokes from them.",
            "Artist 3 stayed at home today (ablated): no strokes from it.",
        ),
    ],
)
def test_the_artists_at_home_are_that_days_ablated_heads(switches, day_1, day_2):
    runs = runs_of(load(LLAMA), switches)
    for block, said in ((0, day_1), (1, day_2)):
        text = morning(runs, block)
        away = runs.trace.switches.ablated_in(block)
        for h in away:  # an artist at home painted nothing that day
            assert not np.any(runs.gallery.paintings[-1].days[block].strokes[h - 1])
        if said is None:
            assert "stayed at home" not in text
        else:
            assert said in text


def test_the_finished_caption_says_grown_or_shrunk_as_the_sizes_read():
    for model in (load_default(), load(LLAMA)):
        runs = runs_of(model, Switches())
        last = runs.gallery.paintings[-1]
        was, now = np.linalg.norm(last.start), np.linalg.norm(last.finished)
        text = stage_caption(runs, DayStage("finished", None, ""))[0]
        assert f"from a size of {was:.2f} on opening day" in text
        assert f"it has {'grown' if now > was else 'shrunk'} to {now:.2f}." in text


def test_the_prediction_and_its_runner_up_read_apart_and_a_chance_never_as_none():
    woodland = load(LLAMA.with_name("woodland.json"))
    for model in (load_default(), load(LLAMA), woodland):
        trace = run(model.params, model.prompt, model.target, defaults(model.cfg))
        text = captions(day(model.params, trace))[-1].text
        first, second = np.sort(trace["probs"])[::-1][:2]
        quoted = re.findall(r"(\d+(?:\.\d+)?)%", text)
        assert len(quoted) == 2 and quoted[0] != quoted[1]
        decimals = len(quoted[0].partition(".")[2])
        assert quoted == [f"{100 * first:.{decimals}f}", f"{100 * second:.{decimals}f}"]
        assert float(quoted[1]) > 0  # a chance is never said as none
        if decimals:  # one decimal fewer would read the same, or the runner-up as none
            fewer = f"{100 * second:.{decimals - 1}f}"
            assert f"{100 * first:.{decimals - 1}f}" == fewer or float(fewer) == 0


def test_with_an_output_bias_the_strokes_total_says_it_holds_b_o():
    tiny = load_checkpoint(TINY)
    trace = run(tiny.params, tiny.prompt, tiny.target, defaults(tiny.cfg))
    gallery = day(tiny.params, trace)
    for caption in [c for c in captions(gallery) if c.kind == "artist"]:
        pt = gallery.paintings[caption.position]
        mornings = sum(d.morning for d in pt.days)
        strokes = sum(s for d in pt.days for s in d.strokes)
        assert caption.numbers["all strokes"] == np.linalg.norm(mornings)  # the quoted total
        biases = tiny.params["blocks.0.b_O"] + tiny.params["blocks.1.b_O"]
        np.testing.assert_allclose(mornings - strokes, biases, atol=1e-9)  # the total holds b_O each day
        assert "with the bias b_O added each morning, come to a size of" in caption.text
    one_day = [c for c in day_captions(gallery, 1) if c.kind == "artist"]
    assert all("with the bias b_O, come to a size of" in c.text for c in one_day)
    plain = captions(day(load_default().params, run(load_default().params, ("a", "wood"), "wood")))
    assert not any("b_O" in c.text for c in plain)  # the chapter's attention has no bias


@pytest.mark.parametrize("path", [LLAMA, LLAMA.with_name("chapter17.json")])
def test_with_pe_off_the_second_stage_says_nothing_marks_or_turns(path):
    model = load(path)
    switches = replace(defaults(model.cfg), positional_encoding=False)
    session = Session(model, State(model.params, model.prompt, model.target, switches, DEFAULT_LR))
    title = gallery_page(View.of(session), lambda view: None, "day", 1, 100)[0][0].text
    assert title == f"Stage 2 of {n_stages(View.of(session))} · Where they hang: not said (PE off)"
    assert "turned" not in title and "marks" not in title
    text = " ".join(stage_caption(runs_of(model, switches), DayStage("mark", None, "")))
    assert "switched off (PE off)" in text  # the caption under it says the same


def test_each_days_last_strip_is_said_to_be_what_the_switches_make_it():
    chapter = load_default()
    cases = {"default": Switches(), "residual off": Switches(residual=False), "post": Switches(norm="post")}
    for name, switches in cases.items():
        runs = runs_of(chapter, switches)
        day_1 = runs.gallery.paintings[-1].days[0]
        morning_text = " ".join(stage_caption(runs, DayStage("morning", 0, "")))
        evening_text = " ".join(stage_caption(runs, DayStage("evening", 0, "")))
        summed = np.allclose(day_1.canvas, runs.gallery.paintings[-1].start + day_1.morning)
        summed_evening = np.allclose(day_1.evening, day_1.canvas + day_1.filter_change)
        assert summed == (name == "default") and summed_evening == (name == "default")
        if name == "default":
            assert "are added on top" in morning_text and "adds its change" in evening_text
            assert "not the sum" not in morning_text + evening_text
        elif name == "residual off":  # the painting is the strokes, then the filter's change, alone
            assert np.allclose(day_1.canvas, day_1.morning) and np.allclose(
                day_1.evening, day_1.filter_change
            )
            assert "take the painting's place (the residual is off)" in morning_text
            assert "its change takes the painting's place (the residual is off)" in evening_text
        else:
            for text in (morning_text, evening_text):
                assert "is then layer-normed" in text and "not the sum of the ones above it" in text


def test_a_filter_percent_is_what_its_two_quoted_sizes_give_by_hand():
    checked = 0
    for name in ("chapter17", "chapter17-llama", "woodland", "chapter17-trained"):
        model = load(LLAMA.with_name(f"{name}.json"))
        trace = run(model.params, model.prompt, model.target, defaults(model.cfg))
        gallery = day(model.params, trace)
        found = captions(gallery) + [c for b in range(model.cfg.n_blocks) for c in day_captions(gallery, b)]
        for caption in [c for c in found if c.kind == "filter" and "ratio" in c.numbers]:
            percent = int(re.search(r"by (\d+)%", caption.text).group(1))
            change, canvas = re.search(r"a change of ([\d.]+) on a canvas of ([\d.]+)", caption.text).groups()
            assert (
                round(100 * float(change) / float(canvas)) == percent == round(100 * caption.numbers["ratio"])
            )
            assert abs(float(change) - caption.numbers["change"]) < 0.005  # each size true to its digits
            checked += 1
    assert checked > 40


def test_less_than_half_only_when_the_sizes_as_quoted_say_so_too():
    from tinytui.lesson.gallery_reading import _beside_the_stock

    # 0.7551 < 1.5104 / 2, but as quoted 0.76 is more than half of 1.51
    assert _beside_the_stock(0.7551, 1.5104) == "That is less than the boldest stock picture's size, 1.51."
    assert _beside_the_stock(0.70, 1.51).startswith("That is less than half")
