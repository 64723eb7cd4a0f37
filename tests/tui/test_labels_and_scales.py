"""Labels are whole or visibly cut (never "1:wood" for 1:woodchuck, never "quanti" for quantifier), and
the gallery shades each kind of strip on its own scale, saying which."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.apps import make_app
from tests.tui.helpers import press
from tinytui.lesson.gallery_reading import day
from tinytui.present.gallery_runs import kind_limits
from tinytui.present.label_fit import fit_label
from tinytui.tui.widgets.gallery.canvas import GalleryPanel
from tinytui.tui.widgets.watch_pane import WatchPane

CUT = re.compile(r"(?<![\w:])(\d:wood|quanti|quantif|quantifi)(?![\w…])")  # a label cut into another word


def test_fit_label_pads_or_cuts_with_an_ellipsis():
    assert fit_label("1:woodchuck", 11) == "1:woodchuck"
    assert fit_label("1:woodchuck", 6) == "1:woo…"
    assert fit_label("wood", 6) == "wood  " and fit_label("wood", 6, ">") == "  wood"
    assert fit_label("quantifier", 6, ">") == "quant…" and fit_label("x", 0) == ""


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_the_watch_pane_names_each_position_whole_or_cut_visibly(size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await press(pilot, "W")
        text = app.query_one(WatchPane).text()
        assert "Attention" in text and not CUT.search(text), text
        if size == (120, 40):
            assert re.search(r"^1:woodchuck ", text, re.M)  # room for it whole


@pytest.mark.parametrize("width", [155, 120, 80])
async def test_the_gallerys_column_names_are_whole_or_cut_visibly(width):
    app = make_app()
    async with app.run_test(size=(width, 40)) as pilot:
        await press(pilot, "v", "n", "n")  # the day's morning: strips under the dimensions' names
        day_text = app.screen.query_one(GalleryPanel).text
        await press(pilot, "3")  # the circuits: heatmaps under the vocabulary
        circuits = app.screen.query_one(GalleryPanel).text
        for text in (day_text, circuits):
            assert not CUT.search(text), CUT.search(text)
        if width >= 120:  # room for the names whole
            heads = next(line for line in circuits.split("\n") if line.split()[:2] == ["a", "chuck"])
            assert "quantifier" in day_text and "woodchuck" in heads


async def test_each_kind_of_strip_has_its_own_scale_and_the_key_says_so():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "v")
        gallery = day(app.session.params, app.session.trace)
        stock = max(float(np.max(np.abs(p.stock))) for p in gallery.paintings)
        assert stock == 1.0 < gallery.scale  # the run's one scale would have shaded the stock images pale
        text = " ".join(app.screen.query_one(GalleryPanel).text.split())
        assert "each kind of strip on its own scale" in text and "stock image ±1.00" in text
        await press(pilot, "n", "n")
        text = " ".join(app.screen.query_one(GalleryPanel).text.split())
        limits = kind_limits(
            (what, v)
            for p in gallery.paintings
            for what, v in (("artist 1", p.days[0].strokes[0]), ("after morning", p.days[0].canvas))
        )
        assert f"artist 1 ±{limits['artist 1']:.2f}" in text
        assert f"after morning ±{limits['after morning']:.2f}" in text
        assert limits["artist 1"] < limits["after morning"]


def test_kind_limits_take_the_largest_of_each_kind():
    got = kind_limits([("a", np.array([0.5, -2.0])), ("b", np.zeros(2)), ("a", np.array([1.0]))])
    assert got == {"a": 2.0, "b": 1.0}  # all zero: a scale of 1, not a division by zero
