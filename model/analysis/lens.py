"""The logit lens: what the model would predict if the residual stream stopped at an earlier point.

At the last position, the stream is read at three points of every block: before it (its input), after
its attention (x_mid) and after it (y). Each reading goes through what the model does after its last
block, to a next-token distribution: the final norm (LayerNorm or RMSNorm, whichever the run uses) and
the unembedding (Eᵀ when it is tied, the model's own W_U when not). The last block's "after"
is the stream the model itself unembeds, so that point is the model's own prediction, bit for bit: the
same formulas (model/forward.py) on the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tinytui.model.forward import final_norm, unembed
from tinytui.model.names import prefix
from tinytui.model.params import Params
from tinytui.model.trace import Trace

POINTS = ("pre", "mid", "post")  # before the block, after its attention, after the block
POINT_WORDS = {"pre": "before block {b}", "mid": "after block {b}'s attention", "post": "after block {b}"}


@dataclass(frozen=True)
class LensPoint:
    """The logit lens at one point of one block: which stream was read there, and the next-token
    logits and probabilities it gives."""

    block: int  # 1-based, as the screen counts blocks
    at: str  # "pre", "mid" or "post"
    stream: str  # the canonical name of the tensor read ("x", "blocks.0.x_mid", …)
    logits: np.ndarray  # (V,)
    probs: np.ndarray  # (V,)

    @property
    def where(self) -> str:
        return POINT_WORDS[self.at].format(b=self.block)

    def top(self, vocab: tuple[str, ...], k: int = 5) -> list[tuple[str, float]]:
        """The k likeliest tokens, likeliest first (ties: the lower id first)."""
        order = np.argsort(-self.probs, kind="stable")[:k]
        return [(vocab[int(i)], float(self.probs[i])) for i in order]


def stream_names(n_blocks: int) -> list[tuple[int, str, str]]:
    """(block 1-based, point, tensor name) for every point, in model order."""
    out = []
    for b in range(n_blocks):
        before = "x" if b == 0 else prefix(b - 1) + "y"
        out += [(b + 1, "pre", before), (b + 1, "mid", prefix(b) + "x_mid"), (b + 1, "post", prefix(b) + "y")]
    return out


def logit_lens(trace: Trace, params: Params) -> list[LensPoint]:
    """The next-token distribution read off the stream at every point, in model order."""
    cfg = trace.cfg
    gain, bias = params.get("lnf_g"), params.get("lnf_b")
    points = []
    for block, at, name in stream_names(cfg.n_blocks):
        z = final_norm(trace[name], gain, bias, cfg.eps, cfg.norm)
        logits, probs = unembed(z, params["E"] if cfg.tied else None, params.get("W_U"))  # as forward()
        points.append(LensPoint(block, at, name, logits, probs))
    return points
