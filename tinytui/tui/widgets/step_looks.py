"""The step view's looks (widgets/looks.py): each part of its lines (a heading, the cursor, a changed cell,
a table's border and title by the table's role, the words' title and formula, ...), read once per theme
by its LineStyles. As component classes these were thirty nodes Textual styled each time it styled the
view, some 3 ms a time.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from tinytui.tui.widgets.looks import Look

LOOKS: Mapping[str, Look] = MappingProxyType(
    {
        "heading": Look("foreground-muted", text_style="bold"),
        "header": Look("foreground-muted", text_style="bold"),
        "label": Look("foreground-muted"),
        "cursor": Look(text_style="reverse bold"),
        "changed-up": Look(background="tt-changed-up", text_style="bold underline"),
        "changed-down": Look(background="tt-changed-down", text_style="bold underline"),
        "changed": Look(text_style="bold underline"),
        "edited": Look(background="tt-edited", text_style="bold italic"),
        "masked": Look("tt-masked", text_style="dim"),
        "source": Look("foreground", "tt-current-step", "bold underline"),
        "focus": Look("accent"),
        "border-output": Look("primary"),
        "border-param": Look("secondary"),
        "border-input": Look("panel-lighten-2"),
        "border-info": Look("panel-lighten-2"),
        "title-output": Look("primary", text_style="bold"),
        "title-param": Look("secondary"),
        "title-input": Look("foreground-muted"),
        "title-info": Look("foreground-muted"),
        "title-focus": Look("accent", text_style="bold"),
        "bar": Look("primary"),
        "target": Look("tt-target", text_style="bold"),
        "predicted": Look("tt-predicted", text_style="bold"),
        "hint": Look("foreground-muted", text_style="italic"),
        "error": Look("error", text_style="bold"),
        "editing": Look("foreground", "panel-lighten-2", "bold"),
        "caret": Look(text_style="reverse"),
        "title": Look("primary", text_style="bold"),
        "formula": Look("accent", text_style="italic"),
        "fact": Look("foreground", text_style="bold"),
    }
)
