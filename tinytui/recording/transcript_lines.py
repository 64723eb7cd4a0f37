"""The transcript's building blocks: its width, a labelled line, a heading rule, names and numbers as the
app shows them, and the texts of a step (forward or of the backward walk) and of where the session stands.

tinytui.recording.transcript puts these together into lesson.txt; replay prints some of them on their own.
"""

from __future__ import annotations

import textwrap

from tinytui.model import names, step_path
from tinytui.model.backward.walk_stages import backward_stage_for
from tinytui.model.params import Params
from tinytui.model.stages import LAST, STAGE_BY_NUMBER
from tinytui.model.trace import Trace
from tinytui.recording.event_log import changed_cells
from tinytui.report.display_names import cell
from tinytui.report.print_window import picks_of
from tinytui.report.render import plain_backward_report, plain_report
from tinytui.report.step_report import backward_report, stage_report
from tinytui.report.tables import fmt
from tinytui.session.session import Session

WIDTH = 100
LABEL = 12  # the width of the "prediction  " column in header and change lines
MAX_CELLS = 8  # weight changes listed one by one; beyond this, a count (a learning step moves all 172)


def cell_name(params: Params, name: str, index: tuple[int, ...] | list[int]) -> str:
    """A weight cell as the app labels it: W_O[h1.k0, thing]."""
    full = names.canonical(name)
    shape = params[full].shape if full in params else ()
    return cell(params.cfg, full, index, shape)


def number(v: float) -> str:
    """A weight exactly as stored (repr is the shortest text that reads back to the same float)."""
    return repr(float(v))


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
        f"{cfg.n_heads} heads · d_ff {cfg.d_ff} · {cfg.n_blocks} block{'s' if cfg.n_blocks > 1 else ''}"
    )
    out = line("model", about)
    out += line("prompt", " ".join(s.prompt))
    out += line("target", s.target)
    out += line("switches", s.switches.describe())
    out += line("lr", f"{s.lr:g}")
    out += line("weights", weights_summary(s.params, m.params))
    out += line("prediction", prediction_text(t))
    out += line("loss", fmt(t.loss))
    where = step_path.of_all(session.here, session.model.cfg.n_blocks, "/").removeprefix("Step ")
    out += line("at step", f"{where} · {STAGE_BY_NUMBER[session.step].title}")
    return out


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


def step_heading(n_blocks: int, step: int, block: int | None, of_all: bool = True) -> str:
    """'step 8/16' (or 'step 8'); 'block 2 · step 8/16' for a block's step of a model with several."""
    where = step_path.Step(step, block)
    text = step_path.heading(where, n_blocks)
    return text + f"/{LAST}" if of_all else text
