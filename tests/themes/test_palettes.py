"""The five themes: complete, readable, perceptually ordered, and true to their names."""

from __future__ import annotations

from itertools import pairwise

import pytest
from textual.app import App
from textual.color import Color, ColorParseError
from textual.theme import BUILTIN_THEMES

from tests.themes.cvd import MATRICES, delta_e, simulate
from tinytui import themes
from tinytui.themes.scale import contrast, diverging, heat, lightness, readable_on

ALL = list(themes.THEMES.values())
IDS = list(themes.THEMES)
# Colours drawn as text or marks on the background (tt-masked is deliberately muted; checked apart).
INKS = (
    "tt-positive",
    "tt-negative",
    "tt-heat-high",
    "tt-changed-up",
    "tt-changed-down",
    "tt-edited",
    "tt-target",
    "tt-predicted",
)
SAMPLES = [i / 100 for i in range(101)]


def col(theme, name: str) -> Color:
    return Color.parse(theme.variables[name])


def test_five_themes_with_the_dark_default():
    assert IDS == [
        "tinytui-dark",
        "tinytui-light",
        "tinytui-high-contrast",
        "tinytui-colour-blind",
        "tinytui-monochrome",
    ]
    assert themes.DEFAULT == "tinytui-dark"
    assert [t.dark for t in ALL] == [True, False, True, True, True]


@pytest.mark.parametrize("theme", ALL, ids=IDS)
def test_every_semantic_variable_is_defined_and_is_a_colour(theme):
    tt = {k for k in theme.variables if k.startswith("tt-")}
    assert tt == set(themes.SEMANTIC)
    for name in themes.SEMANTIC:
        color = Color.parse(theme.variables[name])
        assert color.a == 1.0 and color.ansi is None, name


@pytest.mark.parametrize("theme", ALL, ids=IDS)
def test_text_and_inks_read_against_the_background(theme):
    bg = Color.parse(theme.background)
    need = 7.0 if theme is themes.HIGH_CONTRAST else 4.5
    assert contrast(Color.parse(theme.foreground), bg) >= (15 if theme is themes.HIGH_CONTRAST else 7)
    for name in INKS:
        assert contrast(col(theme, name), bg) >= need, name
    assert contrast(col(theme, "tt-masked"), bg) >= 2.0
    # The current step is a band under ordinary text: the text must read on it, the band must show.
    band = col(theme, "tt-current-step")
    assert contrast(Color.parse(theme.foreground), band) >= need
    assert contrast(band, bg) >= 1.5


@pytest.mark.parametrize("theme", ALL, ids=IDS)
def test_heat_scale_has_monotone_lightness_from_the_cell_background(theme):
    v = theme.variables
    assert Color.parse(v["tt-heat-low"]) == Color.parse(theme.surface)
    ls = [lightness(heat(v, s)) for s in SAMPLES]
    steps = [b - a for a, b in pairwise(ls)]
    # Strictly one direction: lighter on a dark theme, darker on the light one.
    assert all(d > 0 for d in steps) if theme.dark else all(d < 0 for d in steps)
    assert abs(ls[-1] - ls[0]) >= 40
    assert lightness(heat(v, -1)) == ls[0] and lightness(heat(v, 2)) == ls[-1]  # clamped


@pytest.mark.parametrize("theme", ALL, ids=IDS)
def test_diverging_scale_moves_away_from_zero_equally_on_both_sides(theme):
    v = theme.variables
    l0 = lightness(diverging(v, 0, 2.0))
    assert Color.parse(v["tt-zero"]) == Color.parse(theme.surface)
    pos = [abs(lightness(diverging(v, 2 * s, 2.0)) - l0) for s in SAMPLES]
    neg = [abs(lightness(diverging(v, -2 * s, 2.0)) - l0) for s in SAMPLES]
    for branch in (pos, neg):
        assert all(b > a for a, b in pairwise(branch))
    assert pos[-1] >= 35 and neg[-1] >= 35
    assert abs(pos[-1] - neg[-1]) <= 6  # neither sign looks stronger at the same magnitude
    assert diverging(v, 5.0, 2.0) == col(theme, "tt-positive")
    assert diverging(v, -5.0, 2.0) == col(theme, "tt-negative")
    assert diverging(v, 1.0, 0.0) == col(theme, "tt-zero")


