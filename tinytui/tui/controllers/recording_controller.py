"""Recording, replay and screenshots: start and stop a recording, save one kept in memory, apply a
recorded session's events one by one, and save the screen as an SVG named after the step.

A tinytui.recording.recorder.Recorder listens to the session's events; a
tinytui.recording.replay.Replayer re-applies
recorded ones through host.apply(), like any other change."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from rich.markup import escape

from tinytui.model.io.safe_io import atomic_writer
from tinytui.tui.actions import Host
from tinytui.tui.output_paths import (
    check_record_path,
    check_screenshot_path,
    free_path,
    screenshot_name,
    write_free,
)

if TYPE_CHECKING:  # the recorder and the dialogs are imported when a recording or a dialog starts
    from tinytui.recording.recorder import Recorder
    from tinytui.recording.replay import Replayer


class RecordingController:
    def __init__(self, host: Host, record: str | None, replayer: Replayer | None) -> None:
        self.host = host
        self.recorder: Recorder | None = None  # the current or last recording
        self.replayer = replayer
        self._record_at_start = record
        self._replay_left = None  # (step, mode) where the last replayed event left the session
        self._let_go = False  # the user chose to quit without the events held only in memory

    def start_at_mount(self) -> None:
        """Once the app is mounted: --record starts recording, then `tinytui replay --to-end` applies
        every event (a recording then holds them too)."""
        host, replayer = self.host, self.replayer
        if self._record_at_start is not None:
            self.start_recording(Path(self._record_at_start))
        if replayer is None:
            return
        if replayer.recording.notice:  # the .jsonl was damaged or short: another copy or its whole lines
            host.notify(
                escape(replayer.recording.notice),
                title="The .jsonl is cut short or damaged",
                severity="warning",
                timeout=12,
            )
        if replayer.to_end and not replayer.done:
            host.apply(lambda s: replayer.apply_all(s), "replay to the end")
            host.notify(self._replay_summary(), title="Replayed to the end", timeout=8)
        elif not replayer.done:
            host.notify(
                f"Replaying {replayer.recording.source.name}: n applies each recorded event in turn. "
                f"Next: {replayer.describe()}",
                title="Replay",
                timeout=8,
            )
        self._warn_if_diverged(None)
        host.refresh_bindings()

    # ---- recording ---------------------------------------------------------------------------------
    def recording(self) -> bool:
        return self.recorder is not None and self.recorder.recording

    def can_start(self) -> bool:
        return not self.recording()

    def in_memory(self) -> bool:
        return self.recorder is not None and self.recorder.path is None

    def files_in_use(self) -> tuple[Path, ...]:
        """The files the recording is writing now, its transcript and .jsonl: nothing else the app saves
        may go over them (output_paths.being_written); none once it stops, or goes on only in memory."""
        recorder = self.recorder
        if recorder is None or not recorder.recording or recorder.path is None:
            return ()
        from tinytui.recording.recorder import events_path

        return (recorder.path, events_path(recorder.path))

    def start_recording(self, path: Path | None) -> None:
        from tinytui.recording.recorder import Recorder, events_path

        host = self.host
        recorder = Recorder(path, on_problem=self._recording_problem)
        recorder.attach(host.session)
        self.recorder = recorder
        if recorder.problem:
            host.notify(recorder.problem, title="Recording in memory", severity="error", timeout=12)
        elif path is not None:
            host.notify(
                f"Recording to {path} (events for replay in {events_path(path).name}). ctrl+t stops.",
                title="Recording",
                timeout=6,
            )
        host.refresh_bindings()
        host.refresh_views()

    def _recording_problem(self, message: str) -> None:
        # a write failed mid-session (a full disk, a removed folder): recording goes on in memory
        self.host.notify(message, title="Recording in memory", severity="error", timeout=12)
        self.host.refresh_views()

    def start(self) -> None:
        from tinytui.tui.screens.path_screen import PathScreen

        def chosen(path: Path | None) -> None:
            if path is not None and not self.recording():
                self.start_recording(path)

        suggestion = free_path(Path(), "lesson.txt").name
        hint = f"the events go beside it as {Path(suggestion).stem}.jsonl"
        screen = PathScreen("Record this session to…", suggestion, hint, check_record_path)
        self.host.push_screen(screen, chosen)

    def stop(self) -> None:
        host, recorder = self.host, self.recorder
        if recorder is None or not recorder.recording:
            return
        recorder.stop()
        noun = "event" if recorder.events == 1 else "events"
        if recorder.path is None:
            host.notify(
                f"Recording stopped after {recorder.events} {noun}; it is only in memory. "
                "ctrl+p → Save recording to… writes it to a file.",
                title="Not saved",
                severity="warning",
                timeout=12,
            )
        else:
            host.notify(
                f"Recording stopped after {recorder.events} {noun}: {recorder.path}. "
                f"Replay it with: tinytui replay {recorder.path}",
                title="Recording saved",
                timeout=8,
            )
        host.refresh_bindings()
        host.refresh_views()

    def save_to(self) -> None:
        host, recorder = self.host, self.recorder
        if recorder is None:
            return
        from tinytui.tui.screens.path_screen import PathScreen

        def chosen(path: Path | None) -> None:
            if path is None:
                return
            failed = recorder.set_path(path)
            if failed:
                host.notify(failed, title="Not saved", severity="error", timeout=12, markup=False)
            else:
                more = "; recording goes on there" if recorder.recording else ""
                host.notify(f"Recording saved to {path}{more}.", title="Recording saved", markup=False)
            host.refresh_views()

        suggestion = free_path(Path(), "lesson.txt").name
        hint = "the events go beside it (.jsonl)"
        host.push_screen(PathScreen("Save the recording to…", suggestion, hint, check_record_path), chosen)

    def add_note(self) -> None:
        """N: a note for the class, written into the recording where the session stands now."""
        host = self.host
        if not self.recording():
            host.notify(
                "A note goes into a recording: ctrl+t starts one, then N writes a note where you are.",
                title="Not recording",
                severity="warning",
            )
            return
        from tinytui.tui.screens.ask_screen import AskScreen

        def submit(text: str) -> str | None:
            refused: list[str] = []
            if host.apply(lambda s: s.add_note(text), "note", refused.append) is None:
                return refused[0] if refused else "not done"
            host.notify("The note is in the recording here.", title="Note added", timeout=3)
            return None

        hint = "for the class, kept here in the recording: the transcript and the handout show it"
        host.push_screen(AskScreen("Add a note for the class", "", hint, submit, select_on_focus=False))

    def note_note(self) -> str:
        """The palette's word on where a note would go."""
        if self.recording():
            assert self.recorder is not None
            where = self.recorder.path.name if self.recorder.path is not None else "memory"
            return f"into the recording ({where})"
        return "start a recording first (ctrl+t)"

    def ask_before_quit(self, then: Callable[[], None]) -> bool:
        """q while recorded events are held only in memory (the file failed, or no file was given): ask
        where to save them first. True when it asks; then() runs once they are saved, or once the user
        agreed to lose them. False when nothing is held only in memory."""
        recorder = self.recorder
        if recorder is None or recorder.path is not None or not recorder.events or self._let_go:
            return False
        from tinytui.tui.screens.confirm_screen import ConfirmScreen
        from tinytui.tui.screens.path_screen import PathScreen

        host = self.host
        held = f"{recorder.events} recorded event{'s' if recorder.events != 1 else ''}"

        def lost(yes: bool | None) -> None:
            if yes:
                self._let_go = True
                then()

        def chosen(path: Path | None) -> None:
            if path is None:
                question = f"Quit and lose the {held} held only in memory?"
                host.push_screen(ConfirmScreen(question, "Quit", "Stay"), lost)
                return
            failed = recorder.set_path(path)
            host.refresh_views()
            if failed:  # q asks again
                host.notify(failed, title="Not saved", severity="error", timeout=12, markup=False)
                return
            host.notify(f"Recording saved to {path}.", title="Recording saved", markup=False)
            then()

        title = f"Save the {held} before quitting…"
        hint = "they are only in memory; the events go beside it (.jsonl); without them: Esc, then y"
        suggestion = free_path(Path(), "lesson.txt").name
        host.push_screen(PathScreen(title, suggestion, hint, check_record_path), chosen)
        return True

    def close(self) -> None:
        """On any way out: the transcript then ends with how many events it holds."""
        if self.recorder is not None:
            self.recorder.stop()

    # ---- replay ------------------------------------------------------------------------------------
    def replaying(self) -> bool:
        """n takes the next recorded event while a replay has events left. In a backward walk the user
        entered (or moved in) themselves, n walks on; in one the replay entered, n goes on replaying."""
        replayer, s = self.replayer, self.host.session
        if replayer is None or replayer.done:
            return False
        return not s.mode.backward or self._replay_left == (s.step, s.mode)

    def next_event(self) -> None:
        host, replayer = self.host, self.replayer
        if replayer is None or replayer.done:
            return
        rec = replayer.peek()
        assert rec is not None
        diverged = replayer.diverged
        if host.apply(lambda s: replayer.apply_next(s), f"replay event {rec.seq}") is None:
            return  # refused: apply() said why; nothing changed and the event stays next
        self._replay_left = (host.session.step, host.session.mode)
        if replayer.done:
            host.notify(self._replay_summary(), title=f"Replayed event {rec.seq}", timeout=8)
        else:
            said = f"{replayer.describe(rec)}\nNext: {replayer.describe()}"  # a note's text, tokens: as typed
            host.notify(escape(said), title="Replayed", timeout=max(4, len(said) / 20))
        host.refresh_bindings()  # a replayed walk step changes what n and b do
        self._warn_if_diverged(diverged)

    def replay_note(self) -> str:
        return self.replayer.describe() if self.replayer is not None else ""

    def _replay_summary(self) -> str:
        assert self.replayer is not None
        return f"{self.replayer.describe()}. The keys work as usual now (n: next step)."

    def _warn_if_diverged(self, before: str | None) -> None:
        replayer = self.replayer
        if replayer is not None and replayer.diverged and replayer.diverged != before:
            self.host.notify(
                f"The session no longer matches the recording ({replayer.diverged}); "
                "later events may not do what they did when recorded.",
                title="Replay diverged",
                severity="warning",
                timeout=12,
            )

    # ---- screenshots -------------------------------------------------------------------------------
    def screenshot(self) -> None:
        # after the next refresh, so a palette or dialog that asked for it (and the toasts, such as the
        # last screenshot's "Saved …") are gone from the picture; the free name is taken then too
        self.host.clear_notifications()
        self.host.call_after_refresh(
            self.write_screenshot, Path(screenshot_name(self.host.session.step)), True
        )

    def screenshot_note(self) -> str:
        return f"As {screenshot_name(self.host.session.step)} in the current folder"

    def screenshot_as(self) -> None:
        from tinytui.tui.screens.path_screen import PathScreen

        def chosen(path: Path | None) -> None:
            if path is not None:
                self.host.clear_notifications()
                self.host.call_after_refresh(self.write_screenshot, path)  # once this dialog is gone

        name = screenshot_name(self.host.session.step)
        hint = "the screen as it is under this dialog"
        screen = PathScreen(
            "Save a screenshot (SVG) to…",
            name,
            hint,
            lambda text: check_screenshot_path(text, self.files_in_use()),
        )
        self.host.push_screen(screen, chosen)

    def write_screenshot(self, path: Path, fresh: bool = False) -> None:
        """The screen as SVG, written whole or not at all (a full disk leaves no empty .svg behind) and
        never through a symbolic link. fresh: never replacing a file, at path or the first free name
        after it (path-2.svg …) when it is written."""
        host = self.host
        try:
            svg = host.export_screenshot()
            if fresh:
                path = write_free(path.parent, path.name, svg)
            else:
                with atomic_writer(path) as f:
                    f.write(svg)
        except OSError as exc:
            why = exc.strerror or exc
            host.notify(
                f"Could not write {path}: {why}", title="No screenshot", severity="error", markup=False
            )
            return
        host.notify(f"Saved {path}", title="Screenshot", timeout=6, markup=False)

    # ---- the status line ---------------------------------------------------------------------------
    def status(self) -> Iterable[str]:
        """● REC and the event count while recording; where a replay stands."""
        recorder = self.recorder
        if recorder is not None and recorder.recording:
            noun = "event" if recorder.events == 1 else "events"
            where = recorder.path.name if recorder.path is not None else "in memory only"
            yield f"● REC {recorder.events} {noun} · {where}"
        replayer = self.replayer
        if replayer is not None:
            text = replayer.describe() if replayer.done else f"replay · n: {replayer.describe()}"
            yield text + (" · diverged" if replayer.diverged else "")
