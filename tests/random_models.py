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


def named_run(name: str, scale: float = 3.0):
    """(params, trace, gradients) of a preset by name, or of "random…": a seeded two-block model, its
    weights drawn at this scale, on the prompt t1 t2 t3 → t4."""
    from tinytui.model.backward.gradients import Gradients
    from tinytui.model.io.model_file import load
    from tinytui.model.io.presets import resolve
    from tinytui.model.trace import run

    if name.startswith("random"):
        params = weights(np.random.default_rng(5), config(6, 2, 3, 8, 7, 2), scale)
        prompt, target = ("t1", "t2", "t3"), "t4"
    else:
        m = load(resolve(name))
        params, prompt, target = m.params, m.prompt, m.target
    trace = run(params, prompt, target)
    return params, trace, Gradients(params, trace)
