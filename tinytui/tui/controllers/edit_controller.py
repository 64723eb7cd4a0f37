"""Changing the model and the prompt: cell edits, undo and redo, reset, the comparison, prompt
positions, the target, the parameter browser and saving the edited model."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from tinytui.model import names
from tinytui.report.tables import fmt
from tinytui.tui.actions import Host, PaletteCommand
from tinytui.tui.output_paths import safe_stem

# The parameter browser, saving and the dialogs import their modules when they open.

PICK_LIMIT = 500  # a vocabulary longer than this is typed, not picked from a list


class EditController:
    def __init__(self, host: Host) -> None:
        self.host = host
        self.saved_params: object = None  # the weights ctrl+s last wrote (q asks while others are unsaved)
        self._written: dict = {}  # the names each step writes, for the notes' changed steps (bounded there)

    # ---- cells ---------------------------------------------------------------------------------
    def edit_cell(self, ref, text: str, grid) -> None:
        """Enter in a cell editor: the typed value goes to the session; a refusal stays at the cell."""
        host = self.host

        def edit(session):
            event = session.edit(ref.name, ref.index, text)
            # closed before apply redraws: the view, the footer and the inspector are drawn once, with
            # the value in the cell and the editor gone (a refusal raises above and leaves it open)
            grid.close_editor(tell=False)
            return event

        event = host.apply(edit, f"edit {ref.label}", grid.edit_refused)
        if event is not None:
            host.withdraw_refusal()  # a refusal of this cell's last try is stale now
            from tinytui.lesson.texts.change_note import change_note

            d = event.data
            what = f"edit {ref.label}: {fmt(d['old'])} → {fmt(d['new'])}"
            d = host.session.diff_between(event.before, event.after)
            note = change_note(event.before, event.after, what, d, (ref.name, ref.index), self._written)
            # the last edit's note only; plain text, though its cell labels have brackets (W_O[h1.k0, thing])
            host.notify(note, title="Edited", timeout=6, replaces="edit", markup=False)

    # ---- history -------------------------------------------------------------------------------
    def undo(self) -> None:
        if not self.host.session.can_undo:
            self.host.notify("Nothing to undo.", timeout=2)
            return
        self.host.apply(lambda s: s.undo(), "undo")

    def redo(self) -> None:
        if not self.host.session.can_redo:
            self.host.notify("Nothing to redo.", timeout=2)
            return
        self.host.apply(lambda s: s.redo(), "redo")

    def reset(self) -> None:
        from tinytui.tui.screens.confirm_screen import ConfirmScreen

        host, s = self.host, self.host.session
        fresh = s.reset_state()
        if s.state == fresh:
            host.notify("Already the model file as loaded.", timeout=2)
            return
        n = sum(len(v) for v in s.edited_cells().values())
        lost = [f"{n} edited weight{'s' if n != 1 else ''}"] if n else []
        if s.state.prompt != fresh.prompt or s.state.target != fresh.target:
            lost.append("the prompt and target")
        if s.state.switches != fresh.switches:
            lost.append("the switches")
        question = (
            f"Reset to the model file? This puts back {' and '.join(lost) or 'every changed value'} "
            "as the file has them. (u undoes the reset.)"
        )

        def answered(yes: bool | None) -> None:
            if yes:
                host.apply(lambda s: s.reset(), "reset")

        host.push_screen(ConfirmScreen(question, "Reset", "Keep"), answered)

    def toggle_compare(self) -> None:
        host = self.host
        host.apply(lambda s: s.set_compare_to_original(not s.compare_to_original), "compare")
        host.notify(f"Highlights now show changes since {self.compared_to()}.", timeout=2)

    def compared_to(self) -> str:
        return "the original model" if self.host.session.compare_to_original else "the last change"

    # ---- the prompt ----------------------------------------------------------------------------
    def _vocab_choices(self) -> list[tuple[str, str]]:
        return [(t, f"{i}  {t}") for i, t in enumerate(self.host.session.model.cfg.vocab)]

    def _choose_token(self, title: str, current: str | None, then) -> None:
        """A token from the vocabulary, then then(token): picked from a list, or, for a vocabulary too
        long to list (GPT-2's 50,257 pieces), typed (the piece exactly, or its id)."""
        vocab = self.host.session.model.cfg.vocab
        if len(vocab) <= PICK_LIMIT:
            from tinytui.tui.screens.pick_screen import PickScreen

            self.host.push_screen(PickScreen(title, self._vocab_choices(), current), then)
            return

        def submit(text: str) -> str | None:
            cfg = self.host.session.model.cfg
            token = vocab[int(text)] if text.strip().isdigit() and int(text) < len(vocab) else text
            if not cfg.has_token(token):
                return (
                    f"{text[:40]!r} is not one of the {len(vocab):,} tokens (type a token exactly, or its id)"
                )
            then(token)
            return None

        from tinytui.tui.screens.ask_screen import AskScreen

        hint = f"a token of the {len(vocab):,} exactly (GPT-2's pieces start with Ġ for a space), or its id"
        self.host.push_screen(AskScreen(title, current or "", hint, submit))

    def _cursor_position(self) -> int | None:
        """The prompt position under the cursor when the token table has focus."""
        focused = self.host.focused
        spec = getattr(focused, "spec", None)
        on_row = spec is not None and spec.key == "tokens" and focused.row >= 0  # row -1: the header
        return focused.row if on_row else None

    def change_token(self, position: int) -> None:
        prompt = self.host.session.state.prompt

        def chosen(token: str | None) -> None:
            if token is not None and token != prompt[position]:
                new = (*prompt[:position], token, *prompt[position + 1 :])
                self.host.apply(lambda s: s.set_prompt(new), f"token at position {position}")

        self._choose_token(f"Token at position {position}", prompt[position], chosen)

    def insert_position(self, at: int | None = None) -> None:
        prompt = self.host.session.state.prompt
        if at is None:
            row = self._cursor_position()
            at = len(prompt) if row is None else row + 1

        def chosen(token: str | None) -> None:
            if token is not None:
                new = (*prompt[:at], token, *prompt[at:])
                self.host.apply(lambda s: s.set_prompt(new), "insert a position")

        self._choose_token(f"Insert a token at position {at}", None, chosen)

    def remove_position(self, at: int | None = None) -> None:
        prompt = self.host.session.state.prompt
        if at is None:
            row = self._cursor_position()
            at = len(prompt) - 1 if row is None else row
        new = (*prompt[:at], *prompt[at + 1 :])
        self.host.apply(lambda s: s.set_prompt(new), f"remove position {at}")

    def change_target(self) -> None:
        def chosen(token: str | None) -> None:
            if token is not None:
                self.host.apply(lambda s: s.set_target(token), "target")

        target = self.host.session.state.target
        self._choose_token("Target token (what the loss measures)", target, chosen)

    # ---- parameters ----------------------------------------------------------------------------
    def edit_parameter(self, name: str | None = None) -> None:
        """Open the parameter browser on one weight; with no name, ask which."""
        from tinytui.tui.screens.param_browser import ParamScreen
        from tinytui.tui.screens.pick_screen import PickScreen

        host = self.host
        if name is not None:
            host.push_screen(ParamScreen(name, host.view()))
            return
        params = host.session.params
        n_blocks = params.cfg.n_blocks
        shown = {full: names.label(full, n_blocks) for full in params}  # every block's weights
        wide = max(len(label) for label in shown.values())
        choices = []
        for full, label in shown.items():
            arr = params[full]
            shape = "×".join(str(n) for n in arr.shape)
            choices.append((full, f"{label:<{wide}} {shape:>9}  ({arr.size:,} weights)"))

        def chosen(picked: str | None) -> None:
            if picked is not None:
                host.push_screen(ParamScreen(picked, host.view()))

        host.push_screen(PickScreen("Edit parameter…", choices), chosen)

    def save(self) -> None:
        from tinytui.model.io.checkpoint import CheckpointModel
        from tinytui.model.io.checkpoint_save import save_edited, suggested_name
        from tinytui.tui.screens.save_screen import SaveScreen

        host = self.host
        model = host.session.model
        # a name in a file cannot steer the path; a checkpoint is saved as a folder, tokenizer and all
        suggestion = suggested_name(model, safe_stem(model.name))

        def chosen(path: Path | None) -> None:
            if path is None:
                return
            s = host.session
            try:
                path = save_edited(model, s.params, s.state.prompt, s.state.target, path)
            except (OSError, ValueError) as exc:
                why = getattr(exc, "strerror", None) or exc
                host.notify(f"Could not write {path}: {why}", severity="error", markup=False)
                return
            self.saved_params = s.params
            host.notify(
                f"Saved {path}. Open it again with: tinytui --model {path}", title="Saved", markup=False
            )

        screen = SaveScreen(suggestion, isinstance(model, CheckpointModel), host.recording.files_in_use)
        host.push_screen(screen, chosen)

    # ---- the palette's families ----------------------------------------------------------------
    def palette(self) -> Iterable[PaletteCommand]:
        params = self.host.session.params
        for full in params:  # every block's weights
            shown = names.label(full, params.cfg.n_blocks)
            yield PaletteCommand(
                f"Edit parameter {shown}",
                f"Open {shown} in the parameter browser",
                lambda n=full: self.edit_parameter(n),
            )
        prompt = self.host.session.state.prompt
        for p, tok in enumerate(prompt):
            yield PaletteCommand(
                f"Change token at position {p} ({tok})…",
                "Pick another token from the vocabulary",
                lambda p=p: self.change_token(p),
            )
            yield PaletteCommand(
                f"Remove position {p} ({tok})", "Shorten the prompt", lambda p=p: self.remove_position(p)
            )
        yield PaletteCommand(
            "Insert a position at the end…", "Lengthen the prompt", lambda: self.insert_position(len(prompt))
        )

    def compare_note(self) -> str:
        return f"now relative to {self.compared_to()}"
