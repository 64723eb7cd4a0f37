"""After a crash, lose nothing: stop the recording so its transcript and .jsonl end cleanly, and save the
edited model to a fresh tinytui-crash-YYYYmmdd-HHMMSS.json, then say where both are.

rescue() never raises (it runs while something else has already gone wrong) and never overwrites: the
file goes to the current folder, else the settings folder, else the temporary folder, under a name
tinytui.tui.output_paths.free_path has checked is free, written atomically and never through a link
(model.save).
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from tinytui.model.io.document import derived
from tinytui.model.io.model_file import save
from tinytui.session.session import Session
from tinytui.tui.output_paths import free_path

if TYPE_CHECKING:  # a recorder is given: its module is loaded when something was recorded
    from tinytui.recording.recorder import Recorder


# a NamedTuple, not a frozen dataclass: loaded as the app starts, and a frozen dataclass compiles
# its methods from source as its class is made (~3 M instructions; a NamedTuple's ~0.5 M)
class CrashReport(NamedTuple):
    """What rescue() saved after a crash: the error, where the edited model and the recording went (or
    why they could not be saved), to be printed once the terminal is back."""

    error: str  # "RuntimeError: boom"
    model: Path | None  # where the edited model was saved, or None (then model_problem says why)
    model_problem: str = ""
    recording: Path | None = None  # the transcript (its .jsonl beside it), if anything was recorded
    recording_problem: str = ""
    unedited: bool = False  # the weights, prompt and target were the model file's: no copy was needed

    def lines(self) -> list[str]:
        """What the command line prints on stderr once the terminal is back: two lines (a control
        character in a path, from --record say, is shown escaped rather than sent to the terminal)."""
        if self.model is not None:
            model = shown(self.model)
            saved = f"the edited model was saved to {model} (open it with: tinytui --model {model})"
        elif self.unedited:
            saved = "the model was not edited, so no copy was needed"
        else:
            saved = f"the edited model could not be saved ({self.model_problem})"
        if self.recording is not None:
            from tinytui.recording.recorder import events_path  # loaded already: it recorded

            rec, log = shown(self.recording), shown(events_path(self.recording).name)
            recorded = f"the recording is in {rec} and {log} (tinytui replay {rec})"
        elif self.recording_problem:
            recorded = f"the recording could not be saved ({self.recording_problem})"
        else:
            recorded = "nothing was being recorded"
        return [
            f"tinytui: crashed ({shown(self.error)}); the traceback is above."
            if self.error
            else "tinytui: crashed; the traceback is above.",
            f"tinytui: {saved}; {recorded}.",
        ]


def shown(text: object) -> str:
    """text with each non-printable character as its escape (\\x1b), never the character itself."""
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in str(text))


def default_folders() -> list[Path]:
    """Where a crash copy may go, in order: the current folder, the settings folder, the temp folder."""
    from tinytui.settings import config_dir

    folders = []
    for folder in (Path.cwd, config_dir, lambda: Path(tempfile.gettempdir())):
        with contextlib.suppress(OSError, RuntimeError):  # a removed current folder, no home folder
            folders.append(folder())
    return folders


def _first_that_works(
    folders: Iterable[Path], name: str, write: Callable[[Path], None]
) -> tuple[Path | None, str]:
    problem = "no folder to write to"
    for folder in folders:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = free_path(folder, name)
            write(path)
            return path, ""
        except (OSError, ValueError) as exc:
            problem = f"{folder}: {getattr(exc, 'strerror', None) or exc}"
    return None, problem


def rescue(
    session: Session,
    recorder: Recorder | None,
    error: BaseException | None,
    folders: Iterable[Path] | None = None,
    now: datetime | None = None,
) -> CrashReport:
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    where = list(folders) if folders is not None else default_folders()
    if error is None:  # raised where tinytui could not see it (while Textual drew, say)
        error_text = ""
    else:
        error_text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
        error_text = shown(error_text)[:300]

    recording, recording_problem = None, ""
    if recorder is not None:
        try:
            recorder.stop()  # the transcript ends with how many events it holds; both files are closed
            if recorder.path is not None:
                recording = recorder.path
            elif recorder.text():  # kept in memory only (no file, or its disk failed): write it now

                def write_recording(path: Path) -> None:
                    failed = recorder.set_path(path)
                    if failed:
                        raise OSError(failed.split("; still recording")[0])

                recording, recording_problem = _first_that_works(
                    where, f"tinytui-crash-{stamp}.txt", write_recording
                )
        except Exception as exc:  # the recorder itself broke: say so, still save the model
            recording_problem = f"{type(exc).__name__}: {exc}"

    m = session.model
    try:
        s = session.state
        unedited = s.params == m.params and (s.prompt, s.target) == (m.prompt, m.target)
        if unedited:  # nothing to lose (and no clutter in the folder)
            model, model_problem = None, ""
        else:
            edited = derived(m, s.params, s.prompt, s.target)
            model, model_problem = _first_that_works(
                where, f"tinytui-crash-{stamp}.json", lambda path: save(edited, path)
            )
    except Exception as exc:  # the session itself is broken
        unedited, model, model_problem = False, None, f"{type(exc).__name__}: {exc}"
    return CrashReport(error_text, model, model_problem, recording, recording_problem, unedited)
