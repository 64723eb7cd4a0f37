"""Stage reports as plain text (pipes, NO_COLOR, transcripts), Rich tables (terminals) or Markdown."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable
from typing import TYPE_CHECKING

from tinytui.lesson.texts.display_names import in_words
from tinytui.report.step_report import BackwardReport, StageReport
from tinytui.report.tables import Table

if TYPE_CHECKING:  # Rich is imported by the functions that draw with it: plain text and Markdown need none
    from rich.console import RenderableType
    from rich.table import Table as RichTable


def stage_heading(report: StageReport) -> str:
    s = report.stage
    eq = f"  ({report.equation})" if report.equation else ""
    return f"{report.heading or f'Step {s.number}/16'} · {report.title or s.title}{eq}"


def plain_table(table: Table, width: int | None = None) -> str:
    """Aligned columns; with a width, a table too wide for it is split into column groups."""
    widths = _column_widths(table)
    groups = _column_groups(widths, width)
    out = []
    for cols in groups:
        title = table.title
        if len(groups) > 1:
            title += f" (columns {cols[0] + 1}–{cols[-1] + 1} of {len(table.cols)})"
        lines = textwrap.wrap(title, width) if width and len(title) > width else [title]
        header = [table.corner.ljust(widths[0])] + [table.cols[j].rjust(widths[j + 1]) for j in cols]
        lines.append("  ".join(header).rstrip())
        for label, row in zip(table.rows, table.cells):
            cells = [label.ljust(widths[0])] + [row[j].rjust(widths[j + 1]) for j in cols]
            lines.append("  ".join(cells).rstrip())
        out.append("\n".join(lines))
    if table.note:  # a big table shown in part: what is left out, wrapped to the width like the rest
        out[-1] += "\n" + ("\n".join(textwrap.wrap(table.note, width)) if width else table.note)
    return "\n\n".join(out)


def _column_widths(table: Table) -> list[int]:
    """The row labels' width, then each column's: its header's or its widest cell's."""
    widths = [max([len(table.corner), *(len(r) for r in table.rows)])]
    for j, col in enumerate(table.cols):
        widths.append(max([len(col), *(len(row[j]) for row in table.cells)]))
    return widths


def _column_groups(widths: list[int], width: int | None, gap: int = 2) -> list[list[int]]:
    """Column indices in runs that fit the width beside the row labels (at least one column each); gap:
    the characters between two columns."""
    n = len(widths) - 1
    if width is None or sum(widths) + gap * n <= width:
        return [list(range(n))]
    groups: list[list[int]] = [[]]
    used = widths[0]
    for j in range(n):
        if groups[-1] and used + gap + widths[j + 1] > width:
            groups.append([])
            used = widths[0]
        groups[-1].append(j)
        used += gap + widths[j + 1]
    return groups


def plain_report(report: StageReport, width: int | None = None) -> str:
    """The step as text; prose is wrapped to 100 columns, tables are split to fit width when given."""
    parts = [stage_heading(report), "  " + report.formula, *_wrap(report.explain, 98, "  ")]
    for fact in report.facts:
        parts += _wrap(fact, 98, "  • ", "    ")
    body = "\n\n".join(plain_table(t, width) for t in report.tables)
    if report.weights:
        weights = "\n\n".join(plain_table(t, width) for t in report.weights)
        body += ("\n\n" if body else "") + f"{WEIGHTS_HEADING}\n\n{weights}"
    return "\n".join(parts) + ("\n\n" + body if body else "")


WEIGHTS_HEADING = "The weights this step uses (as in this run):"


def plain_backward_report(report: BackwardReport, width: int | None = None) -> str:
    """A backward-walk step as text: the rules as run, our explanation, then the gradient tables."""
    s = report.stage
    where = report.heading[:1].lower() + report.heading[1:] if report.heading else f"step {s.number}/16"
    parts = [f"Backward {where} · {in_words(s.title)}", *(f"  {in_words(r)}" for r in s.rules)]
    parts += _wrap(in_words(s.explain), 98, "  ")
    body = "\n\n".join(plain_table(t, width) for t in report.tables)
    return "\n".join(parts) + ("\n\n" + body if body else "")


def _wrap(text: str, width: int, indent: str, more: str | None = None) -> list[str]:
    """Word-wrap text; the first line starts with indent, later ones with more (default: indent)."""
    more = indent if more is None else more
    lines, line = [], indent
    for word in text.split():
        if len(line) + len(word) + 1 > width and line.strip(" •"):
            lines.append(line.rstrip())
            line = more
        line += word + " "
    if line.strip(" •"):
        lines.append(line.rstrip())
    return lines


RICH_GAP = 3  # Rich's " │ " between two columns (a space of padding each side of the rule)


class FittedTable:
    """A table drawn by Rich at the width it is given: split into column groups that fit, each titled
    with the columns it holds, as plain_table splits them (Rich would otherwise cut every number to a
    digit and an ellipsis). Every label and number is plain text: a token such as [b] or [/x] is shown
    as it is, never read as Rich markup."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def __rich_console__(self, console, options):
        yield from rich_tables(self.table, options.max_width)


