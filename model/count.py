"""Parameter counts by one formula, for this model and the chapter's three real sizes."""

from __future__ import annotations

from dataclasses import dataclass

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

    def components(self) -> dict[str, int]:
        """Per component, as the chapter counts: no biases in attention, no LN gains, no learned positions."""
        d, ff, n = self.d_model, self.d_ff, self.n_blocks
        a = self.d_attn or d
        return {
            "E": self.vocab * d,
            "W_Q/W_K/W_V": n * 3 * d * a,
            "W_O": n * a * d,
            "W_1": n * d * ff,
            "b_1": n * ff,
            "W_2": n * ff * d,
            "b_2": n * d,
        }

    def total(self) -> int:
        return sum(self.components().values())


FORMULA = "V·d + N·(3d² + d² + d·d_ff + d_ff + d_ff·d + d)"
LEFT_OUT = (
    "The formula leaves out what these small models do not have: biases on Q, K, V and W_O, the layer "
    "norms' learned gain and bias, and GPT's learned position table (n_ctx × d). Those add a few per cent "
    "at GPT scale; the tied unembedding costs nothing extra."
)
GPT_VOCAB = 50257


def this_model(cfg: ModelConfig) -> Size:
    d_attn = cfg.n_heads * cfg.d_head
    return Size("this model", cfg.n_vocab, cfg.d_model, cfg.n_blocks, cfg.n_heads, cfg.d_ff, d_attn)


def four_sizes(cfg: ModelConfig) -> list[Size]:
    return [
        this_model(cfg),
        Size("GPT-2 small", GPT_VOCAB, 768, 12, 12, 4 * 768),
        Size("GPT-2 XL", GPT_VOCAB, 1600, 48, 25, 4 * 1600),
        Size("GPT-3", GPT_VOCAB, 12288, 96, 96, 4 * 12288),
    ]


def tying_saves(cfg: ModelConfig) -> int:
    """An untied unembedding would be another V × d matrix."""
    return cfg.n_vocab * cfg.d_model
