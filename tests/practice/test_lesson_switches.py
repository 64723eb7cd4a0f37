"""A lesson file may run the chapter's model with RMSNorm or RoPE; one that asks a model for a norm it
cannot run is refused in one line when opened on it."""

import json

import pytest

from tinytui.lesson.practice.lesson_file import Lesson, LessonError, check_on, parse_lesson
from tinytui.model.io.model_file import load
from tinytui.model.io.presets import presets
from tinytui.model.switches import Switches


def test_a_lesson_reads_and_writes_the_norm_and_positions(chapter):
    doc = {
        "format": "tinytui-lesson/1",
        "prompt": ["a", "woodchuck"],
        "target": "wood",
        "switches": {"norm_kind": "rms", "positions": "rope"},
        "cells": [{"name": "blocks.0.q.1", "index": [1, 0]}],
    }
    lesson = parse_lesson(json.dumps(doc))
    assert (lesson.switches.norm_kind, lesson.switches.positions) == ("rms", "rope")
    assert parse_lesson(json.dumps(lesson.to_json())) == lesson
    check_on(lesson, 2, 1, chapter.cfg)
    llama = load(presets()["chapter17-llama"]).cfg
    with pytest.raises(LessonError, match=r"^switches: the norm \(LayerNorm or RMSNorm\): this model's"):
        check_on(Lesson(("a",), "wood", switches=Switches(norm_kind="layer")), 4, 2, llama)
    with pytest.raises(LessonError, match=r"switches\.positions: expected one of sinusoid, rope, none"):
        parse_lesson(json.dumps({**doc, "switches": {"positions": "spiral"}}))
