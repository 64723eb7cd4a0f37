"""The watch pane's lines as present writes them (watch_data.watch_lines): each piece's words and the name
of what it marks, which the pane styles; a heatmap's cell carries its weight and whether it changed."""

from dataclasses import replace

from tinytui.present.grid_spec import DOWN, MASKED, UP
from tinytui.present.watch_data import GHOST, HeadMap, Piece, WatchBar, WatchSpec, hidden_lines, watch_lines


def spec() -> WatchSpec:
    bars = (
        WatchBar("wood", 0.5, 0.25, UP, target=True, predicted=True, top=True),
        WatchBar("chuck", 0.25, 0.5, DOWN, target=False, predicted=False, top=True),
    )
    head = HeadMap(
        "h1",
        values=((1.0, 0.0), (0.25, 0.75)),
        marks=(("", MASKED), (UP, "")),
        was=((None, None), (0.5, None)),
    )
    return WatchSpec(bars, 1.25, 1.5, DOWN, ("0:a", "1:wood"), 0, (head,), others=3, others_p=0.25)


def plain(line: tuple[Piece, ...]) -> str:
    return "".join(piece.text for piece in line)


def test_the_bars_name_what_each_piece_marks():
    lines = watch_lines(spec(), (), "wood", bar=8, width=32)
    assert lines[0] == (Piece("Watch: the prediction", "header"),)
    wood, was, chuck = lines[2], lines[3], lines[4]
    # the target that is also the prediction: its label, solid bar, the rise since 0.25, ▲ and its tags
    assert [(p.text, p.style) for p in wood if p.text] == [
        ("wood  ", "target"),  # as wide as the longest token shown
        ("██", "predicted"),
        ("██", "up"),
        ("    ", ""),
        (" 0.5000▲", "up"),
        ("◀★", "target"),
    ]
    assert plain(was).strip() == "was 0.2500  Δ +0.2500" and was[-1].style == "muted"
    # a bar that fell: its lost part is the ghost of the old bar
    assert [(p.text, p.style) for p in chuck if p.text][1:4] == [
        ("██", "bar"),
        (GHOST * 2, "ghost"),
        ("    ", ""),
    ]
    assert plain(lines[6]) == "  ⋯   3 more   0.2500" and lines[6][0].style == "muted"
    loss = next(line for line in lines if plain(line).startswith("loss"))
    assert plain(loss) == "loss 1.2500▼ was 1.5000" and loss[0].style == "down"


def test_a_heatmap_cell_carries_its_weight_and_its_change():
    lines = watch_lines(spec(), (), "wood", bar=8, width=32)
    row = next(line for line in lines if plain(line).startswith("1:wood"))
    cells = [p for p in row if p.heat is not None]
    assert [(p.text, p.heat, p.bold) for p in cells] == [("▲", 0.25, True), (" ", 0.75, False)]
    first = next(line for line in lines if plain(line).startswith("0:a"))
    assert [p.text for p in first if p.heat is not None] == [" ", "·"]  # masked: a dot, not a glyph
    said = [plain(line) for line in lines]
    assert "▲▼ 1 weight changed" in said and "  0.2500 was 0.5000" in said


def test_a_narrow_pane_breaks_a_line_between_its_parts():
    wide = [plain(line) for line in watch_lines(spec(), (), "wood", bar=8, width=40)]
    narrow = [plain(line) for line in watch_lines(spec(), (), "wood", bar=6, width=24)]
    assert "◀ target  ★ predicted  ░ lost" in wide
    assert "◀ target  ★ predicted" in narrow and "░ lost" in narrow


def test_while_practising_the_pane_says_why_it_is_empty():
    lines = hidden_lines("the numbers would give the answers away", 16)
    assert [plain(line) for line in lines] == [
        "Watch: the prediction",
        "the numbers",
        "would give the",
        "answers away",
    ]
    assert {p.style for line in lines[1:] for p in line} == {"muted"}


def test_the_lens_names_its_likeliest_token_apart_from_p_target():
    """Each lens line gives p(target) and the likeliest token at that point, in a column headed "top", so
    'chuck' beside p(wood) = 0.2 does not read as p(chuck)."""
    from tinytui.present.lens_tables import LensLine

    lens = (LensLine("before", 0.2, "chuck", 0.45, False), LensLine("after", 0.5, "wood", 0.5, True))
    said = [plain(line) for line in watch_lines(spec(), lens, "wood", bar=8, width=40)]
    at = said.index("Logit lens")
    assert said[at + 1 : at + 4] == [
        "p(wood) read early     top",
        "before █▋       0.2000 chuck",
        "after  ████     0.5000 wood",
    ]


def test_a_change_the_rounded_numbers_disagree_with_says_it_is_unrounded():
    bars = (
        WatchBar("wood", 0.26614, 0.26596, UP, target=True, predicted=True, top=True),  # 0.2661 was 0.2660
        WatchBar("chuck", 0.31236, 0.31234, UP, target=False, predicted=False, top=True),  # 0.3124, 0.3123
    )
    lines = watch_lines(replace(spec(), bars=bars), (), "wood", bar=8, width=60)
    said = [plain(line).strip() for line in lines if plain(line).strip().startswith("was")]
    # 0.2661 − 0.2660 is +0.0001 as printed; the change before rounding is +0.0002
    assert said == ["was 0.2660  Δ +0.0002 unrounded", "was 0.3123  Δ +2e-05 unrounded"]
    narrow = [plain(line).strip() for line in watch_lines(replace(spec(), bars=bars[:1]), (), "wood", 8, 24)]
    assert narrow[narrow.index("was 0.2660  Δ +0.0002") + 1] == "unrounded"  # a part is never cut
