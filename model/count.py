"""Parameter counts by one formula, for this model and the chapter's three real sizes.

The chapter's formula counts E, the four attention matrices and the feed-forward's weights and biases.
GPT-2 also has a learned position table (n_ctx × d), a gain and a bias on each layer norm (two per
block and the final one) and biases on Q, K, V and the attention output. A size counts each of those
when it has it, so a model with all of them on (GPT-2 small's shapes) is counted exactly: 124,439,808.

The Llama family (RMSNorm or the gated feed-forward) is counted by its own formula: K and V for each
key/value head only, three feed-forward matrices and no biases, one gain per norm, an unembedding W_U
when it is not tied, nothing for rotary positions. Its real sizes are SmolLM-135M, Llama 3.2 1B and
Llama 3 8B, each with its published shape: 134,515,008, 1,235,814,400 and 8,030,261,248 (8.03 B).
PUBLISHED lists each real model counted by its own family's formula, every term on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from tinytui.model.config import ModelConfig


@dataclass(frozen=True)
class Size:
    """A model's sizes as the parameter-count formula reads them, and which extra terms it has (GPT-2's
    position table, norm gains and biases, attention biases; the Llama family's own terms)."""

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
    n_kv_heads: int = 0  # key/value heads (0: one per query head); K and V are d × (d_attn · n_kv / n_heads)
    llama: bool = False  # the Llama family's terms: RMSNorm gains, W_gate/W_up/W_down, W_U when untied
    tied: bool = True  # the unembedding is E (untied: W_U, another V × d)
    out_bias: bool = True  # with attn_bias, a bias on the attention output too (Qwen2 has none)
    rms: bool = False  # the norms are RMSNorm: a gain each, no bias

    def components(self) -> dict[str, int]:
        """Per component, as the chapter counts (E, W_Q/W_K/W_V, W_O, W_1, b_1, W_2, b_2), then what this
        size adds: P, the norms' gains and biases, the attention biases. The Llama family's are E, W_U (0
        when tied), W_Q/W_K/W_V, W_O, the attention biases (0 without), W_gate/W_up/W_down and the RMSNorm
        gains, every row listing the same components."""
        if self.llama:
            return self._llama_components()
        d, ff, n = self.d_model, self.d_ff, self.n_blocks
        a = self.d_attn or d
        kv = a * (self.n_kv_heads or self.n_heads) // self.n_heads  # K's and V's width
        out = {"E": self.vocab * d}
        if not self.tied:
            out["W_U"] = d * self.vocab
        if self.positions:
            out["P"] = self.positions * d
        out |= {
            "W_Q/W_K/W_V": n * 3 * d * a if kv == a else n * d * (a + 2 * kv),
            "W_O": n * a * d,
            "W_1": n * d * ff,
            "b_1": n * ff,
            "W_2": n * ff * d,
            "b_2": n * d,
        }
        if self.attn_bias:
            out["b_Q/b_K/b_V/b_O"] = n * (a + 2 * kv + (d if self.out_bias else 0))
        if self.norm_affine:  # ln1, ln2 per block and the final norm (RMSNorm: gains only)
            out["LN gains and biases"] = (2 * n + 1) * (1 if self.rms else 2) * d
        return out

    def _llama_components(self) -> dict[str, int]:
        d, ff, n = self.d_model, self.d_ff, self.n_blocks
        a = self.d_attn or d
        kv = a * (self.n_kv_heads or self.n_heads) // self.n_heads
        biases = (a + 2 * kv + (d if self.out_bias else 0)) if self.attn_bias else 0
        return {
            "E": self.vocab * d,
            "W_U": 0 if self.tied else d * self.vocab,
            "W_Q/W_K/W_V": n * d * (a + 2 * kv),
            "W_O": n * a * d,
            "b_Q/b_K/b_V/b_O": n * biases,
            "W_gate/W_up/W_down": n * 3 * d * ff,
            "norm gains": (2 * n + 1) * (1 if self.rms else 2) * d if self.norm_affine else 0,
        }

    def total(self) -> int:
        return sum(self.components().values())


