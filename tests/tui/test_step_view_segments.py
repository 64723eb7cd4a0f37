"""The step view draws a run of neighbours in one style as one segment: Textual's work on every line it
puts on the screen (its filters, the compositor's cuts, the terminal's codes) grows with the segments."""

from itertools import pairwise

from tests.apps import make_app
from tests.tui.helpers import press, view


async def test_a_tables_line_has_no_two_neighbours_in_the_same_style():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "8")  # attention: a column header, masked cells in a row, a shading key
        v = view(app)
        lines = [list(v.render_line(y)) for y in range(v.scrollable_content_region.height)]
        header = next(line for line in lines if "woodchuck   would" in "".join(s.text for s in line))
        assert any("a  woodchuck   would   chuck" in s.text for s in header)  # one segment, not four
        for line in lines:
            assert all(a.style is not b.style for a, b in pairwise(line)), [s.text for s in line]
