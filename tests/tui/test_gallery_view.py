"""The gallery view (v): opened from any step and back, redrawn and marked after a change, its stages'
captions, both heads' circuits, the attribution of wood, and a picture when d_model is a multiple of 3.
On screen: the page's lines cut to the window and scrolled, and a change draws only the lines it made."""

from __future__ import annotations

import re

import pytest
from rich.cells import cell_len
from textual.geometry import Size

from tests.apps import make_app
from tests.tui.helpers import press
from tinytui.cli.main import main
from tinytui.lesson.gallery_reading import captions, day
from tinytui.model.analysis.attribution import NOT_EXACT, attribution
from tinytui.model.analysis.circuits import circuit_ignores, head_circuits
from tinytui.present.gallery_day import day_stages
from tinytui.present.gallery_lines import CELL, LABEL, WHAT, Pixel, number, picture_lines
from tinytui.tui.screens.gallery_screen import GalleryScreen
from tinytui.tui.widgets.gallery.canvas import GalleryPanel
from tinytui.tui.widgets.gallery.drawing import Ink, drawn_line


def panel(app) -> GalleryPanel:
    return app.screen.query_one(GalleryPanel)


def flat(text: str) -> str:
    return " ".join(text.split())


def row(text: str, painting: str, what: str) -> str:
    """The strip of one painting's `what` line (the painting's label starts its first line only)."""
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith(painting))
    return next(line for line in lines[start:] if what in line)


def shown(app) -> list[str]:
    """The page's lines as on screen (cut to the window, scrolled), trailing blanks dropped."""
    return [line.rstrip() for line in panel(app).screen_lines()]


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_the_page_on_screen_is_its_lines_cut_to_the_window_and_scrolled(app, size):
    async with app.run_test(size=size) as pilot:
        await press(pilot, "v", "n", "n")  # the morning: prose, then the strips of every painting
        width, height = panel(app).scrollable_content_region.size
        page = panel(app).text.split("\n")
        assert panel(app).virtual_size == Size(max(cell_len(line) for line in page), len(page))
        assert len(page) > height and panel(app).show_vertical_scrollbar
        assert shown(app) == [line[:width].rstrip() for line in page[:height]]
        assert shown(app)[0] == "Stage 3 of 6 · Day 1, morning: the artists paint"
        await press(pilot, "pagedown")
        top = panel(app).scroll_offset.y
        assert top > 0 and shown(app) == [line[:width].rstrip() for line in page[top : top + height]]
        await press(pilot, "end")
        assert panel(app).scroll_offset.y == len(page) - height
        assert shown(app)[-1] == page[-1][:width].rstrip()
        await press(pilot, "n")  # the next stage opens at its top
        assert panel(app).scroll_offset.y == 0 and shown(app)[0].startswith("Stage 4 of 6 · Day 1, evening")


async def test_a_page_wider_than_the_window_scrolls_sideways_at_80x24(app):
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "v", "3")  # the circuits: a column per word of the vocabulary
        width = panel(app).scrollable_content_region.width
        page = panel(app).text.split("\n")
        assert panel(app).virtual_size.width > width and panel(app).show_horizontal_scrollbar
        await press(pilot, "right", "right")  # the page scrolls; the stage stays
        assert panel(app).page == "circuits" and panel(app).scroll_offset.x == 2
        assert shown(app) == [line[2 : 2 + width].rstrip() for line in page[: len(shown(app))]]


async def test_an_edit_draws_only_the_lines_it_changed(app):
    async with app.run_test(size=(120, 40)) as pilot:
        seen: list = []  # every line (text and styles) the gallery has shown

        def look() -> None:
            top = panel(app).scroll_offset.y
            for line in panel(app).lines[top : top + panel(app).scrollable_content_region.height]:
                if line not in seen:
                    seen.append(line)

        for key in ("v", "n", "n"):
            await press(pilot, key)
            look()
        drawn = panel(app).lines_drawn
        app.session.edit("W_O", (2, 0), "2")  # head 2's strokes on every painting
        app.refresh_views()
        await pilot.pause()
        before = len(seen)
        look()
        assert 0 < len(seen) - before < panel(app).scrollable_content_region.height
        assert panel(app).lines_drawn - drawn == len(seen) - before  # each new line once; no other line


async def test_the_pages_text_can_be_selected_with_the_mouse(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "v")
        await pilot.mouse_down(panel(app), offset=(1, 0))  # the page's first character (after the padding)
        await pilot.hover(panel(app), offset=(12, 0))
        await pilot.mouse_up(panel(app), offset=(12, 0))
        await pilot.pause()
        assert app.screen.get_selected_text() == "Stage 1 of "
        first = list(panel(app).render_line(0))
        assert first[0].text == "Stage 1 of " and first[0].style.bgcolor != first[-1].style.bgcolor  # shown


