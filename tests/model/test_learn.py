import numpy as np
import pytest

from tests.model.reference_backward import RANDOM, SWITCHES, random_model
from tinytui.model.backward.gradients import gradients
from tinytui.model.switches import Switches
from tinytui.model.trace import run
from tinytui.model.training.learn import MAX_STEPS, sgd_step, train


def test_one_step_is_params_minus_lr_grad_exactly(chapter, trace):
    grads = gradients(chapter.params, trace)
    stepped = sgd_step(chapter.params, grads, 0.5)
    for name in chapter.params:
        assert np.array_equal(stepped[name], chapter.params[name] - 0.5 * grads.param(name)), name
    moved = stepped.changed_cells(chapter.params)
    assert set(moved) == set(chapter.params)  # every parameter array has some non-zero gradient
    assert len(moved["blocks.0.W_2"]) == 8  # only the two units alive at "chuck" (rows 3 and 6)


def test_one_step_lowers_the_chapter_loss(chapter, trace):
    result = train(chapter.params, chapter.prompt, chapter.target, k=1, lr=0.5)
    after = run(result.params, chapter.prompt, chapter.target)
    assert result.losses == (trace.loss, after.loss)
    assert result.loss_old == pytest.approx(1.168955, abs=1e-6)
    assert result.loss_new == pytest.approx(0.273524, abs=1e-6)
    # pushing the gradient through every weight beats moving the logits alone (step 15's figure)
    assert result.loss_new < float(trace["loss_stepped"])
    assert result.params == sgd_step(chapter.params, gradients(chapter.params, trace), 0.5)


@pytest.mark.parametrize("switch", list(SWITCHES))
@pytest.mark.parametrize("which", list(RANDOM))
def test_a_small_step_lowers_the_loss_everywhere(which, switch):
    params, prompt, target = random_model(*RANDOM[which])
    result = train(params, prompt, target, SWITCHES[switch], k=1, lr=0.01)
    assert result.loss_new < result.loss_old


def test_train_k_steps_gives_the_loss_curve_and_moves_the_prediction(chapter):
    before = run(chapter.params, chapter.prompt, "chuck")
    assert before.prediction == "wood"
    result = train(chapter.params, chapter.prompt, "chuck", k=20, lr=0.5)
    assert len(result.losses) == 21 and result.losses[0] == before.loss
    assert np.all(np.diff(result.losses) < 0)
    assert run(result.params, chapter.prompt, "chuck").prediction == "chuck"
    # each step really is one SGD step from the previous parameters
    two = train(chapter.params, chapter.prompt, "chuck", k=2, lr=0.5)
    one = train(chapter.params, chapter.prompt, "chuck", k=1, lr=0.5)
    again = train(one.params, chapter.prompt, "chuck", k=1, lr=0.5)
    assert two.params == again.params and two.losses[1:] == (one.loss_new, again.loss_new)


def test_switches_are_respected(chapter):
    sw = Switches(ablated_heads={1}, activation="gelu")
    result = train(chapter.params, chapter.prompt, chapter.target, sw, k=3, lr=0.5)
    assert np.array_equal(result.params["blocks.0.W_Q"][0], chapter.params["blocks.0.W_Q"][0])
    assert not np.array_equal(result.params["blocks.0.W_Q"][1], chapter.params["blocks.0.W_Q"][1])
    assert result.losses[0] == run(chapter.params, chapter.prompt, chapter.target, sw).loss


@pytest.mark.parametrize(
    ("k", "lr", "message"),
    [
        (0, 0.5, "between 1 and"),
        (MAX_STEPS + 1, 0.5, "between 1 and"),
        (2.5, 0.5, "whole number"),
        (True, 0.5, "whole number"),
        (1, 0.0, "change nothing"),
        (1, float("nan"), "finite number above 0, not nan"),
        (1, float("inf"), "finite number above 0, not inf"),
        (1, "fast", "not a number"),
        (3, 1e5, "overflows"),
    ],
)
def test_bad_steps_and_rates_are_refused(chapter, k, lr, message):
    with pytest.raises(ValueError, match=message):
        train(chapter.params, chapter.prompt, chapter.target, k=k, lr=lr)
