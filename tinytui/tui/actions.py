"""The app's actions as data: each one once, with its id, default keys, what it runs and its words.

The footer, the ? screen, the command palette and the user's keymap all read ACTIONS (tinytui/tui/app.py
builds its bindings from it; the keymap in the settings file maps an action id to other keys).
`run` and `when` name a controller method as "controller.method" (the controllers are attributes of
the app: steps, edits, experiments, learning, recording); `args` are passed to run.
"""

from __future__ import annotations

import contextlib
import unicodedata
from collections.abc import Callable
from typing import Any, NamedTuple, Protocol

from textual.keys import KEY_NAME_REPLACEMENTS, Keys, key_to_character

from tinytui.session.session import Session
from tinytui.tui.experiments import EXPERIMENTS


# Action and PaletteCommand are NamedTuples, not dataclasses: the app loads both as it starts, and a
# frozen dataclass compiles its __init__, __repr__, __setattr__ and __delattr__ from source as its class
# is made (~3 M instructions each, measured with callgrind) where a NamedTuple makes one __new__ (~0.5 M).
class Action(NamedTuple):
    """One thing the user can do in the app: its id, its default keys, the controller method it runs,
    and its words in the footer, the ? screen and the command palette."""

    id: str  # the binding id and the keymap's name for it: "next-step"
    keys: str  # default keys, comma-separated; "" = reached from the palette only
    run: str  # "controller.method" it runs
    footer: str  # the short label in the footer and the ? screen
    help: str  # one sentence: the ? screen's "more", the footer's tooltip and the palette's help
    palette: str = ""  # the palette's title; "" = not in the palette
    show: bool = False  # shown in the footer (80 columns must still show ? Help and q Quit)
    when: str = ""  # "controller.method" -> bool: whether the action applies now ("" = always)
    args: tuple[Any, ...] = ()  # passed to run (and to note)
    note: str = ""  # "controller.method" -> str: the palette's word on the state now ("now on", …)
    group: str = ""  # several actions shown as one row of the ? screen ("jump to step 1–9")
    narrow: bool = True  # shown in the footer at 80 columns too (False: only on a wide screen)
    # shown at 80 columns until a key that applies only in a mode (C while comparing, A while patching,
    # Stop rec) needs its room: then it goes first (the palette and ? still have it)
    yields: bool = False
    # Taken by the app before the focused widget sees the key (a table would scroll on Home; q is taken in
    # the order typed, before a key typed at once after it), unless a dialog is open or a field is typed in.
    priority: bool = False


class PaletteCommand(NamedTuple):
    """One entry of the command palette: its title, its help line, and what choosing it runs."""

    title: str
    help: str
    run: Callable[[], object]


class Host(Protocol):
    """What a controller may use of the app (the Textual App provides all of it), so controllers
    never import the app module. The other controllers are reached through it."""

    session: Session
    steps: Any
    edits: Any
    experiments: Any
    learning: Any
    recording: Any
    presenter: Any
    practice: Any
    analysis: Any
    theme: str
    focused: Any

    def apply(self, change: Callable[[Session], object], describe: str = "", on_refused=None) -> object: ...
    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: str = "information",
        timeout=None,
        markup: bool = True,
        replaces: str = "",
    ): ...
    def withdraw_refusal(self) -> None: ...
    def bell(self) -> None: ...
    def push_screen(self, screen, callback=None): ...
    def refresh_views(self) -> None: ...
    def refresh_bindings(self) -> None: ...
    def view(self) -> Any: ...
    def exit(self) -> None: ...
    def leave(self) -> None: ...
    def scroll_main(self, pages: int) -> None: ...
    def show_help(self) -> None: ...
    def show_notices(self) -> None: ...
    def inspect(self) -> None: ...
    def run_worker(self, work, **kwargs) -> Any: ...
    def call_from_thread(self, callback, *args, **kwargs) -> Any: ...
    def call_after_refresh(self, callback, *args) -> Any: ...
    def save_screenshot(self, filename: str, path: str) -> str: ...
    def clear_notifications(self) -> None: ...


