"""What the analyses say about a model is true of it: the circuits' list of what they leave out for a
model without positions, and the patching's share of the change when the two prompts give the same metric
up to rounding."""

from dataclasses import replace

import numpy as np

from tinytui.model.analysis.circuits import circuit_ignores
from tinytui.model.analysis.patching import patch


def test_a_model_without_positions_has_no_position_to_ignore(chapter):
    words = circuit_ignores(replace(chapter.params.cfg, positions="none"))
    assert words["qk"].startswith("the layer norm before the head, whatever earlier heads")
    assert "position" not in words["qk"]


def test_prompts_the_model_reads_alike_have_no_share_to_bring_back(chapter):
    """With the mask and positions off a swap of the first two tokens leaves the last position's metric
    as it was but for rounding (~1e-16): a share of that gap would be noise in the quadrillions."""
    from tinytui.model.switches import defaults

    switches = replace(defaults(chapter.cfg), causal_mask=False, positional_encoding=False)
    clean = chapter.prompt
    swapped = (clean[1], clean[0], *clean[2:])
    result = patch(chapter.params, clean, swapped, chapter.target, "chuck", switches)
    assert abs(result.clean - result.corrupt) < 1e-12
    assert np.isnan(result.restored(float(result.resid_pre[0, 0])))
    assert result.resid_pre[0, 0] != result.clean  # the patch itself still moves the metric
