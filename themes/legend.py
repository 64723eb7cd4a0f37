"""A one-line key for a shaded pane: the scale's ends in numbers, the shades between them in cells."""

from __future__ import annotations

from collections.abc import Mapping

from rich.style import Style
from rich.text import Text

from tinytui.themes.scale import diverging, heat


def _number(x: float, digits: int) -> str:
    text = f"{abs(x):.{digits}f}"
    return f"−{text}" if x < 0 else text


def _cells(text: Text, colours) -> None:
    for colour in colours:
        text.append(" ", Style(bgcolor=colour.rich_color))


def legend(
    variables: Mapping[str, str],
    kind: str = "heat",
    *,
    limit: float = 1.0,
    width: int = 10,
    digits: int = 2,
    title: str = "",
) -> Text:
    """A Rich Text key for the heat scale ("heat", 0 … limit) or the diverging one (−limit … 0 … +limit).

    `variables` is the app's `theme_variables`; `width` is the number of shaded cells. The ends are
    written as numbers, so the key still reads in the monochrome theme.
    """
    if kind not in ("heat", "diverging"):
        raise ValueError(f"legend kind must be 'heat' or 'diverging', not {kind!r}")
    width = max(2, width)
    text = Text(f"{title} " if title else "", no_wrap=True, end="")
    if kind == "heat":
        text.append(f"{_number(0.0, digits)} ")
        steps = [i / (width - 1) for i in range(width)]
        _cells(text, (heat(variables, s) for s in steps))
        text.append(f" {_number(limit, digits)}")
        return text
    half = max(1, width // 2)
    # Cell i of a half sits at (i + 1) / half of the limit, so the strongest shade is at the ends.
    text.append(f"{_number(-limit, digits)} ")
    _cells(text, (diverging(variables, -(half - i) / half, 1.0) for i in range(half)))
    text.append(" 0 ")
    _cells(text, (diverging(variables, (i + 1) / half, 1.0) for i in range(half)))
    text.append(f" +{_number(limit, digits)}")
    return text
