"""A cell's own line longer than the inspector's lines is cut with "…", so a reader can tell there is
more, rather than ending mid-sentence as if that were all (activation patching's lines at 80×24)."""

from tinytui.present.provenance_words import KEYS_HINT, inspector_text


def test_a_line_too_long_for_the_inspector_ends_with_an_ellipsis():
    line = (
        "logit(wood) − logit(chuck) = 0.7009, 125% of the change (clean 0.7120, corrupted 0.7563), the share "
        "its shade shows on the −1…+1 scale (beyond it: shaded as +1) · the clean run's block 1 head 1 "
        "output A·V (every position, before W_O) written into the corrupted run"
    )
    shown = inspector_text(line, None, "", 78, 2).split("\n")
    assert shown == [
        "logit(wood) − logit(chuck) = 0.7009, 125% of the change (clean 0.7120,",
        "corrupted 0.7563), the share its shade shows on the −1…+1 scale (beyond it:…",
    ]
    assert inspector_text(line, None, "", 118, 3) == line  # fits: left for the widget to wrap
    assert inspector_text(None, None, "", 78, 2) == KEYS_HINT
