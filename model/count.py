"""Parameter counts by one formula, for this model and the chapter's three real sizes.

The chapter's formula counts E, the four attention matrices and the feed-forward's weights and biases.
GPT-2 also has a learned position table (n_ctx × d), a gain and a bias on each layer norm (two per
block and the final one) and biases on Q, K, V and the attention output. A size counts each of those
when it has it, so a model with all of them on (GPT-2 small's shapes) is counted exactly: 124,439,808.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from tinytui.model.config import ModelConfig


@dataclass(frozen=True)
class Size:
    name: str
    vocab: int
    d_model: int
    n_blocks: int
    n_heads: int
    d_ff: int
    d_attn: int = 0  # n_heads · d_head; 0 means d_model, as in every GPT
    positions: int = 0  # rows of a learned position table (n_ctx); 0: sinusoids, nothing to learn
    norm_affine: bool = False  # each layer norm has a gain and a bias (d each)
    attn_bias: bool = False  # biases on Q, K, V (d_attn each) and on the attention output (d)

    def components(self) -> dict[str, int]:
        """Per component, as the chapter counts (E, W_Q/W_K/W_V, W_O, W_1, b_1, W_2, b_2), then what this
        size adds: P, the norms' gains and biases, the attention biases."""
        d, ff, n = self.d_model, self.d_ff, self.n_blocks
        a = self.d_attn or d
        out = {"E": self.vocab * d}
        if self.positions:
            out["P"] = self.positions * d
        out |= {
            "W_Q/W_K/W_V": n * 3 * d * a,
            "W_O": n * a * d,
            "W_1": n * d * ff,
            "b_1": n * ff,
            "W_2": n * ff * d,
            "b_2": n * d,
        }
        if self.attn_bias:
            out["b_Q/b_K/b_V/b_O"] = n * (3 * a + d)
        if self.norm_affine:
            out["LN gains and biases"] = (2 * n + 1) * 2 * d  # ln1, ln2 per block and the final norm
        return out

    def total(self) -> int:
        return sum(self.components().values())


FORMULA = "V·d + N·(3d² + d² + d·d_ff + d_ff + d_ff·d + d)"
GPT_VOCAB = 50257
GPT_CONTEXT = {"GPT-2 small": 1024, "GPT-2 XL": 1024, "GPT-3": 2048}


def formula(cfg: ModelConfig) -> str:
    """The chapter's formula with the terms this model's architecture adds (the chapter's: FORMULA)."""
    inner = "3d² + d² + d·d_ff + d_ff + d_ff·d + d"
    if cfg.attn_bias:
        inner += " + 3d + d"  # b_Q, b_K, b_V and b_O (3·d_attn + d when the heads are not d wide)
    if cfg.norm_affine:
        inner += " + 4d"  # ln1's and ln2's gain and bias
    positions = " + n_ctx·d" if cfg.learned_positions else ""
    final = " + 2d" if cfg.norm_affine else ""  # the final norm's gain and bias
    return f"V·d{positions} + N·({inner}){final}"


def left_out(cfg: ModelConfig) -> str:
    """What the count leaves out for this model, and what those parts would add to this model and to
    each real size beside it: counted, not guessed."""
    missing = []
    if not cfg.attn_bias:
        missing.append("biases on Q, K, V and W_O")
    if not cfg.norm_affine:
        missing.append("the layer norms' learned gain and bias")
    if not cfg.learned_positions:
        missing.append("GPT's learned position table (n_ctx × d)")
    if not missing:
        return (
            "Every parameter is counted: the learned position table, the layer norms' gains and biases and "
            "the attention biases are in the formula, so GPT-2 small's shapes give 124,439,808. The tied "
            "unembedding costs nothing extra."
        )
    said = " and ".join(missing) if len(missing) < 3 else f"{missing[0]}, {missing[1]}, and {missing[2]}"
    shares = []
    for size in four_sizes(cfg):
        extra, whole = added(size, cfg)
        context = f", n_ctx {cfg.n_ctx}" if size.name == "this model" and not cfg.learned_positions else ""
        shares.append(f"{extra:,} to {size.name} ({percent(extra / whole)} of {whole:,}{context})")
    return (
        f"The formula leaves out what this model does not have: {said}. Counted, they would add "
        f"{'; '.join(shares)}. The tied unembedding costs nothing extra."
    )


def added(size: Size, cfg: ModelConfig) -> tuple[int, int]:
    """What the parts cfg's model lacks (attention biases, norm gains and biases, a learned position
    table of n_ctx rows: the real size's context, or this model's n_ctx) would add to `size`, and its
    count with them."""
    rows = size.positions or (GPT_CONTEXT.get(size.name, cfg.n_ctx) if not cfg.learned_positions else 0)
    whole = replace(size, positions=rows, norm_affine=True, attn_bias=True).total()
    return whole - size.total(), whole


def percent(share: float) -> str:
    """A share as a percentage to two significant figures (whole above 10): '38%', '0.69%', '0.020%'."""
    p = 100 * share
    digits = 0 if p >= 10 or p <= 0 else 1 - math.floor(math.log10(p))
    return f"{p:.{digits}f}%"


def this_model(cfg: ModelConfig) -> Size:
    d_attn = cfg.n_heads * cfg.d_head
    return Size(
        "this model",
        cfg.n_vocab,
        cfg.d_model,
        cfg.n_blocks,
        cfg.n_heads,
        cfg.d_ff,
        d_attn,
        positions=cfg.n_ctx if cfg.learned_positions else 0,
        norm_affine=cfg.norm_affine,
        attn_bias=cfg.attn_bias,
    )


def _real(name: str, d: int, blocks: int, heads: int, cfg: ModelConfig) -> Size:
    """A real model's size, counted with the same terms as this model (so the columns line up)."""
    positions = GPT_CONTEXT[name] if cfg.learned_positions else 0
    return Size(name, GPT_VOCAB, d, blocks, heads, 4 * d, 0, positions, cfg.norm_affine, cfg.attn_bias)


def four_sizes(cfg: ModelConfig) -> list[Size]:
    return [
        this_model(cfg),
        _real("GPT-2 small", 768, 12, 12, cfg),
        _real("GPT-2 XL", 1600, 48, 25, cfg),
        _real("GPT-3", 12288, 96, 96, cfg),
    ]


def tying_saves(cfg: ModelConfig) -> int:
    """An untied unembedding would be another V × d matrix."""
    return cfg.n_vocab * cfg.d_model