@pytest.mark.parametrize("theme", [t for t in ALL if t is not themes.MONOCHROME], ids=IDS[:-1])
def test_colour_themes_tell_signs_and_directions_apart(theme):
    for a, b in (
        ("tt-positive", "tt-negative"),
        ("tt-changed-up", "tt-changed-down"),
        ("tt-target", "tt-predicted"),
    ):
        assert delta_e(col(theme, a), col(theme, b)) >= 40, (a, b)


@pytest.mark.parametrize("theme", ALL, ids=IDS)
def test_text_on_any_shade_is_readable(theme):
    v = theme.variables
    shades = [heat(v, s) for s in SAMPLES] + [diverging(v, 2 * s - 1, 1.0) for s in SAMPLES]
    worst = min(contrast(readable_on(c), c) for c in shades)
    assert worst >= 4.5


def test_readable_on_picks_the_stronger_of_black_and_white():
    assert readable_on(Color(255, 255, 255)) == Color(0, 0, 0)
    assert readable_on(Color(0, 0, 0)) == Color(255, 255, 255)
    # A mid blue (brightness 0.49) where a brightness cut-off at 0.55 would pick white at 3.6:1;
    # black gives 5.8:1.
    mid = Color(64, 140, 200)
    assert mid.brightness < 0.55
    assert readable_on(mid) == Color(0, 0, 0)
    assert contrast(Color(0, 0, 0), mid) > 5.7 > 3.7 > contrast(Color(255, 255, 255), mid)


def _all_colours(theme) -> dict[str, Color]:
    """Every colour the theme puts into CSS: Textual's derived shades plus our variables."""
    values = {**theme.to_color_system().generate(), **theme.variables}
    out = {}
    for name, text in values.items():
        try:
            out[name] = Color.parse(text)
        except ColorParseError:
            continue  # styles such as "bold", or "auto 87%"
    return out


def _is_green(c: Color) -> bool:
    h, s, light = c.hsl
    return s > 0.25 and 0.08 < light < 0.95 and 75 <= h * 360 <= 170


def test_colour_blind_theme_has_no_green_at_all():
    greens = {k: c.hex for k, c in _all_colours(themes.COLOUR_BLIND).items() if _is_green(c)}
    assert greens == {}
    # The check does see green: the dark theme's "went up" is green on purpose.
    assert _is_green(col(themes.DARK, "tt-changed-up"))


@pytest.mark.parametrize("kind", list(MATRICES))
def test_colour_blind_pairs_stay_apart_under_simulated_colour_blindness(kind):
    t = themes.COLOUR_BLIND
    for a, b in (
        ("tt-positive", "tt-negative"),
        ("tt-changed-up", "tt-changed-down"),
        ("tt-target", "tt-predicted"),
    ):
        assert delta_e(simulate(col(t, a), kind), simulate(col(t, b), kind)) >= 50, (kind, a, b)
    if kind != "tritanopia":  # the common forms; the edit also carries a glyph in the app
        for signed in ("tt-positive", "tt-negative"):
            assert delta_e(simulate(col(t, "tt-edited"), kind), simulate(col(t, signed), kind)) >= 20


def test_the_simulation_collapses_red_green_pairs():
    # Without this, the test above could pass on a theme that only looks distinct to full colour vision.
    for red, green in (("#d73027", "#1a9850"), ("#e41a1c", "#4daf4a"), ("#ff0000", "#00a000")):
        r, g = Color.parse(red), Color.parse(green)
        assert delta_e(r, g) > 100
        assert min(delta_e(simulate(r, k), simulate(g, k)) for k in ("protanopia", "deuteranopia")) < 35


def test_monochrome_is_greys_only_everywhere():
    colours = _all_colours(themes.MONOCHROME)
    assert len(colours) > 100
    assert {k: c.hex for k, c in colours.items() if not (c.r == c.g == c.b)} == {}
    # Sign is carried by the minus sign, not by shade: the two ends are the same grey.
    assert col(themes.MONOCHROME, "tt-positive") == col(themes.MONOCHROME, "tt-negative")


