"""Activation patching as the app shows it, read off a View: once a corrupted prompt and a foil are set
(the session's PatchSetting), beside steps 13 and 14 a block × position heatmap of the clean run's block
inputs written into the corrupted run, and a block × head table of the clean heads' outputs, each cell
the metric logit(target) − logit(foil) at the last position and its inspector line saying which run
the piece comes from and what was patched.

Pure data (no Textual). The numbers are tinytui.model.analysis.patching's (the session makes them once
per state; a big model's in a thread, "patching…" shown meanwhile); the share of the change is
Patching.restored.
"""

from __future__ import annotations

import math

from tinytui.present.grid_spec import Cell, GridSpec, Section, grid
from tinytui.present.lens_tables import LENS_STEPS
from tinytui.present.view import View
from tinytui.report.tables import fmt, on_screen


def share(restored: float) -> str:
    """'100% of the change' (or why there is no share: the two prompts give the same metric)."""
    if math.isnan(restored):
        return "no share: both prompts give the same metric, but for rounding"
    return f"{percent(restored)} of the change"


def percent(share: float) -> str:
    """A share as a whole percentage: '54%', never '−0%'."""
    return f"{share + 0.0:.0%}"  # + 0.0: no "−0%"


def share_words(value: float, clean: float, corrupt: float, restored: float) -> str:
    """The share of the change a patched metric brings back, with the two metrics it is measured
    between, checkable from the numbers as printed: where the four-decimal numbers give another
    percentage (a gap of a few ten-thousandths), or show no gap at all, the line says so."""
    c, k = fmt(clean), fmt(corrupt)
    said = share(restored)
    if math.isnan(restored):
        return f"{said} (clean {c}, corrupted {k})"
    unrounded = f"{said}, of the metrics unrounded (clean {c}, corrupted {k}:"
    if c == k:
        gap = f"{clean - corrupt:.1e}".replace("e-0", "e−").replace("e-", "e−").replace("e+0", "e")
        return f"{unrounded} a gap of {gap} that four decimals do not show)"
    shown = (float(fmt(value)) - float(k)) / (float(c) - float(k))
    if percent(shown) != percent(restored):
        return f"{unrounded} these four-decimal numbers give {percent(shown)})"
    return f"{said} (clean {c}, corrupted {k})"


def shade_words(restored: float) -> str:
    """What the cell's colour stands for: the share, on a scale from −1 to +1 (the table's legend); a
    share beyond it is shaded as the scale's end."""
    if math.isnan(restored):
        return ""
    if abs(round(restored, 2)) > 1:
        end = "+1" if restored > 0 else "−1"
        return f", the share its shade shows on the −1…+1 scale (beyond it: shaded as {end})"
    return ", the share its shade shows on the −1…+1 scale"


def position_labels(clean: tuple[str, ...], corrupt: tuple[str, ...]) -> tuple[str, ...]:
    """'0:a', and 'clean/corrupted' where the prompts differ: '1:woodchuck/much'."""
    return tuple(f"{p}:{c}" if c == k else f"{p}:{c}/{k}" for p, (c, k) in enumerate(zip(clean, corrupt)))


def patch_grids(view: View) -> list[GridSpec]:
    s = view.other
    setting, result = s.patch_setting, s.patching()
    if setting is None or result is None:
        return []
    trace = view.trace
    target, foil = result.target, result.foil
    metric = f"logit({target}) − logit({foil})"
    clean, corrupt = trace.prompt, setting.corrupt
    positions = position_labels(clean, corrupt)
    n_blocks, n_heads = result.heads.shape

    def cell(value: float, what: str, note: str = "") -> Cell:
        restored = result.restored(value)
        said = share_words(value, result.clean, result.corrupt, restored)  # the numbers first: at 80×24
        detail = f"{metric} = {fmt(value)}, {said}{shade_words(restored)} · the clean run's {what} written "
        detail += f"into the corrupted run{note}"  # the inspector has two lines there
        return Cell(fmt(value), value=None if math.isnan(restored) else restored, detail=detail)

    resid = [
        [
            cell(float(result.resid_pre[b, p]), f"block {b + 1} input at {positions[p]}")
            for p in range(len(clean))
        ]
        for b in range(n_blocks)
    ]
    cfg = trace.cfg

    def shared(b: int, h: int) -> str:  # grouped-query attention: the query head's output alone is patched
        if trace.switches.is_ablated(b, h + 1):
            return f"; head {h + 1} is off in both runs: its output is zeros, so the patch changes nothing"
        if cfg.group_size == 1:
            return ""
        g = cfg.kv_head(h)
        others = [str(o + 1) for o in range(n_heads) if o != h and cfg.kv_head(o) == g]
        one = len(others) == 1
        who = f"head {others[0]}, which shares" if one else f"heads {', '.join(others)}, which share"
        reads = "reads" if one else "read"
        return f"; {who} its key/value head {g + 1}, still {reads} the corrupted run's K and V"

    heads = [
        [
            cell(
                float(result.heads[b, h]),
                f"block {b + 1} head {h + 1} output A·V (every position, before W_O)",
                shared(b, h),
            )
            for h in range(n_heads)
        ]
        for b in range(n_blocks)
    ]
    blocks = tuple(f"block {b + 1}" for b in range(n_blocks))
    shade = "diverging"  # the share of the change brought back: 1 all of it, 0 none, below 0 the other way
    return [
        grid("patch:resid", f"Block input patched at one position: {metric}", "into", blocks, positions,
             resid, shade, "output", limit=1.0),
        grid("patch:heads", f"One head's output patched: {metric}", "into", blocks,
             tuple(f"head {h + 1}" for h in range(n_heads)), heads, shade, "output", limit=1.0),
    ]  # fmt: skip


def patch_sections(view: View) -> list[Section]:
    """Beside steps 13 and 14 once patching is set (the forward pass only)."""
    s = view.other
    if view.mode.backward or view.step not in LENS_STEPS or s.patch_setting is None:
        return []
    setting = s.patch_setting
    into = " ".join(setting.corrupt)
    if problem := s.patching_problem():
        cells = [[Cell(problem, detail=problem)]]
        note = grid(
            "patch:problem", "Activation patching waits", "", ("",), ("",), cells, "", "info", limit=1.0
        )
        return [Section(f"Activation patching into “{into}” — {problem}", "info", ((note,),))]
    result = s.patching()
    if result is None:  # a big model's: being made in a thread, the tables follow when it is done
        from tinytui.model.analysis.patching import runs_of

        cfg, n = view.trace.cfg, len(setting.corrupt)
        title = (
            f"Activation patching into “{into}”: patching… {runs_of(cfg, n):,} runs of the corrupted "
            "prompt, each with one piece of the clean run written in; the tables follow when made"
        )
        return [Section(title, "info", ())]
    clean, corrupt = on_screen(fmt(result.clean)), on_screen(fmt(result.corrupt))
    title = (
        f"Patching the clean run into “{into}”: clean {clean}, corrupted {corrupt} · shade: the share of "
        "the change a patch brings back"
    )
    return [Section(title, "output", tuple((g,) for g in patch_grids(view)))]
