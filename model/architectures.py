"""The architecture families `tinytui new --arch` makes, as ModelConfig choices, and their seeded weights.

- chapter: the chapter's model (sinusoids, LayerNorm without gain or bias, no biases in attention, ReLU);
- gpt2: GPT-2's choices (learned positions, LayerNorm with gain and bias, biases on Q, K, V and W_O, GELU);
- llama: Llama's (RMSNorm with a gain, rotary positions, half as many key/value heads as query heads
  when the query heads are even in number, else one per query head, SwiGLU, the unembedding tied to E
  as the small Llama-family models have it).

Weights follow the rule of `tinytui new`: every matrix N(0, 1/fan_in), drawn from default_rng(seed) in
param_shapes order, biases zero; a norm's gain starts at one. hand_scale() rounds them to quarters, so
that a learner can check each product by hand, as the chapter's hand-set tables allow.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from tinytui.model.config import ModelConfig

ARCHES = ("chapter", "gpt2", "llama")
GPT2: dict[str, Any] = {"positions": "learned", "norm_affine": True, "attn_bias": True, "activation": "gelu"}
LLAMA: dict[str, Any] = {"norm": "rms", "norm_affine": True, "positions": "rope", "activation": "swiglu"}
FAN_IN_D_FF = ("W_2", "W_down")  # read the feed-forward's units; W_O reads the heads side by side


def configured(cfg: ModelConfig, arch: str, n_kv_heads: int | None = None) -> ModelConfig:
    """cfg with the choices of the family arch (ValueError for an unknown one, or key/value heads
    that do not divide the query heads)."""
    if arch == "chapter":
        return cfg
    if arch == "gpt2":
        return replace(cfg, **GPT2)
    if arch != "llama":
        raise ValueError(f"--arch {arch!r}: expected one of {', '.join(ARCHES)}")
    if n_kv_heads is None:
        n_kv_heads = cfg.n_heads // 2 if cfg.n_heads % 2 == 0 else cfg.n_heads
    return replace(cfg, **LLAMA, n_kv_heads=n_kv_heads)


def seeded_arrays(cfg: ModelConfig, seed: int) -> dict[str, np.ndarray]:
    """Every parameter of cfg: gains one, biases zero, matrices N(0, 1/fan_in) from default_rng(seed)."""
    from tinytui.model.params import param_shapes

    rng = np.random.default_rng(seed)
    arrays: dict[str, np.ndarray] = {}
    for name, shape in param_shapes(cfg).items():
        local = name.rsplit(".", 1)[-1]
        if local.endswith("_g"):
            arrays[name] = np.ones(shape)
        elif local.startswith("b_") or local.endswith("_b"):
            arrays[name] = np.zeros(shape)
        else:
            fan_in = {"W_O": cfg.n_heads * cfg.d_head, **dict.fromkeys(FAN_IN_D_FF, cfg.d_ff)}
            arrays[name] = rng.normal(0.0, 1.0 / np.sqrt(fan_in.get(local, cfg.d_model)), shape)
    return arrays


def hand_scale(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Each weight rounded to the nearest quarter (a gain of one stays one)."""
    return {name: np.round(a * 4) / 4 + 0.0 for name, a in arrays.items()}