@pytest.mark.parametrize("keys", [(), ("8",), ("G",), ("b",)])
async def test_v_opens_the_gallery_from_any_step_and_esc_returns_to_it(app, keys):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, *keys)
        step, backward = app.session.step, app.session.mode.backward
        await press(pilot, "v")
        assert isinstance(app.screen, GalleryScreen)
        assert "Stage 1 of 6" in panel(app).text
        await press(pilot, "n", "3", "escape")
        assert not isinstance(app.screen, GalleryScreen)
        assert (app.session.step, app.session.mode.backward) == (step, backward)
        await press(pilot, "v", "v")  # the same key closes it too
        assert not isinstance(app.screen, GalleryScreen)
        assert app.session.step == step


async def test_the_step_keys_do_not_move_the_step_behind_the_gallery(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "5", "v", "g", "G", "n", "n", "p", "1", "escape")
        assert app.session.step == 5


async def test_stepping_through_the_day_shows_each_stages_caption(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "v")
        found = captions(day(app.session.params, app.session.trace))
        by_kind = {
            k: [flat(c.text) for c in found if c.kind == k] for k in ("artist", "filter", "prediction")
        }
        stages = day_stages(1)
        assert [s.kind for s in stages] == ["stock", "mark", "morning", "evening", "finished", "prediction"]
        seen = []
        for i, stage in enumerate(stages):
            text = flat(panel(app).text)
            assert f"Stage {i + 1} of 6 · {stage.title}" in text
            seen.append(text)
            await press(pilot, "n")
        assert "stock picture" in seen[0] and "tied at a size of 1.12, are 1:woodchuck and 3:chuck" in seen[0]
        assert "mark saying where it hangs" in seen[1]
        assert all(c in seen[2] for c in by_kind["artist"])
        assert all(c in seen[3] for c in by_kind["filter"])
        assert "Only the last painting, 3:chuck, is read" in seen[4]
        assert by_kind["prediction"][0] in seen[5]
        assert "“wood”, and it is far from sure: 31%" in seen[5]
        assert panel(app).stage == 5  # n at the last stage rings the bell and stays
        await press(pilot, "left")
        assert panel(app).stage == 4


async def test_pe_off_says_the_marks_are_off(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "v", "n", "o")  # o works inside the gallery
        assert not app.session.trace.switches.positional_encoding
        assert "The position marks are switched off (PE off)" in flat(panel(app).text)
        line = row(panel(app).text, "1:woodchuck", "position mark")
        assert re.findall(r"[+−]?\d\.\d\d", line) == ["0.00"] * 4
        assert "▼" in line  # the marks that were there went away: marked as changed


async def test_an_edit_redraws_the_strips_and_marks_them(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "v", "n", "n")  # the morning
        before = panel(app).text
        assert "▲" not in before and "▼" not in before
        app.session.edit("W_O", (2, 0), "2")  # head 2's first row, the "thing" column
        app.refresh_views()
        await pilot.pause()
        after = panel(app).text
        assert after != before
        # head 2 now paints "thing" on every painting: its strokes went up there, and are marked
        line = row(after, "0:a", "artist 2")
        assert "▲" in line
        assert "artist 2" in line and "+0.00" not in line
        assert "▲" not in row(after, "0:a", "artist 1")  # head 1's strokes did not move
        assert "changed since the comparison run" in after
        await press(pilot, "u")  # undo inside the gallery: back, and the way back is marked
        assert app.session.cursor == 0
        assert "▼" in row(panel(app).text, "0:a", "artist 2")


async def test_the_circuits_of_both_heads(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "v", "3")
        text = panel(app).text
        params = app.session.params
        for h in (1, 2):
            assert f"Head {h} · QK circuit" in text and f"Head {h} · OV circuit" in text
            c = head_circuits(params, 0, h)
            vocab = params.cfg.vocab
            i, j = vocab.index("chuck"), vocab.index("wood")
            lines = text.split("\n")
            start = next(k for k, line in enumerate(lines) if line.startswith(f"Head {h} · QK"))
            chuck = next(line for line in lines[start:] if line.startswith("chuck "))
            assert re.findall(r"[+−]?\d\.\d\d", chuck)[j] == number(float(c.qk.values[i, j]))
        ignores = circuit_ignores(params.cfg)
        assert flat(f"It ignores {ignores['qk']}.") in flat(text)
        assert flat(f"It ignores {ignores['ov']}.") in flat(text)


