"""The Grid's geometry and label lines without a screen: which tables become shaded blocks and where
their parts sit, the columns a window needs, and the glossary line of each kind of label."""

from tests.apps import random_app
from tinytui.lesson.stages import STAGE_BY_NUMBER
from tinytui.present.backward_tables import pane_sections
from tinytui.present.cells import all_items
from tinytui.present.grid_labels import COLUMN, CORNER, ROW, Label, label_line
from tinytui.present.grid_layout import MIN_BLOCKS, Shape, is_heatmap
from tinytui.present.grid_spec import DOWN, UP
from tinytui.present.step_layout import LayoutKept, heads_of, table_box_size
from tinytui.present.view import View
from tinytui.tui.controllers.why_controller import GLOSSARY

MEANING = dict(GLOSSARY)


def step_specs(tokens: int, step: int) -> dict:
    session = random_app(tokens=tokens).session
    session.goto(STAGE_BY_NUMBER[step].number)
    return {item.key: item for item in all_items(pane_sections(View.of(session)))}


def test_a_wide_heatmap_becomes_blocks_with_position_ticks_and_a_narrow_room_is_what_decides():
    specs = step_specs(16, 8)
    attn, mask = specs["output:blocks.0.attn.{h}"], specs["output:mask"]
    assert is_heatmap(attn) and is_heatmap(mask)
    full = Shape.of(attn, -1, 0)
    assert not full.narrow and full.table_width == full.natural
    assert full.widths[0] == 6  # "0.1234" and the lead and glyph around it
    blocks = Shape.of(attn, -1, 0, room=full.table_width - 1)  # one column short of the numbers
    assert blocks.narrow and blocks.natural == full.table_width
    assert set(blocks.widths) == {0}  # every cell its lead and its glyph: two columns
    assert blocks.table_width == blocks.label_w + 2 * 32 + 1  # and one rule between the heads
    # ticks every other position, in each head's own numbering, each with a space before it
    head_1 = "".join(blocks.headers[:16])
    assert head_1.split() == [str(i) for i in range(0, 16, 2)]
    assert head_1.startswith(" 0   2") and "".join(blocks.headers[16:]).split()[-1] == "14"
    assert Shape.of(attn, -1, 0, room=full.table_width) == full  # the numbers fit exactly: kept


def test_only_heatmaps_of_eight_positions_or_more_become_blocks():
    specs = step_specs(4, 8)
    attn = specs["output:blocks.0.attn.{h}"]
    assert MIN_BLOCKS == 8 and not Shape.of(attn, -1, 0, room=10).narrow  # four positions: pans
    q = step_specs(16, 6)["output:blocks.0.q.{h}"]
    assert not is_heatmap(q) and not Shape.of(q, -1, 0, room=10).narrow  # not a heatmap: pans


def test_the_columns_a_window_needs():
    shape = Shape.of(step_specs(16, 8)["output:blocks.0.attn.{h}"], -1, 0)
    x0 = shape.xs[3] + 1  # inside column 3
    cols = shape.columns_in(x0, shape.xs[10])
    assert (cols.start, cols.stop) == (3, 10)
    assert shape.columns_in(0, shape.label_w) == range(0)  # only the labels
    assert shape.columns_in(shape.xs[31], 10_000) == range(31, 32)


def test_each_kind_of_label_gets_its_glossary_line():
    dims = ("thing", "action", "quantifier", "wood")
    cases = {
        Label(ROW, "2:would", 2, "x"): MEANING["position, 0:how"],
        Label(CORNER, "tokens", 0, "x"): MEANING["position, 0:how"],
        Label(ROW, "h2.k1", 3, "W_O"): MEANING["h1.k0"],
        Label(COLUMN, "k1", 1, "Q — per head"): MEANING["k0, k1"],
        Label(COLUMN, "unit 7", 7, "W_1"): MEANING["unit 3"],
        Label(COLUMN, "quantifier", 2, "x"): next(v for k, v in GLOSSARY if "thing" in k.split()),
        Label(ROW, "z", 0, "z"): MEANING["y, z"],
    }
    for label, meaning in cases.items():
        line = label_line(label, GLOSSARY, dims)
        assert line.endswith(meaning) and line.startswith(label.text + " · ")
    odd = label_line(Label(COLUMN, "woodchuck", 1, "A"), GLOSSARY, dims)
    assert odd == "woodchuck · column 1 of A (a label: Enter edits nothing here)"


def test_heads_too_wide_to_sit_side_by_side_are_the_heads_as_made_on_one_scale():
    session = random_app(tokens=16, d=64, heads=4).session
    session.goto(9)
    session.toggle("causal_mask")  # every head's numbers change, and each is marked ▲ or ▼
    specs = {item.key: item for item in all_items(pane_sections(View.of(session)))}
    joined = specs["output:blocks.0.head.{h}"]
    kept = LayoutKept({})
    heads = heads_of(joined, kept)
    assert [h.key for h in heads] == [f"{joined.key}#{i}" for i in range(4)]
    start = 0
    for head, (label, span) in zip(heads, joined.groups):
        part = slice(start, start + span)
        start += span
        assert head.groups == ((label, span),) and head.title == joined.title
        assert head.limit == joined.limit  # the heads compared by shade on the whole table's scale
        assert head.cols == joined.cols[part]
        for r in range(len(joined.rows)):
            assert head.cells[r] == joined.cells[r][part]
            assert head.marks[r] == joined.marks[r][part]
            assert head.values[r] == joined.values[r][part]
            assert head.sources[r] == joined.sources[r][part]
            assert head.details[r] == joined.details[r][part]
        assert any(UP in m or DOWN in m for row in head.marks for m in row)
        # each head finds the run's cells it shows, whichever spec made the lookup first
        r, c = 5, span - 1
        assert head.where[head.sources[r][c]] == (r, c)
        assert joined.where[head.sources[r][c]] == (r, start - span + c)
    assert heads_of(joined, kept) is heads  # made once per table


def test_a_kept_tables_size_is_measured_for_the_room_it_is_given():
    attn = step_specs(16, 8)["output:blocks.0.attn.{h}"]
    kept = LayoutKept({})
    wide = table_box_size(attn, 400, kept)
    narrow = table_box_size(attn, 60, kept)
    assert not wide[0].narrow and narrow[0].narrow and narrow[1] < wide[1]
    assert table_box_size(attn, 400, kept) == wide and table_box_size(attn, 60, kept) == narrow
