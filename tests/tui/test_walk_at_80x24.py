"""The backward walk on a short terminal: its text is compact (the rules, the first sentence, the keys on one
line) and the whole of it follows the tables, so each walk step's first table starts on screen at 80×24."""

from tests.apps import make_app
from tests.tui.helpers import info, joined, panes, press, view, words
from tinytui.lesson.texts.display_names import in_words
from tinytui.present.backward_tables import heading
from tinytui.present.step_words import MORE_HINT, first_sentence


async def test_every_walk_step_shows_its_first_table_and_keeps_the_whole_text_after():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "b")  # the walk starts at the loss, step 15
        main = view(app)
        seen, tables = [], 0
        while True:
            await pilot.pause()
            h = heading(app.view())
            seen.append(app.session.step)
            head, after = words(app)
            shown, whole = joined(head), joined(after)
            assert MORE_HINT.strip() in shown
            assert first_sentence(in_words(h.explain)) in shown
            explain, rules = (
                in_words(h.explain),
                [in_words(r) for r in h.rules],
            )  # as printed
            assert explain in whole and all(rule in whole for rule in rules)
            assert explain in info(app), "the step's words are still the whole explanation"
            keys = next(line for line in head if line.strip().startswith(h.hint[:12]))
            assert len(keys) <= main.size.width, "the keys take one line"
            first = next(iter(panes(app).grids()), None)  # the first table shown
            if first is not None:  # (a step where no gradient is made or changed has no table)
                tables += 1
                top = main.region.y + first.box.y - round(main.scroll_y)
                assert main.region.y <= top and top + 3 <= main.region.bottom, seen
            if app.session.step == 2:
                break
            await press(pilot, "n")
        assert seen[0] == 15 and seen[-1] == 2 and len(seen) >= 14 and tables >= 12


async def test_a_tall_terminal_shows_the_walks_whole_text_on_top():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "G", "p", "p", "p", "b")  # step 13, in the walk
        h = heading(app.view())
        head, after = words(app)
        shown = joined(head)
        assert not joined(after)
        assert in_words(h.explain) in shown and h.hint in shown and MORE_HINT.strip() not in shown
        assert "∂L/∂z" in shown and "x'" not in shown and "mha" not in shown