def test_high_contrast_uses_the_extremes():
    t = themes.HIGH_CONTRAST
    assert Color.parse(t.background) == Color(0, 0, 0) and Color.parse(t.foreground) == Color(255, 255, 255)


@pytest.mark.parametrize("name", list(BUILTIN_THEMES))
def test_builtin_themes_get_usable_fallbacks(name):
    builtin = BUILTIN_THEMES[name]
    v = themes.variable_defaults(builtin)
    assert set(v) == set(themes.SEMANTIC)
    ls = [lightness(heat(v, s)) for s in SAMPLES]
    sign = 1 if ls[-1] > ls[0] else -1
    # No visible step back: a reversal under half an L* unit is 8-bit rounding, below one grey level.
    assert min(sign * (b - a) for a, b in pairwise(ls)) > -0.5
    assert abs(ls[-1] - ls[0]) >= 25


def test_fallbacks_follow_the_theme_surface():
    nord = themes.variable_defaults(BUILTIN_THEMES["nord"])
    assert (
        nord["tt-zero"].lower() == "#3b4252" and nord["tt-positive"] == themes.DARK.variables["tt-positive"]
    )
    light = themes.variable_defaults(BUILTIN_THEMES["textual-light"])
    assert light["tt-heat-high"] == themes.LIGHT.variables["tt-heat-high"]
    assert themes.variable_defaults() == {k: themes.DARK.variables[k] for k in themes.SEMANTIC}


class ThemedApp(App):
    # Refers to every semantic variable, so a theme without one would fail to parse.
    CSS = "Screen { " + " ".join(f"scrollbar-color: ${n};" for n in themes.SEMANTIC) + " }"

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return themes.variable_defaults(self.current_theme)

    def on_mount(self) -> None:
        themes.register(self)


async def test_registered_themes_reach_the_app_variables():
    app = ThemedApp()
    async with app.run_test() as pilot:
        for theme in ALL:
            app.theme = theme.name
            await pilot.pause()
            assert app.current_theme is theme
            for name in themes.SEMANTIC:
                assert app.theme_variables[name] == theme.variables[name]
        app.theme = "nord"  # what the palette's picker does
        await pilot.pause()
        assert app.theme_variables["tt-zero"].lower() == "#3b4252"
        assert Color.parse(app.screen.styles.scrollbar_color.hex) == Color.parse(
            themes.variable_defaults(BUILTIN_THEMES["nord"])[themes.SEMANTIC[-1]]
        )


def test_names_resolve_and_cycle():
    assert themes.resolve("light") == "tinytui-light"
    assert themes.resolve(" High-Contrast ") == "tinytui-high-contrast"
    assert themes.resolve("color-blind") == "tinytui-colour-blind"
    assert themes.resolve("mono") == "tinytui-monochrome"
    assert themes.resolve("nord") == "nord"
    with pytest.raises(ValueError) as err:
        themes.resolve("nonsense")
    assert all(n in str(err.value) for n in IDS) and "\n" not in str(err.value)
    seen = ["tinytui-dark"]
    for _ in range(5):
        seen.append(themes.next_theme(seen[-1]))
    assert seen == [*IDS, "tinytui-dark"]
    assert themes.next_theme("nord") == "tinytui-dark"


def test_choice_order_no_color_then_flag_then_remembered_then_default():
    mono = "tinytui-monochrome"
    assert themes.choose("tinytui-light", "tinytui-dark", no_color=True) == (mono, None)
    assert themes.choose("tinytui-light", "tinytui-high-contrast", no_color=False) == ("tinytui-light", None)
    assert themes.choose(None, "tinytui-high-contrast", no_color=False) == ("tinytui-high-contrast", None)
    assert themes.choose(None, None, no_color=False) == ("tinytui-dark", None)
    name, notice = themes.choose(None, "vaporwave", no_color=False)
    assert name == "tinytui-dark" and "'vaporwave'" in notice
