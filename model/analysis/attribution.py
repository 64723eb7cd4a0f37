"""Direct logit attribution: a token's final logit split into the pieces written into the residual stream.

With the layer norm before each sublayer (pre-norm) and the residual connections on, the stream at the
last position is a plain sum of what was written into it:

    y = emb + pe + Σ_b ( Σ_h head_h · W_O^(h)  +  hidden · W_2  +  b_2 )

(rotary positions add nothing to the stream, they turn q and k inside each head, so such a model has no
pe part; a gated FFN writes hidden · W_down with hidden = act(x W_gate) ⊙ x W_up, and has no b_2)

and the logit of a token t is z · E[t] with z = (y − mean(y)) / σ, σ = √(var(y) + ε). The mean is
linear and σ is one number for the position, so, holding σ at its value in the run,

    logit(t) = Σ_c ((c − mean(c)) / σ) · E[t]         over the parts c above

exactly (up to rounding, ~1e-15). Holding σ fixed is the one approximation in the reading: a part's
share is not what the logit would lose if that part were removed, because removing it would change σ.

Under post-norm every sublayer's output is re-normalised (y = LN(x_mid + ffn)), and with the residual
off the last stream is the last filter's output alone, so the embedding and the heads reach it only
through the filter's nonlinearity. In both cases the stream is no longer a sum of the parts, and any
split into them would not add up to the logit; attribution() then returns the reason and no parts.

GPT-2's terms keep it exact: the attention bias b_O is one more part written into the stream, and the
final norm's gain and bias make z = g ⊙ (y − mean(y)) / σ + b, so each part's share is
(g ⊙ (c − mean(c)) / σ) · E[t] and the bias b is a part of its own, b · E[t].
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from tinytui.model import ops
from tinytui.model.analysis.circuits import head_out_rows
from tinytui.model.names import part_label
from tinytui.model.params import Params
from tinytui.model.trace import Trace

NOT_EXACT = {
    "post-norm": (
        "post-norm re-normalises the stream after every sublayer, so the stream that reaches the "
        "logits is not a sum of the pieces written into it and their parts would not add up to the logit"
    ),
    "residual off": (
        "with the residual connections off the last stream is the last filter's output alone; the "
        "embedding, position and heads reach it only through the filter's nonlinearity, so they have "
        "no direct part"
    ),
}


def why_not_exact(trace: Trace) -> str | None:
    """None when the run's logits split exactly into parts, else the reason they do not."""
    if trace.switches.norm != "pre":
        return NOT_EXACT["post-norm"]
    if not trace.switches.residual:
        return NOT_EXACT["residual off"]
    return None


def part_names(
    n_blocks: int,
    n_heads: int,
    attn_bias: bool = False,
    norm_affine: bool = False,
    added_pe: bool = True,
    gated: bool = False,
) -> tuple[str, ...]:
    """The parts, in the order they are written: emb, pe (unless the positions add nothing to the
    stream: added_pe False), then per block its heads (and b_O), hidden·W_2 and b_2 (a gated FFN's
    hidden·W_down alone); with the final norm's bias, lnf_b last."""
    names = ["emb", "pe"] if added_pe else ["emb"]
    for b in range(n_blocks):
        names += [f"blocks.{b}.head.{h}" for h in range(1, n_heads + 1)]
        names += [f"blocks.{b}.b_O"] if attn_bias else []
        names += [f"blocks.{b}.hidden"] if gated else [f"blocks.{b}.hidden", f"blocks.{b}.b_2"]
    return (*names, "lnf_b") if norm_affine else tuple(names)


def adds_positions(trace: Trace) -> bool:
    """Whether the run's positions are a vector added to the stream (sinusoids, a learned table P),
    switched on or off; rotary positions turn q and k instead, and "none" has no positions at all."""
    return trace.cfg.positions not in ("rope", "none")


def part_labels(parts: Iterable[str], trace: Trace) -> list[str]:
    """How each part is shown (names.part_label), the positional encoding's as 'PE (switched off)' when
    the run switched it off: its 0 is then the switch's doing, not the model's."""
    off = not trace.switches.positional_encoding
    return [
        "PE (switched off)" if p == "pe" and off else part_label(p, trace.cfg.n_blocks, trace.cfg.gated)
        for p in parts
    ]


