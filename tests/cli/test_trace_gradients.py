import io
import json

import numpy as np

from tinytui.cli.main import cmd_trace
from tinytui.cli.options import build_parser
from tinytui.model.backward.gradients import gradients
from tinytui.model.names import grad as grad_name
from tinytui.model.params import param_shapes
from tinytui.model.switches import Switches
from tinytui.model.trace import run


def trace_json(*args):
    out = io.StringIO()
    assert cmd_trace(build_parser().parse_args(["trace", "--json", *args]), out) == 0
    return json.loads(out.getvalue())["tensors"]


def test_trace_json_has_every_gradient_with_labels(chapter, trace):
    tensors = trace_json()
    grads = gradients(chapter.params, trace)
    for name in param_shapes(chapter.cfg):
        assert grad_name(name) in tensors, name
    for name in (
        "x",
        "blocks.0.x_norm",
        "blocks.0.q.1",
        "blocks.0.k.2",
        "blocks.0.v.1",
        "blocks.0.scores.2",
        "blocks.0.attn.1",
        "blocks.0.head.2",
        "blocks.0.mha",
        "blocks.0.x_mid",
    ):
        assert f"grad.{name}" in tensors
    for name in (
        "blocks.0.x_mid_norm",
        "blocks.0.hidden_pre",
        "blocks.0.hidden",
        "blocks.0.ffn",
        "blocks.0.y",
        "z",
        "logits",
        "emb",
    ):
        assert f"grad.{name}" in tensors
    for name in grads:
        assert np.array_equal(np.array(tensors[name]["values"]), grads[name]), name
    w2 = tensors["grad.blocks.0.W_2"]
    assert [a["name"] for a in w2["axes"]] == ["units", "dims"]
    assert w2["axes"][1]["labels"] == ["thing", "action", "quantifier", "wood"]
    np.testing.assert_allclose(w2["values"][3], [-0.15382797, 0.09238687, 0.07208704, -0.01064594], atol=1e-8)
    assert tensors["grad.blocks.0.scores.1"]["axes"][1]["labels"][1] == "1:woodchuck"
    assert [a["name"] for a in tensors["grad.blocks.0.W_Q"]["axes"]] == ["heads", "dims", "k"]
    assert tensors["grad.E"]["axes"][0]["labels"][4] == "wood"
    assert tensors["grad.logits"]["values"] == tensors["grad_logits"]["values"]


def test_trace_json_gradients_follow_the_switches(chapter):
    tensors = trace_json("--no-pe", "--target", "chuck")
    t = run(chapter.params, chapter.prompt, "chuck", Switches(positional_encoding=False))
    expected = gradients(chapter.params, t)
    assert np.array_equal(np.array(tensors["grad.E"]["values"]), expected["grad.E"])
