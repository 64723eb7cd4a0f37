"""How a recording names things in words, for its headlines, the replay's status line and the handout:
a weight cell as the app labels it, a weight's exact value, a switch, a step, a change of view, and a
change between two states of the undo history."""

from __future__ import annotations

from tinytui.lesson import step_path
from tinytui.lesson.stages import LAST
from tinytui.lesson.texts.display_names import cell
from tinytui.model import names
from tinytui.model.params import Params
from tinytui.model.switches import WORDS, came
from tinytui.recording.cell_changes import changed_cells
from tinytui.session.state import Mode, State


def cell_name(params: Params, name: str, index: tuple[int, ...] | list[int]) -> str:
    """A weight cell as the app labels it: W_O[h1.k0, thing]."""
    full = names.canonical(name)
    shape = params[full].shape if full in params else ()
    return cell(params.cfg, full, index, shape)


def number(v: float) -> str:
    """A weight exactly as stored (repr is the shortest text that reads back to the same float)."""
    return repr(float(v))


def switch_name(switch: str | None, head: int | None) -> str:
    """A switch as the transcript and the replay status name it: "the causal mask", "head 2 ablation"."""
    if switch == "ablated_heads":
        return f"head {head} ablation"
    return WORDS.get(switch or "", str(switch))


def step_heading(n_blocks: int, step: int, block: int | None, of_all: bool = True) -> str:
    """'step 8/16' (or 'step 8'); 'block 2 · step 8/16' for a block's step of a model with several."""
    where = step_path.Step(step, block)
    text = step_path.heading(where, n_blocks)
    return text + f"/{LAST}" if of_all else text


def mode_words(was: Mode, now: Mode, step: int) -> str:
    """A change of view in words: "entered the backward walk at step 9", "∂L/∂w hidden (at step 9)"."""
    parts = []
    if now.backward != was.backward:
        parts.append(f"{'entered' if now.backward else 'left'} the backward walk at step {step}")
    if now.gradients != was.gradients:
        parts.append("∂L/∂w now shown with each weight table" if now.gradients else "∂L/∂w now hidden")
    words = " and ".join(parts)
    return words if now.backward != was.backward else f"{words} (at step {step})"


def change_words(before: State, after: State) -> str:
    """A change between two states of the undo history in words: "the edit of W_O[h1.k0, thing]"."""
    parts = []
    cells = changed_cells(after.params, before.params)
    if len(cells) == 1:
        parts.append(f"the edit of {cell_name(after.params, cells[0][0], cells[0][1])}")
    elif cells:
        parts.append(f"the change of {len(cells)} weights")
    if before.switches.labels() != after.switches.labels():
        parts.append(f"the switch to {', '.join(came(before.switches, after.switches)) or 'as it was'}")
    for what, a, b in (
        ("prompt", before.prompt, after.prompt),
        ("target", before.target, after.target),
        ("learning rate", before.lr, after.lr),
    ):
        if a != b:
            parts.append(f"the {what} change")
    return " and ".join(parts) or "a change that changed nothing"
