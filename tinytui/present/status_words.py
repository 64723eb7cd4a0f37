"""The status line's words, read off a View: where the run stands (the step, or where the backward walk
is), the prompt and its target, the prediction and the loss (old → new after a change), the model's
choices, a learning run's losses, the edited weights, what undo can do, the switches, the learning rate,
the app's notes and what the ▲▼ marks compare with.

Three lines of pieces; a piece is a Rich Text in styles named by what they mark, which the widget
supplies: "step" (where the run stands), "key" (a value to read) and "muted" (a label, a was-value).
The widget lays the pieces out on its rows; nothing here knows the screen's width. While practising,
the probability and the loss are "?": steps 14 and 15 ask for them.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.style import Style
from rich.text import Text

from tinytui.lesson import step_path
from tinytui.lesson.arch_names import is_chapters, model_choices
from tinytui.lesson.stages import STAGE_BY_NUMBER, title_for
from tinytui.model.generation import sampling
from tinytui.model.switches import Switches
from tinytui.model.trace import DEFAULT_LR
from tinytui.present.backward_tables import backward_stage, in_walk
from tinytui.present.sparkline import sparkline
from tinytui.present.view import View
from tinytui.report.pick_ties import pick_tie
from tinytui.report.tables import fmt

CHAPTER_SWITCHES = Switches()  # a switch set otherwise is written in the "key" style
GREEDY = sampling.Sampling()  # the status line's prediction is the most likely token, as greedy's pick

Styles = Callable[[str], Style]  # a style by its name: "step", "key" or "muted"


def status_lines(view: View, style: Styles) -> list[list[Text]]:
    """The three lines of pieces: the step and the prompt; the prediction, the loss and what changed
    the weights; the switches, the settings and the app's notes (the ▲▼ legend last, the first piece
    a narrow screen leaves out)."""
    return [_where(view, style), _outcome(view, style), _settings(view, style)]


def _where(view: View, style: Styles) -> list[Text]:
    trace = view.trace
    stage = STAGE_BY_NUMBER[view.step]
    title = title_for(stage, trace.cfg, trace.switches)
    where = f"{step_path.of_all(view.here, trace.cfg.n_blocks, '/')} {title}"
    if in_walk(view):  # the backward pass says so first, where the step's name would be
        where = f"◀ BACKWARD PASS · {view.heading} · {backward_stage(view).title}"
    return [Text(where, style("step")), Text(" ".join(trace.prompt) + f" → target {trace.target}")]


def _outcome(view: View, style: Styles) -> list[Text]:
    trace, base = view.trace, view.base
    key, muted = style("key"), style("muted")
    p, p_old = float(trace["probs"].max()), float(base["probs"].max())
    prediction = Text("prediction ", muted)
    loss = Text("loss ", muted)
    if view.practice is not None:  # practice on: the probability and the loss are answers steps ask
        prediction.append(f"{trace.prediction} ?", key)
        loss.append("?", key)
    else:
        if view.changed and (base.prediction != trace.prediction or fmt(p) != fmt(p_old)):
            prediction.append(f"{base.prediction} {fmt(p_old)} → ", muted)
        prediction.append(f"{trace.prediction} {fmt(p)}", key)
        if tie := _tie(trace):  # the numbers cannot say why it won: a tie, decided by the lower id
            prediction.append(f" ({tie})", muted)
        if view.changed and fmt(base.loss) != fmt(trace.loss):
            loss.append(f"{fmt(base.loss)} → ", muted)
            loss.append(f"{fmt(trace.loss)}{_arrow(base.loss, trace.loss)}", key)
        else:
            loss.append(fmt(trace.loss), key)
    out = [prediction, loss]
    if not is_chapters(trace.cfg):  # a Llama-family model: its choices, briefly
        out.append(Text(model_choices(trace.cfg, trace.switches.activation), muted))
    if (curve := view.curve) is not None:  # the current weights came from learning steps
        run = f"{curve.steps} step{'s' if curve.steps != 1 else ''} of {curve.lr:g}"
        spark = f" {sparkline(curve.losses)} " if len(curve.losses) > 2 else " → "
        out.append(Text(f"learned {run}: {fmt(curve.losses[0])}{spark}{fmt(curve.losses[-1])}", key))
    n_edited = sum(len(v) for v in view.edited.values())
    if n_edited:
        out.append(Text(f"{n_edited} edited weight{'s' if n_edited != 1 else ''}", key))
    if view.undo.back or view.undo.forward:
        out.append(Text(f"undo {view.undo.back} · redo {view.undo.forward}", muted))
    return out


def _tie(trace) -> str:
    """pick_ties' short words ("tie: lower id") when the prediction shares the largest logit, else ''.
    The tie is checked first: at GPT-2's 50,257 tokens a whole pick each redraw would cost."""
    logits = trace["logits"]
    if len(sampling.tied_for_first(logits)) < 2:
        return ""
    tie = pick_tie(sampling.pick(logits, GREEDY, len(trace.prompt)), trace.cfg.vocab)
    return tie.short if tie is not None else ""


def _settings(view: View, style: Styles) -> list[Text]:
    key = style("key")
    out = [switch_words(view, style)]
    if view.lr != DEFAULT_LR:
        out.append(Text(f"lr {view.lr:g}", key))
    out += [Text(piece, key) for piece in view.notes]  # the app's: recording, replay, practice
    against = "original model" if view.compare_to_original else "last change"
    out.append(Text(f"▲▼ vs {against} (c)", style("muted")))
    return out


def switch_words(view: View, style: Styles) -> Text:
    """The switches, each one that differs from the chapter's setting in the "key" style. Under rotary
    positions the positions switch turns q and k, nothing is added to x: it is named RoPE, not PE."""
    chapter = set(CHAPTER_SWITCHES.labels())
    rope = view.trace.cfg.positions == "rope"
    out = Text()
    for i, label in enumerate(view.switches.labels()):
        if rope and label.startswith("PE "):
            label = "RoPE" + label.removeprefix("PE")
        if i:
            out.append(" · ")
        out.append(label, None if label in chapter else style("key"))
    return out


def _arrow(old: float, new: float) -> str:
    if new > old:
        return " ▲"
    if new < old:
        return " ▼"
    return ""
