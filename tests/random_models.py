"""Seeded random models for tests: one config maker and one weight draw, shared by every test file."""

import numpy as np

from tinytui.model.config import ModelConfig
from tinytui.model.params import Params, param_shapes


def config(d: int, heads: int, d_head: int, d_ff: int, vocab: int, blocks: int = 1, **more) -> ModelConfig:
    """Tokens t0…, dims d0…: a shape and nothing else (more: other ModelConfig fields, e.g. n_ctx)."""
    return ModelConfig(
        vocab=tuple(f"t{i}" for i in range(vocab)),
        dims=tuple(f"d{i}" for i in range(d)),
        d_model=d,
        n_heads=heads,
        d_head=d_head,
        d_ff=d_ff,
        n_blocks=blocks,
        **more,
    )


def weights(rng: np.random.Generator, cfg: ModelConfig, scale: float) -> Params:
    """Every parameter drawn from N(0, scale²), in the order Params lists them (so a seed is a model)."""
    return Params(cfg, {n: rng.normal(0, scale, s) for n, s in param_shapes(cfg).items()})


def random_params(seed=0, d=8, heads=2, d_head=4, d_ff=12, vocab=10, blocks=2):
    return weights(np.random.default_rng(seed), config(d, heads, d_head, d_ff, vocab, blocks), 0.8)
