"""The ladder of hints for a question, one rung per ask:

    1  which cells it is computed from   'computed from Q_2[1,0], K_2[0,0], Q_2[1,1], K_2[0,1]'
    2  the formula                       'S_2[1,0] = (Q_2[1] · K_2[0]) / √2'
    3  the formula with the numbers in   'S_2[1,0] = (−1.3145·0.5773 + 0.7194·0.5773) / 1.4142'

All three come from the cell's provenance (lesson/why), with the cells named as the screen names them;
none gives the value itself, but for what is looked up rather than computed (a token id, whose last
hint names its entry in the vocabulary, and the mask's 0 or 1). lit() is the cells of
the first rung as (name, index), for the app to light as the inspector lights operands.
"""

from __future__ import annotations

from tinytui.lesson.practice.questions import Question, cell_text
from tinytui.lesson.texts.display_names import in_formula
from tinytui.model.names import WHOLE_NUMBERS

RUNGS = 3
SHOWN = 8  # the operand cells named before "… and N more"


def lit(question: Question) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """The distinct cells the question's value is computed from, in the formula's order."""
    seen: dict[tuple[str, tuple[int, ...]], None] = {}
    for op in question.why.operands:
        seen.setdefault((op.name, tuple(op.index)), None)
    return tuple(seen)


def hint(question: Question, rung: int, n_blocks: int = 1) -> str:
    """Hint `rung` (1–3) of the ladder; a rung above 3 repeats the last."""
    rung = min(max(rung, 1), RUNGS)
    why = question.why
    if rung == 1:
        cells = lit(question)
        if not cells:
            return "computed from no other cell: the formula alone gives it"
        # the numbers to compute with first; the whole numbers (the mask, token ids) only choose which
        # of them count, so they are named after and never crowd the others out of the first SHOWN
        counted = [c for c in cells if c[0] not in WHOLE_NUMBERS] or list(cells)
        choosing = [c for c in cells if c not in counted]
        text = "computed from " + _listed(counted, n_blocks)
        if choosing:
            text += f", with {_listed(choosing, n_blocks)} (whole numbers: which of them count)"
        return text
    if rung == 2:
        return in_formula(why.formula)
    return f"{question.cell(n_blocks)} = {in_formula(why.filled)}"


def _listed(cells, n_blocks: int) -> str:
    named = [cell_text(n, ix, n_blocks) for n, ix in cells[:SHOWN]]
    return ", ".join(named) + (f" … and {len(cells) - SHOWN} more" if len(cells) > SHOWN else "")


def ladder(question: Question, n_blocks: int = 1) -> tuple[str, ...]:
    """All three rungs, in order."""
    return tuple(hint(question, r, n_blocks) for r in range(1, RUNGS + 1))
