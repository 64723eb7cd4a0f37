"""Practice: the learner works out each step's values by hand (k turns it on and off).

On, the cells the step computes are drawn as "?" (tinytui/present/practice_cells.py) until answered; the
cursor picks one, typing a number (or Enter) asks for the value and grades it from its operands as shown
(lesson/practice; the session keeps the answer, so a recording has it). Right:
the value appears after a ✓. Wrong: "not quite" and the next hint of the ladder (which cells it is
computed from, lit in the tables as the inspector lights operands; the formula; the formula with the
numbers in); h asks for one more hint without answering. The status line keeps a score for the step and
for the whole practice. A teacher marks cells (X, with an optional note) and saves them as a lesson file
(lesson/practice/lesson_file.py), which `tinytui practice lesson.json` opens for a student.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from tinytui.model.io.presets import DEFAULT, presets
from tinytui.session.state import Refused
from tinytui.tui.actions import Host
from tinytui.tui.output_paths import never_raises, new_file, unprintable

# The questions, their grading, lessons and the dialogs are imported where practice uses them: the
# debugger opens with practice off.
if TYPE_CHECKING:
    from tinytui.lesson.practice.lesson_file import Lesson
    from tinytui.lesson.practice.questions import Question
    from tinytui.model.trace import Trace
    from tinytui.session.practice_state import Practice, Sample, Shown, Source


class PracticeController:
    def __init__(self, host: Host) -> None:
        self.host = host
        self.pending: tuple | None = None  # (lesson cells, sample) to start with once the app is mounted
        self.marked: dict[Source, str] = {}  # a teacher's lesson cells, with their notes
        self.model_source: str | None = None  # --model as given (tinytui practice sets it), for a lesson
        self._listed: tuple[Trace, tuple[int, ...]] | None = None  # the run's listed vocabulary rows

    # ---- starting --------------------------------------------------------------------------------
    @property
    def state(self) -> Practice:
        """The session's practice (the session holds it, so recording and replay see every answer)."""
        return self.host.session.practice

    def begin(self, lesson: Lesson | None = None, sample: Sample | None = None) -> None:
        """Practice from the start (tinytui practice): a lesson's cells, or a sample of one step, or every
        cell; started once the app is mounted, so a recording begins with it."""
        cells = None if lesson is None else tuple((c.name, c.index, c.note) for c in lesson.cells)
        self.pending = (cells, sample)

    def start_at_mount(self) -> None:
        """Start what begin() asked for, at the step of its first question (TinyTuiApp.on_mount)."""
        if self.pending is None:
            return
        cells, sample = self.pending
        self.pending = None
        self.host.apply(lambda s: s.set_practice(True, cells, sample), "practice")
        place = self.start_place()
        if place is not None:
            number, backward, block = place
            self.host.apply(lambda s: s.goto(number, backward, block), "go to the first question")

    def start_place(self) -> tuple[int, bool, int] | None:
        """Where a started practice opens: (step, in the backward walk, block) of its first question."""
        if self.state.sample is not None:
            s = self.state.sample
            return s.number, s.backward, s.block
        if self.state.lesson:
            name = self.state.lesson[0][0]
            step, backward = self.host.why.step_of(name)  # type: ignore[attr-defined]
            if step is not None:
                return step.number, backward, step.block or 0
        return None

    # ---- what the view shows ---------------------------------------------------------------------
    def practising(self) -> bool:
        return self.host.session.practising

    def here(self) -> tuple[Source, ...]:
        """The questions of the step on screen."""
        s = self.host.session
        backward = bool(s.mode.backward)
        grads = s.gradients if backward else None
        return self.state.cells(s.trace, s.params, grads, s.step, backward, s.here.block or 0, self.listed)

    def listed(self) -> tuple[int, ...]:
        """The vocabulary rows the logits' tables list now (the only rows of those tables practice asks),
        worked out once a run: a 50,257-token vocabulary takes milliseconds, and a key asks several times."""
        trace = self.host.session.trace
        if self._listed is None or self._listed[0] is not trace:
            self._listed = (trace, listed_tokens(trace))
        return self._listed[1]

    def value_of(self, source: Source) -> float:
        try:
            return self.host.session.cell_value(source)
        except Refused:
            return math.nan  # a cell this run does not have (a shorter prompt)

    def shown(self) -> Shown | None:
        """What the tables draw as "?" and with ✓ (None when not practising)."""
        if not self.host.session.practising:
            return None
        return self.state.shown(self.here(), self.value_of)

    def status(self) -> tuple[str, ...]:
        """The status line's piece: the step's score and the whole practice's, short enough to fit beside
        the switches on an 80-column screen ('practice: 1/32', 'practice: 0/48 · in all 2/80')."""
        pieces = []
        if self.host.session.practising:
            right, asked = self.state.score(self.here(), self.value_of)
            all_right, all_asked = self.state.overall(self.value_of)
            step = f"{right}/{asked}" if asked else "none here"
            same = (right, asked) == (all_right, all_asked)  # one step's sample: the step is the practice
            pieces.append(f"practice: {step}" + ("" if same else f" · in all {all_right}/{all_asked}"))
        if self.marked:
            pieces.append(f"lesson: {len(self.marked)} cell{'s' if len(self.marked) != 1 else ''} marked")
        return tuple(pieces)

    def note(self) -> str:
        return "now on" if self.host.session.practising else "now off"

    # ---- the focused question --------------------------------------------------------------------
    def focused(self) -> Source | None:
        """The question under the cursor, still to answer right (None if there is none)."""
        if not self.host.session.practising:
            return None
        source = self.host.why.focused_source()  # type: ignore[attr-defined]
        if source is None:
            return None
        source = (source[0], tuple(source[1]))
        if source not in self.here() or self.state.is_right(source, self.value_of(source)):
            return None
        return source

    def can_answer(self) -> bool:
        return self.focused() is not None

    def question(self, source: Source) -> Question:
        from tinytui.lesson.practice.questions import Question
        from tinytui.lesson.why.explain import explain

        s = self.host.session
        return Question(explain(s.trace, s.params, source[0], source[1], s.gradients))

    def cell(self, source: Source) -> str:
        from tinytui.lesson.practice.questions import cell_text

        return cell_text(*source, self.host.session.trace.cfg.n_blocks)

    def hint_text(self, source: Source, rung: int) -> str:
        from tinytui.session.practice_state import hint_line

        s = self.host.session
        return hint_line(s.trace, s.params, s.gradients, source, rung)

    # ---- answering -------------------------------------------------------------------------------
    def toggle(self) -> None:
        on = not self.state.on
        self.host.apply(lambda s: s.set_practice(on), "practice")
        if self.state.on:
            self.host.notify(
                "Practice: each step's values are '?' until you work them out. Enter on a '?' to answer, "
                "h for a hint, k to stop.",
                title="Practice on",
                timeout=6,
            )
        self.host.refresh_bindings()

    def answer(self, typed: str = "") -> None:
        """Ask for the value of the ? under the cursor (typed: the key that opened the box, already in it)."""
        source = self.focused()
        if source is None:
            self.host.bell()
            return
        from tinytui.lesson.practice.grading import accepted
        from tinytui.tui.screens.ask_screen import AskScreen

        note = self.state.notes.get(source) or self.marked.get(source, "")
        rung = self.state.rung(source)
        ok = accepted(self.question(source).why)
        words = self.hint_text(source, rung) if rung else "h or a wrong answer gives a hint"
        words = f"right: {ok.rule_text()}\n{words}"
        if note:  # the teacher's note whole, on lines of its own (the box wraps it)
            words = f"{note}\n{words}"
        title = f"Your value for {self.cell(source)}"

        def submit(text: str) -> str | None:
            event = self.host.apply(lambda s: s.answer(source[0], source[1], text), "answer")
            if event is None:  # refused: the notice says why
                return None
            if event.data["correct"]:  # type: ignore[attr-defined]
                self.host.notify(event.data["shown"], title="Right", timeout=3)  # type: ignore[attr-defined]
                return None
            return event.data["shown"]  # type: ignore[attr-defined]

        # the key that opened the box is its first character: the keys after it go on from its end, even
        # those that arrive before the box has the focus (an answer typed fast, or pasted as keys)
        def answered(taken: bool | None) -> None:
            if taken:  # the box is gone: the inspector gives the cell's value and why, not "= ?"
                self.host.inspect()

        self.host.push_screen(AskScreen(title, typed, words, submit, select_on_focus=not typed), answered)

    def more_hint(self) -> None:
        source = self.focused()
        if source is None:
            self.host.bell()
            return
        event = self.host.apply(lambda s: s.more_hint(source[0], source[1]), "hint")
        if event is not None:
            self.host.notify(event.data["shown"], title=f"Hint for {self.cell(source)}", timeout=8)  # type: ignore[attr-defined]

    def show(self) -> None:
        """After the inspector (TinyTuiApp.inspect): on a cell still to work out it says how to answer and
        the hint so far instead of the value, and lights the cells of the first hint once it was given."""
        from tinytui.tui.widgets.status_bar import Inspector

        source = self.focused()
        if source is None:
            return
        from tinytui.present.practice_cells import ask_line

        rung = self.state.rung(source)
        line = ask_line(source, self.host.session.trace.cfg.n_blocks)
        note = self.state.notes.get(source) or self.marked.get(source, "")
        if note:  # the teacher's note whole, where the question is asked (the inspector wraps it)
            line += f"\nnote: {note}"
        if rung:
            line += " · " + self.hint_text(source, rung)
        self.host.why.light(self.question(source).why if rung else None)  # type: ignore[attr-defined]
        for inspector in self.host.screen.walk_children(Inspector):
            inspector.describe(line, None, "")

    # ---- a teacher's lesson ----------------------------------------------------------------------
    def mark(self) -> None:
        """Mark the computed cell under the cursor as a lesson question (asks for an optional note), or
        unmark it."""
        source = self.host.why.focused_source()  # type: ignore[attr-defined]
        if source is None or self.host.why.current() is None:  # type: ignore[attr-defined]
            self.host.bell()
            self.host.notify("Put the cursor on a computed cell to mark it as a question.", timeout=3)
            return
        source = (source[0], tuple(source[1]))
        if source not in self.marked and (why := self.unaskable(source)):
            self.host.bell()
            self.host.notify(why, timeout=5)
            return
        if source in self.marked:
            del self.marked[source]
            self.host.notify(f"{self.cell(source)} is no longer a lesson question.", timeout=3)
            self.host.refresh_views()
            return
        from tinytui.tui.screens.ask_screen import AskScreen

        def submit(text: str) -> str | None:
            if unprintable(text) or len(text) > 500:
                return "a note is one line of at most 500 printable characters"
            self.marked[source] = text.strip()
            self.host.refresh_views()
            return None

        self.host.push_screen(
            AskScreen(
                f"Mark {self.cell(source)} as a lesson question",
                "",
                "a note for the student (optional)",
                submit,
            )
        )

    def unaskable(self, source: Source) -> str:
        """Why a cell cannot be a lesson question ("" when it can): a row over a long vocabulary that the
        logit pane does not list has operands no screen shows (tinytui practice refuses it too)."""
        from tinytui.lesson.practice.questions import BY_TOKEN

        name, index = source
        if name not in BY_TOKEN or not index or index[0] in self.listed():
            return ""
        return (
            f"{self.cell(source)} cannot be worked out from the screen: the logit pane lists only the most "
            "likely tokens and the target. Mark one of their rows."
        )

    def lesson(self) -> Lesson:
        """The marked cells as a lesson of this run (its prompt, target, switches, rate and edits)."""
        from tinytui.lesson.practice.lesson_file import Edit, Lesson, LessonCell

        s = self.host.session
        edits = tuple(
            Edit(name, tuple(ix), float(s.params[name][tuple(ix)]))
            for name, cells in s.params.changed_cells(s.model.params).items()
            for ix in cells
        )
        cells = tuple(LessonCell(n, ix, note) for (n, ix), note in self.marked.items())
        return Lesson(
            tuple(s.trace.prompt),
            s.trace.target,
            s.trace.switches,
            cells,
            edits,
            self.model_text(),
            "",
            s.state.lr,
        )

    def model_text(self) -> str | None:
        """The lesson's "model": --model as given (a file's full path), else the model's name when it is a
        preset's; None for the chapter's own."""
        if self.model_source is not None:
            given = Path(self.model_source).expanduser()
            return str(given.resolve()) if given.exists() else self.model_source
        name = self.host.session.model.name
        return None if name == DEFAULT else name

    def can_save(self) -> bool:
        return bool(self.marked)

    def save_lesson(self) -> None:
        if not self.marked:
            self.host.notify("Mark a cell first (X on a computed cell).", timeout=3)
            return
        from tinytui.lesson.practice.lesson_file import save_lesson
        from tinytui.tui.screens.path_screen import PathScreen

        def chosen(path: Path | None) -> None:
            if path is None:
                return
            try:
                save_lesson(path, self.lesson())
            except OSError as exc:
                self.host.notify(
                    f"Could not write {path}: {exc.strerror or exc}", severity="error", markup=False
                )
                return
            self.host.notify(
                f"Saved {path}. A student opens it with: tinytui practice {path}", title="Saved", markup=False
            )
            model = self.model_text()
            if model is not None and model not in presets() and not Path(model).exists():
                self.host.notify(
                    f"The lesson names its model {model!r}, which is no preset: put the model file's path in "
                    'its "model" field (a path relative to the lesson is read from the lesson\'s folder).',
                    severity="warning",
                    timeout=10,
                )

        self.host.push_screen(
            PathScreen(
                "Save the marked cells as a lesson",
                "lesson.json",
                "a tinytui-lesson/1 file",
                lambda text: check_lesson_path(text, self.host.recording.files_in_use()),
            ),
            chosen,
        )


def listed_tokens(trace: Trace) -> tuple[int, ...]:
    """The vocabulary rows the logit pane and the walk's ∂L/∂ℓ table list for a run: all of a short
    vocabulary, of a long one its most likely tokens and the target."""
    from tinytui.present.top_tokens import shown_tokens  # the logits' steps only

    vocab = trace.cfg.vocab
    return shown_tokens(trace["probs"], vocab.index(trace.target) if trace.target in vocab else None).ids


@never_raises
def check_lesson_path(text: str, busy: Iterable[Path] = ()) -> tuple[Path | None, str]:
    """A lesson's path for PathScreen: .json added when there is no suffix; asks before overwriting;
    never one of busy, the files a recording is writing."""
    path, why = new_file(text, ".json", "lesson.json", busy)
    if path is None:
        return None, why
    if os.path.lexists(path):
        return path, f"{path.name} exists. Press Enter again to overwrite it, or change the name."
    return path, ""