JUMP = "jump to step 1–9"
TYPE = "practice: type a value on a ?"

# Order matters where two actions share a key: the first that applies takes it (n replays while a
# replay runs, else goes through the presenter's tables while presenting, else steps; b enters the
# walk, or leaves it; ctrl+t starts recording, or stops it).
ACTIONS: tuple[Action, ...] = (
    Action("next-event", "n", "recording.next_event", "Next event",
           "While replaying: apply the next recorded event (then n goes back to the next step)",
           "Replay the next event", show=True, when="recording.replaying", note="recording.replay_note"),
    Action("presenter-next", "n,right,space", "presenter.next", "Next ›",
           "Presenting: the step's next table, after its last the next step", show=True,
           when="presenter.presenting", narrow=False),  # at 80 columns the table's heading says "n: …"
    Action("presenter-previous", "p,left", "presenter.previous", "‹ Prev",
           "Presenting: the step's previous table, before its first the previous step", show=True,
           when="presenter.presenting", narrow=False),
    Action("next-step", "n,right,space", "steps.next", "Next", "Go to the next step", show=True),
    Action("previous-step", "p,left", "steps.previous", "Prev", "Go to the previous step", show=True),
    Action("first-step", "g,home", "steps.goto", "First", "Go to step 1", args=(1,), priority=True),
    Action("last-step", "G,end", "steps.goto", "Last", "Go to step 16", args=(16,), priority=True),
    Action("next-block", "right_square_bracket", "steps.block", "Next block",
           "The same step in the next block (a model of several blocks shows steps 5–12 once per block)",
           "Same step, next block", show=True, args=(1,), when="steps.many_blocks", narrow=False),
    Action("previous-block", "left_square_bracket", "steps.block", "Prev block",
           "The same step in the previous block", "Same step, previous block", args=(-1,),
           when="steps.many_blocks"),
    *(
        Action(f"goto-{n}", str(n), "steps.goto", f"Step {n}", "Jump straight to that step", args=(n,),
               group=JUMP)
        for n in range(1, 10)
    ),
    Action("page-down", "pagedown", "steps.scroll", "Scroll down", "Scroll the step's tables down a page",
           args=(1,)),
    Action("page-up", "pageup", "steps.scroll", "Scroll up", "Scroll the step's tables up a page",
           args=(-1,)),
    Action("undo", "u,ctrl+z", "edits.undo", "Undo", "Undo the last change (unlimited)", "Undo", show=True),
    Action("redo", "ctrl+r,ctrl+y", "edits.redo", "Redo", "Redo what was undone", "Redo"),
    Action("reset", "R", "edits.reset", "Reset", "Back to the model file (asks first if edited; undoable)",
           "Reset to the model file"),
    Action("compare", "c", "edits.toggle_compare", "Compare",
           "Highlight changes since the last change, or relative to the original model",
           "Highlight changes relative to the other reference", show=True, note="edits.compare_note"),
    Action("follow-operand", "f", "why.follow", "Follow",
           "Jump to the cell the inspector's formula reads (F picks which): on this step if a table shows "
           "it, else on the step that makes it", "Follow an operand of the focused cell", show=True,
           when="why.can_follow", narrow=False),
    Action("next-operand", "F", "why.cycle", "Operand",
           "Choose which operand f follows (the inspector names it)", "Choose the next operand to follow",
           show=True, when="why.can_cycle", narrow=False),
    Action("insert-position", "i", "edits.insert_position", "Insert token",
           "Insert a prompt position after the token table's cursor row (else at the end)",
           "Insert a position…"),
    Action("remove-position", "delete", "edits.remove_position", "Remove token",
           "Remove a prompt position (the cursor's row in the token table, else the last)"),
    Action("change-target", "y", "edits.change_target", "Target",
           "Choose the target token the loss is measured against (∂L/∂ℓ = p − onehot(target))",
           "Change the target…"),
    Action("edit-parameter", "", "edits.edit_parameter", "Edit parameter",
           "Choose a weight matrix and edit any cell of it", "Edit parameter…"),
    Action("save", "ctrl+s", "edits.save", "Save", "Save the edited model as a model file",
           "Save the model…"),
    *(
        Action(e.id, e.key, "experiments.run", e.footer or e.palette, e.help, e.palette,
               show=e.id in ("toggle-mask", "toggle-pe"), args=(e.id,), note="experiments.note",
               when=e.when, yields=True)
        for e in EXPERIMENTS
    ),
    Action("backward-walk", "b", "learning.enter_walk", "Backward",
           "Walk the gradient backwards, step 15 → 2, with n and p (b or Esc leaves)",
           "Walk the gradient backwards", show=True, when="learning.can_enter_walk"),
    Action("leave-backward", "b,escape", "learning.leave_walk", "Forward",
           "Leave the backward walk: back to the forward pass at the same step",
           "Leave the backward walk", show=True, when="learning.walking"),
    Action("gradient-overlay", "d", "learning.toggle_gradients", "∂L/∂w",
           "Show the gradient ∂L/∂w with every weight matrix: beside it when both fit, else below (d hides)",
           "Show or hide the gradient ∂L/∂w with the weights", note="learning.gradients_note"),
    Action("learning-step", "L", "learning.learning_step", "Learn",
           "One SGD step of size lr on every weight (undoable); ctrl+p → Set learning rate…",
           "Learning step", note="learning.lr_note"),
    Action("train", "T", "learning.train", "Train",
           "Train k steps as one undoable change (asks for k) and show the loss curve", "Train k steps…",
           note="learning.lr_note"),
    Action("set-lr", "", "learning.set_lr", "Learning rate", "The SGD step size of L and T",
           "Set learning rate…", note="learning.lr_note"),
    Action("start-recording", "ctrl+t", "recording.start", "Record",
           "Start recording this session to a text file (asks for the file)", "Start recording to a file…",
           when="recording.can_start"),
    Action("stop-recording", "ctrl+t", "recording.stop", "Stop rec",
           "Stop recording; the transcript and its .jsonl stay on disk", "Stop recording", show=True,
           when="recording.recording"),
    Action("save-recording", "", "recording.save_to", "Save recording",
           "The recording is only in memory: write it to a file", "Save recording to…",
           when="recording.in_memory"),
    Action("add-note", "N", "recording.add_note", "Note",
           "For a teacher: write a note for the class into the recording where you are (the transcript "
           "and the handout show it there; a replay shows it in turn)", "Add a note for the class…",
           note="recording.note_note"),
    Action("save-screenshot", "w", "recording.screenshot", "Screenshot",
           "Save the screen as an SVG named after the step, in the current folder",
           "Save a screenshot (SVG)", note="recording.screenshot_note"),
    Action("save-screenshot-as", "", "recording.screenshot_as", "Screenshot as",
           "Save the screen as an SVG under a name you choose", "Save a screenshot (SVG) to…"),
    Action("gallery", "v", "gallery.open", "Gallery",
           "The run as a gallery of paintings, for a reader who is not technical (v or Esc returns)",
           "Open the gallery view"),
    Action("append-token", "plus", "generation.append", "+Token",
           "Append the next token to the prompt: the most likely, or drawn with the temperature, top-k, "
           "top-p and seed set from ctrl+p (step 14 shows the choice, step 6 the KV cache; undoable)",
           "Append the next token", show=True, note="generation.note", narrow=False),
    *(
        Action(f"set-{name.replace('_', '-')}", "", "generation.ask", title,
               f"How + chooses the next token: its {title.lower()}", f"Set {title.lower()}…",
               args=(name,), note="generation.note")
        for name, title in (("temperature", "Temperature"), ("top_k", "Top-k"), ("top_p", "Top-p"),
                            ("seed", "Seed"))
    ),
    Action("greedy", "", "generation.greedy", "Greedy",
           "+ appends the most likely token (temperature 0)", "Greedy: append the most likely token",
           note="generation.note"),
    Action("watch-pane", "W", "watch.toggle", "Watch",
           "Keep the prediction's bars (with ghosts of the values before the last change), the logit "
           "lens and the attention of the block the step shows on screen beside every step (W hides)",
           "Show or hide the watch pane", note="watch.note"),
    # A and C are in the footer while their mode is on (patching set, two runs compared), taking the key
    # from the action after each, which applies the rest of the time (the palette and ? list both)
    Action("patch-on", "A", "analysis.patch", "Patch",
           "While patching is set (steps 13–14 show it): change the corrupted prompt or the foil; ctrl+p → "
           "Stop activation patching", show=True, when="analysis.patching", note="analysis.patch_note"),
    Action("patch", "A", "analysis.patch", "Patch",
           "Activation patching: type a corrupted prompt of the same length and a foil token; steps "
           "13–14 then show, per block input and position and per head, how much of logit(target) − "
           "logit(foil) the clean piece brings back", "Patch a corrupted prompt…",
           note="analysis.patch_note"),
    Action("patch-off", "", "analysis.patch_off", "Patching off", "Stop activation patching",
           "Stop activation patching", when="analysis.patching"),
    Action("logit-lens", "", "steps.goto", "Logit lens",
           "The logit lens: the prediction read off the stream before, inside and after every block, through "
           "the final norm and the unembedding (steps 13–14 and the watch pane W show it)",
           "Logit lens: show it at step 14", args=(14,)),
    Action("compare-runs-on", "C", "analysis.compare", "Two runs",
           "While two runs are compared: choose another A, or stop comparing", show=True,
           when="analysis.comparing", note="analysis.compare_note"),
    Action("compare-runs", "C", "analysis.compare", "Compare runs",
           "Compare two runs: every table as A, B (the state now) and B − A (▲ up, ▼ down), A being a pinned "
           "state, the model file, the state before the last change, another prompt or another model file",
           "Compare two runs…", note="analysis.compare_note"),
    *(
        Action(f"compare-{kind}", "", "analysis.compare_with", "Compare", words, f"Compare with: {words}",
               args=(kind,))
        for kind, words in (
            ("pinned", "the state now, pinned as A"),
            ("file", "the model file as loaded"),
            ("before", "the state before the last change"),
            ("prompt", "another prompt of the same length…"),
            ("model", "another model file of the same shape…"),
        )
    ),
    Action("stop-comparing", "", "analysis.stop_comparing", "Stop comparing", "Stop comparing two runs",
           "Stop comparing two runs", when="analysis.comparing"),
    Action("presenter", "z", "presenter.toggle", "Present",
           "Presenter view for a projector: one table at a time with more room, n and p go through the "
           "step's tables (z again: every table; tinytui --large starts with it)",
           "Presenter view: one table at a time", note="presenter.note"),
    Action("practice", "k", "practice.toggle", "Practice",
           "Check it by hand: what each step computes shows as ? until you work it out (Enter on a ? "
           "answers, h gives a hint; k again stops)", "Practice: work out each step's values by hand",
           show=True, note="practice.note", narrow=False),
    Action("practice-answer", "enter", "practice.answer", "Answer",
           "Practice: type your value for the ? under the cursor; right when it is what its formula "
           "gives from the numbers shown", "Answer the ? under the cursor", show=True,
           when="practice.can_answer", priority=True),
    *(
        Action(f"practice-type-{name}", key, "practice.answer", "Type a value",
               "Practice: start typing your value for the ? under the cursor (the answer box opens with it)",
               args=(char,), when="practice.can_answer", priority=True, group=TYPE)
        for name, key, char in (*((str(d), str(d), str(d)) for d in range(10)),
                                ("minus", "minus", "-"), ("point", "full_stop", "."))
    ),
    Action("practice-hint", "h", "practice.more_hint", "Hint",
           "Practice: one more hint for the ? under the cursor (its cells, its formula, the formula with the "
           "numbers in)", "Hint for the ? under the cursor", show=True, when="practice.can_answer"),
    Action("lesson-mark", "X", "practice.mark", "Mark question",
           "For a teacher: mark the computed cell under the cursor as a lesson question, with an optional "
           "note (X again unmarks)", "Mark the cell as a lesson question…"),
    Action("lesson-save", "", "practice.save_lesson", "Save lesson",
           "For a teacher: save the marked cells with this run as a lesson file (tinytui practice FILE "
           "opens it)", "Save the marked cells as a lesson…", when="practice.can_save"),
    Action("cycle-theme", "t", "steps.cycle_theme", "Theme",
           "Next theme: dark, light, high contrast, colour-blind, monochrome (remembered)"),
    Action("help", "question_mark", "steps.help", "Help", "List every key", "Keys: show every key",
           show=True),
    Action("notices", "M", "steps.notices", "Notices",
           "Every notice of the session in full, newest first (the line above the footer shows the newest; "
           "one cut short there ends “… M: more”)", "Notices: every message of this session"),
    Action("quit", "q", "steps.quit", "Quit", "Leave tinytui (asks first if edited weights are not saved)",
           show=True, priority=True),
)  # fmt: skip

