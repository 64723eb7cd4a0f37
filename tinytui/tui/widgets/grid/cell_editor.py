"""A Grid's cell editor: Enter or e opens it on a weight (or asks for a pick on a token), keys and
pastes edit its text, Enter hands the text to the app and Esc closes it.

The session decides whether the text is a value: a refusal comes back through edit_refused and shows
under the table. GridEditor is a mixin of Grid: it reads the grid's cursor and spec and posts its
EditSubmitted and PickRequested.
"""

from __future__ import annotations

from textual import events


class GridEditor:
    """Grid's editing: which keys edit here, the editor's text and the lines it shows under the table."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # the footer offers "Edit" only on a cell that can be edited (a weight, a prompt token)
        if action == "edit":
            return self.ref is not None
        if action == "not_editable":
            return self.ref is None
        return True

    def action_not_editable(self) -> None:
        if self.label is not None:
            message = "A label has nothing to edit: the arrows go back to the numbers."
        else:
            message = (
                "This value is computed from the weights. Edit a weight instead: the tables under "
                "“Weights it uses”, or ctrl+p → Edit parameter…"
            )
        refuse = getattr(self.app, "refuse", None)  # the app's one refusal notice, replaced not stacked
        if refuse is not None:
            refuse(message, title="Not editable", severity="warning")
        else:
            self.app.notify(message, title="Not editable", severity="warning")

    def action_edit(self) -> None:
        ref = self.ref
        if ref is None:
            self.action_not_editable()
            return
        if ref.kind != "param":
            self.post_message(self.PickRequested(self, ref))
            return
        self.editing, self.fresh, self.error = True, True, ""
        self.buffer = self.spec.cells[self.row][self.col]
        self._relayout()

    def cancel_edit(self) -> None:
        self.editing, self.error, self.buffer = False, "", ""
        self._relayout()

    def edit_refused(self, message: str) -> None:
        """The session said no: keep the editor open with the reason under the table."""
        self.error = message
        self._relayout()

    def _commit(self) -> None:
        ref = self.ref
        if ref is None:
            return
        if self.fresh:  # nothing typed: the value stays as it was
            self.cancel_edit()
            return
        self.post_message(self.EditSubmitted(self, ref, self.buffer))

    async def on_key(self, event: events.Key) -> None:
        if not self.editing:
            return
        # While the editor is open every key belongs to it, so digits and letters never move steps.
        event.stop()
        event.prevent_default()
        key = event.key
        if key == "enter":
            # nothing to draw yet: the app draws the edit's outcome (the new tables, or the refusal)
            self._commit()
            return
        if key == "escape":
            self.cancel_edit()
        elif key == "backspace":
            self.buffer = "" if self.fresh else self.buffer[:-1]
        elif key in ("ctrl+u", "delete"):
            self.buffer = ""
        elif event.is_printable and event.character:
            self.buffer = (event.character if self.fresh else self.buffer + event.character)[:40]
        else:
            return
        self.fresh = False
        self.error = "" if key == "escape" else self.error
        self._relayout()

    def on_paste(self, event: events.Paste) -> None:
        if self.editing:
            event.stop()
            self.buffer = (("" if self.fresh else self.buffer) + event.text.strip())[:40]
            self.fresh = False
            self._relayout()

    def _footer_lines(self) -> list[str]:
        """The editor's lines under the table: the cell's name and keys, then a refusal's reason."""
        if not self.editing:
            return []
        ref = self.ref
        lines = [f"{ref.label if ref else ''}: Enter commits · Esc cancels"]
        if self.error:
            lines.append(f"✗ {self.error}")
        return lines
