"""The three kinds of model the generation tests run on: the chapter's, a random model of three
blocks (tests/random_models.py) and the tiny GPT-2 checkpoint (tests/gpt2/checkpoints.py), each with
a prompt and a target."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from tests.gpt2.checkpoints import TINY
from tests.random_models import config, weights
from tinytui.model.io.checkpoint import load_checkpoint
from tinytui.model.io.model_file import load_default
from tinytui.model.params import Params


@dataclass(frozen=True)
class Case:
    name: str
    params: Params
    prompt: tuple[str, ...]
    target: str


@cache
def cases() -> dict[str, Case]:
    chapter = load_default()
    cfg = config(12, 3, 4, 20, 30, blocks=3, n_ctx=24)
    random = weights(np.random.default_rng(31), cfg, 0.6)
    tiny = load_checkpoint(TINY)
    return {
        "chapter": Case("chapter", chapter.params, chapter.prompt, chapter.target),
        "random": Case("random", random, ("t3", "t17", "t0", "t3", "t29"), "t5"),
        "tiny-gpt2": Case("tiny-gpt2", tiny.params, tiny.prompt, tiny.target),
    }


NAMES = ("chapter", "random", "tiny-gpt2")