ACTION_BY_ID = {a.id: a for a in ACTIONS}


def check_keymap(keymap: object) -> tuple[dict[str, str], list[str]]:
    """The user's keymap ({"action id": "keys"}) cleaned: the entries that can be used, and one notice
    per entry that cannot (that action keeps its default keys)."""
    if not isinstance(keymap, dict):
        return {}, ["Ignored the keymap in the settings file: it must be an object of action id → keys."]
    good: dict[str, str] = {}
    notices: list[str] = []
    for action_id, keys in keymap.items():
        why = _keymap_problem(action_id, keys)
        if why:
            notices.append(f"Ignored keymap entry {str(action_id)[:40]!r}: {why}; it keeps its default keys.")
        else:
            good[action_id] = ",".join(k.strip() for k in keys.split(","))
    _settle_clashes(good, notices)
    return good, notices


TEXTUAL_QUIT = "ctrl+q"  # Textual's own quit binding, which a keymap entry could take away too
# the command palette's key: a third of the actions are found only there, so no entry may take it
PALETTE_KEY = "ctrl+p"


def _key_names(keys: str) -> list[str]:
    """Keys as Textual names them once a keymap is applied: "?" is question_mark, "[" left_square_bracket."""
    names = []
    for key in (k.strip() for k in keys.split(",")):
        if len(key) == 1 and not key.isalnum():
            with contextlib.suppress(ValueError):
                key = unicodedata.name(key).lower().replace("-", "_").replace(" ", "_")
        names.append(key)
    return [k for k in names if k]


