"""The presenter view (z, tinytui --large): one table at a time with more room, the step list hidden; n and
p go through the step's tables and then to the next or previous step; z brings every table back."""

from tests.apps import make_app
from tests.tui.helpers import footer_keys, info, press
from tinytui.cli.options import build_parser
from tinytui.cli.serve_command import app_command
from tinytui.present.grid_spec import GridSpec
from tinytui.tui.widgets.footer import TinyFooter
from tinytui.tui.widgets.step_view import StepView


def on_screen(app) -> list[str]:
    """The headings and table titles shown now, in screen order."""
    blocks = app.query_one(StepView).blocks
    placed = [(h.y, h.text) for h in blocks.headings]
    placed += [(b.y, b.item.title) for b in blocks.boxes if isinstance(b.item, GridSpec)]
    return [text for _, text in sorted(placed)]


def test_large_is_an_option_of_the_app_and_of_serve():
    assert build_parser().parse_args(["--large"]).large is True
    assert build_parser().parse_args([]).large is False
    assert app_command(build_parser().parse_args(["serve", "--large"])).endswith(" --large")


async def test_one_table_at_a_time_and_n_goes_through_them():
    app = make_app(large=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "8")
        assert not app.query_one("#sidebar").display
        assert on_screen(app) == [
            "Step 8 makes · table 1 of 3 · n: the next",
            "A = softmax(S + M) — per head",
        ]
        assert "Later positions get −∞" in info(app)  # the step's text stays above the table
        assert isinstance(app.focused, StepView) and app.focused.spec.title == "A = softmax(S + M) — per head"
        await press(pilot, "n")
        assert on_screen(app) == ["Step 8 makes · table 2 of 3 · n: the next", "mask (1 = may attend)"]
        await press(pilot, "n")
        assert on_screen(app) == [
            "From earlier steps · table 3 of 3 · n: the next step",
            "S = QKᵀ/√d_k — per head",
        ]
        await press(pilot, "n")  # after the last table: the next step, on its first table
        assert app.session.step == 9 and on_screen(app)[0] == "Step 9 makes · table 1 of 5 · n: the next"
        await press(pilot, "p")  # and back: the previous step's last table
        assert app.session.step == 8 and on_screen(app)[0].startswith("From earlier steps · table 3 of 3")
        await press(pilot, "z")  # every table again, under their own headings
        assert on_screen(app) == [
            "Step 8 makes",
            "A = softmax(S + M) — per head",
            "mask (1 = may attend)",
            "From earlier steps",
            "S = QKᵀ/√d_k — per head",
        ]
        assert app.query_one("#sidebar").display
        await press(pilot, "n")
        assert app.session.step == 9  # n steps again


async def test_the_presenter_gives_the_table_more_room():
    plain, large = make_app(), make_app(large=True)
    sizes = []
    for app in (plain, large):
        async with app.run_test(size=(120, 40)) as pilot:
            await press(pilot, "8")
            view = app.query_one(StepView)
            first = view.box_of("output:blocks.0.attn.{h}")  # A, step 8's first table
            heading = next(h for h in view.blocks.headings if h.text.startswith("Step 8 makes"))
            sizes.append((first.x, first.y - heading.y))
    (x, below), (big_x, big_below) = sizes
    assert big_x >= x + 2 and big_below >= below + 1  # room left of the table and above it


async def test_presenting_through_the_backward_walk():
    app = make_app(large=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "b")  # the walk starts at step 15
        first = on_screen(app)
        assert len([t for t in first if "table 1 of" in t]) == 1
        pages = app.query_one(StepView).page_count()
        for _ in range(pages - 1):
            await press(pilot, "n")
        assert app.session.step == 15 and f"table {pages} of {pages}" in on_screen(app)[0]
        await press(pilot, "n")  # the walk goes on to step 14
        assert app.session.mode.backward and app.session.step == 14
        assert "table 1 of" in on_screen(app)[0]


async def test_at_the_last_step_n_stays_on_its_last_table():
    app = make_app(large=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "G")
        pages = app.query_one(StepView).page_count()
        for _ in range(pages + 1):
            await press(pilot, "n")
        assert app.session.step == 16 and f"table {pages} of {pages}" in on_screen(app)[0]


async def test_at_80x24_the_heading_says_n_and_the_footer_keeps_n_p_help_and_quit():
    app = make_app(large=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "G", "p", "p")  # step 15's fourth table of five (p walks back through them)
        await pilot.pause()
        view = app.query_one(StepView)
        heading = view.blocks.headings[0]
        assert app.session.step == 15 and heading.text.startswith("Step 15 makes · table 4 of 5")
        y = view.region.y + heading.y - round(view.scroll_y)
        assert view.region.y <= y < view.region.bottom, "the heading is on screen"
        keys = footer_keys(app)
        assert keys[-3:] == ["Help", "Quit", "palette"] and {"Next ›", "‹ Prev"} <= set(keys)
        assert len(app.query_one(TinyFooter).text()) <= 80


async def test_tab_on_a_page_without_a_grid_goes_round_to_the_view():
    """Step 14's first page in the presenter view is the bars of ℓ and p alone, no grid: Tab crashed
    (IndexError in TableCursor.action_table) looking for a table to wait on. The view is the one thing
    to focus there, so the focus comes round to it, and n goes on through the pages."""
    app = make_app(large=True)
    async with app.run_test(size=(120, 40)) as pilot:
        app.action_do("logit-lens")  # the palette's "Logit lens: show it at step 14"
        await pilot.pause()
        view = app.query_one(StepView)
        assert app.session.step == 14 and not view.tables()
        await press(pilot, "tab", "shift+tab")
        assert app.return_code is None and app.focused is view
        await press(pilot, "n")
        assert app.session.step == 14 and "table 2 of 5" in on_screen(app)[0]
