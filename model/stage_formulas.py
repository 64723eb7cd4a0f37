"""Each stage's formula as the switches make the model compute it; stages.py gives every Stage one.

A function takes the stage's formula as the chapter writes it and a model.switches.Switches, and
returns that formula when every switch is at its default.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tinytui.model.switches import Switches


def as_written(formula: str, sw: Switches) -> str:
    """No switch changes what this stage computes."""
    return formula


def pe(formula: str, sw: Switches) -> str:
    return formula if sw.positional_encoding else "PE = 0   (positional encoding switched off)"


def add(formula: str, sw: Switches) -> str:
    return formula if sw.positional_encoding else "x_p = E[id_p]   (no position added)"


def norm1(formula: str, sw: Switches) -> str:
    if sw.norm == "pre":
        return formula
    return "post-norm: the sublayer reads x as it is; the norm comes after the residual add"


def softmax(formula: str, sw: Switches) -> str:
    if sw.causal_mask:
        return formula
    return "A = softmax(S)   (mask switched off: every position sees every other)"


def combine(formula: str, sw: Switches) -> str:
    if not (sw.ablated_heads or sw.ablated):
        return formula
    off = ", ".join(
        [f"head_{h} = 0" for h in sorted(sw.ablated_heads)]
        + [f"head_{h} = 0 in block {b + 1}" for b, h in sorted(sw.ablated)]
    )
    return f"{formula}   (ablated: {off})"


def residual1(formula: str, sw: Switches) -> str:
    pre = sw.norm == "pre"
    inner = "MHA(LN(x))" if pre else "MHA(x)"
    out = f"x + {inner}" if sw.residual else inner
    return f"x' = {out}" if pre else f"x' = LN({out})"


def ffn(formula: str, sw: Switches) -> str:
    f_in = "LN(x')" if sw.norm == "pre" else "x'"
    rule = "max(0, {})" if sw.activation == "relu" else "GELU({})"
    return "h = " + rule.format(f"{f_in} W_1 + b_1")


def residual2(formula: str, sw: Switches) -> str:
    out = "x' + (h W_2 + b_2)" if sw.residual else "h W_2 + b_2"
    return f"y = {out}" if sw.norm == "pre" else f"y = LN({out})"
