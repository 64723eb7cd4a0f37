"""The Textual app: one Session, every change through apply(), every view redrawn from (trace, diff, step).

To add a feature: bind a key here (with an id and a description) or add a palette command to
`command_sources`, and make the change with `self.apply(lambda s: s.toggle("causal_mask"), "mask")`.
Widgets that subclass ViewPart are redrawn after every change without further wiring.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from tinytui import themes
from tinytui.cli import Setup
from tinytui.config import ThemeMemory
from tinytui.experiment_keys import experiment_bindings, experiment_commands, run_experiment
from tinytui.learning import LEARNING_BINDINGS, LearningActions
from tinytui.model import ModelFile, save
from tinytui.model.names import label
from tinytui.model.stages import FIRST, LAST, STAGES
from tinytui.recording import RECORDING_BINDINGS, REPLAY_BINDINGS, RecordingActions
from tinytui.replay import Replayer
from tinytui.screens.confirm import ConfirmScreen
from tinytui.screens.help import HelpScreen, help_rows
from tinytui.screens.params import ParamScreen
from tinytui.screens.pick import PickScreen
from tinytui.screens.save import SaveScreen
from tinytui.session import Refused, Session
from tinytui.widgets.cells import PARAM_NAMES
from tinytui.widgets.grid import Grid
from tinytui.widgets.info import StepInfo
from tinytui.widgets.panes import StepPanes
from tinytui.widgets.status import Inspector, StatusBar
from tinytui.widgets.steps import StepList
from tinytui.widgets.view import View, ViewPart

NARROW_WIDTH = 110  # below this the step list shows numbers only
MIN_SIZE = (60, 16)  # below this the app shows a message instead of cramped tables


@dataclass(frozen=True)
class PaletteCommand:
    title: str
    help: str
    run: Callable[[], object]


class TinyTuiCommands(Provider):
    """The command palette's entries, all from TinyTuiApp.palette_commands()."""

    def _commands(self) -> list[PaletteCommand]:
        app = self.app
        return list(app.palette_commands()) if isinstance(app, TinyTuiApp) else []

    async def discover(self) -> Hits:
        for c in self._commands():
            yield DiscoveryHit(c.title, c.run, help=c.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for c in self._commands():
            if (score := matcher.match(c.title)) > 0:
                yield Hit(score, matcher.highlight(c.title), c.run, help=c.help)


JUMP = Binding.Group("jump to step 1–9")


class TinyTuiApp(RecordingActions, LearningActions, App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "tinytui"
    COMMANDS = App.COMMANDS | {TinyTuiCommands}

    BINDINGS: ClassVar[list[BindingType]] = [
        *REPLAY_BINDINGS,  # first: while a replay runs, n takes the next recorded event
        Binding("n,right,space", "next_step", "Next", id="next-step", tooltip="Go to the next step"),
        Binding("p,left", "previous_step", "Prev", id="previous-step", tooltip="Go to the previous step"),
        Binding("g,home", "first_step", "First", show=False, id="first-step", tooltip="Go to step 1"),
        Binding("G,end", "last_step", "Last", show=False, id="last-step", tooltip="Go to step 16"),
        *(
            Binding(str(n), f"goto({n})", f"Step {n}", show=False, id=f"goto-{n}", group=JUMP)
            for n in range(1, 10)
        ),
        Binding("u,ctrl+z", "undo", "Undo", id="undo", tooltip="Undo the last change (unlimited)"),
        Binding("ctrl+r,ctrl+y", "redo", "Redo", show=False, id="redo", tooltip="Redo what was undone"),
        Binding("R", "reset", "Reset", show=False, id="reset",
                tooltip="Back to the model file (asks first if edited)"),
        Binding(
            "c",
            "toggle_compare",
            "Compare",
            id="compare",
            tooltip="Highlight changes since the last change, or relative to the original model",
        ),
        Binding("i", "insert_position", "Insert token", show=False, id="insert-position",
                tooltip="Insert a prompt position after the token table's cursor row (else at the end)"),
        Binding("delete", "remove_position", "Remove token", show=False, id="remove-position",
                tooltip="Remove a prompt position (the cursor's row in the token table, else the last)"),
        Binding("y", "change_target", "Target", show=False, id="change-target",
                tooltip="Choose the target token the loss is measured against (y is the one-hot target)"),
        Binding("ctrl+s", "save", "Save", show=False, id="save",
                tooltip="Save the edited model as a model file"),
        Binding("t", "cycle_theme", "Theme", show=False, id="cycle-theme",
                tooltip="Next theme: dark, light, high contrast, colour-blind, monochrome (remembered)"),
        Binding("pagedown", "scroll_main(1)", "Scroll down", show=False, id="page-down",
                tooltip="Scroll the step's tables down a page"),
        Binding("pageup", "scroll_main(-1)", "Scroll up", show=False, id="page-up",
                tooltip="Scroll the step's tables up a page"),
        *experiment_bindings(),
        *LEARNING_BINDINGS,
        *RECORDING_BINDINGS,
        Binding("question_mark", "help", "Help", id="help", tooltip="List every key"),
        Binding("q", "quit", "Quit", id="quit", tooltip="Leave tinytui"),
    ]  # fmt: skip

    def __init__(
        self,
        setup: Setup,
        theme: str = themes.DEFAULT,
        notices: Sequence[str] = (),
        replay: Replayer | None = None,
    ) -> None:
        super().__init__()
        self.setup = setup
        # a replay starts where its recording started (tinytui replay FILE)
        self.session = replay.new_session() if replay is not None else Session(setup.model, setup.state)
        # Palette commands come from these; others append their own source (a function of the app).
        self.command_sources: list[Callable[[TinyTuiApp], Iterable[PaletteCommand]]] = [
            core_commands,
            experiment_commands,
        ]
        self.status_notes: list[Callable[[TinyTuiApp], Iterable[str]]] = []  # extra status-line pieces
        self.setup_recording(setup.record, replay)  # tinytui/recording.py: --record, replay, screenshots
        self.setup_learning()  # tinytui/learning.py: backward walk, ∂L/∂w, learning steps, lr
        themes.register(self)
        self._theme_memory = ThemeMemory(theme)  # before the first set: the opening theme is not saved
        self._notices = list(notices)  # from the command line (settings file, theme): shown once mounted
        self.theme = theme

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return themes.variable_defaults(self.current_theme)

    def watch_theme(self, name: str) -> None:
        # Any change after start (t, or the palette's theme picker) is remembered for next time.
        failed = self._theme_memory.changed(name)
        if failed:
            self.notify(failed, severity="warning")

    def action_cycle_theme(self) -> None:
        self.theme = themes.next_theme(self.theme)
        self.notify(f"Theme: {self.theme} (t for the next; ctrl+p → Theme for all)", timeout=3)

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        with Horizontal(id="body"):
            # not focus stops themselves: Tab goes from table to table; PageUp/PageDown scroll
            with VerticalScroll(id="sidebar", can_focus=False):
                yield StepList(id="steps")
            with VerticalScroll(id="main", can_focus=False):
                yield StepInfo(id="info")
                yield StepPanes(id="panes")
        yield Static("", id="too-small")
        yield Inspector(Inspector.HINT, id="inspector")
        yield Footer()

    def on_mount(self) -> None:
        for notice in self._notices:
            self.notify(notice, severity="warning", timeout=8)
        self._fit(self.size.width, self.size.height)
        self.refresh_views()
        self.query_one(StepList).focus()
        self.start_recording_and_replay()

    # ---- the one way to change anything --------------------------------------------------------
    def apply(
        self,
        change: Callable[[Session], object],
        describe: str = "",
        on_refused: Callable[[str], None] | None = None,
    ) -> object | None:
        """Run one change on the session and redraw everything; a refusal is shown and changes nothing.

        Returns what the change returned, or None when the session refused it.
        """
        try:
            result = change(self.session)
        except Refused as exc:
            message = str(exc)
            if on_refused is not None:
                on_refused(message)
            self.notify(message, title=f"Not done: {describe}" if describe else "Not done", severity="error")
            return None
        self.refresh_views()
        return result

    def view(self) -> View:
        return View.of(self.session, self.view_mode())

    def refresh_views(self) -> None:
        view = self.view()
        for screen in self.screen_stack:
            for node in list(screen.walk_children(with_self=True)):
                if isinstance(node, ViewPart):
                    node.show(view)
        self._inspect()

    def _inspect(self) -> None:
        focused = self.focused
        detail = focused.detail if isinstance(focused, Grid) else None
        for inspector in self.screen.query(Inspector):
            inspector.describe(detail)

    # ---- layout --------------------------------------------------------------------------------
    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width, event.size.height)

    def _fit(self, width: int, height: int) -> None:
        too_small = width < MIN_SIZE[0] or height < MIN_SIZE[1]
        self.set_class(width < NARROW_WIDTH, "-narrow")
        for footer in self.query(Footer):
            footer.compact = width < NARROW_WIDTH
        self.set_class(too_small, "-too-small")
        if too_small:
            self.query_one("#too-small", Static).update(
                f"tinytui needs a terminal of at least {MIN_SIZE[0]}×{MIN_SIZE[1]} characters; this one is "
                f"{width}×{height}. Make the window larger (or the font smaller). q quits."
            )

    def action_scroll_main(self, pages: int) -> None:
        main = self.query_one("#main", VerticalScroll)
        if pages > 0:
            main.scroll_page_down(animate=False)
        else:
            main.scroll_page_up(animate=False)

    # ---- steps ---------------------------------------------------------------------------------
    def action_next_step(self) -> None:
        if self.walking:  # the backward walk: next is one step further back
            return self.walk(1)
        if self.session.step == LAST:
            self.bell()
            self.notify(f"Step {LAST} is the last step.", timeout=2)
            return
        self.apply(lambda s: s.next(), "next step")

    def action_previous_step(self) -> None:
        if self.walking:
            return self.walk(-1)
        if self.session.step == FIRST:
            self.bell()
            self.notify(f"Step {FIRST} is the first step.", timeout=2)
            return
        self.apply(lambda s: s.prev(), "previous step")

    def action_first_step(self) -> None:
        self.action_goto(FIRST)

    def action_last_step(self) -> None:
        self.action_goto(LAST)

    def action_goto(self, step: int) -> None:
        if self.walking:
            return self.walk_to(step)
        self.apply(lambda s: s.goto(step), f"go to step {step}")

    def on_step_list_chosen(self, message: StepList.Chosen) -> None:
        self.action_goto(message.step)

    # ---- edits ---------------------------------------------------------------------------------
    def on_grid_edit_submitted(self, message: Grid.EditSubmitted) -> None:
        ref, grid = message.ref, message.grid
        done = self.apply(
            lambda s: s.edit(ref.name, ref.index, message.text), f"edit {ref.label}", grid.edit_refused
        )
        if done is not None:
            grid.cancel_edit()
            self._inspect()

    def on_grid_pick_requested(self, message: Grid.PickRequested) -> None:
        self.action_change_token(message.ref.index[0])

    def action_change_token(self, position: int) -> None:
        prompt = self.session.state.prompt

        def chosen(token: str | None) -> None:
            if token is not None and token != prompt[position]:
                new = (*prompt[:position], token, *prompt[position + 1 :])
                self.apply(lambda s: s.set_prompt(new), f"token at position {position}")

        self.push_screen(
            PickScreen(f"Token at position {position}", self._vocab_choices(), prompt[position]), chosen
        )

    def on_grid_cursor_moved(self, message: Grid.CursorMoved) -> None:
        self._inspect()

    def on_descendant_focus(self) -> None:
        self._inspect()

    def action_undo(self) -> None:
        if not self.session.can_undo:
            self.notify("Nothing to undo.", timeout=2)
            return
        self.apply(lambda s: s.undo(), "undo")

    def action_redo(self) -> None:
        if not self.session.can_redo:
            self.notify("Nothing to redo.", timeout=2)
            return
        self.apply(lambda s: s.redo(), "redo")

    def action_reset(self) -> None:
        s = self.session
        fresh = s.reset_state()
        if s.state == fresh:
            self.notify("Already the model file as loaded.", timeout=2)
            return
        n = sum(len(v) for v in s.edited_cells().values())

        def answered(yes: bool | None) -> None:
            if yes:
                self.apply(lambda s: s.reset(), "reset")

        lost = [f"{n} edited weight{'s' if n != 1 else ''}"] if n else []
        if s.state.prompt != fresh.prompt or s.state.target != fresh.target:
            lost.append("the prompt and target")
        if s.state.switches != fresh.switches:
            lost.append("the switches")
        question = (
            f"Reset to the model file? This puts back {' and '.join(lost) or 'every changed value'} "
            "as the file has them. (u undoes the reset.)"
        )
        self.push_screen(ConfirmScreen(question, "Reset", "Keep"), answered)

    def action_experiment(self, experiment_id: str) -> None:
        run_experiment(self, experiment_id)

    def action_toggle_compare(self) -> None:
        self.apply(lambda s: s.set_compare_to_original(not s.compare_to_original), "compare")
        against = "the original model" if self.session.compare_to_original else "the last change"
        self.notify(f"Highlights now show changes since {against}.", timeout=2)

    # ---- the prompt ----------------------------------------------------------------------------
    def _vocab_choices(self) -> list[tuple[str, str]]:
        return [(t, f"{i}  {t}") for i, t in enumerate(self.session.model.cfg.vocab)]

    def _cursor_position(self) -> int | None:
        """The prompt position under the cursor when the token table has focus."""
        focused = self.focused
        if isinstance(focused, Grid) and focused.spec.key == "tokens":
            return focused.row
        return None

    def action_insert_position(self, at: int | None = None) -> None:
        prompt = self.session.state.prompt
        if at is None:
            row = self._cursor_position()
            at = len(prompt) if row is None else row + 1

        def chosen(token: str | None) -> None:
            if token is not None:
                new = (*prompt[:at], token, *prompt[at:])
                self.apply(lambda s: s.set_prompt(new), "insert a position")

        self.push_screen(PickScreen(f"Insert a token at position {at}", self._vocab_choices()), chosen)

    def action_remove_position(self, at: int | None = None) -> None:
        prompt = self.session.state.prompt
        if at is None:
            row = self._cursor_position()
            at = len(prompt) - 1 if row is None else row
        new = (*prompt[:at], *prompt[at + 1 :])
        self.apply(lambda s: s.set_prompt(new), f"remove position {at}")

    def action_change_target(self) -> None:
        def chosen(token: str | None) -> None:
            if token is not None:
                self.apply(lambda s: s.set_target(token), "target")

        target = self.session.state.target
        self.push_screen(
            PickScreen("Target token (what the loss measures)", self._vocab_choices(), target), chosen
        )

    # ---- parameters ----------------------------------------------------------------------------
    def action_edit_parameter(self, name: str | None = None) -> None:
        """Open the parameter browser on one weight; with no name, ask which."""
        if name is not None:
            self.push_screen(ParamScreen(name, self.view()))
            return
        params = self.session.params
        choices = []
        for short in PARAM_NAMES:
            full = short if short == "E" else f"blocks.0.{short}"
            shape = "×".join(str(n) for n in params[full].shape)
            choices.append((short, f"{short:<4} {shape:>7}  ({params[full].size} weights)"))

        def chosen(picked: str | None) -> None:
            if picked is not None:
                self.push_screen(ParamScreen(picked, self.view()))

        self.push_screen(PickScreen("Edit parameter…", choices), chosen)

    def action_save(self) -> None:
        model = self.session.model
        suggestion = f"{model.name or 'model'}-edited.json"

        def chosen(path: Path | None) -> None:
            if path is None:
                return
            s = self.session
            edited = ModelFile(model.name, model.about, s.params, s.state.prompt, s.state.target)
            try:
                save(edited, path)
            except OSError as exc:
                self.notify(f"Could not write {path}: {exc.strerror or exc}", severity="error")
                return
            self.notify(f"Saved {path}. Open it again with: tinytui --model {path}", title="Saved")

        self.push_screen(SaveScreen(suggestion), chosen)

    # ---- help and the palette ------------------------------------------------------------------
    def help_sources(self) -> list[tuple[str, list[Binding]]]:
        return [
            ("anywhere", [b for b in type(self).BINDINGS if isinstance(b, Binding)]),
            ("in a table", list(Grid.BINDINGS)),  # type: ignore[arg-type]
            ("in the step list", list(StepList.BINDINGS)),  # type: ignore[arg-type]
            ("panes", [b for b in Screen.BINDINGS if isinstance(b, Binding)]),
        ]

    def action_help(self) -> None:
        extra = [
            "",
            "ctrl+p opens the command palette: go to any step, edit any parameter, change the prompt, "
            "save, and more. Marks: ▲ went up, ▼ went down, ◆ changed, * edited weight, × masked.",
            "While a cell editor is open every key types into it: Enter commits, Esc cancels. "
            "Numbers such as 0.5, -1, 1e-3 and 1/2 are accepted.",
        ]
        self.push_screen(HelpScreen(help_rows(self, self.help_sources()), extra))

    def palette_commands(self) -> Iterable[PaletteCommand]:
        for source in self.command_sources:
            yield from source(self)


def core_commands(app: TinyTuiApp) -> Iterable[PaletteCommand]:
    """The app's own palette entries: one table, so every one is also listed in one place."""
    for stage in STAGES:
        yield PaletteCommand(
            f"Go to step {stage.number}: {stage.title}",
            stage.formula,
            lambda n=stage.number: app.action_goto(n),
        )
    yield PaletteCommand(
        "Edit parameter…", "Choose a weight matrix and edit any cell of it", app.action_edit_parameter
    )
    for name in PARAM_NAMES:
        yield PaletteCommand(
            f"Edit parameter {name}",
            f"Open {label(name)} in the parameter browser",
            lambda n=name: app.action_edit_parameter(n),
        )
    prompt = app.session.state.prompt
    for p, tok in enumerate(prompt):
        yield PaletteCommand(
            f"Change token at position {p} ({tok})…",
            "Pick another token from the vocabulary",
            lambda p=p: app.action_change_token(p),
        )
        yield PaletteCommand(
            f"Remove position {p} ({tok})", "Shorten the prompt", lambda p=p: app.action_remove_position(p)
        )
    yield PaletteCommand(
        "Insert a position at the end…",
        "Lengthen the prompt",
        lambda: app.action_insert_position(len(prompt)),
    )
    yield PaletteCommand(
        "Change the target…", "The token the loss is measured against", app.action_change_target
    )
    yield PaletteCommand("Undo", "Undo the last change", app.action_undo)
    yield PaletteCommand("Redo", "Redo what was undone", app.action_redo)
    yield PaletteCommand("Reset to the model file", "Discard edits (undoable)", app.action_reset)
    yield PaletteCommand("Save the model…", "Write the edited weights as a model file", app.action_save)
    other = "the last change" if app.session.compare_to_original else "the original model"
    yield PaletteCommand(
        f"Highlight changes relative to {other}", "Toggle (key c)", app.action_toggle_compare
    )
    yield PaletteCommand("Keys: show every key", "The help screen (key ?)", app.action_help)
