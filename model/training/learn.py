"""Plain gradient descent on all parameters: one step, or k steps with the loss after each."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tinytui.model import checks
from tinytui.model.backward.gradients import Gradients, gradients
from tinytui.model.params import Params
from tinytui.model.switches import Switches
from tinytui.model.trace import run

MAX_STEPS = checks.MAX_STEPS  # kept here too: callers import it from learn


def sgd_step(params: Params, grads: Gradients, lr: float) -> Params:
    """params − lr·grad for every parameter, as a new Params."""
    return params.with_arrays({name: params[name] - lr * g for name, g in grads.for_params().items()})


@dataclass(frozen=True)
class TrainResult:
    """What k steps of gradient descent on one prompt leave: the new parameters, and the loss before
    the first step and after each one."""

    params: Params  # after the last step
    losses: tuple[float, ...]  # k + 1 values: before any step, then after each

    @property
    def loss_old(self) -> float:
        return self.losses[0]

    @property
    def loss_new(self) -> float:
        return self.losses[-1]


def check_lr(lr: float | str) -> float:
    """The step size as a float, or ValueError saying why it cannot be used (see checks.lr)."""
    return checks.lr(lr)


def check_steps(k: int | str) -> int:
    """A number of steps, 1 to MAX_STEPS, or ValueError saying why not (see checks.steps)."""
    return checks.steps(k)


def train(
    params: Params,
    prompt: Sequence[str],
    target: str,
    switches: Switches | None = None,
    k: int = 1,
    lr: float = 0.5,
) -> TrainResult:
    """k SGD steps on one prompt. ValueError (nothing returned) for a bad k or lr, or if a step overflows."""
    k, lr = check_steps(k), check_lr(lr)
    switches = switches or Switches()
    with np.errstate(all="ignore"):  # overflow is checked below and reported as a ValueError
        trace = run(params, prompt, target, switches, lr)
        losses = [trace.loss]
        for step in range(1, k + 1):
            params = sgd_step(params, gradients(params, trace), lr)
            trace = run(params, prompt, target, switches, lr)
            if not (math.isfinite(trace.loss) and all(np.all(np.isfinite(a)) for a in params.values())):
                raise ValueError(f"step {step} of {k} overflows at lr {lr}; try a smaller learning rate")
            losses.append(trace.loss)
    return TrainResult(params, tuple(losses))