def _settle_clashes(good: dict[str, str], notices: list[str]) -> None:
    """Drop the entries that clash, with one notice per reason (the action keeps its default keys): an
    entry that takes a key that quits (quit's, q unless the keymap moves it, and ctrl+q), so quitting is
    always a key away, one that takes the command palette's ctrl+p, and an entry whose key an earlier
    one took. Then say which keys the entries take
    from actions the keymap leaves alone: Textual gives a key the keymap names to that entry alone."""
    quitting = {*_key_names(good.get("quit", ACTION_BY_ID["quit"].keys)), TEXTUAL_QUIT}
    dropped: dict[str, list[str]] = {}  # why -> the entries dropped for it
    owner: dict[str, str] = {}  # key -> the entry that has it
    for action_id in sorted(good, key=lambda a: a != "quit"):  # quit's own entry first
        keys = _key_names(good[action_id])
        if action_id != "quit" and (key := next((k for k in keys if k in quitting), None)):
            why = f'{key} quits tinytui (to use it, give quit another key first, e.g. "quit": "ctrl+x")'
        elif PALETTE_KEY in keys:
            why = f"{PALETTE_KEY} opens the command palette"
        elif key := next((k for k in keys if k in owner), None):
            why = f"{key} is already {owner[key]}'s key in the keymap"
        else:
            owner.update(dict.fromkeys(keys, action_id))
            continue
        dropped.setdefault(why, []).append(action_id)
        del good[action_id]
    for why, ids in dropped.items():
        names = ", ".join(repr(i) for i in ids[:4]) + (f" and {len(ids) - 4} more" if len(ids) > 4 else "")
        which = "entry" if len(ids) == 1 else "entries"
        notices.append(f"Ignored keymap {which} {names}: {why}; the default keys stay.")
    losses = [
        f"{a.id} loses {', '.join(lost)}"
        for a in ACTIONS
        if a.id not in good and (lost := [k for k in _key_names(a.keys) if k in owner])
    ]
    if losses:
        shown = "; ".join(losses[:6]) + (f"; and {len(losses) - 6} more" if len(losses) > 6 else "")
        notices.append(f"The keymap takes keys from other actions: {shown}.")


