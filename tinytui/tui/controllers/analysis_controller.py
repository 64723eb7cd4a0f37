"""Why this prediction (issue 46): activation patching's corrupted prompt and foil, asked for in two
boxes, and a two-run compare, A chosen from a short list. The logit lens needs nothing: steps 13 and 14
and the watch pane show it. What is set lives in the session (tinytui.session.second_runs), so a
recording keeps it and a replay sets it again; the tables are present's (lens_tables, patch_tables,
compare_tables).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.worker import get_current_worker

from tinytui.session.state import Event, Refused, State
from tinytui.tui.actions import Host

if TYPE_CHECKING:  # the patching, the second runs and the dialogs: imported by the actions that use them
    from tinytui.model.analysis.patching import Patching
    from tinytui.session.second_runs import PatchSetting

PATCH_STEP = 14  # where the heatmap shows (beside the lens)

# A two-run compare's choices of A, in the order the list shows them (B is the state now).
COMPARE_CHOICES = (
    ("pinned", "Pin the state now as A (then change anything: B − A is what moved)"),
    ("file", "The model file as loaded (B − A: what the edits changed)"),
    ("before", "The state before the last change (a learning step, an edit, …)"),
    ("prompt", "This model on another prompt of the same length…"),
    ("model", "Another model file of the same shape…"),
)


class AnalysisController:
    def __init__(self, host: Host) -> None:
        self.host = host
        self._making: tuple[State, PatchSetting] | None = None  # the patching a thread is making
        host.session.make_patching_elsewhere(self.make_elsewhere)

    # ---- activation patching ---------------------------------------------------------------------
    def patch(self) -> None:
        """Ask for the corrupted prompt, then the foil; refusals are said in the box, in one line."""
        from tinytui.session.second_runs import counted, prompt_text, read_prompt
        from tinytui.tui.screens.ask_screen import AskScreen

        host, s = self.host, self.host.session
        n = len(s.state.prompt)

        chosen: list[tuple[str, ...]] = []

        def take_prompt(text: str) -> str | None:
            try:
                tokens = read_prompt(s.model, text)
            except Refused as why:
                return str(why)
            if len(tokens) != n:
                return f"{counted(len(tokens))}; the prompt has {n}: patching needs prompts as long"
            chosen[:] = [tokens]
            return None

        def then_foil(taken: bool | None) -> None:  # once the first box has closed
            if taken and chosen:
                self._ask_foil(chosen[0])

        now = s.patch_setting.corrupt if s.patch_setting is not None else s.state.prompt
        hint = f"A prompt of {counted(n)} that changes what the model predicts"
        box = AskScreen("Patch a corrupted prompt", prompt_text(s.model, now), hint, take_prompt)
        host.push_screen(box, then_foil)

    def _ask_foil(self, corrupt: tuple[str, ...]) -> None:
        from tinytui.tui.screens.ask_screen import AskScreen

        host, s = self.host, self.host.session

        def take_foil(text: str) -> str | None:
            def change(session):
                return session.set_patching(list(corrupt), text)

            refused: list[str] = []
            if not isinstance(self._apply(change, "patch", refused.append), Event):
                return refused[0] if refused else "not done"
            host.withdraw_refusal()
            if host.session.mode.backward:  # the heatmap is the forward step's, not the walk's
                host.learning.leave_walk()
            host.steps.goto(PATCH_STEP)  # its tables, or "patching…" while a thread makes them
            return None

        foil = s.patch_setting.foil if s.patch_setting is not None else ""
        hint = (
            f"The token logit({s.state.target}) is compared with: the metric is logit(target) − logit(foil)"
        )
        host.push_screen(AskScreen("The foil token", foil, hint, take_foil))

    # A costly patching (GPT-2: hundreds of runs of the corrupted prompt) is made in a thread, so the
    # screen never waits for it: the session asks for it (SecondRuns.elsewhere) when a pane first needs it,
    # and the next change's patching takes its place (the worker before is told to stop).
    def make_elsewhere(self, state: State, setting: PatchSetting) -> None:
        making = self._making
        if making is not None and making[0] is state and making[1] == setting:
            return  # already being made: asked again by the next redraw
        self._making = (state, setting)
        self.host.run_worker(
            lambda: self._patch_in_thread(state, setting),
            thread=True,
            group="patch",
            exclusive=True,
            exit_on_error=False,
        )

    def _patch_in_thread(self, state: State, setting: PatchSetting) -> None:
        from tinytui.model.analysis.patching import Stopped
        from tinytui.session.second_runs import make_patching

        worker = get_current_worker()
        try:
            made = make_patching(state, setting, stop=lambda: worker.is_cancelled)
        except Stopped:
            return
        except Exception as exc:  # a run that cannot be made (memory): patching goes off, and says why
            if not worker.is_cancelled:
                self.host.call_from_thread(self._failed, state, setting, exc)
            return
        if not worker.is_cancelled:
            self.host.call_from_thread(self._made, state, setting, made)

    def _made(self, state: State, setting: PatchSetting, made: Patching) -> None:
        self.host.session.second_runs.keep(state, setting, made)
        if self._making is not None and self._making[0] is state:
            self._making = None
        if self.host.session.state is state:
            self.host.refresh_views()

    def _failed(self, state: State, setting: PatchSetting, exc: Exception) -> None:
        self._making = None
        if self.host.session.state is state and self.host.session.patch_setting == setting:
            self._apply(lambda s: s.set_patching(None), "patching off")
        self.host.notify(f"Patching could not be made ({exc}): it is off; A sets it again", severity="error")

    def patch_off(self) -> None:
        self._apply(lambda s: s.set_patching(None), "patching off")

    def patching(self) -> bool:
        return self.host.session.patch_setting is not None

    def _apply(self, change, describe: str, on_refused=None) -> object:
        """A change of the patching or the compare: the footer's A and C follow it (actions.py)."""
        done = self.host.apply(change, describe, on_refused)
        self.host.refresh_bindings()
        return done

    def patch_note(self) -> str:
        setting = self.host.session.patch_setting
        if setting is None:
            return "now off"
        return f"now into “{' '.join(setting.corrupt)}”, foil {setting.foil}"

    # ---- a two-run compare -------------------------------------------------------------------------
    def compare(self) -> None:
        """Choose A (B is the state now); while comparing, the list also stops it."""
        from tinytui.tui.screens.pick_screen import PickScreen

        choices = list(COMPARE_CHOICES)
        if self.comparing():
            choices.insert(0, ("off", "Stop comparing"))
        current = self.host.session.comparison.kind if self.comparing() else None
        self.host.push_screen(PickScreen("Compare two runs: A is…", choices, current), self._chosen)

    def _chosen(self, kind: str | None) -> None:
        if kind:
            self.compare_with(kind)

    def compare_with(self, kind: str) -> None:
        from tinytui.session.second_runs import counted, prompt_text
        from tinytui.tui.screens.ask_screen import AskScreen

        host, s = self.host, self.host.session
        if kind == "prompt":

            def take_prompt(text: str) -> str | None:
                return self._set(lambda session: session.compare_with("prompt", text))

            n = len(s.state.prompt)
            hint = f"Another prompt of {counted(n)}: A runs it on the same weights"
            host.push_screen(
                AskScreen(
                    "Compare with another prompt", prompt_text(s.model, s.state.prompt), hint, take_prompt
                )
            )
        elif kind == "model":

            def take_path(text: str) -> str | None:
                if not text.strip():  # Path("") is the current folder, read as a checkpoint folder
                    return "Type the path of a model file or checkpoint folder, or a preset, e.g. edited.json"
                return self._set(lambda session: session.compare_with("model", path=text.strip()))

            hint = "A model file, checkpoint folder or preset (chapter17-trained) with weights this shape"
            host.push_screen(AskScreen("Compare with another model file", "", hint, take_path))
        else:
            self._apply(lambda session: session.compare_with(kind), "compare")

    def _set(self, change) -> str | None:
        refused: list[str] = []
        event = self._apply(change, "compare", refused.append)
        if not isinstance(event, Event):
            return refused[0] if refused else "not done"
        self.host.withdraw_refusal()
        return None

    def stop_comparing(self) -> None:
        self._apply(lambda s: s.compare_with("off"), "stop comparing")

    def comparing(self) -> bool:
        return self.host.session.comparison is not None

    def compare_note(self) -> str:
        comparison = self.host.session.comparison
        return f"now A is {comparison.words}" if comparison is not None else "now off"
