"""The Textual app: one Session, the controllers that act on it, and the panes that draw it.

A key press flows: Textual finds the binding (built from tinytui.tui.actions.ACTIONS, remapped by the
user's keymap) → check_action asks the action's `when` whether it applies now → action_do runs the
controller method the table names → the controller changes the session through apply() → apply()
redraws every ViewPart from one View of (trace, diff, step, mode). To add a feature: a row in ACTIONS
and a method on a controller; widgets that subclass ViewPart are redrawn without further wiring.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widget import AwaitMount, Widget

from tinytui import themes
from tinytui.present.grid_spec import KeptSpecs
from tinytui.present.step_words import SHORT_HEIGHT
from tinytui.present.view import View, ViewPart
from tinytui.session.session import Session
from tinytui.session.state import Refused
from tinytui.settings import ThemeMemory
from tinytui.tui.actions import ACTION_BY_ID, ACTIONS, Action, PaletteCommand, with_sharers
from tinytui.tui.controllers.analysis_controller import AnalysisController
from tinytui.tui.controllers.edit_controller import EditController
from tinytui.tui.controllers.experiment_controller import ExperimentController
from tinytui.tui.controllers.gallery_controller import GalleryController
from tinytui.tui.controllers.generation_controller import GenerationController
from tinytui.tui.controllers.learning_controller import LearningController
from tinytui.tui.controllers.practice_controller import PracticeController
from tinytui.tui.controllers.presenter_controller import PresenterController
from tinytui.tui.controllers.recording_controller import RecordingController
from tinytui.tui.controllers.step_controller import StepController
from tinytui.tui.controllers.watch_controller import WatchController
from tinytui.tui.controllers.why_controller import GLOSSARY, WhyController
from tinytui.tui.crash import CrashReport, rescue
from tinytui.tui.idle_collection import IdleCollection
from tinytui.tui.palette import AppThemes, Palette, TinyTuiCommands, binding_of
from tinytui.tui.screens.main_screen import Body, MainScreen
from tinytui.tui.screens.too_small_screen import TooSmall, TooSmallScreen, is_too_small
from tinytui.tui.toasts import Toasts
from tinytui.tui.widgets.footer import TinyFooter
from tinytui.tui.widgets.status_bar import Inspector, StatusBar
from tinytui.tui.widgets.step_list import StepList
from tinytui.tui.widgets.step_view import StepView

if TYPE_CHECKING:  # a replay, the help and the notices' log import their modules when they open
    from tinytui.recording.replay import Replayer

NARROW_WIDTH = 110  # below this the step list shows numbers only


class ChecksNow:
    """What check_action's answer depends on, each part worked out when first asked for."""

    def __init__(self, app: TinyTuiApp) -> None:
        self.app = app
        self.focused = app.focused
        self.editing = bool(getattr(self.focused, "editing", False))  # a cell typed into
        self._blocked: bool | None = None
        self._holds: dict[str, bool] = {}  # "controller.method" -> its answer

    def blocked(self) -> bool:
        """Whether a key the app takes first (Action.priority) goes to a dialog or a field instead."""
        if self._blocked is None:
            self._blocked = self.app.screen.is_modal or self.app.typing(self.focused)
        return self._blocked

    def holds(self, when: str) -> bool:
        held = self._holds.get(when)
        if held is None:
            held = self._holds[when] = bool(self.app._method(when)())
        return held


class TinyTuiApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "tinytui"
    COMMANDS = App.COMMANDS | {TinyTuiCommands}
    BINDINGS: ClassVar[list[BindingType]] = [binding_of(a) for a in ACTIONS if a.keys]

    def __init__(
        self,
        session: Session,
        theme: str = themes.DEFAULT,
        notices: Sequence[str] = (),
        replay: Replayer | None = None,
        record: str | None = None,
        keymap: dict[str, str] | None = None,
        large: bool = False,  # --large: open in the presenter view
    ) -> None:
        # action id -> keys, as set_keymap was given them (the help screen shows them)
        self.user_keymap: dict[str, str] = {}
        super().__init__()
        self._theme_chosen = True  # get_css_variables: Textual's __init__ is done
        self.toasts = Toasts(self)  # the notices raised (toasts.py)
        self.idle_collection = IdleCollection(self)  # what keys let go of, freed in a pause after them
        self.session = session
        self.kept_specs = KeptSpecs()  # every View is made with it: a table that did not change is kept
        self.steps = StepController(self)
        self.edits = EditController(self)
        self.experiments = ExperimentController(self)
        self.learning = LearningController(self)
        self.recording = RecordingController(self, record, replay)
        self.why = WhyController(self)
        self.gallery = GalleryController(self)
        self.watch = WatchController(self)
        self.generation = GenerationController(self)
        self.presenter = PresenterController(self, on=large)
        self.practice = PracticeController(self)
        themes.register(self)
        self._theme_memory = ThemeMemory(theme)  # before the first set: the opening theme is not saved
        self.analysis = AnalysisController(self)  # patching and a two-run compare (issue 46)
        self._notices = list(notices)  # from the command line (settings file, theme): shown once mounted
        if theme == self.theme:  # Textual's default theme: setting it again asks for no refresh_css
            self.refresh_css()
        self.theme = theme
        if keymap:
            self.set_keymap(keymap)
        self.crash_report: CrashReport | None = None  # set by a crash: where the work was saved
        self.failed_with: BaseException | None = None  # the error a key's action raised, if one did
        # "controller.method" -> the bound method, each looked up once (the controllers are made above
        # and never replaced)
        self._methods: dict[str, Callable[..., object]] = {}
        self._checks_now: ChecksNow | None = None  # while the active bindings are read (checking_bindings)

    def set_keymap(self, keymap: dict[str, str]) -> None:  # type: ignore[override]
        self.user_keymap = dict(keymap)
        super().set_keymap(with_sharers(keymap))

    # ---- leaving -------------------------------------------------------------------------------
    leaving = False  # q was taken (and answered): the app is closing

    def leave(self) -> None:
        """Exit with code 0. Keys typed at once after q (a double tap) are dropped from here on: run while
        Textual takes the screens down, they would draw into panes already gone."""
        self.leaving = True
        self.exit()

    def action_command_palette(self) -> None:  # Textual's ctrl+p, its palette drawn with a plain glyph
        if self.use_command_palette and not Palette.is_open(self):
            self.push_screen(Palette(id="--command-palette"))

    def search_themes(self) -> None:  # the palette's "Theme" command: tinytui's themes, in the same palette
        self.push_screen(Palette(providers=[AppThemes], placeholder="Search for themes…"))

    def action_quit(self) -> None:  # Textual's ctrl+q: the same way out as q, asking first if need be
        self.steps.quit()

    async def on_event(self, event: events.Event) -> None:
        if self.leaving and isinstance(event, events.InputEvent):
            return
        if isinstance(event, (events.Key, events.MouseDown)):
            self.toasts.input_taken()
            self.idle_collection.input_taken()
        await super().on_event(event)

    def typing(self, focused: Widget | None = None) -> bool:
        """Whether the focused widget takes what is typed now (a dialog's field, a cell's editor)."""
        if focused is None:
            focused = self.focused
        if focused is None:
            return False
        return focused.check_consume_key("a", "a") or bool(getattr(focused, "editing", False))

    # ---- a crash -------------------------------------------------------------------------------
    def rescue(self, error: BaseException | None = None) -> CrashReport:
        """Stop the recording cleanly and save the edited model to a fresh file (once; never raises).
        Called once the app has exited after a crash (Textual exits with return code 1 on any error a
        handler raises, and prints its traceback); tinytui.cli.debugger prints the report's lines."""
        if self.crash_report is None:
            self.crash_report = rescue(self.session, self.recording.recorder, error or self.failed_with)
        return self.crash_report

    # ---- actions -------------------------------------------------------------------------------
    def _method(self, path: str) -> Callable[..., object]:
        method = self._methods.get(path)
        if method is None:
            controller, name = path.split(".")
            method = self._methods[path] = getattr(getattr(self, controller), name)
        return method

    def action_do(self, action_id: str) -> None:
        action = ACTION_BY_ID[action_id]
        try:
            with self.toasts.held():  # the notices the action takes away and raises: drawn once
                self._method(action.run)(*action.args)
        except Exception as error:
            self.failed_with = error  # named in the crash report; Textual prints it and exits
            raise

    def applies(self, action: Action) -> bool:
        return not action.when or bool(self._method(action.when)())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # False hides the binding from the footer and lets the key fall through to the next binding
        if action != "do" or not parameters:
            return True
        chosen = ACTION_BY_ID.get(parameters[0])  # type: ignore[call-overload]
        if chosen is None:
            return True
        now = self._checks_now or ChecksNow(self)
        if chosen.priority and now.blocked():
            return False  # a dialog's own keys, and q, Home and End typed in a field, come first
        if now.editing:
            return False  # a cell typed into takes every key: the footer shows its own (Enter, Esc)
        return not chosen.when or now.holds(chosen.when)

    @contextmanager
    def checking_bindings(self) -> Iterator[None]:
        """Around a read of the screen's active bindings (the footer's): Textual asks check_action about
        every binding, some 90, and nothing changes while it does, so the focus and each `when` are
        worked out once for the whole read rather than once per binding."""
        outer, self._checks_now = self._checks_now, ChecksNow(self)
        try:
            yield
        finally:
            self._checks_now = outer

    def palette_commands(self) -> Iterable[PaletteCommand]:
        yield from self.steps.palette()
        for action in ACTIONS:
            if action.palette and self.applies(action):
                yield PaletteCommand(action.palette, self._palette_help(action), self._runner(action))
        yield from self.edits.palette()
        yield from self.experiments.palette()

    def _runner(self, action: Action) -> Callable[[], None]:
        return lambda: self.action_do(action.id)

    def _palette_help(self, action: Action) -> str:
        note = self._method(action.note)(*action.args) if action.note else ""
        keys = self.user_keymap.get(action.id, action.keys).split(",")[0]
        key = f"key {self.get_key_display(Binding(keys, ''))}" if keys else ""
        return " · ".join(part for part in (action.help, note, key) if part)

    def get_system_commands(self, screen):  # Textual's signature
        # Textual's own "Screenshot" saves to Downloads under a date; ours names the file after the step.
        for command in super().get_system_commands(screen):
            if command.title != "Screenshot":
                yield command

    # ---- themes --------------------------------------------------------------------------------
    _theme_chosen = False

    def get_css_variables(self) -> dict[str, str]:
        # Textual's __init__ asks for the variables of its default theme before __init__ here sets the
        # opening one; nothing is styled until the app runs, and refresh_css then asks for the opening
        # theme's: worked out for its default, they would be thrown away (its colour system made, ~1 ms)
        if not self._theme_chosen:
            return {}
        return super().get_css_variables()

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return themes.variable_defaults(self.current_theme)

    def refresh_css(self, animate: bool = True) -> None:
        if not self.screen_stack:
            # The opening theme (set in __init__): before the first screen nothing is styled, so its
            # variables are all the stylesheet needs; it parses once, with them, as that screen mounts.
            # Textual's refresh would first parse app.tcss and its own CSS in a copy it then drops.
            self.stylesheet.set_variables(self.get_css_variables())
            return
        super().refresh_css(animate)

    def watch_theme(self, name: str) -> None:
        # Any change after start (t, or the palette's theme picker) is remembered for next time.
        failed = self._theme_memory.changed(name)
        if failed:
            self.notify(failed, severity="warning")

    # ---- the screen ----------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        with Body(id="body"):
            # not focus stops themselves: Tab goes from table to table; PageUp/PageDown scroll
            with VerticalScroll(id="sidebar", can_focus=False):
                yield StepList(id="steps")
            yield StepView(id="main")  # the step's words and every table, one widget (step_view.py)
            # the watch pane (#watch) is mounted here after #main the first time W shows it
        yield TooSmall(id="too-small")  # the main screen's own notice, under TooSmallScreen's
        yield Inspector(Inspector.HINT, id="inspector")
        yield self.toasts.line()  # the notices, in a line of their own (toasts.py, widgets/notice_line.py)
        yield TinyFooter()  # Textual's Footer, less the keys only a wide screen has room for

    def get_default_screen(self) -> Screen:
        return MainScreen(id="_default")

    def on_mount(self) -> None:
        for notice in self._notices:
            self.notify(notice, severity="warning", timeout=8)
        self._fit(self.size.width, self.size.height)
        self.refresh_views()
        self.query_one(StepList).focus()
        self.presenter.start()
        self.recording.start_at_mount()
        self.practice.start_at_mount()  # tinytui practice: after the recorder, so it records the start
        self.mounted = True

    def on_unmount(self) -> None:
        self.recording.close()

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
            self.refuse(message, title=f"Not done: {describe}" if describe else "Not done")
            return None
        self.refresh_views()
        return result

    def refuse(self, message: str, title: str = "Not done", severity: str = "error") -> None:
        """Say why something was not done, in place of the last such notice (three bad values typed at
        a cell leave one notice, naming the last, rather than a pile over the table being edited)."""
        self.toasts.refuse(message, title, severity, self.NOTIFICATION_TIMEOUT)  # type: ignore[arg-type]

    def withdraw_refusal(self) -> None:
        """The last refusal's notice goes: what it refused has now been done (a value typed again)."""
        self.toasts.withdraw("refusal")

    def notify(  # type: ignore[override]
        self, message: str, *, title: str = "", severity: SeverityLevel = "information",
        timeout: float | None = None, markup: bool = True, replaces: str = "",
    ) -> None:  # fmt: skip
        """Textual's notify (Textual's own calls land here too), drawn by our notice board (toasts.py):
        a notice about one step goes when the step changes. replaces: what the notice is about; it takes
        the place of the live notice about the same ("switches": the last switch's)."""
        timeout = self.NOTIFICATION_TIMEOUT if timeout is None else timeout
        self.toasts.notify(message, title, severity, timeout, markup, replaces)

    def clear_notifications(self) -> None:
        """Take every notice away."""
        self.toasts.clear()

    def view(self) -> View:
        notes = (*self.recording.status(), *self.practice.status())
        curve = self.learning.loss_curves.current()
        return View.of(self.session, curve, notes, self.practice.shown(), self.kept_specs)

    def refresh_views(self) -> None:
        if self.leaving:  # a worker or a timer that ends while the app closes has nothing to draw into
            return
        view = self.view()
        for screen in self.screen_stack:
            for node in list(screen.walk_children(with_self=True)):
                if isinstance(node, ViewPart):
                    node.show(view)
        self.inspect()

    def inspect(self) -> None:
        """The inspector says what the focused cell is and why it has its value; its operands light up."""
        self.why.show()
        self.practice.show()  # practice: a '?' cell says how to answer it, not its value
        s = self.session
        self.toasts.step_shown((s.step, s.block, s.mode.backward))

    # ---- layout --------------------------------------------------------------------------------
    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width, event.size.height)

    mounted = False  # on_mount has run: the screen is about to restyle every widget as it is first shown

    def _fit(self, width: int, height: int) -> None:
        # -short: the notice line has one row (app.tcss). One restyle for both classes, and none before
        # the app is mounted (the terminal's size comes first): the screen then restyles every widget
        # anyway, as it is first shown (at 80×24 that was two more passes over every widget)
        before = set(self.classes)
        self.set_class(width < NARROW_WIDTH, "-narrow", update=False)
        self.set_class(height < SHORT_HEIGHT, "-short", update=False)
        if self.mounted and set(self.classes) != before:
            self.update_node_styles()
        # by name: Textual's Footer (the gallery's and the weight browser's) is not loaded before they are
        for footer in self.query("Footer"):
            footer.compact = width < NARROW_WIDTH
        # Too small: -too-small hides every screen's content (app.tcss) and TooSmallScreen covers them
        # all, dialogs and the palette included, so no key acts on what cannot be seen.
        too_small = is_too_small(width, height)
        if too_small != self.has_class("-too-small"):
            self.set_class(too_small, "-too-small")
            for screen in self.screen_stack:  # Textual restyles only the screens it sees; all need it
                screen.update_node_styles(animate=False)
        covered = isinstance(self.screen, TooSmallScreen)
        if too_small and not covered:
            super().push_screen(TooSmallScreen())
        elif covered and not too_small:
            self.pop_screen()
        for notice in self.screen.query(TooSmall):
            notice.refresh()

    @property
    def too_small(self) -> bool:
        return self.has_class("-too-small")

    def push_screen(self, screen, callback=None, wait_for_dismiss=False, *, mode=None):  # Textual's
        # No dialog and no palette opens in a window too small for it (the notice says how large).
        if self.too_small and not wait_for_dismiss:
            self.bell()
            return AwaitMount(self.screen, [])
        return super().push_screen(screen, callback, wait_for_dismiss, mode=mode)

    def scroll_main(self, pages: int) -> None:
        main = self.query_one(StepView)
        if pages > 0:
            main.scroll_page_down(animate=False)
        else:
            main.scroll_page_up(animate=False)

    # ---- messages from the widgets -------------------------------------------------------------
    def on_step_list_chosen(self, message: StepList.Chosen) -> None:
        self.steps.goto(message.step, message.block)

    def on_step_view_edit_submitted(self, message: StepView.EditSubmitted) -> None:
        self.edits.edit_cell(message.ref, message.text, message.view)

    def on_step_view_pick_requested(self, message: StepView.PickRequested) -> None:
        self.edits.change_token(message.ref.index[0])

    def cursor_moved(self, view: StepView) -> None:
        """A step view's cursor moved: called by the view itself, so the inspector is drawn in the same
        frame as the cursor."""
        self.inspect()

    def on_descendant_focus(self) -> None:
        self.inspect()

    # ---- help ----------------------------------------------------------------------------------
    def help_sources(self) -> list[tuple[str, list[Binding]]]:
        bindings = [b for b in type(self).BINDINGS if isinstance(b, Binding)]
        # what applies now first: outside a replay, "Next event" goes below the keys that work
        now = sorted(
            bindings, key=lambda b: not self.applies(ACTION_BY_ID[b.id]) if b.id in ACTION_BY_ID else 0
        )
        return [
            ("anywhere", now),
            ("in a table", list(StepView.BINDINGS)),  # type: ignore[arg-type]
            ("in the step list", list(StepList.BINDINGS)),  # type: ignore[arg-type]
            ("panes", [b for b in Screen.BINDINGS if isinstance(b, Binding)]),
        ]

    def show_help(self) -> None:
        from tinytui.lesson.texts.glossary import for_model
        from tinytui.tui.screens.help_screen import NOTES, HelpScreen, help_rows

        glossary = for_model(GLOSSARY, self.session.trace.cfg)  # in this model's sizes
        self.push_screen(HelpScreen(help_rows(self, self.help_sources()), NOTES, glossary))

    def show_notices(self) -> None:
        from tinytui.tui.screens.notice_log_screen import NoticeLogScreen

        self.push_screen(NoticeLogScreen(self.toasts.log))
