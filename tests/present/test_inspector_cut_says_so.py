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
        "corrupted 0.7563), the share its shade shows on the −1…+1 scale (beyond it: …",
    ]
    assert inspector_text(line, None, "", 118, 3) == line  # fits: left for the widget to wrap
    assert inspector_text(None, None, "", 78, 2) == KEYS_HINT


def test_a_formula_cut_to_fit_never_cuts_a_number_in_two():
    """A long sum cut to two lines (a narrow inspector); cut mid-number, "0.24…" read as a number itself."""
    from tests.random_models import random_params
    from tinytui.lesson.why.explain import explain
    from tinytui.model.trace import run
    from tinytui.present.provenance_words import provenance_text

    params = random_params(seed=4, d=16, heads=2, d_head=8, d_ff=8, vocab=20, blocks=1)
    trace = run(params, tuple(f"t{i}" for i in range(12)), "t3")
    for index in ((11, 0), (11, 3), (7, 5)):
        why = explain(trace, params, "blocks.0.head.1", index)
        shown = provenance_text(why, "", "", 60, 2)
        assert "…" in shown  # the sum was cut to fit
        filled = shown.replace("\n", " ").split(" = ", 2)[2]
        kept = filled.split(" …")[0].rstrip(" +−")

        def terms(text: str) -> list[str]:
            return text.replace(" − ", " + ").split(" + ")

        assert kept and set(terms(kept)) <= set(terms(why.filled))  # every term shown whole
