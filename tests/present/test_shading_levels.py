"""A shaded cell's colour is worked out at its level on the scale (1,024 steps each way): cells at one
level share one style whatever their values or their table's limit, and the colour is the scale's own
to within one unit of a channel."""

import numpy as np

from themes import palettes, scale
from tinytui.tui.widgets.shading import LEVELS, level, shade_at


def channels(colour) -> np.ndarray:
    return np.array(colour.rgb, dtype=int)


def test_a_level_is_the_value_over_its_limit_in_1024_steps():
    assert level("diverging", 0.5, 2.0) == 0.25
    assert level("diverging", -3.0, 2.0) == -1.0  # beyond the limit: the end of the scale
    assert level("heat", 1.7, 1.0) == 1.0 and level("heat", -0.2, 1.0) == 0.0
    assert level("diverging", 0.3, 0.0) == 0.0  # no limit: the zero colour
    close = 0.25 + 0.4 / LEVELS / 2  # under half a step away
    assert level("diverging", close, 1.0) == level("diverging", 0.25, 1.0)
    assert level("diverging", 0.25 + 1 / LEVELS, 1.0) != level("diverging", 0.25, 1.0)


def test_the_colour_at_a_level_is_the_scales_own_within_one_unit():
    rng = np.random.default_rng(5)
    for theme in palettes.ALL:
        variables = theme.variables
        for v in rng.uniform(-1.3, 1.3, 200):
            exact = channels(scale.diverging(variables, v, 1.1))
            at = channels(shade_at(variables, "diverging", level("diverging", v, 1.1)))
            assert np.abs(exact - at).max() <= 1, (theme.name, v)
        for v in rng.uniform(0, 1, 200):
            exact = channels(scale.heat(variables, v))
            at = channels(shade_at(variables, "heat", level("heat", v, 1.0)))
            assert np.abs(exact - at).max() <= 1, (theme.name, v)


def test_a_shaded_cells_style_is_its_shade_with_text_readable_on_it():
    """Every level of both scales, in every theme: the cell's background is the shade at its level and
    its text is the one of black and white that reads on it, over the view's own colours."""
    from rich.style import Style

    from tinytui.tui.widgets.line_styles import LineStyles

    ground = Style(color="#d8dee9", bgcolor="#15171c")
    for theme in palettes.ALL:
        styles = LineStyles(lambda name: Style(), theme.name, theme.variables, None, ground)
        for shade, low in (("diverging", -LEVELS), ("heat", 0)):
            for i in range(low, LEVELS + 1, 7):
                style = styles.cell(shade, frozenset(), i / LEVELS)
                bg = shade_at(theme.variables, shade, i / LEVELS)
                assert style.bgcolor == bg.rich_color
                assert style.color == scale.readable_on(bg).rich_color
                assert scale.contrast(scale.readable_on(bg), bg) >= 4.5
