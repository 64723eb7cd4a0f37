"""Activation patching's inspector lines checked against the numbers they print: the share of the change
a patch brings back is worked out from unrounded metrics, so where the four-decimal numbers on the line
give another percentage, or show no gap at all, the line says so; a share beyond ±100% is shaded as the
scale's end; a switched-off head's patch changes nothing, and its line says why."""

from __future__ import annotations

import re

from tinytui.present.patch_tables import patch_sections
from tinytui.present.view import View
from tinytui.session.session import Session

LINE = re.compile(r"= (−?[\d.]+), (−?\d+)% of the change.*\(clean (−?[\d.]+), corrupted (−?[\d.]+)")


def _details(s: Session) -> tuple[list[str], list[str]]:
    (section,) = patch_sections(View.of(s))
    resid, heads = section.rows[0][0], section.rows[1][0]
    return [d for row in resid.details for d in row], [d for row in heads.details for d in row]


def _printed_share(line: str) -> tuple[int, int]:
    """The percentage the line says, and the one its printed numbers give."""
    value, said, clean, corrupt = (float(x.replace("−", "-")) for x in LINE.search(line).groups())
    return int(said), round(100 * (value - corrupt) / (clean - corrupt))


def test_a_share_the_printed_numbers_do_not_give_says_so(chapter):
    s = Session(chapter)
    s.goto(14)
    s.set_patching("a woodchuck a woodchuck", "a")
    result = s.patching()
    resid, heads = _details(s)
    line = resid[2]  # block 1's input at position 2: 1.6583 between clean 1.5678 and corrupted 1.6332
    assert f"{result.resid_pre[0, 2]:.4f}" == "1.6583" and f"{result.clean:.4f}" == "1.5678"
    assert _printed_share(line) == (-39, -38)
    assert "−39% of the change, of the metrics unrounded (clean 1.5678, corrupted 1.6332: these " in line
    assert "four-decimal numbers give −38%)" in line
    for other in resid + heads:  # a line whose percentage is not its numbers' own gives theirs too
        said, given = _printed_share(other)
        assert ("unrounded" in other) == (said != given)
        if said != given:
            assert f"numbers give {given}%)".replace("-", "−") in other


def test_two_metrics_that_print_alike_are_said_to(chapter):
    """'how' made a's row but for 0.00003: the corrupted metric differs by 3.6e-6, shown as the same."""
    s = Session(chapter)
    a, how = chapter.cfg.token_id("a"), chapter.cfg.token_id("how")
    for j in range(4):
        s.edit("E", (how, j), float(chapter.params["E"][a, j]) + (0.00003 if j == 2 else 0.0))
    s.goto(14)
    s.set_patching("how woodchuck would chuck", "chuck")
    result = s.patching()
    assert f"{result.clean:.4f}" == f"{result.corrupt:.4f}" == "0.7120" and result.clean != result.corrupt
    line = _details(s)[0][0]
    assert line.endswith("· the clean run's block 1 input at 0:a/how written into the corrupted run")
    assert (
        "= 0.7120, 100% of the change, of the metrics unrounded (clean 0.7120, corrupted 0.7120: a gap"
        in line
    )
    assert "of −3.6e−6 that four decimals do not show)" in line


def test_a_share_beyond_the_scale_is_shaded_as_its_end(chapter):
    s = Session(chapter)
    s.goto(14)
    s.set_patching("would would a wood", "woodchuck")
    resid = _details(s)[0]
    assert _printed_share(resid[3]) == (102, 102)
    assert "the share its shade shows on the −1…+1 scale (beyond it: shaded as +1) · the clean" in resid[3]
    assert _printed_share(resid[1]) == (-16, -16)
    assert "the share its shade shows on the −1…+1 scale · the clean" in resid[1]


def test_a_switched_off_head_is_patched_to_no_effect_and_says_so(chapter):
    s = Session(chapter)
    s.toggle("ablated_heads", 1)
    s.goto(14)
    s.set_patching("a much wood would", "chuck")
    result = s.patching()
    assert result.heads[0, 0] == result.corrupt  # zeros written over zeros
    heads = _details(s)[1]
    assert "0% of the change" in heads[0]
    assert heads[0].endswith(
        "; head 1 is off in both runs: its output is zeros, so the patch changes nothing"
    )
    assert "off in both runs" not in heads[1]
