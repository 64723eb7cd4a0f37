"""The transcript's text: what a person reads in lesson.txt (the recorder writes it, replay prints it).

A header (model, prompt, target, switches, the current step), then one block per event, headed by a
sentence saying what happened: a step's title, equation, tables and the weights it uses; for a change
(edit, toggle, prompt, target, undo, redo, reset, learn) what moved — weights, switches, prediction and
loss old → new, the largest change in each step; for a change of view (mode) what is now shown. Names
are the ones people read (tinytui.report.display_names: x′, h_pre, MHA, W_O[h1.k0, thing]) and numbers have
the app's 4 decimals; the exact values are in the event data.

Each block ends with its event's data: the same JSON object as the .jsonl line, on lines starting with
DATA ("#| ", a record's first line) or MORE ("#|+", its continuation), each with a CRC-32 of its part,
so the transcript alone replays (read_data() gets the records back) and an edited line is named.
Plain text only, every line at most WIDTH columns, so it diffs cleanly.

This module makes the header and each event's block from the parts in tinytui.recording.transcript_lines (the
building blocks), tinytui.recording.transcript_changes (headlines, what a change moved) and
tinytui.recording.transcript_data (the event data lines).
"""

from __future__ import annotations

from tinytui.model.stages import STAGE_BY_NUMBER
from tinytui.recording.transcript_changes import (
    change_text,
    headline,
)
from tinytui.recording.transcript_lines import (
    backward_text,
    line,
    rule,
    state_lines,
    step_heading,
    step_text,
)
from tinytui.session.session import Session
from tinytui.session.state import Event, Mode, State


def header_text(session: Session, recorded: str | None) -> str:
    out = ["tinytui session transcript", ""]
    out += state_lines(session)
    if recorded:
        out += line("recorded", recorded)
    where = "its #| lines hold the events, as does the .jsonl beside it"
    out += line("replay", f"tinytui replay <this file> ({where})")
    mode, step, block = session.mode, session.step, session.here.block
    if mode != Mode():  # only then: a recording started in the usual view reads as it always did
        shown = ["in the backward walk"] * mode.backward + ["∂L/∂w shown beside the weights"] * mode.gradients
        out += line("view", " · ".join(shown))
    if mode.backward:
        body = backward_text(session, step, block)
    else:
        body = step_text(session.trace, step, session.params, block)
    walk = " in the backward walk" if mode.backward else ""
    title = STAGE_BY_NUMBER[step].title
    where = step_heading(session.model.cfg.n_blocks, step, block)
    out += ["", rule(f"start: the recording begins at {where}{walk}, {title}"), body]
    return "\n".join(out) + "\n"


def mode_words(was: Mode, now: Mode, step: int) -> str:
    """A change of view in words: "entered the backward walk at step 9", "∂L/∂w hidden (at step 9)"."""
    parts = []
    if now.backward != was.backward:
        parts.append(f"{'entered' if now.backward else 'left'} the backward walk at step {step}")
    if now.gradients != was.gradients:
        parts.append("∂L/∂w now shown beside the weights" if now.gradients else "∂L/∂w now hidden")
    words = " and ".join(parts)
    return words if now.backward != was.backward else f"{words} (at step {step})"


def mode_text(seq: int, event: Event, was: Mode, session: Session) -> str:
    """A mode event's block: its words, then the step as it is now shown if the walk was entered or left."""
    now = Mode(bool(event.data.get("backward")), bool(event.data.get("gradients")))
    out = ["", rule(f"{seq} · view: {mode_words(was, now, event.step)}")]
    if now.backward != was.backward:
        forward = step_text(event.after, event.step, session.params, event.block)
        out.append(backward_text(session, event.step, event.block) if now.backward else forward)
    return "\n".join(out) + "\n"


def event_text(seq: int, event: Event, before: State, session: Session, was: Mode | None = None) -> str:
    """One event's block; before is the state ahead of it (was: the mode), session holds the state after."""
    if event.kind == "mode":
        return mode_text(seq, event, was or Mode(), session)
    if event.kind == "step":
        rule_line = rule(headline(seq, event, session))
        body = (
            backward_text(session, event.step, event.block)
            if event.data.get("backward")
            else step_text(event.after, event.step, session.params, event.block)
        )
        return "\n".join(["", rule_line, body]) + "\n"
    return change_text(seq, event, before, session)
