"""The debugger's state without any UI: params history (undo/redo), switches, prompt, traces, events.

The app and the replayer drive a Session; the recorder listens to its events. Every change makes a new
immutable State and recomputes from the first part of the forward it touches (the rest of the trace is
kept), so undo is just moving a cursor, and back to the trace before the last change it computes
nothing (tinytui.session.history). This module holds what a user
can ask for (moving between steps, changes, learning) and checks every request in one place; the
history, the traces it keeps and the events it emits are in tinytui.session.history, the value types
(State, Mode, Event, Training, Refused) in tinytui.session.state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from tinytui.lesson import step_path
from tinytui.lesson.stages import FIRST, LAST
from tinytui.model import checks
from tinytui.model.generation.sampling import Sampling
from tinytui.model.names import canonical, label
from tinytui.model.switches import defaults as default_switches
from tinytui.model.switches import run_config
from tinytui.session.history import TracedHistory
from tinytui.session.state import WALK, WALK_FIRST, WALK_LAST, Event, Kind, Mode, Refused, State, Training

if TYPE_CHECKING:  # learning, practice and second runs are imported by the methods that use them
    from tinytui.model.params import Params
    from tinytui.model.switches import Switches
    from tinytui.model.trace import Trace
    from tinytui.session.practice_state import Practice, Sample, Source
    from tinytui.session.second_runs import Comparison, PatchSetting, SecondRuns

MAX_ANSWER = 100  # characters of a practice answer kept (a number is far shorter)
MAX_SHOWN = 1000  # characters of what a practice answer or hint told the learner, as a recording keeps it


def parse_value(text: str) -> float:
    """A cell value as typed: '0.5', '-1', '1e-3', '1/2'. Anything else raises Refused with the reason."""
    return _checked(checks.number, text)


def _checked(check: Callable[..., Any], *args: Any) -> Any:
    """check(*args) from tinytui.model.checks, its ValueError turned into Refused (same message)."""
    try:
        return check(*args)
    except ValueError as exc:
        raise Refused(str(exc)) from None


MAX_NOTE = 1000  # characters: a paragraph for the class, and bounded for the files that keep it


class Session(TracedHistory):
    """A debugger session: step through the forward pass or the backward walk, and change the model,
    prompt, target, switches or learning rate as one undoable move each (refused moves change nothing)."""

    # how the next token is chosen (tinytui.session.next_token): a setting, like the mode, not undone
    sampling: Sampling = Sampling()

    # ---- navigation ----------------------------------------------------------------------------
    def path(self, backward: bool | None = None) -> tuple[step_path.Step, ...]:
        """Every step of the forward pass (or of the backward walk) in the order n visits them."""
        n_blocks = self.model.cfg.n_blocks
        walking = self.mode.backward if backward is None else backward
        return step_path.backward(n_blocks, WALK) if walking else step_path.forward(n_blocks)

    def goto(self, step: int, backward: bool = False, block: int | None = None) -> bool:
        """Move to a step (1–16) of the forward pass, or with backward of the backward walk (2–15);
        block (0-based) says which block's copy of a block step (5–12), the current block if None.

        False (and nothing happens) when the step or block is out of range or already shown that way.
        A step of the walk enters the walk and a forward step leaves it, so a replayed step shows what
        it showed.
        """
        lowest, highest = (WALK_LAST, WALK_FIRST) if backward else (FIRST, LAST)
        n_blocks = self.model.cfg.n_blocks
        block = self.block if block is None else block
        if not lowest <= step <= highest or not 0 <= block < n_blocks:
            return False
        where = step_path.at(step, block, n_blocks)
        if (where, backward) == (self.here, self.mode.backward):
            return False
        self.step = step
        if where.block is not None:
            self.block = where.block
        self.mode = self.mode._replace(backward=backward)
        data: dict[str, Any] = {"step": step}
        if where.block is not None and n_blocks > 1:  # one-block recordings stay as they were
            data["block"] = where.block
        if backward:
            data["backward"] = True
        self._emit(Kind.STEP, data, self.trace, self.trace)
        return True

    def move(self, delta: int) -> bool:
        """delta steps along the path shown (the forward pass, or the walk); False past either end."""
        path = self.path()
        here = self.here
        at = path.index(here) if here in path else 0
        if not 0 <= at + delta < len(path):
            return False
        to = path[at + delta]
        return self.goto(to.number, self.mode.backward, to.block)

    def set_mode(self, backward: bool | None = None, gradients: bool | None = None) -> bool:
        """Enter or leave the backward walk where the session is, or show or hide ∂L/∂w; False when
        nothing changes. A walk can only be entered at one of its steps (goto(…, backward=True) moves)."""
        mode = Mode(
            self.mode.backward if backward is None else backward,
            self.mode.gradients if gradients is None else gradients,
        )
        if mode == self.mode or (mode.backward and not WALK_LAST <= self.step <= WALK_FIRST):
            return False
        self.mode = mode
        data = {"backward": mode.backward, "gradients": mode.gradients}
        self._emit(Kind.MODE, data, self.trace, self.trace)
        return True

    def set_sampling(self, sampling: Sampling) -> bool:
        """How the next token is chosen from now on (checked already: next_token.set_sampling); False
        when it is already so. A setting, like the mode: recorded, so a replay chooses as the user did."""
        if sampling == self.sampling:
            return False
        self.sampling = sampling
        self._emit(Kind.SAMPLING, asdict(sampling), self.trace, self.trace)
        return True

    def add_note(self, text: str) -> Event:
        """A note for the class where the session stands (a recording keeps it; nothing else changes).
        Refused, with one line, when it is empty, too long or holds a control character."""
        text = " ".join(text.split())  # one line: a recording prints it wrapped to its own width
        if not text:
            raise Refused("a note needs some text")
        if len(text) > MAX_NOTE:
            raise Refused(f"a note is at most {MAX_NOTE} characters; this one has {len(text)}")
        if not text.isprintable():
            raise Refused("a note cannot hold control or invisible formatting characters")
        return self._emit(Kind.NOTE, {"text": text}, self.trace, self.trace)

    def next(self) -> bool:
        return self.move(1)

    def prev(self) -> bool:
        return self.move(-1)

    # ---- changes -------------------------------------------------------------------------------
    def edit(self, name: str, index: tuple[int, ...], value: float | str) -> Event:
        """Set one parameter cell. name is canonical ("blocks.0.W_O") or an older spelling ("W_O")."""
        full = canonical(name)
        if isinstance(value, str):
            value = parse_value(value)
        try:
            params = self.params.with_edit(full, tuple(index), value)
            old = float(self.params[full][tuple(index)])
        except (ValueError, IndexError) as exc:
            raise Refused(str(exc)) from None
        data = {"param": full, "label": label(full), "index": list(index), "old": old, "new": value}
        return self._change(Kind.EDIT, data, self.state._replace(params=params))

    def toggle(self, switch: str, head: int | None = None) -> Event:
        try:
            switches = self.state.switches.toggled(switch, head, self.model.cfg)
        except ValueError as exc:
            raise Refused(str(exc)) from None
        if head is not None:
            _checked(checks.head, head, self.model.cfg.n_heads)
        data = {"switch": switch, "head": head, "switches": switches.to_dict(), "now": switches.describe()}
        return self._change(Kind.TOGGLE, data, self.state._replace(switches=switches))

    def set_switches(self, switches: Switches) -> Event:
        try:  # a norm or positions the model cannot run (a lesson file may ask for one)
            run_config(self.model.cfg, switches)
        except ValueError as exc:
            raise Refused(str(exc)) from None
        data = {"switch": "all", "head": None, "switches": switches.to_dict(), "now": switches.describe()}
        return self._change(Kind.TOGGLE, data, self.state._replace(switches=switches))

    def set_prompt(self, prompt: tuple[str, ...] | list[str]) -> Event:
        tokens: tuple[str, ...] = _checked(checks.prompt, prompt, self.model.cfg.vocab, self.model.cfg.n_ctx)
        data = {"old": list(self.state.prompt), "new": list(tokens)}
        return self._change(Kind.PROMPT, data, self.state._replace(prompt=tokens))

    def swap_positions(self, i: int, j: int) -> Event:
        prompt = list(self.state.prompt)
        if not (0 <= i < len(prompt) and 0 <= j < len(prompt)) or i == j:
            raise Refused(f"cannot swap positions {i} and {j} of a {len(prompt)}-token prompt")
        prompt[i], prompt[j] = prompt[j], prompt[i]
        return self.set_prompt(prompt)

    def set_target(self, target: str) -> Event:
        target = _checked(checks.target, target, self.model.cfg.vocab)
        data = {"old": self.state.target, "new": target}
        return self._change(Kind.TARGET, data, self.state._replace(target=target))

    def set_lr(self, lr: float | str) -> Event:
        """The SGD step size for learning steps (and step 15's "after one step"); finite and > 0."""
        value = _checked(checks.lr, lr)
        if value == self.state.lr:
            raise Refused(f"the learning rate is already {value:g}")
        data = {"old": self.state.lr, "new": value}
        return self._change(Kind.LR, data, self.state._replace(lr=value))

    def set_params(self, params: Params, kind: Kind, data: dict[str, Any]) -> Event:
        """Replace all parameters at once (a learning step, a loaded file)."""
        return self._change(kind, data, self.state._replace(params=params))

    def learn_step(self, lr: float | None = None) -> Event:
        """One SGD step on all parameters (lr defaults to the session's); undoable, a "learn" event."""
        return self.train(1, lr)

    def train(self, k: int, lr: float | None = None) -> Event:
        """k SGD steps as one undoable change. The event's data has lr, steps, loss_old, loss_new and
        losses (the k + 1 losses, for a sparkline)."""
        return self.apply_training(self.plan_training(k, lr))

    def plan_training(self, k: int, lr: float | None = None) -> Training:
        """Compute k SGD steps from the current state without changing anything.

        Reads only the immutable current State, so the app can run it in a thread; apply_training()
        then makes it one undoable change (or refuses, if the state moved on meanwhile).
        """
        from tinytui.model.training import learn

        s = self.state
        lr = s.lr if lr is None else lr
        try:
            result = learn.train(s.params, s.prompt, s.target, s.switches, k, lr)
        except ValueError as exc:
            raise Refused(str(exc)) from None
        return Training(s, int(k), float(lr), result)

    def apply_training(self, training: Training) -> Event:
        if self.state is not training.start:
            raise Refused(
                "the model changed while the training ran, so its result was not applied; train again"
            )
        r = training.result
        data = {
            "lr": training.lr,
            "steps": training.k,
            "loss_old": r.loss_old,
            "loss_new": r.loss_new,
            "losses": list(r.losses),
        }
        return self.set_params(r.params, kind=Kind.LEARN, data=data)

    def undo(self) -> Event | None:
        if not self.can_undo:
            return None
        return self._move(self.cursor - 1, Kind.UNDO)

    def redo(self) -> Event | None:
        if not self.can_redo:
            return None
        return self._move(self.cursor + 1, Kind.REDO)

    def reset_state(self) -> State:
        """What reset() goes back to: the model file as loaded, default switches, the starting lr."""
        start = default_switches(self.model.cfg)
        return State(self.model.params, self.model.prompt, self.model.target, start, self.history[0].lr)

    def reset(self) -> Event:
        """Back to the model file as loaded, kept as one more undoable change."""
        return self._change(Kind.RESET, {}, self.reset_state())

    def set_compare_to_original(self, on: bool) -> None:
        self.compare_to_original = on

    # ---- a second run: activation patching and a two-run compare (tinytui.session.second_runs) ------
    patch_setting: PatchSetting | None = None  # settings, like the mode: recorded, not undone
    comparison: Comparison | None = None  # A of a two-run compare (B is the session's own state)
    _second: SecondRuns | None = None
    _patching_elsewhere: Callable[[State, PatchSetting], None] | None = None

    @property
    def second_runs(self) -> SecondRuns:
        if self._second is None:
            from tinytui.session.second_runs import SecondRuns

            self._second = SecondRuns(elsewhere=self._patching_elsewhere)
        return self._second

    def make_patching_elsewhere(self, make: Callable[[State, PatchSetting], None]) -> None:
        """An app that makes a costly patching in a thread: make is the second runs' elsewhere
        (SecondRuns.elsewhere), given them when they are made, when a pane first asks, not at start."""
        self._patching_elsewhere = make
        if self._second is not None:
            self._second.elsewhere = make

    def set_patching(self, corrupt: str | list[str] | None, foil: str = "") -> Event:
        """Patch the run into a corrupted prompt's, read as logit(target) − logit(foil); corrupt None:
        patching off. Refused (nothing changes) for a prompt of another length or an unknown foil."""
        if corrupt is None:
            if self.patch_setting is None:
                raise Refused("patching is already off")
            self.patch_setting = None
            return self._emit(Kind.PATCH, {"corrupt": None, "foil": None}, self.trace, self.trace)
        from tinytui.session.second_runs import patch_setting

        setting = patch_setting(self.model, self.state, corrupt, foil)
        self.patch_setting = setting
        data = {"corrupt": list(setting.corrupt), "foil": setting.foil}
        return self._emit(Kind.PATCH, data, self.trace, self.trace)

    def patching(self):
        """The patching of the current state (tinytui.model.analysis.patching.Patching), or None when
        patching is off or the prompt's length has changed since (patching_problem says so)."""
        setting = self.patch_setting
        if setting is None or self.patching_problem():
            return None
        return self.second_runs.patching(self.state, setting)

    def patching_problem(self) -> str:
        """Why the patching set no longer fits the state ("" when it does, or when patching is off)."""
        setting = self.patch_setting
        if setting is None:
            return ""
        if setting.foil == self.state.target:
            return f"the target is now the foil {setting.foil!r}: set another foil"
        if len(setting.corrupt) != len(self.state.prompt):
            n, m = len(self.state.prompt), len(setting.corrupt)
            from tinytui.session.second_runs import counted

            return f"the prompt now has {counted(n)} and the corrupted one {m}: patch again"
        return ""

    def compare_with(self, kind: str, prompt: str | list[str] | None = None, path: str = "") -> Event:
        """Compare the session's state (B) with another (A): "file" the model file as loaded, "before"
        the state before the last change, "pinned" the state now, "prompt" this state on another prompt
        of the same length, "model" another model file of the same shape; "off" stops comparing."""
        from tinytui.session.second_runs import Comparison, counted, load_other, read_prompt

        s = self.state
        if kind == "off":
            if self.comparison is None:
                raise Refused("no two runs are being compared")
            self.comparison = None
            return self._emit(Kind.COMPARE, {"with": "off"}, self.trace, self.trace)
        data: dict[str, Any] = {"with": kind}
        if kind == "file":
            a = s._replace(params=self.model.params)  # the file's weights on this prompt and switches
        elif kind == "before":
            if self.cursor == 0:
                raise Refused("nothing has changed yet, so there is no state before the last change")
            a = self.history[self.cursor - 1]
        elif kind == "pinned":
            a = s
        elif kind == "prompt":
            tokens = read_prompt(self.model, prompt if prompt is not None else "")
            if len(tokens) != len(s.prompt):
                raise Refused(
                    f"the other prompt has {counted(len(tokens))} and this one {len(s.prompt)}: the runs are "
                    "compared cell by cell, so they must be as long"
                )
            a, data["prompt"] = s._replace(prompt=tokens), list(tokens)
        elif kind == "model":
            a, data["path"] = s._replace(params=load_other(path, s.params)), path
        else:
            raise Refused(f"cannot compare with {kind!r} (file, before, pinned, prompt, model or off)")
        self.comparison = Comparison(kind, a, path, self.cursor)
        return self._emit(Kind.COMPARE, data, self.trace, self.trace)

    def compare_state(self) -> State | None:
        """A as it stands beside the state now (Comparison.a_of), or None when not comparing."""
        return None if self.comparison is None else self.comparison.a_of(self.state)

    def compare_trace(self) -> Trace | None:
        """A's trace (made when first asked, kept while A stays the same), or None when not comparing."""
        a = self.compare_state()
        return None if a is None else self.second_runs.trace_of(a, self.trace)

    # ---- practice: the learner's own arithmetic, graded (tinytui.session.practice_state) -------------
    _practice: Practice | None = None

    @property
    def practising(self) -> bool:
        """Whether practice is on: False until it is first set (without making a Practice to say so)."""
        return self._practice is not None and self._practice.on

    @property
    def practice(self) -> Practice:
        """What the learner has been asked, has answered and has been hinted; off until set_practice."""
        if self._practice is None:
            from tinytui.session.practice_state import Practice

            self._practice = Practice()
        return self._practice

    def set_practice(
        self,
        on: bool,
        lesson: tuple[tuple[str, tuple[int, ...], str], ...] | None = None,
        sample: Sample | None = None,
    ) -> bool:
        """Practice on (a lesson's cells, or a sample of one step, start a new practice; else the answers
        so far are kept) or off; False when nothing changes."""
        if lesson is not None or sample is not None:
            from tinytui.session.practice_state import Practice

            self._practice = Practice(lesson, sample)
        elif on == self.practice.on:
            return False
        self.practice.on = on
        data: dict[str, Any] = {"action": "on" if on else "off"}
        if lesson is not None:
            data["cells"] = [[n, list(ix), note] for n, ix, note in lesson]
        if sample is not None:
            data["sample"] = {k: v for k, v in vars(sample).items() if v is not None}
        self._emit(Kind.PRACTICE, data, self.trace, self.trace)
        return True

    def cell_value(self, cell: Source) -> float:
        """A run cell's value: a tensor's or a gradient's; Refused for a cell the run does not have."""
        name, index = cell
        try:
            arr = self.trace[name] if name in self.trace else self.gradients[name]
            return float(arr[tuple(index)])
        except (KeyError, IndexError, TypeError, ValueError):
            raise Refused(f"the run has no cell {label(canonical(name))}{list(index)}") from None

    def answer(self, name: str, index: tuple[int, ...], text: str, verdict: bool | None = None) -> Event:
        """Grade the learner's value for a cell; the event says whether it was right and what the learner
        was told ("shown": the value with ✓, or "not quite" and the next hint). verdict: the grade a
        replay keeps from its recording instead (tinytui.recording.event_kinds.PracticeKind)."""
        from tinytui.session.practice_state import accepted_at, answer_line

        cell = (name, tuple(int(i) for i in index))
        text = "".join(c for c in text if c.isprintable()).strip()[:MAX_ANSWER]  # as the transcript shows it
        self.cell_value(cell)  # Refused for a cell the run does not have
        ok = accepted_at(self.trace, self.params, self.gradients, cell)
        grade = self.practice.answer(cell, text, ok, verdict)
        rung = self.practice.rung(cell)
        shown = answer_line(self.trace, self.params, self.gradients, cell, grade, rung)
        data: dict[str, Any] = {"action": "answer", "name": name, "index": list(cell[1]), "text": text}
        data |= {"correct": grade.correct, "rung": rung, "shown": shown[:MAX_SHOWN]}
        return self._emit(Kind.PRACTICE, data, self.trace, self.trace)

    def more_hint(self, name: str, index: tuple[int, ...]) -> Event:
        """One more hint for a cell; the event's "shown" is the hint's words."""
        from tinytui.session.practice_state import hint_line

        cell = (name, tuple(int(i) for i in index))
        self.cell_value(cell)
        rung = self.practice.more_hint(cell)
        shown = hint_line(self.trace, self.params, self.gradients, cell, rung)
        data = {
            "action": "hint",
            "name": name,
            "index": list(cell[1]),
            "rung": rung,
            "shown": shown[:MAX_SHOWN],
        }
        return self._emit(Kind.PRACTICE, data, self.trace, self.trace)
