"""How long learning costs: a forward run, the backward pass, one SGD step, a 100-step training run.
Run by hand:

python benchmarks/bench_backward.py
"""

from __future__ import annotations

import time

from tinytui.model.backward.gradients import gradients
from tinytui.model.io.model_file import load_default
from tinytui.model.trace import run
from tinytui.model.training.learn import sgd_step, train


def per_call(fn, repeats: int) -> float:
    t0 = time.perf_counter()
    for _ in range(repeats):
        fn()
    return (time.perf_counter() - t0) / repeats


def main(repeats: int = 1000) -> None:
    m = load_default()
    trace = run(m.params, m.prompt, m.target)
    grads = gradients(m.params, trace)
    forward = per_call(lambda: run(m.params, m.prompt, m.target), repeats)
    backward = per_call(lambda: gradients(m.params, trace), repeats)
    step = per_call(lambda: sgd_step(m.params, grads, 0.5), repeats)
    hundred = per_call(lambda: train(m.params, m.prompt, m.target, k=100, lr=0.5), 5)
    print(f"forward (run):             {forward * 1e6:8.1f} µs")
    print(f"backward (gradients):      {backward * 1e6:8.1f} µs")
    print(f"forward + backward:        {(forward + backward) * 1e6:8.1f} µs")
    print(f"SGD update (172 weights):  {step * 1e6:8.1f} µs")
    print(f"train 100 steps:           {hundred * 1e3:8.1f} ms")
    print(f"gradient tensors:          {len(grads)}")


if __name__ == "__main__":
    main()
