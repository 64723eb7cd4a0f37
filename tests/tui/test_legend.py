"""The shading key in each table's bottom border: 0 … 1 for attention weights, −limit … 0 … +limit for
signed values, in the current theme's colours (and redrawn when the theme changes)."""

import numpy as np
from textual.color import Color

from tests.tui.helpers import grid, press
from tinytui import themes
from tinytui.themes.scale import diverging, heat, lightness


def shades(text) -> list[Color]:
    """The background colours of the key's shaded cells, left to right."""
    return [Color.from_rich_color(span.style.bgcolor) for span in text.spans if span.style.bgcolor]


async def test_attention_heatmap_has_a_sequential_key(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "8")
        attn = grid(app, "output:blocks.0.attn.{h}")
        key = attn.legend_text
        assert key is not None and "0.00" in attn.frame()[-1]  # drawn in the bottom border
        words = key.plain.split()
        assert (words[0], words[-1]) == ("0.00", "1.00")
        colours = shades(key)
        variables = app.theme_variables
        assert len(colours) == 10
        assert colours[0] == heat(variables, 0.0) and colours[-1] == heat(variables, 1.0)
        # lighter or darker all the way along, never back: the scale's order shows in the key
        steps = np.diff([lightness(c) for c in colours])
        assert np.all(steps > 0) or np.all(steps < 0)


async def test_signed_matrix_key_ends_at_its_largest_value(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "8")
        scores = grid(app, "input:blocks.0.scores.{h}")
        limit = max(abs(v) for row in scores.spec.values for v in row if v is not None)
        assert limit == scores.spec.limit
        text = scores.legend_text.plain.split()
        assert text == [f"−{limit:.2f}", "0", f"+{limit:.2f}"]
        colours = shades(scores.legend_text)
        variables = app.theme_variables
        assert colours[0] == diverging(variables, -limit, limit)
        assert colours[-1] == diverging(variables, limit, limit)


async def test_token_table_without_numbers_has_no_key(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert grid(app, "tokens").legend_text is None  # step 1: tokens and ids, nothing shaded


async def test_key_follows_the_theme(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "8")
        attn = grid(app, "output:blocks.0.attn.{h}")
        before = shades(attn.legend_text)
        await press(pilot, "t")
        await pilot.pause()
        assert app.theme != themes.DEFAULT
        after = shades(attn.legend_text)
        assert after != before
        assert after[-1] == heat(app.theme_variables, 1.0)
