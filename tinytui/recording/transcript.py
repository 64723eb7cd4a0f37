"""The transcript's text: what a person reads in lesson.txt (the recorder writes it, replay prints it).

A header (model, prompt, target, switches, the current step), then one block per event, headed by the
sentence its kind says (tinytui.recording.event_kinds): for a move of the view (step, mode) the step as
now shown, its title, equation, tables and the weights it uses (in the backward walk, its rules and
gradients); for a change (edit, toggle, prompt, target, lr, undo, redo, reset, learn) what moved —
weights, switches, prediction and loss old → new, the largest change in each step. Names are the ones
people read (tinytui.lesson.texts.display_names: x′, h_pre, MHA, W_O[h1.k0, thing]) and numbers have the app's
4 decimals; the exact values are in the event data (tinytui.recording.embedded_log). Plain text only,
every line at most WIDTH columns, so it diffs cleanly.
"""

from __future__ import annotations

import textwrap

import numpy as np

from tinytui.lesson import step_path
from tinytui.lesson.stages import STAGE_BY_NUMBER
from tinytui.lesson.texts.display_names import display
from tinytui.lesson.texts.wording import kv_sharing
from tinytui.lesson.walk_stages import backward_stage_for
from tinytui.model.diff import diff
from tinytui.model.params import Params
from tinytui.model.switches import came
from tinytui.model.trace import Trace
from tinytui.recording.cell_changes import changed_cells
from tinytui.recording.event_kinds import KINDS
from tinytui.recording.recording_words import cell_name, step_heading
from tinytui.report.print_window import picks_of
from tinytui.report.render import plain_backward_report, plain_report, plain_table
from tinytui.report.step_report import backward_report, stage_report
from tinytui.report.tables import Table, fmt
from tinytui.session.next_token import full_line, next_pick
from tinytui.session.session import Session
from tinytui.session.state import Event, Mode, State

WIDTH = 100
LABEL = 12  # the width of the "prediction  " column in header and change lines
MAX_CELLS = 8  # weight changes listed one by one; beyond this, a count (a learning step moves all 172)


def line(label: str, text: str) -> list[str]:
    """'label       text', wrapped to WIDTH with continuation lines under the text."""
    return textwrap.wrap(
        text,
        WIDTH,
        initial_indent=label.ljust(LABEL),
        subsequent_indent=" " * LABEL,
        break_on_hyphens=False,
    )


def weights_summary(params: Params, base: Params) -> str:
    cells = changed_cells(params, base)
    if not cells:
        return "as in the model file"
    shown = ", ".join(f"{cell_name(params, n, i)} = {fmt(v)}" for n, i, v in cells[:MAX_CELLS])
    more = f", and {len(cells) - MAX_CELLS} more" if len(cells) > MAX_CELLS else ""
    noun = "cell differs" if len(cells) == 1 else "cells differ"
    return f"{len(cells)} {noun} from the model file: {shown}{more}"


def prediction_text(trace: Trace) -> str:
    return f"{trace.prediction} (p {fmt(float(trace['probs'].max()))})"


def state_lines(session: Session) -> list[str]:
    """Where the session stands: model, prompt, target, switches, lr, weights, prediction, loss, step."""
    m, s, t = session.model, session.state, session.trace
    cfg = m.cfg
    about = (
        f"{m.name} · {m.params.total()} parameters · vocabulary {cfg.n_vocab} · d_model {cfg.d_model} · "
        f"{cfg.n_heads} heads{kv_sharing(cfg)} · d_ff {cfg.d_ff} · "
        f"{cfg.n_blocks} block{'s' if cfg.n_blocks > 1 else ''}"
    )
    out = line("model", about)
    out += line("prompt", " ".join(s.prompt))
    out += line("target", s.target)
    out += line("switches", s.switches.describe())
    out += line("lr", f"{s.lr:g}")
    out += line("weights", weights_summary(s.params, m.params))
    out += line("prediction", prediction_text(t))
    out += line("loss", fmt(t.loss))
    if not session.sampling.greedy:  # greedy: the prediction above is what + appends
        out += line("next token", next_token_text(session))
    where = step_path.of_all(session.here, session.model.cfg.n_blocks, "/").removeprefix("Step ")
    out += line("at step", f"{where} · {STAGE_BY_NUMBER[session.step].title}")
    return out


