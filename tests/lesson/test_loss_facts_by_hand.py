"""Step 15's facts check by hand from the numbers they quote: "−log p = L" only where −log of p as
shown gives L as shown (else ≈); the improvement is the chapter's (from the unrounded losses), and
where that is not the difference of the two losses shown, the sentence says so."""

import math
import re

import pytest

from tinytui.lesson.texts.stage_facts import loss
from tinytui.model.io.checkpoint import load_model
from tinytui.model.io.presets import resolve
from tinytui.model.trace import run


@pytest.mark.parametrize("preset", ["chapter17", "chapter17-llama", "chapter17-trained", "woodland"])
def test_the_loss_facts_work_out_from_what_they_quote(preset):
    model = load_model(resolve(preset))
    said = loss(run(model.params, model.prompt, model.target))
    p, sign, shown = re.fullmatch(r"loss = −log (\S+) ([=≈]) (\S+) nats", said[0]).groups()
    assert (sign == "=") == (float(p) > 0 and f"{-math.log(float(p)):.4f}" == shown), said[0]
    before, after, improvement, why = re.search(
        r"loss (\S+) → (\S+) \(improvement ([^,)]+)(, from the losses before rounding)?\)", said[2]
    ).groups()
    assert (f"{float(before) - float(after):.4f}" == improvement) == (why is None), said[2]


def test_the_chapter_loss_is_not_written_equal_to_a_log_that_gives_another_number():
    """−log 0.3107 is 1.1689 to four places; the chapter's loss, from the unrounded p, is 1.1690. Its
    improvement is 0.2570, one less in the last place than 1.1690 − 0.9119."""
    model = load_model(resolve("chapter17"))
    said = loss(run(model.params, model.prompt, model.target))
    assert said[0] == "loss = −log 0.3107 ≈ 1.1690 nats"
    assert said[2].endswith("loss 1.1690 → 0.9119 (improvement 0.2570, from the losses before rounding)")
