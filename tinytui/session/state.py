"""The session's value types, shared by the session, the recorder, replay and the app: a State of the undo
history, the Mode the steps are shown in, an Event the session emits, a Training planned but not yet
applied, Refused for a change the session will not make, and the steps of the backward walk.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Any, NamedTuple

from tinytui.lesson.walk_stages import BACKWARD_STAGES
from tinytui.model.params import Params
from tinytui.model.switches import Switches
from tinytui.model.trace import DEFAULT_LR, Trace

if TYPE_CHECKING:  # a Training's result is made by Session.plan_training, which imports learn
    from tinytui.model.training import learn

# The steps of the backward walk in the order it visits them: from the loss (15) back to the embedding (2).
WALK = tuple(s.number for s in BACKWARD_STAGES)
WALK_FIRST, WALK_LAST = WALK[0], WALK[-1]


class Refused(ValueError):
    """A change the session will not make; str() is the message to show the user. Nothing changed."""


# a NamedTuple, not a frozen dataclass: loaded as the app starts, and a frozen dataclass compiles
# its methods from source as its class is made (~3 M instructions; a NamedTuple's ~0.5 M)
class State(NamedTuple):
    """One entry of the undo history: the weights, the prompt and target, the switches, and the learning
    rate."""

    params: Params
    prompt: tuple[str, ...]
    target: str
    switches: Switches
    lr: float = DEFAULT_LR


# a NamedTuple, not a frozen dataclass: loaded as the app starts, and a frozen dataclass compiles
# its methods from source as its class is made (~3 M instructions; a NamedTuple's ~0.5 M)
class Mode(NamedTuple):
    """How the steps are shown: the session's, so recording and replay see it (not in the undo history:
    undo takes back changes to the model, not where the user is looking)."""

    backward: bool = False  # walking the gradient back (steps 15 → 2); the walk is at Session.step
    gradients: bool = False  # ∂L/∂w beside each weight matrix


# a NamedTuple, not a frozen dataclass: loaded as the app starts, and a frozen dataclass compiles
# its methods from source as its class is made (~3 M instructions; a NamedTuple's ~0.5 M)
class Training(NamedTuple):
    """k SGD steps computed from start, not yet applied (see Session.plan_training)."""

    start: State
    k: int
    lr: float
    result: learn.TrainResult


class Kind(StrEnum):
    """The kinds of Event a Session emits, each named once. tinytui.recording.event_kinds defines what
    each means to a recording (its data in the log, decoding it, re-applying it, its words); a str, so
    `event.kind == "learn"` reads as before and the log holds the plain name."""

    STEP = "step"  # moved to another step (of the forward pass or the backward walk)
    MODE = "mode"  # entered or left the backward walk, showed or hid ∂L/∂w
    EDIT = "edit"  # one weight cell set
    TOGGLE = "toggle"  # a switch flipped (or all switches set at once)
    PROMPT = "prompt"
    TARGET = "target"
    LR = "lr"  # the learning rate
    UNDO = "undo"
    REDO = "redo"
    RESET = "reset"  # back to the model file
    LEARN = "learn"  # SGD steps on every weight
    PRACTICE = "practice"  # practice mode on or off, an answer graded, a hint given (no state change)
    SAMPLING = "sampling"  # how the next token is chosen (a setting, like the mode: not undone)
    NOTE = "note"  # a teacher's note for the class, written into a recording (no state change)
    PATCH = "patch"  # activation patching's corrupted prompt and foil set, or patching off (a setting)
    COMPARE = "compare"  # a two-run compare started with another state as A, or stopped (a setting)


# a NamedTuple, not a frozen dataclass: loaded as the app starts, and a frozen dataclass compiles
# its methods from source as its class is made (~3 M instructions; a NamedTuple's ~0.5 M)
class Event(NamedTuple):
    """Something the user did, of one Kind, with that kind's data."""

    kind: Kind
    data: dict[str, Any]
    before: Trace
    after: Trace
    step: int  # the current step after the event (its stage number)
    block: int | None = None  # the block of that step when it is one of a block's steps (0-based)