def next_token_text(session: Session) -> str:
    """How + chooses the next token and what it would append now, as step 14 shows it in the app:
    'T 1.5 · seed 0: + appends 'would' (chance 0.2012 under these settings, drawn with u = 0.6370)'."""
    chosen = next_pick(session)
    if chosen is None:
        return f"{session.sampling.describe()}: {full_line(session)}"
    token = session.model.cfg.vocab[chosen.token]
    chance = f"chance {fmt(float(chosen.probs[chosen.token]))} under these settings"
    drawn = f", drawn with u = {fmt(chosen.draw)}" if chosen.draw is not None else ""
    return f"{session.sampling.describe()}: + appends {token!r} ({chance}{drawn})"


def rule(text: str) -> str:
    """A heading line: '=== text ====…', never wider than WIDTH (a long text is shortened with …)."""
    if len(text) > WIDTH - 8:
        text = text[: WIDTH - 9] + "…"
    head = f"=== {text} "
    return head + "=" * max(3, WIDTH - len(head))


def step_text(trace: Trace, step: int, params: Params | None = None, block: int | None = None) -> str:
    """A step as text (a block's step: of that block, 0-based); given the run's params, the weights it
    uses are printed under its tables."""
    return plain_report(stage_report(trace, STAGE_BY_NUMBER[step], params, block or 0), WIDTH)


def backward_text(session: Session, step: int, block: int | None = None) -> str:
    """A step of the backward walk: its rules as run and the gradients that arrive, arise and leave."""
    stage = backward_stage_for(step, session.trace.switches, session.trace.cfg)
    picks = picks_of(session.trace)  # a big gradient (GPT-2's ∂L/∂E) is shown in part
    report = backward_report(session.gradients, stage, session.model.cfg.n_heads, block or 0, picks)
    return plain_backward_report(report, WIDTH)


def header_text(session: Session, recorded: str | None) -> str:
    out = ["tinytui session transcript", ""]
    out += state_lines(session)
    if recorded:
        out += line("recorded", recorded)
    where = "the event data at its end holds the events, as does the .jsonl beside it"
    out += line("replay", f"tinytui replay <this file> ({where})")
    mode, step, block = session.mode, session.step, session.here.block
    if mode != Mode():  # only then: a recording started in the usual view reads as it always did
        gradients = "∂L/∂w shown with each weight table"
        shown = ["in the backward walk"] * mode.backward + [gradients] * mode.gradients
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


def event_text(seq: int, event: Event, before: State, session: Session, was: Mode | None = None) -> str:
    """One event's block; before is the state ahead of it (was: the view), session holds the state after."""
    spec = KINDS[event.kind]
    head = rule(f"{seq} · {spec.headline(event, session, was or Mode())}")
    if spec.changes_state:
        return change_text(head, event, before, session)
    body = [shown_step(session, event)] if spec.shows_step(event, was or Mode()) else []
    notes = [text for label, words in spec.notes(event, before, session.state) for text in line(label, words)]
    return "\n".join(["", head, *notes, *body]) + "\n"


def shown_step(session: Session, event: Event) -> str:
    """The step an event left on screen, as the view now shows it (forward, or the backward walk)."""
    if session.mode.backward:
        return backward_text(session, event.step, event.block)
    return step_text(event.after, event.step, session.params, event.block)


