"""What the session holds for the analyses that need a run besides its own: activation patching's
corrupted prompt and foil (PatchSetting), and the other state of a two-run compare (Comparison: A, the
session's own state being B). Both are settings, like the mode: recorded, not undone.

SecondRuns makes the patching and A's trace (and its gradients) when first asked and keeps one of each
for the state it was made for, so moving between steps computes nothing again; an app makes a costly
patching in a thread (SecondRuns.elsewhere). Everything a user types is checked here, and a refusal is
one line (Refused).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from tinytui.model import checks
from tinytui.model.trace import Trace, run
from tinytui.session.state import Refused, State

if TYPE_CHECKING:  # the patching, the gradients and a checkpoint's reader: imported where they are made
    from tinytui.model.analysis.patching import Patching
    from tinytui.model.backward.gradients import Gradients
    from tinytui.model.io.document import ModelFile
    from tinytui.model.params import Params

# What A can be, in the words a title and the inspector use (B is always the session's state, now).
COMPARE_KINDS = MappingProxyType(
    {
        "file": "the model file as loaded",
        "before": "the state before the last change",
        "pinned": "the state pinned",
        "prompt": "the prompt {prompt}",
        "model": "the model file {path}",
    }
)


@dataclass(frozen=True)
class PatchSetting:
    """What activation patching compares: the corrupted prompt, and the foil the target is measured
    against."""

    corrupt: tuple[str, ...]  # the corrupted prompt, as long as the clean one
    foil: str  # the token the target is compared with: logit(target) − logit(foil)


@dataclass(frozen=True)
class Comparison:
    """The other run of a two-run compare (A, beside the session's own state B): what kind of run A
    is, its state, and for another model file, that file's path."""

    kind: str  # a key of COMPARE_KINDS
    state: State  # A: weights, prompt, target, switches of the other run
    path: str = ""  # "model": the file it was read from
    at: int = 0  # the changes made when A was chosen ("before": A is the state before the last of them)

    def a_of(self, b: State) -> State:
        """A beside the state B is now: a pinned state and the one before the last change stay as they
        were; the model file and another model file run on B's prompt, target and switches, another
        prompt on B's weights (so an edit shows in both, and B − A is still the prompts' difference)."""
        if self.kind in ("file", "model"):
            return b._replace(params=self.state.params)
        if self.kind == "prompt":
            return b._replace(prompt=self.state.prompt)
        return self.state

    @property
    def words(self) -> str:
        """What A is: 'the model file as loaded', 'the prompt "a b c"'."""
        prompt = '"' + " ".join(self.state.prompt) + '"'
        return COMPARE_KINDS[self.kind].format(prompt=prompt, path=self.path)

    def words_after(self, changes: int) -> str:
        """What A is once the session has made `changes` changes: the state before the last change stays
        the one it was, so after more changes (or an undo) it is no longer before the last one."""
        if self.kind != "before" or changes == self.at:
            return self.words
        if changes < self.at:
            return "the state before a change since undone"
        return f"the state {changes - self.at + 1} changes back"  # it was one change back when chosen


def counted(n: int) -> str:
    """n tokens as a line says them: '1 token', '4 tokens'."""
    return f"{n} token" + ("" if n == 1 else "s")


def read_prompt(model: ModelFile, text: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """A typed prompt as the model's tokens: a checkpoint's own pieces, else tokens split at spaces."""
    from tinytui.model.io.checkpoint import CheckpointModel

    try:
        if isinstance(model, CheckpointModel) and isinstance(text, str):
            return tuple(model.prompt_pieces(text))
        tokens = text.split() if isinstance(text, str) else list(text)
        return checks.prompt(tokens, model.cfg.vocab, model.cfg.n_ctx)
    except ValueError as exc:
        raise Refused(f"the prompt: {exc}") from None


def prompt_text(model: ModelFile, tokens: tuple[str, ...]) -> str:
    """Tokens as a user types them: a checkpoint's pieces decoded to text, else the tokens spaced."""
    from tinytui.model.io.checkpoint import CheckpointModel

    if isinstance(model, CheckpointModel) and model.tokenizer is not None:
        return model.tokenizer.text(tokens)
    return " ".join(tokens)


def read_token(model: ModelFile, text: str) -> str:
    """One typed token (a checkpoint reads its piece, a leading space kept)."""
    from tinytui.model.io.checkpoint import CheckpointModel

    try:
        if text in model.cfg.vocab:  # a piece as a recording keeps it, its leading space and all
            return text
        if isinstance(model, CheckpointModel):
            return model.target_piece(text)
        return checks.target(text.strip(), model.cfg.vocab)
    except ValueError as exc:
        raise Refused(f"the foil: {foil_words(exc)}") from None


def foil_words(exc: ValueError) -> str:
    """A checkpoint's refusal of a token, said of the foil (its tokenizer's words are the target's)."""
    return str(exc).replace("the target is one piece", "the foil is one piece")


def patch_setting(model: ModelFile, clean: State, corrupt, foil: str) -> PatchSetting:
    """The corrupted prompt and the foil checked against the clean state; Refused (one line) if bad."""
    tokens = read_prompt(model, corrupt)
    if len(tokens) != len(clean.prompt):
        raise Refused(
            f"the corrupted prompt has {counted(len(tokens))} and the prompt {len(clean.prompt)}: patching "
            "writes position p of one run into position p of the other, so they must be as long"
        )
    token = read_token(model, foil)
    if token == clean.target:
        raise Refused(f"the foil {token!r} is the target itself: the metric compares two different tokens")
    return PatchSetting(tokens, token)


def shape_problem(a: Params, b: Params) -> str:
    """Why two models' weights cannot be compared cell by cell ("" when they can)."""
    if set(a) != set(b):
        return "the two models do not have the same weights"
    for name in a:
        if a[name].shape != b[name].shape:
            return f"{name} is {a[name].shape} in one and {b[name].shape} in the other"
    if a.cfg.vocab != b.cfg.vocab:
        return "the two models have different vocabularies"
    return ""


def load_other(path: str, current: Params) -> Params:
    """The weights of another model file, checkpoint folder or preset (by name, as --model takes them)
    of the same shape; Refused if not."""
    from tinytui.model.io.checkpoint import load_model
    from tinytui.model.io.presets import resolve

    try:
        other = load_model(resolve(Path(path).expanduser()))
    except Exception as exc:  # any file error is one line: the loaders say what is wrong, and where
        said = str(exc)
        # named as typed, or cut short as the loaders name a long one (checks.shown)
        forms = {path, str(Path(path).expanduser())}
        named = any(form in said or checks.shown(form) in said for form in forms)
        raise Refused(said if named else f"{path}: {said}") from None
    if why := shape_problem(current, other.params):
        raise Refused(f"{path} cannot be compared: {why}")
    return other.params


# Above this many multiply-adds (model.analysis.patching.cost) a patching is made off the caller's thread
# when the caller can (SecondRuns.elsewhere): the chapter's model costs some 10⁴, a GPT-2 small prompt of
# ten tokens some 10¹¹.
MADE_AT_ONCE_UP_TO = 10**8


@dataclass(eq=False)
class SecondRuns:
    """The patching and A's trace, each kept for the one state (and setting) it was made for.

    elsewhere: set by an app that makes a costly patching in a thread. Asked for a patching that is not
    made yet and costs more than made_at_once_up_to, patching() hands the state and the setting to it and
    returns None (the screen says "patching…"); the thread makes it (make_patching) and keeps it (keep)."""

    elsewhere: Callable[[State, PatchSetting], None] | None = field(default=None, repr=False)
    made_at_once_up_to: int = MADE_AT_ONCE_UP_TO
    _patched: tuple[State, PatchSetting, Patching] | None = field(default=None, repr=False)
    _compared: tuple[State, Trace] | None = field(default=None, repr=False)
    _compared_gradients: tuple[Trace, Gradients] | None = field(default=None, repr=False)

    def patching(self, state: State, setting: PatchSetting) -> Patching | None:
        """The patching of state, made now unless it is costly and elsewhere makes it (then None)."""
        kept = self.kept(state, setting)
        if kept is not None:
            return kept
        from tinytui.model.analysis.patching import cost

        if self.elsewhere is not None and cost(state.params, len(state.prompt)) > self.made_at_once_up_to:
            self.elsewhere(state, setting)
            return None
        return self.keep(state, setting, make_patching(state, setting))

    def kept(self, state: State, setting: PatchSetting) -> Patching | None:
        """The patching made for this very state and setting, if it is the one kept."""
        kept = self._patched
        if kept is not None and kept[0] is state and kept[1] == setting:
            return kept[2]
        return None

    def keep(self, state: State, setting: PatchSetting, made: Patching) -> Patching:
        self._patched = (state, setting, made)
        return made

    def trace_of(self, a: State, reuse: Trace | None = None) -> Trace:
        """A's trace, made once for each A (the same weights, prompt, target, switches and lr)."""
        kept = self._compared
        if kept is not None and _same_run(kept[0], a):
            return kept[1]
        made = run(a.params, a.prompt, a.target, a.switches, a.lr, reuse=reuse)
        self._compared = (a, made)
        return made

    def compare_gradients(self, a: State | None, trace: Trace | None) -> Gradients | None:
        """A's gradients (the backward walk's tables while comparing), computed part by part as they are
        read (model.backward.gradients); one A's at a time, as for A's trace (GPT-2: up to 1 GB)."""
        if a is None or trace is None:
            return None
        kept = self._compared_gradients
        if kept is not None and kept[0] is trace:
            return kept[1]
        from tinytui.model.backward.gradients import Gradients

        made = Gradients(a.params, trace)
        self._compared_gradients = (trace, made)
        return made


def make_patching(state: State, setting: PatchSetting, stop: Callable[[], bool] | None = None) -> Patching:
    """Every patched run of the state into the corrupted prompt (Stopped when stop() says so)."""
    from tinytui.model.analysis.patching import patch

    return patch(
        state.params, state.prompt, setting.corrupt, state.target, setting.foil, state.switches, stop
    )


def _same_run(x: State, y: State) -> bool:
    return x.params is y.params and (x.prompt, x.target, x.switches, x.lr) == (
        y.prompt,
        y.target,
        y.switches,
        y.lr,
    )
