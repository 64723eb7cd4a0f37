"""The key fuzzer: seeded random key sequences against the real app under Pilot, with the invariants
checked after each sequence. tests/fuzz/test_fuzz_keys.py runs a few dozen; benchmarks/fuzz_keys.py
runs thousands by hand.

Each sequence: a terminal size, then keys drawn from every bound key (tinytui.actions.ACTIONS, the
widgets' and dialogs' bindings), Tab, shift+tab, arrows, Esc, Enter, ctrl+p, resizes, hostile strings
typed (short ones key by key) or pasted (long ones) into whatever has focus, entries of the command
palette chosen by their titles (those only the palette reaches among them), and mouse clicks and
wheel turns anywhere on the screen. After it:

- the app is alive (Pilot re-raises anything unhandled once the app stops; return code 1 stops the keys);
- session.trace equals a fresh run(state…) bit for bit (every tensor np.array_equal);
- undoing to the start gives back the model file's weights bit for bit and the first trace;
- no transcript or event log in the folder holds a control character (every third seed records).

Run with the current folder and XDG_CONFIG_HOME in a temporary folder: dialogs write files there.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from textual import events
from textual.command import CommandInput, CommandList, CommandPalette

from tests.apps import make_app
from tinytui.model.trace import run
from tinytui.tui.actions import ACTIONS
from tinytui.tui.screens.confirm_screen import ConfirmScreen
from tinytui.tui.screens.help_screen import HelpScreen
from tinytui.tui.screens.param_browser import ParamScreen
from tinytui.tui.screens.path_screen import PathScreen
from tinytui.tui.screens.pick_screen import PickScreen
from tinytui.tui.widgets.step_list import StepList
from tinytui.tui.widgets.step_view import StepView

SIZES = [(120, 40), (80, 24), (60, 20), (40, 12), (20, 6)]
QUIT = {"q", "ctrl+q", "ctrl+c"}

HOSTILE = [
    "", "abc", "nan", "-inf", "1e309", "-0", "1/0", "0x10", "1_000", "x" * 5000, "½", "١٢", "\u202e1",
    "0.5", "-1", "1e-3", "1/2", "3", "12", "[b]bold", "[/]", "\x1b[31mred", "a\x00b", "\t", "🙂",
]  # fmt: skip
# Answers a dialog can take (a token, a prompt of four, a model, a file to write): the hostile strings
# alone reach only its refusals.
USEFUL = ["much", "a woodchuck would much", "woodland", "grouped.json", "saved.json", "rec.txt", "0.25", "2"]


def _keys_of(bindings) -> set[str]:
    out = set()
    for b in bindings:
        key = getattr(b, "key", None) or (b[0] if isinstance(b, tuple) else "")
        out.update(k.strip() for k in key.split(",") if k.strip())
    return out


def bound_keys() -> list[str]:
    keys = {k for a in ACTIONS for k in a.keys.split(",") if k}
    for widget in (StepView, StepList, ConfirmScreen, HelpScreen, ParamScreen, PathScreen, PickScreen):
        keys |= _keys_of(widget.BINDINGS)
    keys |= {"tab", "shift+tab", "up", "down", "left", "right", "escape", "enter", "ctrl+p", "backspace"}
    keys |= {"ctrl+u", "home", "end", "pageup", "pagedown", "e", "y", "n", "."}
    return sorted(keys - QUIT)


KEYS = bound_keys()


@dataclass
class Counts:
    sequences: int = 0
    keys: int = 0
    crashes: int = 0
    mismatches: int = 0
    failures: list[str] = field(default_factory=list)

    def add(self, other: Counts) -> None:
        self.sequences += other.sequences
        self.keys += other.keys
        self.crashes += other.crashes
        self.mismatches += other.mismatches
        self.failures += other.failures


def plan(seed: int, length: int) -> tuple[tuple[int, int], list[tuple[str, object]]]:
    """One sequence from its seed: a size and the steps ("key", k) / ("text", s) / ("resize", size)
    / ("entry", where in the palette's list) / ("click", (x, y)) / ("wheel", (x, y, down)), x and y
    fractions of the terminal / ("quit", None)."""
    rng = random.Random(seed)
    size = rng.choice(SIZES)
    steps: list[tuple[str, object]] = []
    for _ in range(length):
        r = rng.random()
        if r < 0.12:
            steps.append(("text", rng.choice(HOSTILE + USEFUL)))
        elif r < 0.15:
            steps.append(("resize", rng.choice(SIZES)))
        elif r < 0.19:
            steps.append(("entry", rng.random()))
        elif r < 0.22:
            steps.append(("click", (rng.random(), rng.random())))
        elif r < 0.24:
            steps.append(("wheel", (rng.random(), rng.random(), rng.random() < 0.5)))
        else:
            steps.append(("key", rng.choice(KEYS)))
    if rng.random() < 0.05:
        steps.append(("quit", None))
    return size, steps


def same_trace(a, b) -> bool:
    if set(a.tensors) != set(b.tensors):
        return False
    return all(np.array_equal(a.tensors[n].values, b.tensors[n].values) for n in a.tensors)


def same_params(a, b) -> bool:
    return set(a) == set(b) and all(np.array_equal(a[n], b[n]) for n in a)


def mismatch(app, first_trace, first_state=None) -> str:
    """Empty when the session tells the truth, else what is wrong. first_state: the state the app opened
    with, whose switches, prompt, target and learning rate undoing to the start must give back."""
    s = app.session
    st = s.state
    if not same_trace(s.trace, run(st.params, st.prompt, st.target, st.switches, st.lr)):
        return "the trace is not a fresh recompute of the state"
    while s.can_undo:  # through apply() (the views redraw) unless the app has quit
        undone = s.undo() if app.return_code is not None else app.apply(lambda s: s.undo(), "fuzz undo")
        if undone is None:
            return "an undo was refused"
    if not (s.history[0].params == s.model.params and same_params(s.params, s.model.params)):
        return "undoing to the start does not give back the model's weights"
    if not same_trace(s.trace, first_trace):
        return "undoing to the start does not give back the first trace"
    if first_state is not None:
        now = s.state
        for part in ("switches", "prompt", "target", "lr"):
            if getattr(now, part) != getattr(first_state, part):
                return f"undoing to the start does not give back the first {part}: {getattr(now, part)!r}"
    return ""


async def _type(pilot, text: str) -> int:
    """Short text key by key (as typed); long text as one paste (as a terminal delivers it)."""
    app = pilot.app
    if len(text) <= 12:
        keys = [c if c.isprintable() and c != " " else "space" if c == " " else "tab" for c in text]
        for key in keys:
            await pilot.press(key)
        return len(keys)
    target = app.focused or app.screen
    target.post_message(events.Paste(text))
    await pilot.pause()
    return 1


async def _choose(pilot, which: float | str) -> tuple[int, str]:
    """ctrl+p, then an entry of those the palette lists now, its title pasted whole, and Enter: which is
    where in the list (0 ≤ which < 1) or the start of its title. The keys pressed and the title ("" when
    no palette opened: ctrl+p went to a dialog's field, or the entry does not apply now)."""
    app = pilot.app
    await pilot.press("ctrl+p")
    if not isinstance(app.screen, CommandPalette):
        return 1, ""
    titles = [c.title for c in app.palette_commands()]
    if isinstance(which, str):
        titles = [t for t in titles if t.startswith(which)]
    if not titles:  # the entry does not apply now (a mode's entry in another mode)
        await pilot.press("escape")
        return 2, ""
    title = titles[int(which * len(titles))] if isinstance(which, float) else titles[0]
    app.screen.query_one(CommandInput).post_message(events.Paste(title))
    for _ in range(40):  # the palette searches in a worker, its hits shown in batches
        await pilot.pause(0.02)
        if not isinstance(app.screen, CommandPalette) or app.screen.query_one(CommandList).option_count:
            break
    await pilot.press("enter")
    if isinstance(app.screen, CommandPalette):  # the first Enter highlighted the hit
        await pilot.press("enter")
    return 3, title


async def _mouse(pilot, kind: str, where: tuple) -> None:
    """A click (down and up) or a wheel turn where the fractions of the terminal say, sent as a
    terminal's driver sends them."""
    app = pilot.app
    x, y = int(where[0] * app.size.width), int(where[1] * app.size.height)
    if kind == "click":
        await pilot.click(offset=(x, y))
    else:
        turn = events.MouseScrollDown if where[2] else events.MouseScrollUp
        app.post_message(turn(None, x, y, 0, 1 if where[2] else -1, 0, False, False, False, x, y))
        await pilot.pause()


def unprintable_files() -> str:
    """A transcript or event log in the current folder with a control character in it (\n aside)."""
    for path in sorted(Path().glob("*.txt")) + sorted(Path().glob("*.jsonl")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if not all(c.isprintable() or c == "\n" for c in text):
            return f"{path.name} holds a control character"
    return ""


# The modes a sequence can start in (the keys that enter it, pressed first; ">Title": the palette's
# entry of that title), and the models: the plain plan reaches most modes only by chance and runs only
# the chapter's model and woodland.
MODES: dict[str, tuple[str, ...]] = {
    "backward walk": ("b", "n", "n"),
    "practice": ("k",),
    "gallery": ("v",),
    "generation": ("plus", "plus"),
    "watch pane": ("W",),
    "patching": ("A",),
    "two runs": ("C",),
    "compare": ("c",),
    "presenter": ("z",),
    "recording": ("ctrl+t", "enter"),
    "help": ("question_mark",),
    "notices": ("M",),
    "palette": ("ctrl+p",),
    "one token": ("delete",) * 16,
    "full context": ("i", "enter") * 8,
    "logit lens": (">Logit lens",),
    "compare prompt": (">Compare with: another prompt",),
    "compare model": (">Compare with: another model",),
    "edit parameter": (">Edit parameter",),
    "sampling": ("plus", ">Set temperature", "enter", ">Set top-p"),
}
GROUPED = "grouped.json"  # made in the current folder by fixture_models()
ONE_WORD = "one-word.json"
NARROW = "narrow-gpt2.json"
ODD_WORDS = "odd-words.json"
RECORDING = Path(__file__).parents[1] / "recording" / "golden" / "short_session.txt"  # five events
MODELS: dict[str, tuple[str, ...]] = {
    "chapter": (),
    "llama": ("--model", "chapter17-llama"),
    "woodland": ("--model", "woodland"),
    "grouped K/V, 3 blocks, n_ctx 6": ("--model", GROUPED),
    "a vocabulary of 1, n_ctx 1": ("--model", ONE_WORD),
    "GPT-2 family, d 1, ff 1, 2 tokens": ("--model", NARROW),
    "tokens of markup, emoji, wide letters, 100 characters": ("--model", ODD_WORDS),
    "replaying a recording": ("replay", str(RECORDING)),
}


def _app(argv: tuple[str, ...]):
    """The app as `tinytui ARGV…` opens it; ("replay", FILE): as `tinytui replay FILE` does."""
    if argv[:1] != ("replay",):
        return make_app(*argv)
    from tinytui.recording.replay import Replayer, load_recording
    from tinytui.tui.app import TinyTuiApp

    replayer = Replayer(load_recording(Path(argv[1])))
    return TinyTuiApp(replayer.new_session(), replay=replayer)


def fixture_models() -> None:
    """The models of odd shapes MODELS names, written as `tinytui new` writes them (once a folder): a
    Llama-family model of three blocks, four query heads over two key/value heads and a context of six
    tokens; one whose vocabulary and context are a single token; a GPT-2-family one a single number
    wide, of two tokens; a Llama-family one whose tokens look like markup, are emoji, letters two
    cells wide, right-to-left digits, or as long as a token may be."""
    import contextlib
    import io

    from tinytui.cli.main import main

    Path("one-word.txt").write_text("a\n", encoding="utf-8")
    Path("two-words.txt").write_text("a\nb\n", encoding="utf-8")
    odd = ["a", "[b]bold", "[/]", "🙂", "x" * 100, "١٢", "é", "漢字漢字漢字", "W" * 99]
    Path("odd-words.txt").write_text("\n".join(odd) + "\n", encoding="utf-8")
    made = {
        GROUPED: "--arch llama --d 8 --heads 4 --kv-heads 2 --blocks 3 --ctx 6 --seed 5",
        ONE_WORD: "--vocab one-word.txt --prompt a --target a --ctx 1",
        NARROW: "--arch gpt2 --d 1 --heads 1 --ff 1 --vocab two-words.txt --prompt a --target b --ctx 2",
        ODD_WORDS: "--arch llama --vocab odd-words.txt --target [/] --ctx 6",
    }
    prompts = {ODD_WORDS: ["--prompt", " ".join(odd[1:6])]}  # five tokens, one argument
    for name, args in made.items():
        if not Path(name).exists():
            with contextlib.redirect_stdout(io.StringIO()):
                assert main(["new", *args.split(), *prompts.get(name, []), "-o", name]) == 0


def mode_and_model(seed: int) -> tuple[str, str]:
    """Every model in every mode, each seed the next pair."""
    models = list(MODELS)
    return list(MODES)[seed // len(models) % len(MODES)], models[seed % len(models)]


SHRINKS = [(20, 5), (1, 1), (40, 10), (80, 24)]  # through tiny sizes in the mode, then back


async def run_mode_sequence(seed: int, length: int = 40) -> Counts:
    """A sequence that starts in one mode on one model (mode_and_model), every other seed then shrinks
    the terminal through SHRINKS, and goes on as plan(seed)."""
    mode, model = mode_and_model(seed)
    fixture_models()
    first = [("entry", k[1:]) if k.startswith(">") else ("key", k) for k in MODES[mode]]
    first += [("resize", size) for size in SHRINKS if seed % 2]
    counts = await run_sequence(seed, length, MODELS[model], first)
    counts.failures = [f"{mode} on {model}: {f}" for f in counts.failures]
    return counts


async def run_sequence(
    seed: int, length: int = 40, argv: tuple[str, ...] | None = None, first: list | None = None
) -> Counts:
    """One sequence; every third seed records from the start (--record fuzz-SEED.txt), every fourth (from
    seed 1) steps through the two-block woodland preset. first: steps taken before the plan's."""
    size, steps = plan(seed, length)
    steps = (first or []) + steps
    counts = Counts(sequences=1)
    if argv is None:  # every third seed records; every fourth runs a model of two blocks
        argv = ("--record", f"fuzz-{seed}.txt") if seed % 3 == 0 else ()
        argv += ("--model", "woodland") if seed % 4 == 1 else ()
    app = _app(argv)
    where = f"seed {seed} at {size[0]}×{size[1]}"
    try:
        async with app.run_test(size=size) as pilot:
            first, first_state = app.session.trace, app.session.state
            done = []
            for kind, arg in steps:
                if app.return_code is not None:  # it quit (or failed: run_test raises the error)
                    break
                done.append(f"{kind}:{arg!r}"[:40])
                if kind == "key":
                    await pilot.press(str(arg))
                    counts.keys += 1
                elif kind == "text":
                    counts.keys += await _type(pilot, str(arg))
                elif kind == "resize":
                    await pilot.resize_terminal(*arg)
                elif kind == "entry":
                    pressed, title = await _choose(pilot, arg)
                    counts.keys += pressed
                    done[-1] = f"entry:{title!r}"[:60]
                elif kind in ("click", "wheel"):
                    await _mouse(pilot, kind, arg)
                elif kind == "quit":
                    await pilot.press("ctrl+q")
            await app.workers.wait_for_complete()
            await pilot.pause()
            why = mismatch(app, first, first_state)
        why = why or unprintable_files()  # after the app closed the recording
        if why:
            counts.mismatches += 1
            counts.failures.append(f"{where}: {why}; after {' '.join(done)}")
    except Exception as exc:  # Pilot re-raises what crashed the app
        counts.crashes += 1
        counts.failures.append(f"{where}: {type(exc).__name__}: {exc}"[:500])
    return counts
