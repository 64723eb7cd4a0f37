"""What the step view shows at first sight: GPT-3's count at 80×24 before any scroll, row labels apart from
the shaded numbers, one minus sign."""

from tests.apps import make_app
from tests.tui.helpers import view


def on_screen(step_view) -> str:
    """The view's lines as drawn now (its visible rows, scrolled as it is)."""
    rows = step_view.scrollable_content_region.height
    return "\n".join(step_view.render_line(y).text for y in range(rows))


async def test_gpt3s_total_is_on_screen_at_80x24():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("G")
        await pilot.pause()
        shown = on_screen(view(app))
        assert "172 parameters; by the same formula GPT-3 has 174,569,631,744" in shown
        assert view(app).scroll_offset.y == 0


def segments_after(strip, label: str) -> list:
    """The segments of a drawn line from the one holding label on."""
    segments = list(strip)
    at = next(i for i, s in enumerate(segments) if label in s.text)
    return segments[at:]


async def test_a_row_label_never_runs_into_a_shaded_number():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("7")  # the scores, shaded
        await pilot.pause()
        step_view = view(app)
        lines = [step_view.render_line(y) for y in range(step_view.scrollable_content_region.height)]
        row = next(line for line in lines if "1:woodchuck" in line.text)
        label, gap, number = segments_after(row, "1:woodchuck")[:3]
        assert label.text.endswith("1:woodchuck") and gap.text == " "
        assert number.text.strip() == "1.0170"
        # the space between them has the view's own background, as the label has, not the number's shade
        assert gap.style.bgcolor == label.style.bgcolor != number.style.bgcolor


async def test_numbers_on_screen_carry_one_minus_sign():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("5")  # layer norm: the facts quote a negative entry
        await pilot.pause()
        assert "first entry −1.7320" in view(app).info_text and "-1.7320" not in view(app).text()
