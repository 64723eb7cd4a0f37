"""The logit lens, direct logit attribution and the head circuits on Llama-family models: the lens's last
point is the run's own prediction (RMSNorm, W_U), the attribution's shares add up to the logit, and a
query head's circuits read the key/value head it shares."""

import numpy as np
import pytest

from tests.model.reference_backward import MODERN, random_model
from tinytui.model.analysis.attribution import attribution
from tinytui.model.analysis.circuits import head_circuits
from tinytui.model.analysis.lens import logit_lens
from tinytui.model.switches import defaults
from tinytui.model.trace import run


@pytest.fixture(params=list(MODERN))
def case(request):
    shape, choices = MODERN[request.param]
    params, prompt, target = random_model(*shape, **choices)
    return params, run(params, prompt, target, defaults(params.cfg))


def test_the_lens_ends_at_the_prediction(case):
    params, trace = case
    last = logit_lens(trace, params)[-1]
    np.testing.assert_allclose(last.logits, trace["logits"], rtol=0, atol=1e-12)


def test_the_attribution_adds_up_to_the_logit(case):
    params, trace = case
    found = attribution(params, trace)
    assert found.exact
    for tok in found.tokens.values():
        assert sum(tok.parts.values()) == pytest.approx(tok.logit, abs=1e-10)


def test_a_query_head_reads_its_shared_key_value_head(case):
    params, _ = case
    cfg = params.cfg
    h = cfg.n_heads  # the last query head reads the last key/value head
    got = head_circuits(params, 0, h)
    E = params["E"]
    k = E @ params["blocks.0.W_K"][cfg.n_kv_heads - 1]
    expected = (E @ params["blocks.0.W_Q"][h - 1]) @ k.T / np.sqrt(cfg.d_head)
    np.testing.assert_allclose(got.qk.values, expected, rtol=0, atol=1e-12)
