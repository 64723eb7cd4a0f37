"""Stage reports as plain text (pipes, NO_COLOR, transcripts), Rich tables (terminals) or Markdown."""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Group, RenderableType
from rich.table import Table as RichTable
from rich.text import Text

from tinytui.report import StageReport, Table


def stage_heading(report: StageReport) -> str:
    s = report.stage
    eq = f"  ({s.equation})" if s.equation else ""
    return f"Step {s.number}/16 · {s.title}{eq}"


def plain_table(table: Table) -> str:
    widths = [max(len(table.corner), *(len(r) for r in table.rows))]
    for j, col in enumerate(table.cols):
        widths.append(max(len(col), *(len(row[j]) for row in table.cells)))
    lines = [table.title]
    header = [table.corner.ljust(widths[0])] + [c.rjust(w) for c, w in zip(table.cols, widths[1:])]
    lines.append("  ".join(header).rstrip())
    for label, row in zip(table.rows, table.cells):
        cells = [label.ljust(widths[0])] + [c.rjust(w) for c, w in zip(row, widths[1:])]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def plain_report(report: StageReport) -> str:
    s = report.stage
    parts = [stage_heading(report), "  " + s.formula, *_wrap(s.explain, 98, "  ")]
    parts += [f"  • {f}" for f in report.facts]
    body = "\n\n".join(plain_table(t) for t in report.tables)
    return "\n".join(parts) + ("\n\n" + body if body else "")


def _wrap(text: str, width: int, indent: str) -> list[str]:
    lines, line = [], indent
    for word in text.split():
        if len(line) + len(word) + 1 > width and line.strip():
            lines.append(line.rstrip())
            line = indent
        line += word + " "
    if line.strip():
        lines.append(line.rstrip())
    return lines


def rich_table(table: Table) -> RichTable:
    out = RichTable(title=table.title, title_justify="left", show_edge=False, pad_edge=False)
    out.add_column(table.corner, style="bold")
    for col in table.cols:
        out.add_column(col, justify="right")
    for label, row in zip(table.rows, table.cells):
        out.add_row(label, *row)
    return out


def rich_report(report: StageReport) -> RenderableType:
    s = report.stage
    items: list[RenderableType] = [
        Text(stage_heading(report), style="bold"),
        Text("  " + s.formula, style="italic"),
        Text(s.explain, style="dim"),
    ]
    items += [Text(f"  • {f}") for f in report.facts]
    for t in report.tables:
        items += [Text(""), rich_table(t)]
    return Group(*items, Text(""))


def markdown_table(table: Table) -> str:
    def esc(s: str) -> str:
        return s.replace("|", "\\|")

    lines = [f"**{esc(table.title)}**", ""]
    lines.append("| " + " | ".join([esc(table.corner)] + [esc(c) for c in table.cols]) + " |")
    lines.append("|" + "---|" + "---:|" * len(table.cols))
    for label, row in zip(table.rows, table.cells):
        lines.append("| " + " | ".join([esc(label)] + [esc(c) for c in row]) + " |")
    return "\n".join(lines)


def markdown_report(report: StageReport) -> str:
    s = report.stage
    eq = f" (Equation {s.equation})" if s.equation else ""
    parts = [f"## Step {s.number}. {s.title}{eq}", "", f"$$ {s.latex} $$", "", s.explain, ""]
    parts += [f"- {f}" for f in report.facts]
    if report.facts:
        parts.append("")
    for t in report.tables:
        parts += [markdown_table(t), ""]
    return "\n".join(parts)


def markdown_document(title: str, intro: str, reports: Iterable[StageReport]) -> str:
    head = [f"# {title}", "", intro, ""]
    return "\n".join(head) + "\n".join(markdown_report(r) for r in reports)
