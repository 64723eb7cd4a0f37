"""Key sequences as a Hypothesis state machine: the real app under Pilot, driven by rules for every kind of
key a learner presses (the forward steps, the walk back with b, Tab and Shift+Tab into and between the
tables, the arrows, an edit typed into a cell, undo and redo, the switches, +, practice, the gallery and
the dialogs, each opened and closed with Esc). Then what came later: l and O (the norm and the positions)
followed by the other switches and by undo and redo, a two-run compare C chosen from its list (another
prompt or model file pasted in) on the forward steps or in the walk back, activation patching A (a
corrupted prompt and a foil pasted in, right or wrong; in half the examples every patching is made in
a worker thread, as a checkpoint's costly one is), the lens at steps 13–14, the gallery with the
switches pressed inside it, the model saved and compared with; the app opens with or without the
command line's --norm and --positions, recording or not. After every rule: the app is still running
(no crash screen) and it answered each key within ANSWER_WITHIN seconds. At the end: undoing to the
start gives the model file's weights, the first trace bit for bit and the switches, prompt and target
it opened with (keys.mismatch); a recording replays through the very states it logged, and holds no
control character. The terminal is resized now and then, under whatever is open.

A short run here (TINYTUI_MACHINE examples of up to TINYTUI_MACHINE_STEPS rules each, 3 and 6 unless
set; TINYTUI_MACHINE_LLAMA examples, 2 unless set, on chapter17-llama); a failure prints the rules that
led to it, shrunk. By hand, more (and new ones each run once TINYTUI_MACHINE is set):
TINYTUI_MACHINE=200 TINYTUI_MACHINE_STEPS=40 pytest -p no:randomly -n 0 tests/fuzz/test_key_machine.py
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test
from textual import events
from textual.screen import ModalScreen

from tests.apps import make_app
from tests.fuzz.keys import mismatch, unprintable_files
from tinytui.recording.replay import Replayer, load_recording
from tinytui.tui.screens.save_screen import SaveScreen

EXAMPLES = int(os.environ.get("TINYTUI_MACHINE", "3"))
STEPS = int(os.environ.get("TINYTUI_MACHINE_STEPS", "6"))
LLAMA_EXAMPLES = int(os.environ.get("TINYTUI_MACHINE_LLAMA", "2"))  # the same on chapter17-llama
ANSWER_WITHIN = 20.0  # seconds a key may take (on a busy machine) before the app counts as not answering

STEP_KEYS = ["n", "p", "g", "G", *"123456789", "right_square_bracket", "left_square_bracket", "pagedown"]
SWITCH_KEYS = ["m", "o", "H", "a", "P", "r", "d", "l", "O"]
NEWER_SWITCHES = ["l", "O"]  # the norm (LayerNorm ↔ RMSNorm) and the positions (sinusoids ↔ RoPE ↔ …)
GALLERY_KEYS = ["n", "p", "right", "left", "tab", "shift+tab", *"12345", *"lOmoHuc", "ctrl+r"]
LENS_KEYS = ["tab", "shift+tab", "up", "down", "left", "right", "enter", "escape", "W", "d"]
# what is pasted into A's two boxes and C's "another prompt" box: same length as the chapter's prompt,
# shorter, unknown words, and the target or an unknown token as the foil
PROMPTS = ["a wood would chuck", "how much wood chuck", "a woodchuck would", "a b c d", "", "nan"]
FOILS = ["would", "wood", "chuck", "zebra", ""]
# C's "another model file" box: a preset, another shape, no file, nothing, and what the save rule wrote
OTHER_MODELS = ["woodland", "chapter17-llama", "nope.json", "", "saved.json"]
DIALOG_KEYS = ["question_mark", "ctrl+p", "i", "y", "T", "ctrl+s", "N", "X", "ctrl+t"]
PRACTICE_KEYS = ["k", "enter", "h", *"0123456789", "minus", "full_stop", "tab", "down"]
TYPED = ["0.5", "-1", "1e-3", "1/2", "3", "12", "nan", "abc", ""]


def _key_of(char: str) -> str:
    return {"-": "minus", ".": "full_stop", "/": "slash", " ": "space"}.get(char, char)


class Driver:
    """The app under Pilot in one task of its own loop (Textual's run_test sets context variables that
    must be reset in the task that set them); each call sends it keys and waits for them to be handled."""

    def __init__(self, size: tuple[int, int], argv: tuple[str, ...] = ()) -> None:
        self.loop = asyncio.new_event_loop()
        self.app = make_app(*argv)
        self.keys: asyncio.Queue = asyncio.Queue()
        self.first, self.first_state = self.app.session.trace, self.app.session.state
        self.task = self.loop.create_task(self._drive(size))
        self._call(lambda pilot: pilot.pause())  # started

    async def _drive(self, size: tuple[int, int]) -> None:
        async with self.app.run_test(size=size) as pilot:
            while (job := await self.keys.get()) is not None:
                work, done = job
                try:
                    done.set_result(await work(pilot))
                except BaseException as error:
                    if self.app.return_code is not None:  # it crashed: still_running says so, every run
                        done.set_result(None)
                    else:  # a key not answered in time: the rule that sent it fails with it
                        done.set_exception(error)

    def _call(self, work):
        done = self.loop.create_future()
        self.keys.put_nowait((work, done))
        self.loop.run_until_complete(asyncio.wait({done, self.task}, return_when=asyncio.FIRST_COMPLETED))
        if not done.done():  # the app stopped first: run_test raises what stopped it
            self.task.result()
            raise AssertionError("the app stopped before it answered")
        return done.result()

    def paste(self, text: str) -> None:
        """Text pasted into whatever has focus: a box's value, selected when it opens, is replaced by it
        ("" clears it with backspace). Pasted, not typed, to keep the suite's run short."""
        if not text:
            self.press("backspace")
            return

        async def pasted(pilot):
            if self.app.return_code is None:
                (self.app.focused or self.app.screen).post_message(events.Paste(text))
                await pilot.pause()

        self._call(pasted)

    def resize(self, size: tuple[int, int]) -> None:
        async def resized(pilot):
            if self.app.return_code is None:
                await pilot.resize_terminal(*size)
                await pilot.pause()

        self._call(resized)

    def close_dialogs(self) -> None:
        """Esc until no dialog is left open (a refusal keeps its box open; at most a few deep)."""
        for _ in range(4):
            if not isinstance(self.app.screen, ModalScreen) or self.app.return_code is not None:
                return
            self.press("escape")

    def press(self, *keys: str) -> None:
        async def pressed(pilot):
            for key in keys:
                if self.app.return_code is not None:
                    return  # stopped: the invariant says so
                await asyncio.wait_for(pilot.press(key), ANSWER_WITHIN)
                await pilot.pause()  # a key that crashes stops the app before the next is sent, every run

        self._call(pressed)

    def undone_to_start(self) -> str:
        """What undoing to the start got wrong (keys.mismatch), or empty."""

        async def undo(pilot):
            await self.app.workers.wait_for_complete()
            return mismatch(self.app, self.first, self.first_state)

        return self._call(undo)

    def close(self) -> None:
        """Stop the app (run_test re-raises what crashed it) and the loop."""
        try:
            if not self.task.done():
                self.keys.put_nowait(None)
            self.loop.run_until_complete(self.task)
        finally:
            self.loop.close()