def with_sharers(keymap: dict[str, str]) -> dict[str, str]:
    """A checked keymap as Textual is to be given it. Textual takes every default key of a remapped
    action from all the actions bound to that key (the presenter's n and replay's n went with next-step's
    n), so each action the keymap leaves alone that shares a default key with a remapped one is named
    too, with its own default keys less those the keymap gives to another action."""
    taken = {k for keys in keymap.values() for k in _key_names(keys)}
    moved = {k for action_id in keymap for k in _key_names(ACTION_BY_ID[action_id].keys)}
    out = dict(keymap)
    for action in ACTIONS:
        own = _key_names(action.keys)
        if action.id in keymap or not any(k in moved for k in own):
            continue
        if kept := [k for k in own if k not in taken]:
            out[action.id] = ",".join(kept)
    return out


def _keymap_problem(action_id: object, keys: object) -> str:
    if action_id not in ACTION_BY_ID:
        return "no action has that id (the ? screen and the README list them)"
    if not isinstance(keys, str) or not keys.strip() or len(keys) > 100:
        return 'the keys must be a short string such as "j" or "ctrl+j,down"'
    for key in keys.split(","):
        key = key.strip()
        if not key or not key.isprintable() or " " in key:
            return f"{key!r} is not a key name (examples: j, J, f5, ctrl+j, shift+tab)"
        if why := _unbindable(key):
            return why
    return ""