def rich_tables(table: Table, width: int | None = None) -> list[RichTable]:
    """The table as Rich tables, one per column group that fits width (all columns in one without)."""
    from rich.table import Table as RichTable
    from rich.text import Text

    groups = _column_groups(_column_widths(table), width, RICH_GAP)
    out = []
    for i, cols in enumerate(groups):
        title = table.title
        if len(groups) > 1:
            title += f" (columns {cols[0] + 1}–{cols[-1] + 1} of {len(table.cols)})"
        last = i == len(groups) - 1
        rich = RichTable(
            title=Text(title),
            title_justify="left",
            caption=Text(table.note) if table.note and last else None,  # a big table shown in part
            caption_justify="left",
            show_edge=False,
            pad_edge=False,
        )
        rich.add_column(Text(table.corner), style="bold", no_wrap=True)
        for j in cols:
            rich.add_column(Text(table.cols[j]), justify="right", no_wrap=True)
        for label, row in zip(table.rows, table.cells):
            rich.add_row(Text(label), *(Text(row[j]) for j in cols))
        out.append(rich)
    return out


def rich_report(report: StageReport) -> RenderableType:
    from rich.console import Group
    from rich.text import Text

    items: list[RenderableType] = [
        Text(stage_heading(report), style="bold"),
        Text("  " + report.formula, style="italic"),
        Text(report.explain, style="dim"),
    ]
    items += [Text(f"  • {f}") for f in report.facts]
    for t in report.tables:
        items += [Text(""), FittedTable(t)]
    if report.weights:
        items += [Text(""), Text(WEIGHTS_HEADING, style="bold")]
    for t in report.weights:
        items += [Text(""), FittedTable(t)]
    return Group(*items, Text(""))


_MARKUP = re.compile(r"([\\`*<|])")  # what Markdown reads as markup anywhere in a line
_LOOSE_UNDERSCORE = re.compile(r"(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")  # W_Q's is never emphasis


def markdown_text(s: str) -> str:
    """Text as Markdown shows it as written: a token such as "**", "_x_", "<b>" or "|" (GPT-2 has
    them) is escaped rather than read as emphasis, a tag or a table's column."""
    return _LOOSE_UNDERSCORE.sub(r"\\_", _MARKUP.sub(r"\\\1", s))


def markdown_table(table: Table) -> str:
    esc = markdown_text
    lines = [f"**{esc(table.title)}**", ""]
    lines.append("| " + " | ".join([esc(table.corner)] + [esc(c) for c in table.cols]) + " |")
    lines.append("|" + "---|" + "---:|" * len(table.cols))
    for label, row in zip(table.rows, table.cells):
        lines.append("| " + " | ".join([esc(label)] + [esc(c) for c in row]) + " |")
    if table.note:  # a big table shown in part: what is left out
        lines += ["", f"*{esc(table.note)}*"]
    return "\n".join(lines)


def markdown_report(report: StageReport, level: int = 2) -> str:
    """The step in Markdown under a heading of the given level, its equation in LaTeX."""
    s = report.stage
    number = report.equation[:1].isdigit()  # "17.3", or "RMSNorm is not in the chapter"
    eq = f" ({'Equation ' if number else ''}{report.equation})" if report.equation else ""
    # "Step 9", "Block 2/3 · step 9"
    where = report.heading.replace("/16", "") if report.heading else f"Step {s.number}"
    hashes = "#" * level
    parts = [
        f"{hashes} {where}. {report.title or s.title}{eq}",
        "",
        f"$$ {report.latex or s.latex} $$" if report.latex_holds else f"`{report.formula}`",
        "",
        markdown_text(report.explain),
        "",
    ]
    parts += [f"- {markdown_text(f)}" for f in report.facts]
    if report.facts:
        parts.append("")
    for t in report.tables:
        parts += [markdown_table(t), ""]
    if report.weights:
        parts += [f"{hashes}# {WEIGHTS_HEADING.rstrip(':')}", ""]
    for t in report.weights:
        parts += [markdown_table(t), ""]
    return "\n".join(parts)


def markdown_backward_report(report: BackwardReport, level: int = 2) -> str:
    """A backward-walk step in Markdown: the rules as run (as code, they are not LaTeX), our
    explanation, then the gradient tables."""
    s = report.stage
    where = report.heading.replace("/16", "") if report.heading else f"Step {s.number}"
    parts = [f"{'#' * level} Backward: {where}. {in_words(s.title)}", ""]
    parts += [f"    {in_words(r)}" for r in s.rules] + ["", in_words(s.explain), ""]
    for t in report.tables:
        parts += [markdown_table(t), ""]
    return "\n".join(parts)


def markdown_document(title: str, intro: str, reports: Iterable[StageReport]) -> str:
    head = [f"# {title}", "", intro, "", ""]  # a blank line before the first step's heading
    return "\n".join(head) + "\n".join(markdown_report(r) for r in reports)