def replayed_apart(recording: Path) -> str:
    """Where replaying a recording made by the keys leaves the states it recorded ("" when every event
    reaches the state the log says it reached), or that its files hold a control character."""
    replayer = Replayer(load_recording(recording))
    replayer.apply_all(replayer.new_session())
    if replayer.position != replayer.total:
        return f"replayed {replayer.position} of {replayer.total} events"
    return replayer.diverged or unprintable_files()


class KeyMachine(RuleBasedStateMachine):
    ARGV: tuple[str, ...] = ()  # the command line the app opens with (the chapter's model)
    # then the command line's l and O, one of these: the app opens with them set, undo comes back to them
    FLAGS: tuple[tuple[str, ...], ...] = (
        (),
        ("--norm", "rms"),
        ("--positions", "rope"),
        ("--norm", "layer", "--positions", "sinusoid"),
    )

    def __init__(self) -> None:
        super().__init__()
        self.driver: Driver | None = None
        self.recording: Path | None = None

    def press(self, *keys: str) -> None:
        assert self.driver is not None
        self.driver.press(*keys)

    @initialize(
        size=st.sampled_from([(120, 40), (80, 24)]),
        threaded=st.booleans(),
        flags=st.integers(0, 3),
        record=st.booleans(),
    )
    def start(self, size: tuple[int, int], threaded: bool, flags: int, record: bool) -> None:
        argv = self.ARGV + self.FLAGS[flags % len(self.FLAGS)]
        if record:  # a recording never replaces a file: each example its own
            self.recording = Path(f"machine-{len(list(Path().glob('machine-*.txt')))}.txt")
            argv += ("--record", str(self.recording))
        self.driver = Driver(size, argv)
        if threaded:  # every patching made in a worker thread, as a checkpoint's costly one is
            self.driver.app.session.second_runs.made_at_once_up_to = 0

    @rule(key=st.sampled_from(STEP_KEYS))
    def step(self, key: str) -> None:
        self.press(key)

    @rule(steps=st.integers(0, 15), into_tables=st.booleans(), further=st.integers(0, 3))
    def walk_back(self, steps: int, into_tables: bool, further: int) -> None:
        # b enters the walk (or leaves it); down it, far enough to reach each of its steps; then, as a
        # learner reading its tables, Tab into them and on down the walk from there
        self.press("b", *["n"] * steps, *["tab"] * into_tables, *["n"] * further)

    @rule(key=st.sampled_from(["tab", "shift+tab"]))
    def table(self, key: str) -> None:
        self.press(key)

    @rule(key=st.sampled_from(["up", "down", "left", "right"]))
    def arrow(self, key: str) -> None:
        self.press(key)

    @rule(text=st.sampled_from(TYPED))
    def edit(self, text: str) -> None:
        # Enter opens the cell's editor (or says the cell is computed), the number, Enter commits;
        # Esc closes what a refusal left open
        self.press("enter", *map(_key_of, text), "enter", "escape")

    @rule(key=st.sampled_from(["u", "ctrl+r"]))
    def undo_redo(self, key: str) -> None:
        self.press(key)

    @rule(key=st.sampled_from(SWITCH_KEYS))
    def switch(self, key: str) -> None:
        self.press(key)

    @rule()
    def append(self) -> None:
        self.press("plus")

    @rule(keys=st.lists(st.sampled_from(PRACTICE_KEYS), min_size=1, max_size=4))
    def practice(self, keys: list[str]) -> None:
        self.press("k", *keys)

    @rule(keys=st.lists(st.sampled_from(GALLERY_KEYS), max_size=5))
    def gallery(self, keys: list[str]) -> None:
        # its stages and pages, and the switches, undo and redo it passes on to the app
        assert self.driver is not None
        self.press("v", *keys)
        self.driver.close_dialogs()

    @rule(
        first=st.lists(st.sampled_from(NEWER_SWITCHES), min_size=1, max_size=3),
        then=st.lists(st.sampled_from(["m", "o", "H", "a", "P", "n", "b", "u", "ctrl+r"]), max_size=3),
    )
    def newer_switches(self, first: list[str], then: list[str]) -> None:
        # l and O, then the older switches, a step, the walk back, undo and redo over them
        self.press(*first, *then)

    @rule(undos=st.integers(1, 4), redos=st.integers(0, 4))
    def undo_across_switches(self, undos: int, redos: int) -> None:
        self.press(*NEWER_SWITCHES, *["u"] * undos, *["ctrl+r"] * redos)

    @rule(
        backward=st.booleans(),
        steps=st.integers(0, 3),
        choice=st.integers(0, 5),
        prompt=st.sampled_from(PROMPTS),
        model=st.sampled_from(OTHER_MODELS),
        then=st.lists(st.sampled_from(["n", "p", "tab", "down", "l", "O", "u", "C"]), max_size=3),
    )
    def compare(self, backward: bool, steps: int, choice: int, prompt: str, model: str, then: list[str]):
        # C's list: pinned, file, before, prompt…, model… (Stop comparing first while comparing); a
        # box for another prompt or model file gets one pasted
        assert self.driver is not None
        self.press(*["b"] * backward, *["n"] * steps, "C", *["down"] * choice, "enter")
        self.driver.paste(model if choice >= 4 else prompt)
        self.press("enter")
        self.driver.close_dialogs()
        self.press(*then)
        self.driver.close_dialogs()

    @rule(prompt=st.sampled_from(PROMPTS), foil=st.sampled_from(FOILS), step=st.sampled_from([13, 14]))
    def patch(self, prompt: str, foil: str, step: int) -> None:
        # A's first box (the corrupted prompt), then the foil's; a refusal keeps its box open
        assert self.driver is not None
        self.press("A")
        self.driver.paste(prompt)
        self.press("enter")
        self.driver.paste(foil)
        self.press("enter")
        self.driver.close_dialogs()
        self.press("G", *["p"] * (16 - step))

    @rule(name=st.sampled_from(["saved.json", ""]))
    def save(self, name: str) -> None:
        # ctrl+s writes the model as it stands (its weights under their names), asking once before it
        # overwrites; "" keeps the suggested name. C can then compare with saved.json
        assert self.driver is not None
        self.press("ctrl+s")
        if name:
            self.driver.paste(name)
        self.press("enter")
        if isinstance(self.driver.app.screen, SaveScreen):  # it asked before overwriting: yes
            self.press("enter")
        self.driver.close_dialogs()

    @rule(step=st.sampled_from([13, 14]), keys=st.lists(st.sampled_from(LENS_KEYS), max_size=4))
    def lens(self, step: int, keys: list[str]) -> None:
        # the logit lens (and patching's heatmap when set) at steps 13–14, read with the tables' keys
        assert self.driver is not None
        self.press("G", *["p"] * (16 - step), *keys)
        self.driver.close_dialogs()

    @rule(key=st.sampled_from(DIALOG_KEYS))
    def dialog(self, key: str) -> None:
        self.press(key, "escape")

    @rule()
    def escape(self) -> None:
        self.press("escape")

    @rule(size=st.sampled_from([(120, 40), (80, 24), (60, 16), (59, 15), (40, 12), (160, 50)]))
    def resize(self, size: tuple[int, int]) -> None:
        # the terminal resized under whatever is open (below 60×16 the app asks for a larger one)
        assert self.driver is not None
        self.driver.resize(size)

    @invariant()
    def still_running(self) -> None:
        if self.driver is not None:
            app = self.driver.app
            assert app.return_code is None, "the app stopped"
            assert app.is_running and app.screen is not None

    def teardown(self) -> None:
        if self.driver is None:
            return
        try:
            if self.driver.app.return_code is None:
                assert self.driver.undone_to_start() == ""
        finally:
            self.driver.close()
        if self.recording is not None:
            assert replayed_apart(self.recording) == ""


class LlamaKeyMachine(KeyMachine):
    """The same keys on chapter17-llama: RMSNorm, RoPE, grouped key/value heads, SwiGLU, two blocks."""

    ARGV = ("--model", "chapter17-llama")
    FLAGS = ((), ("--positions", "sinusoid"), ("--positions", "rope"))  # its norms have gains: no --norm


def _run(machine: type[KeyMachine], examples: int) -> None:
    run_state_machine_as_test(
        machine,
        settings=settings(
            max_examples=examples,
            stateful_step_count=STEPS,
            deadline=None,
            # the suite's run is the same every time; by hand (TINYTUI_MACHINE set), new examples each run
            derandomize="TINYTUI_MACHINE" not in os.environ,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )


def test_key_sequences_keep_the_app_running_and_undo_to_the_model():
    _run(KeyMachine, EXAMPLES)


def test_key_sequences_on_a_llama_family_model():
    _run(LlamaKeyMachine, LLAMA_EXAMPLES)
