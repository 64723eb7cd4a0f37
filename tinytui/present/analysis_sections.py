"""What the step panes add for "why this prediction" (issue 46): beside steps 13 and 14 the logit lens
and, once a corrupted prompt is set, activation patching; at every step, while two runs are compared,
each table as A, B and B − A. Nothing while practising: these tables would give answers away."""

from __future__ import annotations

from tinytui.present.compare_tables import with_comparison
from tinytui.present.grid_spec import Section
from tinytui.present.lens_tables import lens_sections
from tinytui.present.patch_tables import patch_sections
from tinytui.present.view import View


def with_analysis(view: View, sections: list[Section]) -> list[Section]:
    """The step's sections with the lens and patching after what the step makes, then compared."""
    if view.practice is not None:
        return sections
    added = lens_sections(view) + patch_sections(view)
    if added:
        sections = [*sections[:1], *added, *sections[1:]]
    return with_comparison(view, sections)
