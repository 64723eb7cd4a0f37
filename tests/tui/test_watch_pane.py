"""The watch pane (W): the prediction's bars and block 0's attention stay on screen beside every step,
an edit at step 6 shows in them with ▲▼ and the old value as a ghost, the target is always listed, and
at 80×24 the pane takes the step list's place without covering the step's first table. On screen: its
lines whole, and an edit draws again only the lines it changed."""

from rich.cells import cell_len

from tests.tui.helpers import panes, press
from tinytui.present.grid_spec import DOWN, UP
from tinytui.present.watch_data import GHOST, bar_cells, watch_spec
from tinytui.tui.widgets.watch_pane import WatchPane


def pane(app) -> WatchPane:
    return app.query_one(WatchPane)


def bar(app, token: str):
    return next(b for b in pane(app).spec.bars if b.token == token)


async def test_w_shows_and_hides_the_pane(app):
    async with app.run_test(size=(120, 40)) as pilot:
        assert not app.query(WatchPane)  # off by default: not even mounted until W shows it
        await press(pilot, "W")
        assert app.watch.shown and pane(app).display
        assert pane(app).region.width == 34
        assert "Watch: the prediction" in pane(app).text() and "Attention\n" in pane(app).text()
        assert any(c.title == "Show or hide the watch pane" for c in app.palette_commands())
        await press(pilot, "W")
        assert not app.watch.shown and not pane(app).display and pane(app).region.width == 0


async def test_an_edit_at_step_6_reaches_the_bars_with_ghosts_and_marks(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "6", "W")
        before = bar(app, "wood")
        assert before.target and before.predicted and before.was is None and not before.mark
        assert "0.3107" in pane(app).text() and "was" not in pane(app).text()
        app.apply(lambda s: s.edit("W_Q", (1, 0, 0), "2"), "edit W_Q")
        await pilot.pause()
        assert app.session.step == 6  # still on the step that was edited
        after = bar(app, "wood")
        assert after.p != before.p and after.was == before.p
        assert after.mark in (UP, DOWN)
        text = pane(app).text()
        assert "was 0.3107" in text and f"{after.p:.4f}"[:6] in text
        # head 2's queries changed, so its attention did; head 1's did not
        h1, h2 = pane(app).spec.heads
        assert not any(m in (UP, DOWN) for row in h1.marks for m in row)
        assert any(m in (UP, DOWN) for row in h2.marks for m in row)
        assert "weights changed" in text and "most: head 2" in text
        # undo: the marks go with the change's comparison
        await press(pilot, "u")
        assert bar(app, "wood").p == before.p


async def test_the_target_is_shown_when_it_is_not_among_the_top_tokens(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "W")
        probs = app.session.trace["probs"]
        vocab = app.session.trace.cfg.vocab
        least = vocab[int(probs.argmin())]
        app.apply(lambda s: s.set_target(least), "target")
        await pilot.pause()
        spec = pane(app).spec
        assert spec.bars[-1].token == least and spec.bars[-1].target and not spec.bars[-1].top
        assert sum(b.top for b in spec.bars) == 5
        assert "⋯" in pane(app).text()


async def test_at_80x24_the_pane_replaces_the_step_list_and_leaves_the_first_table_whole(app):
    async with app.run_test(size=(80, 24)) as pilot:
        assert not app.query(WatchPane)
        for step in ("1", "6", "9"):
            await press(pilot, step, "W")
            main = app.query_one("#main")
            first = panes(app).grids()[0].box
            assert pane(app).display and not app.query_one("#sidebar").display
            assert not pane(app).region.overlaps(main.region)
            assert first.x + first.width <= main.scrollable_content_region.width, (step, first)
            await press(pilot, "W")
            assert app.query_one("#sidebar").display and not pane(app).display


def shown(app) -> list[str]:
    """The pane's lines as on screen (cut to its width, scrolled), trailing blanks dropped."""
    return [line.rstrip() for line in pane(app).screen_lines()]


def new_lines(lines, before) -> list:
    """The lines (text and styles) not among before, each once."""
    out: list = []
    for line in lines:
        if line not in before and line not in out:
            out.append(line)
    return out


async def test_the_panes_lines_are_on_screen_and_an_edit_draws_only_the_lines_it_changed(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "6", "W")
        page = pane(app).text().split("\n")
        assert len(page) <= pane(app).scrollable_content_region.height  # the whole page on screen
        assert shown(app)[: len(page)] == [line.rstrip() for line in page]
        assert shown(app)[0] == "Watch: the prediction" and shown(app)[2].startswith("wood      ███▍ ")
        before, drawn, on_screen = list(pane(app).lines), pane(app).lines_drawn, shown(app)
        await press(pilot, "n")  # the next step: the same prediction, the same block's attention
        assert app.session.step == 7
        assert shown(app) == on_screen and pane(app).lines_drawn == drawn  # nothing drawn again
        app.apply(lambda s: s.edit("W_Q", (1, 0, 0), "2"), "edit W_Q")
        await pilot.pause()
        after = list(pane(app).lines)
        assert len(after) <= pane(app).scrollable_content_region.height
        changed = new_lines(after, before)
        assert 0 < len(changed) < len(after)
        assert pane(app).lines_drawn - drawn == len(changed)  # the lines it changed, each once; no other
        assert shown(app)[3] == "          was 0.3107  Δ −0.0004"  # the ghost's old value, under its bar
        assert shown(app)[: len(after)] == [line.plain.rstrip() for line in after]


async def test_at_80x24_every_line_of_the_pane_fits_whole(app):
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "6", "W", "o")  # PE off: every bar has a ghost, the attention changed
        width = pane(app).scrollable_content_region.width
        page = pane(app).text().split("\n")
        assert pane(app).show_vertical_scrollbar  # taller than the pane: it scrolls
        assert [line for line in page if cell_len(line) > width] == []
        assert shown(app) == [line.rstrip() for line in page[: len(shown(app))]]
        assert "    was 0.3107  Δ +0.1085" in shown(app)  # as far under its bar as it fits whole
        assert "◀ target  ★ predicted" in shown(app) and "░ lost" in shown(app)  # the legend on two lines
        pane(app).scroll_end(animate=False, immediate=True)
        await pilot.pause()
        assert shown(app)[-3:] == ["most: head 1", "3:chuck→1:woodchuck", "  0.7961 was 0.0757"]


def test_a_ghost_bar_draws_the_lost_part_and_a_rise_its_gain():
    solid, grown, ghost = bar_cells(0.25, 0.5, 8)
    assert solid == "██" and not grown and ghost == GHOST * 2
    solid, grown, ghost = bar_cells(0.5, 0.25, 8)
    assert solid == "██" and grown == "██" and not ghost
    assert bar_cells(0.5, None, 8) == ("████", "", "")


def test_the_spec_reads_the_view(app):
    spec = watch_spec(app.view())
    assert spec.bars[0].token == "wood" and len(spec.bars) == 5
    assert spec.positions == app.session.trace.token_labels and len(spec.heads) == 2
