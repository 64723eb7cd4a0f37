"""tinytui print --markdown: a handout that Markdown tools read as 16 sections, real tables, LaTeX."""

import io

from markdown_it import MarkdownIt

from tinytui.cli.main import cmd_print
from tinytui.cli.options import build_parser
from tinytui.lesson.stages import STAGES
from tinytui.model.io.model_file import load_default
from tinytui.report.step_report import stage_report


def trace_params():
    return load_default().params


def handout(*args):
    out = io.StringIO()
    assert cmd_print(build_parser().parse_args(["print", "--markdown", *args]), out) == 0
    return out.getvalue()


def test_markdown_handout_parses_as_sixteen_steps_with_every_table(trace):
    text = handout()
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    headings = [
        tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open" and t.tag == "h2"
    ]
    assert [h.split(".")[0] for h in headings] == [f"Step {s.number}" for s in STAGES]
    assert headings[2] == "Step 3. Positional encoding (Equation 17.1)"
    reports = [stage_report(trace, s, trace_params()) for s in STAGES]
    tables = sum(len(r.tables) + len(r.weights) for r in reports)  # each step's weights too
    assert sum(t.type == "table_open" for t in tokens) == tables
    # the heads-combined table: a real table whose cells are the numbers
    cells = [t.content for t in tokens if t.type == "inline"]
    at = cells.index("**MHA(LN(x)) = [head_1; head_2] W_O**")
    assert cells[at + 1 : at + 6] == ["tokens", "thing", "action", "quantifier", "wood"]
    assert cells[at + 6 : at + 11] == ["0:a", "-1.7320", "0.0000", "0.0000", "0.0000"]
    for s in STAGES:
        assert f"$$ {s.latex} $$" in text
    assert "\x1b" not in text and "\n\n## Step 1. Tokens to ids\n" in text


def test_markdown_handout_follows_the_switches():
    text = handout("--no-mask", "--step", "8")
    assert "switches: mask off" in text and "causal mask OFF" in text
    assert text.count("## Step") == 1
