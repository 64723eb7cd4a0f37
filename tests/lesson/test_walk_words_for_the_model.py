"""The backward walk's titles and words name the model's own parts: W_down where the feed-forward is
gated, a key/value head's W_K and W_V where query heads share them, and one head where there is one."""

from dataclasses import replace

from tests.random_models import random_params
from tinytui.lesson.walk_stages import backward_stage_for
from tinytui.model.io.checkpoint import load_model
from tinytui.model.io.presets import resolve
from tinytui.model.switches import defaults, run_config


def _stage(cfg, number: int, switches=None):
    sw = switches or defaults(cfg)
    return backward_stage_for(number, sw, run_config(cfg, sw))


def test_a_llama_models_walk_names_w_down_and_its_key_value_heads():
    cfg = load_model(resolve("chapter17-llama")).cfg
    assert cfg.gated and cfg.n_kv_heads < cfg.n_heads
    step12 = _stage(cfg, 12)
    assert step12.title == "Through W_down and the second residual"
    assert "∂L/∂W_down = hiddenᵀ · ∂L/∂ffn" in step12.rules and "W_2" not in step12.title
    assert _stage(cfg, 6).explain.startswith("Every query head's W_Q and every key/value head's W_K and W_V")
    words = _stage(cfg, 9).explain
    assert "a key/value head's values gather blame from every query head that reads them" in words


def test_a_single_heads_walk_says_the_head():
    cfg = random_params(seed=1, d=3, heads=1, d_head=3, d_ff=2, vocab=6, blocks=1).cfg
    assert _stage(cfg, 12).title == "Through W_2 and the second residual"
    assert _stage(cfg, 6).explain.startswith("The head's three projections read the same normalised rows")
    assert _stage(cfg, 9).explain.startswith("W_O passes the error back to the one head.")
    off = replace(defaults(cfg), ablated_heads=frozenset({1}))
    assert _stage(cfg, 9, off).explain.startswith(
        "The head is ablated: it outputs a constant 0, so W_O and its"
    )
    assert "Every head" not in _stage(cfg, 9, off).explain + _stage(cfg, 6).explain
