"""A recording as a Markdown handout (`tinytui handout lesson.txt -o lesson.md`): where the lesson
starts, then each event as a section headed by the sentence its kind says (the transcript's
headlines), with the lines its kind adds (a teacher's note, what a learner was shown): a step visited
with its tables, its equation in LaTeX and the weights it uses (in the backward walk, its rules and
gradients); a change with what moved, before → after, the largest change in each step and the step
on screen as it now is; and where the recording ends.

The recording is replayed into a fresh Session to get there, so the handout shows exactly what the
recorded session showed (it was checked whole when it loaded). Markdown only: no escape codes, tables
as Markdown tables, equations as $$ … $$.
"""

from __future__ import annotations

from tinytui.lesson.stages import STAGE_BY_NUMBER
from tinytui.lesson.walk_stages import backward_stage_for
from tinytui.recording.event_kinds import KINDS
from tinytui.recording.recording_words import step_heading
from tinytui.recording.replay import Recording, Replayer
from tinytui.recording.transcript import (
    change_facts,
    largest_changes,
    next_token_text,
    prediction_text,
    weights_summary,
)
from tinytui.report.print_window import picks_of
from tinytui.report.render import markdown_backward_report, markdown_report, markdown_table
from tinytui.report.step_report import backward_report, stage_report
from tinytui.report.tables import fmt
from tinytui.session.session import Session
from tinytui.session.state import Event


def handout(recording: Recording, name: str) -> str:
    """The Markdown handout of a recording; name is how the recording is called in it (its file)."""
    replayer = Replayer(recording)
    session = replayer.new_session()
    model = session.model
    title = f"# tinytui lesson: {model.name}"
    out = [title, "", _intro(session, recording, name), ""]
    where = step_heading(model.cfg.n_blocks, session.step, session.here.block)
    walk = " in the backward walk" if session.mode.backward else ""
    out += [f"## Start: {where}{walk}, {STAGE_BY_NUMBER[session.step].title}", "", _step(session), ""]
    while not replayer.done:
        rec = replayer.peek()
        assert rec is not None
        before, was = session.state, session.mode
        event = replayer.apply_next(session)
        assert event is not None  # a Recording that loaded replays every event
        spec = KINDS[event.kind]
        out += [f"## {rec.seq} · {_md(spec.headline(event, session, was))}", ""]
        if spec.changes_state:
            out += _change(event, before, session)
            continue
        told = spec.notes(event, before, session.state)  # a teacher's note, what a learner was shown
        out += [f"- **{label}**: {_md(text)}" for label, text in told] + [""] * bool(told)
        if spec.shows_step(event, was):
            out += [_step(session, event), ""]
    out += ["## Where the lesson ends", "", *_state(session), ""]
    out += [f"*Made by `tinytui handout` from `{name}`; `tinytui replay {name}` replays it.*", ""]
    return "\n".join(out)


def _intro(session: Session, recording: Recording, name: str) -> str:
    model, s = session.model, session.state
    when = f"Recorded {recording.recorded}. " if recording.recorded else ""
    about = f" {_md(model.about)}" if model.about else ""
    return (
        f"{when}Model `{model.name}` ({model.params.total()} parameters).{about} "
        f"Prompt **{_md(' '.join(s.prompt))}**, target **{_md(s.target)}**; switches: "
        f"{s.switches.describe()}; learning rate {s.lr:g}."
        + ("" if session.sampling.greedy else f" Next token: {_md(next_token_text(session))}.")
        + f" {len(recording.events)} events follow."
    )


def _step(session: Session, event: Event | None = None) -> str:
    """The step on screen, in Markdown, as the view shows it now (forward, or the backward walk)."""
    step = session.step if event is None else event.step
    block = session.here.block if event is None else event.block
    if session.mode.backward:
        stage = backward_stage_for(step, session.trace.switches, session.trace.cfg)
        picks = picks_of(session.trace)
        report = backward_report(session.gradients, stage, session.model.cfg.n_heads, block or 0, picks)
        return markdown_backward_report(report, level=3)
    return markdown_report(stage_report(session.trace, STAGE_BY_NUMBER[step], session.params, block or 0), 3)


def _change(event: Event, before, session: Session) -> list[str]:
    out = [f"- **{label}**: {_md(text)}" for label, text in change_facts(event, before, session)]
    table = largest_changes(event.before, event.after, session.model.cfg.n_heads)
    out += ["", markdown_table(table) if table.rows else "Nothing in the sixteen steps changed.", ""]
    out += ["After this change the step on screen reads:", "", _step(session, event), ""]
    return out


def _state(session: Session) -> list[str]:
    s, t = session.state, session.trace
    where = step_heading(session.model.cfg.n_blocks, session.step, session.here.block)
    return [
        f"- **prompt**: {_md(' '.join(s.prompt))}; **target**: {_md(s.target)}",
        f"- **switches**: {s.switches.describe()}; **learning rate**: {s.lr:g}",
        f"- **weights**: {_md(weights_summary(s.params, session.model.params))}",
        f"- **prediction**: {_md(prediction_text(t))}; **loss**: {fmt(t.loss)}",
        *([f"- **next token**: {_md(next_token_text(session))}"] if not session.sampling.greedy else []),
        f"- **at** {where} · {STAGE_BY_NUMBER[session.step].title}"
        + (" (in the backward walk)" if session.mode.backward else ""),
    ]


def _md(text: str) -> str:
    """Text from the run (token names, cell labels) with Markdown's emphasis and escape characters made
    literal, so a token such as *much* or a label with _ prints as it is."""
    for ch in ("\\", "*", "_", "`", "<", "[", "]"):
        text = text.replace(ch, "\\" + ch)
    return text