# Real Llama-family models, each as its config.json publishes it (head width d_model / heads).
LLAMA = {"norm_affine": True, "llama": True, "rms": True}
SMOLLM_135M = Size("SmolLM-135M", 49152, 576, 30, 9, 1536, n_kv_heads=3, **LLAMA)
LLAMA_32_1B = Size("Llama-3.2-1B", 128256, 2048, 16, 32, 8192, n_kv_heads=8, **LLAMA)
LLAMA_3_8B = Size("Llama-3-8B", 128256, 4096, 32, 32, 14336, n_kv_heads=8, tied=False, **LLAMA)
# Each real model by its own family's formula, every term on, beside the count its makers publish.
PUBLISHED = {
    "GPT-2 small": (
        Size("GPT-2 small", 50257, 768, 12, 12, 3072, 0, 1024, norm_affine=True, attn_bias=True),
        "124M",
    ),
    "GPT-3": (Size("GPT-3", 50257, 12288, 96, 96, 49152, 0, 2048, norm_affine=True, attn_bias=True), "175B"),
    "Llama-3-8B": (LLAMA_3_8B, "8.03B"),
}


FORMULA = "V·d + N·(3d² + d² + d·d_ff + d_ff + d_ff·d + d)"
GPT_VOCAB = 50257
GPT_CONTEXT = {"GPT-2 small": 1024, "GPT-2 XL": 1024, "GPT-3": 2048}


def is_llama(cfg: ModelConfig) -> bool:
    """Counted by the Llama family's formula: a model with the gated feed-forward (RMSNorm alone changes
    only the norms' term of GPT-2's)."""
    return cfg.gated


def llama_formula(cfg: ModelConfig, either_tying: bool = False, either_bias: bool = False) -> str:
    """The Llama family's count: K and V per key/value head (H_kv), three feed-forward matrices, a gain
    per norm, W_U when untied; rotary positions have nothing to learn. either_tying, either_bias: the
    term W_U or the attention biases add is written as a condition (sizes counted together that differ
    in it: a Qwen2-style model's biases beside the Llama models, which have none)."""
    attention = "d·(H + 2H_kv)·d_k + H·d_k·d"
    if cfg.attn_bias:
        biases = "(H + 2H_kv)·d_k" + (" + d" if cfg.out_bias else "")
        attention += f" (+ {biases} with biases)" if either_bias else f" + {biases}"
    rms = cfg.norm == "rms"  # a gain per norm, no bias
    norms = (" + 2d" if rms else " + 4d") if cfg.norm_affine else ""
    unembed = " (+ d·V when untied)" if either_tying else "" if cfg.tied else " + d·V"
    final = (" + d" if rms else " + 2d") if cfg.norm_affine else ""
    return f"V·d{unembed} + N·({attention} + 3d·d_ff{norms}){final}"


def formula(cfg: ModelConfig) -> str:
    """The chapter's formula with the terms this model's architecture adds (the chapter's: FORMULA)."""
    if is_llama(cfg):
        return llama_formula(cfg)
    inner = "3d² + d² + d·d_ff + d_ff + d_ff·d + d"
    if cfg.attn_bias:
        inner += " + 3d + d"  # b_Q, b_K, b_V and b_O (3·d_attn + d when the heads are not d wide)
    if cfg.norm_affine:
        inner += " + 2d" if cfg.norm == "rms" else " + 4d"  # ln1's and ln2's gain and bias (RMSNorm: gain)
    positions = " + n_ctx·d" if cfg.learned_positions else ""
    final = (" + d" if cfg.norm == "rms" else " + 2d") if cfg.norm_affine else ""  # the final norm's
    return f"V·d{positions} + N·({inner}){final}"


