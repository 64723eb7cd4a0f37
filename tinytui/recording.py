"""Recording, replay and screenshots inside the app: keys, actions, palette entries and status pieces.

TinyTuiApp mixes in RecordingActions, puts RECORDING_BINDINGS and REPLAY_BINDINGS into its BINDINGS,
calls setup_recording() from __init__ and start_recording_and_replay() once mounted. Everything the user
does still goes through app.apply(); a tinytui.recorder.Recorder listens to the session's events, and a
tinytui.replay.Replayer re-applies recorded ones.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from textual.binding import Binding

from tinytui.paths import check_record_path, check_screenshot_path, free_path, screenshot_name
from tinytui.recorder import Recorder, events_path
from tinytui.replay import Replayer
from tinytui.screens.path import PathScreen

RECORDING_BINDINGS = [
    # One key, two bindings: check_action enables the one that applies. Only "Stop rec" takes footer
    # room (starting is in help and the palette), so 80 columns still show ? Help and q Quit.
    Binding("ctrl+t", "start_recording", "Record", show=False, id="start-recording",
            tooltip="Start recording this session to a text file (asks for the file)"),
    Binding("ctrl+t", "stop_recording", "Stop rec", id="stop-recording",
            tooltip="Stop recording; the transcript and its .jsonl stay on disk"),
    Binding("w", "save_screenshot", "Screenshot", show=False, id="save-screenshot",
            tooltip="Save the screen as an SVG named after the step, in the current folder"),
]  # fmt: skip

# Listed first in the app's BINDINGS so that, during a replay, n takes the next recorded event before it
# would go to the next step; once the replay is done check_action turns it off and n steps again.
REPLAY_BINDINGS = [
    Binding("n", "next_event", "Next event", id="next-event",
            tooltip="While replaying: apply the next recorded event (then n goes back to the next step)"),
]  # fmt: skip


# ---- file names ------------------------------------------------------------------------------------
# screenshot_name, free_path, check_record_path and check_screenshot_path live in tinytui.paths (no
# Textual, every path check in one place) and are imported above, so they stay importable from here.


# ---- the app side ------------------------------------------------------------------------------------


class RecordingActions:
    """Mixed into TinyTuiApp (which provides session, apply, notify, push_screen, refresh_views)."""

    recorder: Recorder | None = None  # the current or last recording
    replayer: Replayer | None = None

    def setup_recording(self, record: str | None, replay: Replayer | None) -> None:
        """From __init__: remember what to start once mounted, add the palette entries and status pieces."""
        self.replayer = replay
        self._record_at_start = record
        self.command_sources.append(recording_commands)
        self.status_notes.append(recording_status)

    def start_recording_and_replay(self) -> None:
        """From on_mount: --record starts recording, then `tinytui replay --to-end` applies every event."""
        if self._record_at_start is not None:
            self.start_recording(Path(self._record_at_start))
        replayer = self.replayer
        if replayer is None:
            return
        if replayer.to_end and not replayer.done:
            self.apply(lambda s: replayer.apply_all(s), "replay to the end")
            self.notify(self._replay_summary(), title="Replayed to the end", timeout=8)
        elif not replayer.done:
            self.notify(
                f"Replaying {replayer.recording.source.name}: n applies each recorded event in turn. "
                f"Next: {replayer.describe()}",
                title="Replay",
                timeout=8,
            )
        self._warn_if_diverged(None)
        self.refresh_bindings()

    # ---- recording ---------------------------------------------------------------------------------
    @property
    def is_recording(self) -> bool:
        return self.recorder is not None and self.recorder.recording

    def start_recording(self, path: Path | None) -> None:
        recorder = Recorder(path, on_problem=self._recording_problem)
        recorder.attach(self.session)
        self.recorder = recorder
        if recorder.problem:
            self.notify(recorder.problem, title="Recording in memory", severity="error", timeout=12)
        elif path is not None:
            self.notify(
                f"Recording to {path} (events for replay in {events_path(path).name}). ctrl+t stops.",
                title="Recording",
                timeout=6,
            )
        self.refresh_bindings()
        self.refresh_views()

    def _recording_problem(self, message: str) -> None:
        # a write failed mid-session (a full disk, a removed folder): recording goes on in memory
        self.notify(message, title="Recording in memory", severity="error", timeout=12)
        self.refresh_views()

    def action_start_recording(self) -> None:
        def chosen(path: Path | None) -> None:
            if path is not None and not self.is_recording:
                self.start_recording(path)

        suggestion = free_path(Path(), "lesson.txt").name
        hint = f"the events go beside it as {Path(suggestion).stem}.jsonl"
        self.push_screen(PathScreen("Record this session to…", suggestion, hint, check_record_path), chosen)

    def action_stop_recording(self) -> None:
        recorder = self.recorder
        if recorder is None or not recorder.recording:
            return
        recorder.stop()
        noun = "event" if recorder.events == 1 else "events"
        if recorder.path is None:
            self.notify(
                f"Recording stopped after {recorder.events} {noun}; it is only in memory. "
                "ctrl+p → Save recording to… writes it to a file.",
                title="Not saved",
                severity="warning",
                timeout=12,
            )
        else:
            self.notify(
                f"Recording stopped after {recorder.events} {noun}: {recorder.path}. "
                f"Replay it with: tinytui replay {recorder.path}",
                title="Recording saved",
                timeout=8,
            )
        self.refresh_bindings()
        self.refresh_views()

    def action_save_recording(self) -> None:
        recorder = self.recorder
        if recorder is None:
            return

        def chosen(path: Path | None) -> None:
            if path is None:
                return
            failed = recorder.set_path(path)
            if failed:
                self.notify(failed, title="Not saved", severity="error", timeout=12)
            else:
                more = "; recording goes on there" if recorder.recording else ""
                self.notify(f"Recording saved to {path}{more}.", title="Recording saved")
            self.refresh_views()

        suggestion = free_path(Path(), "lesson.txt").name
        self.push_screen(
            PathScreen(
                "Save the recording to…", suggestion, "the events go beside it (.jsonl)", check_record_path
            ),
            chosen,
        )

    def on_unmount(self) -> None:
        # Textual calls every on_unmount along the class hierarchy, so this runs on any way out:
        # the transcript then ends with how many events it holds.
        if self.recorder is not None:
            self.recorder.stop()

    # ---- replay ------------------------------------------------------------------------------------
    def action_next_event(self) -> None:
        replayer = self.replayer
        if replayer is None or replayer.done:
            return
        rec = replayer.peek()
        assert rec is not None
        diverged = replayer.diverged
        if self.apply(lambda s: replayer.apply_next(s), f"replay event {rec.seq}") is None:
            return  # refused: apply() said why; nothing changed and the event stays next
        if replayer.done:
            self.notify(self._replay_summary(), title=f"Replayed event {rec.seq}", timeout=8)
            self.refresh_bindings()
        else:
            self.notify(f"{replayer.describe(rec)}\nNext: {replayer.describe()}", title="Replayed", timeout=4)
        self._warn_if_diverged(diverged)

    def _replay_summary(self) -> str:
        replayer = self.replayer
        assert replayer is not None
        return f"{replayer.describe()}. The keys work as usual now (n: next step)."

    def _warn_if_diverged(self, before: str | None) -> None:
        replayer = self.replayer
        if replayer is not None and replayer.diverged and replayer.diverged != before:
            self.notify(
                f"The session no longer matches the recording ({replayer.diverged}); "
                "later events may not do what they did when recorded.",
                title="Replay diverged",
                severity="warning",
                timeout=12,
            )

    # ---- screenshots -------------------------------------------------------------------------------
    def action_save_screenshot(self) -> None:
        self.write_screenshot(free_path(Path(), screenshot_name(self.session.step)))

    def action_save_screenshot_as(self) -> None:
        def chosen(path: Path | None) -> None:
            if path is not None:
                self.call_after_refresh(self.write_screenshot, path)  # once this dialog is gone

        name = screenshot_name(self.session.step)
        hint = "the screen as it is under this dialog"
        self.push_screen(PathScreen("Save a screenshot (SVG) to…", name, hint, check_screenshot_path), chosen)

    def write_screenshot(self, path: Path) -> None:
        try:
            written = self.save_screenshot(path.name, str(path.parent))
        except OSError as exc:
            self.notify(
                f"Could not write {path}: {exc.strerror or exc}", title="No screenshot", severity="error"
            )
            return
        self.notify(f"Saved {written}", title="Screenshot", timeout=6)

    # ---- Textual hooks -----------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # False hides the binding from the footer and lets the key fall through to the next binding
        if action == "next_event":  # in the backward walk (tinytui/learning.py) n walks on
            walking = getattr(self, "walking", False)
            return self.replayer is not None and not self.replayer.done and not walking
        if action == "start_recording":
            return not self.is_recording
        if action == "stop_recording":
            return self.is_recording
        return super().check_action(action, parameters)  # type: ignore[misc]

    def get_system_commands(self, screen):  # Textual's signature
        # Textual's own "Screenshot" saves to Downloads under a date; ours names the file after the step.
        for command in super().get_system_commands(screen):  # type: ignore[misc]
            if command.title != "Screenshot":
                yield command


def recording_status(app: RecordingActions) -> Iterable[str]:
    """Status-line pieces: ● REC and the event count while recording; where a replay stands."""
    recorder = app.recorder
    if recorder is not None and recorder.recording:
        noun = "event" if recorder.events == 1 else "events"
        where = recorder.path.name if recorder.path is not None else "in memory only"
        yield f"● REC {recorder.events} {noun} · {where}"
    replayer = app.replayer
    if replayer is not None:
        text = replayer.describe() if replayer.done else f"replay · n: {replayer.describe()}"
        yield text + (" · diverged" if replayer.diverged else "")


def recording_commands(app) -> Iterable[object]:  # app: TinyTuiApp (imported late: it imports us)
    from tinytui.app import PaletteCommand

    recorder = app.recorder
    if app.is_recording:
        yield PaletteCommand("Stop recording", "Close the transcript (key ctrl+t)", app.action_stop_recording)
    else:
        yield PaletteCommand(
            "Start recording to a file…",
            "A plain-text transcript plus a .jsonl for tinytui replay (key ctrl+t)",
            app.action_start_recording,
        )
    if recorder is not None and recorder.path is None:
        yield PaletteCommand(
            "Save recording to…",
            "The recording is only in memory: write it to a file",
            app.action_save_recording,
        )
    replayer = app.replayer
    if replayer is not None and not replayer.done:
        yield PaletteCommand("Replay the next event", replayer.describe() + " (key n)", app.action_next_event)
    yield PaletteCommand(
        "Save a screenshot (SVG)",
        f"As {screenshot_name(app.session.step)} in the current folder (key w)",
        lambda: app.call_after_refresh(app.action_save_screenshot),  # once the palette is gone
    )
    yield PaletteCommand("Save a screenshot (SVG) to…", "Choose the file name", app.action_save_screenshot_as)