# the modifiers a terminal reports to Textual (super, hyper and meta reach it only through the kitty
# keyboard protocol, so an entry using them would take an action's keys and give back none)
TERMINAL_MODIFIERS = ("ctrl", "shift", "alt")
NAMED_KEYS = frozenset(k.value for k in Keys if "+" not in k.value and not k.value.startswith("<")) | set(
    KEY_NAME_REPLACEMENTS.values()  # plus, minus, slash, …
)


def _unbindable(key: str) -> str:
    """Why Textual cannot bind key to anything a terminal sends ("" when it can): a single character, or
    a key name Textual knows (f5, tab, question_mark) after at most one each of ctrl, shift and alt."""
    if len(key) == 1:
        return ""
    *modifiers, name = key.split("+")
    odd = next((m for m in modifiers if m not in TERMINAL_MODIFIERS), None)
    if odd is not None:
        return f"{key!r}: {odd!r} is not a modifier a terminal sends (ctrl, shift or alt)"
    if len(set(modifiers)) != len(modifiers):
        return f"{key!r} names a modifier twice"
    if not (len(name) == 1 or name in NAMED_KEYS or key_to_character(name) is not None):
        return f"{key!r}: {name!r} is not a key Textual knows (examples: j, f5, tab, question_mark)"
    return ""