def sizes_formula(cfg: ModelConfig) -> str:
    """The one formula four_sizes(cfg) are counted by: formula(cfg), with W_U's term as a condition where
    the sizes differ in tying (a tied Llama-family model beside Llama-3-8B, which has its own W_U), and
    the attention biases' where they differ in those (a Qwen2-style model beside the Llama models)."""
    sizes = four_sizes(cfg)
    either_tying, either_bias = len({s.tied for s in sizes}) > 1, len({s.attn_bias for s in sizes}) > 1
    if is_llama(cfg) and (either_tying or either_bias):
        return llama_formula(cfg, either_tying, either_bias)
    return formula(cfg)


def left_out(cfg: ModelConfig) -> str:
    """What the count leaves out for this model, and what those parts would add to this model and to
    each real size beside it: counted, not guessed."""
    unembed = "The tied unembedding costs nothing extra." if cfg.tied else "W_U, not tied to E, adds V·d."
    if is_llama(cfg):
        shared = (
            f" K and V are counted once per key/value head ({cfg.n_kv_heads} for {cfg.n_heads} query heads)."
            if cfg.n_kv_heads != cfg.n_heads
            else ""
        )
        biases = "" if not cfg.attn_bias else f", biases on Q, K and V{' and W_O' if cfg.out_bias else ''}"
        positions = ", nothing for rotary positions" if cfg.positions == "rope" else ""
        norms = "one gain per norm" if cfg.norm == "rms" else "a gain and a bias per norm"
        return (
            f"Every parameter is counted by the Llama family's formula: {norms}, three feed-forward "
            f"matrices without biases{biases}{positions}.{shared} {unembed}"
        )
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
            f"the attention biases are in the formula, so GPT-2 small's shapes give 124,439,808. {unembed}"
        )
    said = " and ".join(missing) if len(missing) < 3 else f"{missing[0]}, {missing[1]}, and {missing[2]}"
    shares = []
    for size in four_sizes(cfg):
        extra, whole = added(size, cfg)
        context = f", n_ctx {cfg.n_ctx}" if size.name == "this model" and not cfg.learned_positions else ""
        shares.append(f"{extra:,} to {size.name} ({percent(extra / whole)} of {whole:,}{context})")
    return (
        f"The formula leaves out what this model does not have: {said}. Counted, they would add "
        f"{'; '.join(shares)}. {unembed}"
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
        n_kv_heads=cfg.n_kv_heads,
        llama=is_llama(cfg),
        tied=cfg.tied,
        out_bias=cfg.out_bias or not cfg.attn_bias,
        rms=cfg.norm == "rms",
    )


def _real(name: str, d: int, blocks: int, heads: int, cfg: ModelConfig) -> Size:
    """A real model's size, counted with the same terms as this model (so the columns line up)."""
    positions = GPT_CONTEXT[name] if cfg.learned_positions else 0
    return Size(
        name, GPT_VOCAB, d, blocks, heads, 4 * d, 0, positions, cfg.norm_affine, cfg.attn_bias,
        tied=cfg.tied, rms=cfg.norm == "rms",
    )  # fmt: skip


def four_sizes(cfg: ModelConfig) -> list[Size]:
    """This model and three real ones of its family, counted by one formula: GPT-2 small, GPT-2 XL and
    GPT-3 with this model's terms (the chapter's and GPT-2's), or the Llama family's three as published."""
    if is_llama(cfg):
        return [this_model(cfg), SMOLLM_135M, LLAMA_32_1B, LLAMA_3_8B]
    return [
        this_model(cfg),
        _real("GPT-2 small", 768, 12, 12, cfg),
        _real("GPT-2 XL", 1600, 48, 25, cfg),
        _real("GPT-3", 12288, 96, 96, cfg),
    ]


def tying_saves(cfg: ModelConfig) -> int:
    """An untied unembedding would be another V × d matrix."""
    return cfg.n_vocab * cfg.d_model
