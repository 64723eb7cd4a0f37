"""The presenter's pages of a step: one table (one row of a section's tables) at a time, its heading
saying which of how many and what n does next.
"""

from __future__ import annotations

from tinytui.present.grid_spec import Section
from tinytui.present.step_layout import StepLayout


def page_count(sections: list[Section]) -> int:
    """A page for each row of each section's tables (a section without tables: one page)."""
    return sum(max(len(s.rows), 1) for s in sections)


def one_page(sections: list[Section], page: int | None) -> tuple[int | None, list[Section]]:
    """Page `page` of a step (kept inside the step's pages) and the section it shows; the sections as
    they are when there is no page."""
    pages = [(s, row) for s, section in enumerate(sections) for row in (section.rows or ((),))]
    if not pages:
        return page, sections
    page = min(max(page or 0, 0), len(pages) - 1)
    s, row = pages[page]
    more = " · n: the next" if page + 1 < len(pages) else " · n: the next step"
    section = sections[s]
    title = f"{section.title} · table {page + 1} of {len(pages)}{more}"
    return page, [Section(title, section.role, (row,) if row else ())]


def page_holding(layout: StepLayout, index: int) -> int:
    """The page of a laid-out step that holds box `index` (0 when none does)."""
    return next((i for i, (_, members) in enumerate(layout.pages) if index in members), 0)