def change_facts(event: Event, before: State, session: Session) -> list[tuple[str, str]]:
    """What a change moved, as (label, text) pairs, old → new: the weights, the kind's own lines,
    switches, prompt, target, lr (or that the state is unchanged), the prediction and the loss. The
    transcript prints them as labelled lines, the handout as a list."""
    after = session.state
    out = []
    cells = changed_cells(after.params, before.params)
    for name, index, value in cells[:MAX_CELLS]:
        old = float(before.params[name][index])
        out.append(("weights", f"{cell_name(after.params, name, index)}: {fmt(old)} → {fmt(value)}"))
    if len(cells) > MAX_CELLS:
        out.append(("weights", f"… and {len(cells) - MAX_CELLS} more ({len(cells)} cells in all)"))
    notes = KINDS[event.kind].notes(event, before, after)  # the kind's own lines (a learning step's losses)
    out += notes
    old_sw, new_sw = before.switches.labels(), after.switches.labels()
    moved = bool(cells) or old_sw != new_sw or bool(notes)
    moved |= (before.prompt, before.target, before.lr) != (after.prompt, after.target, after.lr)
    if old_sw != new_sw:
        gone, now = came(after.switches, before.switches), came(before.switches, after.switches)
        out.append(("switches", f"{', '.join(gone)} → {', '.join(now)}"))
    if before.prompt != after.prompt:
        out.append(("prompt", f"{' '.join(before.prompt)} → {' '.join(after.prompt)}"))
    if before.target != after.target:
        out.append(("target", f"{before.target} → {after.target}"))
    if before.lr != after.lr:
        out.append(("lr", f"{before.lr:g} → {after.lr:g}"))
    if not moved:
        out.append(("state", "unchanged"))
    b, a = event.before, event.after
    out.append(("prediction", f"{prediction_text(b)} → {prediction_text(a)}"))
    out.append(("loss", f"{fmt(b.loss)} → {fmt(a.loss)} ({signed_change(b.loss, a.loss)})"))
    return out


def change_text(head: str, event: Event, before: State, session: Session) -> str:
    """A change's block under its headline: what moved, old → new, where it went, the step now."""
    out = ["", head]
    for label, text in change_facts(event, before, session):
        out += line(label, text)
    table = largest_changes(event.before, event.after, session.model.cfg.n_heads)
    out += ["", plain_table(table, WIDTH) if table.rows else "nothing in the sixteen steps changed"]
    # the step on screen as it now is, so a reader sees the tables the change made
    out += ["", "After this change the step on screen reads:", "", shown_step(session, event)]
    return "\n".join(out) + "\n"


def signed_change(old: float, new: float) -> str:
    """new − old with its sign, as a reader works it out from the two values shown (fmt's 4 decimals),
    so the three always agree by hand; a change too small to move them in two significant figures
    (+2.3e-05), so a value that moved never reads as +0.0000 (nor any change as −0.0000)."""
    shown = round(float(fmt(new)) - float(fmt(old)), 4)
    if shown != 0:
        return f"{shown:+.4f}"
    d = new - old
    return "+0.0000" if d == 0 else f"{d:+.1e}"


def largest_changes(before: Trace, after: Trace, n_heads: int) -> Table:
    """Per step, the one value that moved most (and how many moved): where an edit's effect went."""
    d = diff(before, after)
    rows, cells = [], []
    n_blocks = after.cfg.n_blocks
    path = step_path.forward(n_blocks)
    for step in path:
        number = step_path.short(step, n_blocks)  # "8", or "2·8" for block 2's step 8
        written = [n for n in step_path.resolve_for(step.stage.writes, after.cfg, step) if n in d.tensors]
        moved = [d[n] for n in written if d[n].n_changed]
        if not moved:
            continue
        total = sum(after[n].size for n in written)
        changed = sum(t.n_changed for t in moved)
        big = max(moved, key=lambda t: (t.max_abs, t.n_changed))
        if big.reshaped:
            rows.append(f"{number:>2}    (the prompt's length changed)")
            cells.append(("", "", "", f"{changed} of {total}"))
            continue
        flat = int(np.argmax(np.abs(big.delta)))
        index = tuple(int(i) for i in np.unravel_index(flat, big.delta.shape))
        old, new = float(before[big.name][index]), float(after[big.name][index])
        rows.append(f"{number:>2}    {_where(after, big.name, index)}")
        cells.append((fmt(old), fmt(new), signed_change(old, new), f"{changed} of {total}"))
    title = f"largest change per step ({len(rows)} of {len(path)} steps changed)"
    cols = ("before", "after", "change", "values changed")
    return Table(title, "step  where", tuple(rows), cols, tuple(cells))


def _where(trace: Trace, name: str, index: tuple[int, ...]) -> str:
    axes = trace.tensor(name).axes
    shown = display(name, trace.cfg.n_blocks)
    if not index:
        return shown
    return f"{shown}[{', '.join(ax.labels[i] for ax, i in zip(axes, index))}]"
