"""The artists' rules of a Llama-family model (chapter17-llama: RoPE, 4 query heads sharing 2 key/value
heads) are the run's own: A is the attention the run used and A·B the strokes each head painted."""

import numpy as np

from tinytui.lesson.gallery_reading import artist_rules
from tinytui.model.analysis.circuits import head_out_rows
from tinytui.model.io.model_file import load
from tinytui.model.io.presets import presets
from tinytui.model.trace import run


def test_grouped_rotary_heads_paint_what_the_run_painted():
    model = load(presets()["chapter17-llama"])
    params, cfg = model.params, model.params.cfg
    assert cfg.n_kv_heads < cfg.n_heads and cfg.positions == "rope"
    trace = run(params, model.prompt, model.target)
    for b in range(cfg.n_blocks):
        pre = f"blocks.{b}."
        for h in range(1, cfg.n_heads + 1):
            rules = artist_rules(params, trace, b, h)
            np.testing.assert_allclose(rules.attention, trace[f"{pre}attn.{h}"], rtol=0, atol=1e-12)
            np.testing.assert_allclose(rules.attention.sum(axis=1), 1.0, atol=1e-12)
            painted = trace[f"{pre}head.{h}"] @ head_out_rows(params, b, h)
            np.testing.assert_allclose(rules.strokes, painted, rtol=0, atol=1e-12)
