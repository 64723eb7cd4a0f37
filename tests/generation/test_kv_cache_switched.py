"""The KV cache's one-position pass runs the norm and positions the switches run, so a token appended
to a switched run gets the logits a full pass of the longer prompt gives."""

from dataclasses import replace

import numpy as np
import pytest

from tinytui.model.generation import kv_cache
from tinytui.model.io.model_file import load
from tinytui.model.io.presets import presets
from tinytui.model.switches import defaults
from tinytui.model.trace import run


@pytest.mark.parametrize(
    ("preset", "switched"),
    [
        ("chapter17", {"norm_kind": "rms"}),
        ("chapter17", {"positions": "rope"}),
        ("chapter17-llama", {"positions": "sinusoid"}),
    ],
)
def test_the_cached_pass_matches_a_full_pass_of_the_switched_model(preset, switched):
    model = load(presets()[preset])
    sw = replace(defaults(model.cfg), **switched)
    cache = kv_cache.from_trace(run(model.params, model.prompt, model.target, sw))
    new = kv_cache.extend(model.params, cache, "wood", sw)
    full = run(model.params, (*model.prompt, "wood"), model.target, sw)
    np.testing.assert_allclose(new.logits, full["logits"], rtol=0, atol=1e-13)
    np.testing.assert_allclose(new.rows["z"], full["z"], rtol=0, atol=1e-13)