async def test_the_attribution_of_wood_adds_up_to_the_logit_shown(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "v", "4")
        text = panel(app).text
        assert "σ = " in text and "held at its value" in text
        lines = text.split("\n")
        head = next(i for i, line in enumerate(lines) if line.startswith("“wood” (predicted and target)"))
        logit = float(re.search(r"logit ([+−\d.]+)", lines[head]).group(1).replace("−", "-"))
        parts = []
        for line in lines[head + 1 :]:
            if "sum of the parts" in line:
                break
            parts.append(float(re.search(r"([+−]?\d+\.\d{4})", line).group(1).replace("−", "-")))
        assert len(parts) == 6  # embedding, PE, two heads, the FFN's hidden·W_2 and b_2
        assert sum(parts) == pytest.approx(logit, abs=5e-4)
        expected = attribution(app.session.params, app.session.trace).tokens["wood"]
        assert logit == pytest.approx(expected.logit, abs=1e-4)
        assert f"= the logit {number(expected.logit, 4)}" in text


async def test_under_post_norm_the_attribution_says_why_there_is_no_split(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "v", "4")
        app.experiments.run("toggle-norm")
        await pilot.pause()
        assert flat(NOT_EXACT["post-norm"]) in flat(panel(app).text)
        assert "sum of the parts" not in panel(app).text


async def test_the_other_pages_and_a_narrow_window(app):
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "v", "2")
        text = panel(app).text
        assert "Artist 1 · value rule B" in text and "Artist 2 · attention rule A" in text
        assert "Artist 2 · A·B" in text and "×" in text  # the mask
        await press(pilot, "5")
        text = panel(app).text
        assert "12,288" in text and "64×64×3" in text and "not a multiple of 3" in text
        await press(pilot, "tab")
        assert panel(app).page == "day"
        await press(pilot, "escape")
        assert not isinstance(app.screen, GalleryScreen)


def test_a_picture_is_drawn_from_the_numbers():
    lines = picture_lines([[[0.0, 0.5, 1.0], [1.0, 1.0, 1.0]]])
    assert lines == [(Pixel((0, 128, 255)), Pixel((255, 255, 255)))]
    drawn = drawn_line(lines[0], Ink({}))  # the model's colours, whatever the theme
    assert drawn.plain == "    "
    colours = [span.style.bgcolor.triplet for span in drawn.spans]
    assert [tuple(c) for c in colours] == [(0, 128, 255), (255, 255, 255)]


async def test_a_model_of_d_model_6_shows_each_painting_as_a_picture(tmp_path, capsys):
    path = tmp_path / "six.json"
    assert main(["new", "-o", str(path), "--d", "6", "--heads", "2"]) == 0
    app = make_app("--model", str(path))
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "v")
        text = panel(app).text
        assert "small pictures" in flat(text)  # the key, wrapped to the page
        line = row(text, "0:a", "stock image")
        assert len(line) == LABEL + WHAT + 6 * CELL + len("  ") + 4  # then a 1×2 picture: two pixels
        await press(pilot, "5")
        assert "1×2×3" in panel(app).text


async def test_every_theme_draws_every_page(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "v", "n", "n")
        for _ in range(5):  # t works inside the gallery: the next theme, and the page is drawn again
            theme = app.theme
            await press(pilot, "t")
            assert app.theme != theme
            for page in "23451":
                await press(pilot, page)
                assert panel(app).text
        assert "Day 1, morning" in panel(app).text


async def test_on_chapter17_llama_the_marks_stage_is_rotary_and_no_part_is_positional():
    app = make_app("--model", "chapter17-llama")
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "v", "n")
        text = flat(panel(app).text)
        assert "Stage 2 of 8 · Where they hang: turned, not marked" in text
        assert (
            "The positions are rotary (RoPE)" in text
            and "3:chuck's queries and keys are turned by 3.00" in text
        )
        assert "small mark" not in text and "position mark" not in text
        await press(pilot, "4")
        text = panel(app).text
        assert "positional encoding" not in text and "FFN (gate⊙up)·W_down (block 2)" in text
        assert "root mean square √(mean of squares + ε) = 0.9305" in flat(text)


async def test_switching_the_chapter_to_rope_inside_the_gallery_retells_the_marks(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "v", "n")
        assert "Every painting gets a mark saying where it hangs" in flat(panel(app).text)
        await press(pilot, "O")  # the positions switch works inside the gallery
        assert app.session.trace.cfg.positions == "rope"
        text = flat(panel(app).text)
        assert "Where they hang: turned, not marked" in text and "small mark" not in text
        assert "grows by 1.00 radians a position, so 3:chuck's queries and keys are turned by 3.00" in text
