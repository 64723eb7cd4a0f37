"""Each stage's panels (model.panels) agree with what it reads and writes."""

import pytest

from tinytui.lesson import panels
from tinytui.lesson.stages import STAGES
from tinytui.lesson.texts.facts import stage_facts
from tinytui.model import names


def _shown(stage_panels):
    return [t for p in stage_panels for t in p.tensors]


@pytest.mark.parametrize("stage", STAGES, ids=lambda s: s.id)
def test_the_panels_show_every_tensor_the_stage_writes_once(stage):
    shown = _shown(stage.panels)
    assert sorted(t for t in shown if t in stage.writes) == sorted(stage.writes)
    # beyond that only the prompt's ids, which a token panel always shows beside the step's vector
    assert {t for t in shown if t not in stage.writes} <= {"ids"}
    assert stage.panels


@pytest.mark.parametrize("stage", STAGES, ids=lambda s: s.id)
def test_the_inputs_show_what_the_stage_reads_but_its_weights(stage):
    shown = _shown(stage.inputs)
    assert len(shown) == len(set(shown))
    assert set(shown) <= set(stage.reads)
    unshown = set(stage.reads) - set(shown) - set(names.PARAMS)
    # a token panel shows the ids it reads beside what it makes
    assert unshown <= {t for p in stage.panels if p.kind == panels.TOKENS for t in p.tensors}


def test_a_panel_kind_must_be_known():
    with pytest.raises(ValueError, match="unknown panel kind"):
        panels.Panel("bars")


def test_the_backward_walk_panels_read_a_gradient_the_walk_makes():
    for stage in STAGES:
        for p in stage.passed_back:
            assert any(t.startswith(names.GRAD) for t in p.tensors), stage.id


def test_stage_facts_asks_the_stage(trace):
    for stage in STAGES:
        assert stage_facts(trace, stage) == stage.facts(trace)
    assert all(isinstance(f, str) for s in STAGES for f in stage_facts(trace, s))
