"""No widget, screen or the app itself names a colour: shading comes from theme variables only."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.themes.colour_scan import app_files, file_problems, python_problems

ROOT = Path(__file__).resolve().parents[2]

OFFENDERS = {
    'STYLE = "bold green"': "style string",
    'text.append("x", style="red")': "style string",
    't = Text("x", style="white on #003366")': "hex colour",
    'label = "[bold red]boom[/]"': "markup colour [bold red]",
    'label = f"[on yellow]{n}[/]"': "markup colour [on yellow]",
    'C = "#ff8800"': "hex colour #ff8800",
    'c = "rgb(10, 20, 30)"': "colour function",
    "c = Color(255, 0, 0)": "colour literal Color(…)",
    'c = Color.parse("tomato")': "colour literal Color.parse(…)",
    "c = RichColor.from_rgb(1, 2, 3)": "colour literal from_rgb(…)",
    'DEFAULT_CSS = "Cell { background: darkred 30%; }"': "CSS background: darkred 30%",
    'DEFAULT_CSS = "Cell { border: tall #abc; }"': "CSS border: tall #abc",
    'DEFAULT_CSS = "Cell { color: ansi_bright_red; }"': "CSS color: ansi_bright_red",
}

FINE = [
    'DEFAULT_CSS = "#step-list { background: $tt-zero; color: auto 90%; border: tall $primary; }"',
    'DEFAULT_CSS = "Cell { background: transparent; } #abc { width: 4; }"',
    'label = "[$tt-edited]w[/] [b]bold[/b] [@click=app.quit]quit[/]"',
    'HELP = "Red and green are never the only cue; see the legend."',
    'q = self.query_one("#beef")',
    'c = Color.parse(self.app.theme_variables["tt-positive"])',
    "c = heat(variables, 0.5).blend(other, 0.1)",
    'text.append("x", style=Style(bgcolor=colour.rich_color, underline=True))',
    'row = "[0, 1]"',
]


@pytest.mark.parametrize("code", list(OFFENDERS))
def test_the_scanner_catches_hard_coded_colours(code):
    found = python_problems(code)
    assert found, code
    assert any(OFFENDERS[code] in why for _, why in found), found


@pytest.mark.parametrize("code", FINE)
def test_the_scanner_leaves_theme_variables_and_prose_alone(code):
    assert python_problems(code) == []


def test_the_scanner_reads_tcss(tmp_path):
    sheet = tmp_path / "app.tcss"
    sheet.write_text(
        "/* red is fine in a comment */\nScreen { background: $background; }\nX { color: red; }\n"
    )
    assert file_problems(sheet) == [f"{sheet}: CSS color: red"]


def test_app_widgets_and_screens_name_no_colours():
    files = app_files(ROOT)
    if not files:
        pytest.skip("the Textual app (tinytui/tui/app.py, widgets/, screens/) is not there yet")
    problems = [p for f in files for p in file_problems(f)]
    assert problems == [], "\n".join(problems)
