"""The step's words as the step view shows them above its tables: heading, equation, explanation and key
numbers (from tinytui.lesson.stages and tinytui.lesson.texts.facts), or the backward walk's heading and
rules. Rich Text in styles the widget supplies by name ("title", "formula", "fact", "hint"); the widget
wraps and draws them. While practising, nothing here quotes a value the learner is asked for.

On a short terminal (fewer than SHORT_HEIGHT rows) the words are compact, so the step's tables are on
screen: the step's name, its formula and its facts folded into one line (the backward walk's: its rules,
the explanation's first sentence and where n and p go); the whole explanation and every fact follow the
tables (PageDown reaches them).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from rich.style import Style
from rich.text import Text

from tinytui.lesson import step_path
from tinytui.lesson.stages import STAGE_BY_NUMBER, equation_words, formula_as_run, title_for
from tinytui.lesson.texts.display_names import in_words
from tinytui.lesson.texts.facts import stage_facts
from tinytui.present.backward_tables import heading, in_walk
from tinytui.present.view import View
from tinytui.report.tables import on_screen_text

SHORT_HEIGHT = 30  # below this many terminal rows the step's text is compact (the rest after the tables)
MORE_HINT = "  ↓ all of it after the tables (PageDown)"
SHORT_MORE_HINT = "   ↓ more after the tables"  # beside the step's name or formula
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")


def first_sentence(text: str) -> str:
    """The explanation up to its first full stop (all of it when it has one sentence)."""
    return _SENTENCE_END.split(text.strip(), maxsplit=1)[0]


# a NamedTuple, not a frozen dataclass: loaded as the app starts, and a frozen dataclass compiles
# its methods from source as its class is made (~3 M instructions; a NamedTuple's ~0.5 M)
class StepWords(NamedTuple):
    """A step's words, ready to draw: what goes above its tables, what follows them (compact form
    only), and all of it as plain text."""

    head: Text  # above the tables
    more: Text | None  # after the tables (compact only)
    plain: str  # all of it, as plain text


PRACTICE_NOTE = "practice: this step's numbers stay hidden in its words too until its cells are answered"


def step_words(view: View, style: Callable[[str], Style], compact: bool, width: int) -> StepWords:
    """The words of the view's step; style(name) for "title", "formula" and "fact". While practising,
    the explanation's first sentence only (it says what the step does, with no numbers) and no facts:
    the rest quotes the values the learner is asked for."""
    if in_walk(view):
        return _backward(view, style, compact, width)
    stage = STAGE_BY_NUMBER[view.step]
    eq = f"   ({said})" if (said := equation_words(stage, view.trace.cfg)) else ""
    where = step_path.of_all(view.here, view.trace.cfg.n_blocks)
    named = f"{where} · {title_for(stage, view.trace.cfg, view.trace.switches)}"
    title = Text(f"{named}{eq}\n", style("title"))
    # in the tables' names (x′, not the chapter's ASCII x'), as the transcript and print write it
    as_run = formula_as_run(stage, view.trace.switches, view.trace.cfg)
    formula = Text(f"  {in_words(as_run)}\n", style("formula"))
    explain = stage.explain(view.focused)
    facts = [on_screen_text(fact) for fact in stage_facts(view.focused, stage)]  # −0.68, not -0.68
    if view.practising:
        explain, facts = first_sentence(explain), [PRACTICE_NOTE]
    full = Text.assemble(title, formula, explain)
    for fact in facts:
        full.append("\n• ")
        full.append(fact, style("fact"))
    if not compact:
        return StepWords(full, None, full.plain)
    # the step's name, its formula and its facts on a line each, the hint on the first with room for
    # it; the equation's number, the explanation and every fact whole follow the tables
    lines = [
        Text.assemble((named, style("title"))),
        Text.assemble((f"  {in_words(as_run)}", style("formula"))),
    ]
    for line in lines:  # a line each (a switch's note on the formula is cut: it is whole after the tables)
        line.truncate(width, overflow="ellipsis")
    for line in lines:
        if line.cell_len + len(SHORT_MORE_HINT) <= width:
            line.append(SHORT_MORE_HINT, style("hint"))
            break
    else:
        lines.append(Text(MORE_HINT))
    if facts:
        line = Text("• ")
        line.append(" · ".join(facts), style("fact"))
        line.truncate(width, overflow="ellipsis")
        lines.append(line)
    text = Text("\n").join(lines)
    more = Text.assemble(Text(f"About step {stage.number}\n", style("title")), full[len(title) :])
    return StepWords(text, more, full.plain)


def _backward(view: View, style: Callable[[str], Style], compact: bool, width: int) -> StepWords:
    """The backward walk's heading: where the walk is, the local rules, why, and where n and p go."""
    h = heading(view)
    title = Text(f"◀ {in_words(h.title)}\n", style("title"))
    rules = Text()
    for rule in h.rules:  # the rules in the tables' names (∂L/∂MHA, x′), as the transcript has them
        rules.append(f"  {in_words(rule)}\n", style("formula"))
    h = h._replace(explain=in_words(first_sentence(h.explain) if view.practising else h.explain))
    hint = Text(f"\n{h.hint}", style("fact"))
    full = Text.assemble(title, rules, h.explain, hint)
    if not compact:
        return StepWords(full, None, full.plain)
    keys = Text(h.hint, style("fact"))
    keys.truncate(width, overflow="ellipsis")  # one line: where n and p go comes first
    head = Text.assemble(title, rules, first_sentence(h.explain), "\n", keys, f"\n{MORE_HINT}")
    about = Text(f"About {h.title[0].lower()}{h.title[1:]}\n", style("title"))
    return StepWords(head, Text.assemble(about, rules, h.explain, hint), full.plain)
