"""The ? screen: every key, generated from the bindings (so a remapped key shows as remapped)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


def keys_of(app: App, binding: Binding) -> list[str]:
    keymap = getattr(app, "user_keymap", {})  # binding id -> keys, as the settings gave them
    keys = keymap.get(binding.id, binding.key) if binding.id else binding.key
    return [app.get_key_display(binding.with_key(k.strip())) for k in keys.split(",") if k.strip()]


NOTES = [  # under the keys: the palette, the marks, the editor, the keymap, the inspector
    "",
    "ctrl+p opens the command palette: go to any step, edit any parameter, change the prompt, "
    "save, and more. Marks: ▲ went up, ▼ went down, ◆ changed, * edited weight, × masked.",
    "While a cell editor is open every key types into it: Enter commits, Esc cancels. "
    "Numbers such as 0.5, -1, 1e-3 and 1/2 are accepted.",
    'Keys can be changed in the settings file: "keymap": {"action id": "keys"}; the ids are '
    "listed in the README.",
    "Why this number: on any computed cell the inspector shows its formula, the numbers that go in "
    "and the result, and the cells it reads are marked ▸. f follows one of them, F picks which.",
]


def help_rows(app: App, sources: Iterable[tuple[str, Iterable[Binding]]]) -> list[tuple[str, str, str, str]]:
    """(where, keys, what, more) per binding; a binding group (1–9) becomes one row."""
    rows: list[tuple[str, str, str, str]] = []
    for where, bindings in sources:
        grouped: dict[str, list[Binding]] = {}
        for b in bindings:
            if b.system:
                continue
            if b.group is not None:
                if b.group.description not in grouped:
                    grouped[b.group.description] = []
                    rows.append((where, "", b.group.description, ""))
                grouped[b.group.description].append(b)
                continue
            rows.append((where, " ".join(keys_of(app, b)), b.description, b.tooltip))
        for i, row in enumerate(rows):
            if row[0] == where and row[1] == "" and row[2] in grouped:
                members = grouped[row[2]]
                first, last = keys_of(app, members[0]), keys_of(app, members[-1])
                span = f"{first[0]}–{last[0]}" if len(members) > 1 else first[0]
                rows[i] = (where, span, row[2], members[0].tooltip)
    return rows


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "dismiss", "Close", id="help-close")
    ]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 100; max-width: 98%; height: 90%; border: round $accent; background: $surface; padding: 0 1;
    }
    """

    def __init__(
        self,
        rows: list[tuple[str, str, str, str]],
        extra: list[str],
        glossary: tuple[tuple[str, str], ...] = (),
    ) -> None:
        super().__init__()
        self.rows, self.extra, self.glossary = rows, extra, glossary

    def compose(self) -> ComposeResult:
        table = Table(expand=True, show_edge=False, pad_edge=False, box=None)
        table.add_column("where", style="italic", no_wrap=True)
        table.add_column("keys", style="bold", no_wrap=True)
        table.add_column("what", no_wrap=True)
        table.add_column("more", ratio=1)
        last = ""
        for where, keys, what, more in self.rows:
            table.add_row(where if where != last else "", keys, what, more)
            last = where
        with VerticalScroll() as box:
            box.border_title = "Keys — Esc, q or ? closes"
            yield Static(table)
            yield Static(Text("\n".join(self.extra)))
            if self.glossary:  # terms in one column, meanings wrapped in the other
                words = Table(title="Glossary", title_justify="left", expand=True, show_edge=False, box=None)
                words.add_column("term", style="bold", no_wrap=True)
                words.add_column("meaning", ratio=1)
                for term, meaning in self.glossary:
                    words.add_row(term, meaning)
                yield Static(words)