def residual_parts(params: Params, trace: Trace, position: int) -> dict[str, np.ndarray]:
    """The pieces written into the residual stream at one position, by part name (each (d,)).
    Under pre-norm with the residual on they add up to the last block's y there. Rotary positions (or
    none) write nothing into the stream: no pe part then."""
    cfg = params.cfg
    out = {"emb": np.asarray(trace["emb"][position])}
    if adds_positions(trace):
        out["pe"] = np.asarray(trace["pe"][position])
    for b in range(cfg.n_blocks):
        pre = f"blocks.{b}."
        for h in range(1, cfg.n_heads + 1):
            out[f"{pre}head.{h}"] = trace[f"{pre}head.{h}"][position] @ head_out_rows(params, b, h)
        if cfg.out_bias:
            out[pre + "b_O"] = np.asarray(params[pre + "b_O"])
        if cfg.gated:  # hidden · W_down, no bias
            out[pre + "hidden"] = trace[pre + "hidden"][position] @ params[pre + "W_down"]
            continue
        out[pre + "hidden"] = trace[pre + "hidden"][position] @ params[pre + "W_2"]
        out[pre + "b_2"] = np.asarray(params[pre + "b_2"])
    return out


@dataclass(frozen=True)
class TokenAttribution:
    """One token's logit split into the parts of the residual stream that wrote it."""

    token: str
    logit: float  # the run's logit for the token
    parts: dict[str, float]  # part name -> its share; the shares add up to logit (empty if not exact)

    def to_json(self) -> dict:
        return {"logit": self.logit, "parts": dict(self.parts)}


@dataclass(frozen=True)
class Attribution:
    """Direct logit attribution at the last position: each chosen token's split, with the norm's
    scale held at its value; when the stream is not a sum of parts, the reason and no split."""

    position: int  # the last prompt position, where the logits are read
    scale: float  # held fixed: the final norm's σ = √(var + ε) at that position, or RMSNorm's √(mean(y²) + ε)
    tokens: dict[str, TokenAttribution]
    reason: str | None = None  # why there are no parts (post-norm, residual off); None when exact

    @property
    def exact(self) -> bool:
        return self.reason is None

    def to_json(self) -> dict:
        return {
            "position": self.position,
            "scale": self.scale,
            "exact": self.exact,
            "reason": self.reason,
            "tokens": {t: a.to_json() for t, a in self.tokens.items()},
        }


def default_tokens(trace: Trace) -> tuple[str, ...]:
    """The predicted token and the target (once if they are the same)."""
    return tuple(dict.fromkeys((trace.prediction, trace.target)))


def attribution(params: Params, trace: Trace, tokens: Iterable[str] | None = None) -> Attribution:
    """Each token's logit (default: the prediction and the target) split into the residual parts."""
    cfg = trace.cfg  # the norm the run used: the switches may run RMSNorm for the model's LayerNorm
    tokens = default_tokens(trace) if tokens is None else tuple(dict.fromkeys(tokens))
    for tok in tokens:
        if not cfg.has_token(tok):
            raise ValueError(f"{tok!r} is not in the vocabulary")
    position = len(trace.prompt) - 1
    stream = trace[f"blocks.{cfg.n_blocks - 1}.y"][position]
    rms = cfg.norm == "rms"  # RMSNorm divides by √(mean(x²) + ε) and takes no mean away
    _, _, var = ops.layer_norm(stream, cfg.eps)  # the very computation run() makes for z
    scale = float(np.sqrt((ops.rms_norm(stream, cfg.eps)[1] if rms else var) + cfg.eps))
    logits = trace["logits"]
    reason = why_not_exact(trace)
    if reason is not None:
        empty = {t: TokenAttribution(t, float(logits[cfg.token_id(t)]), {}) for t in tokens}
        return Attribution(position, scale, empty, reason)
    gain = params["lnf_g"] if cfg.norm_affine else 1.0
    residual = residual_parts(params, trace, position)
    centred = {name: gain * (c if rms else c - c.mean()) / scale for name, c in residual.items()}
    if cfg.norm_affine and not rms:
        centred["lnf_b"] = np.asarray(params["lnf_b"])  # added to z as it is: neither centred nor scaled
    U = params["E"] if cfg.tied else params["W_U"].T  # row i: what token i's logit reads of z
    out: dict[str, TokenAttribution] = {}
    for tok in tokens:
        i = cfg.token_id(tok)
        parts = {name: float(c @ U[i]) for name, c in centred.items()}
        out[tok] = TokenAttribution(tok, float(logits[i]), parts)
    return Attribution(position, scale, out)
