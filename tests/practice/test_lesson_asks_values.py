"""A lesson asks values some step computes: one asking a weight (written by hand: the app marks only
computed cells) opened with a question no step ever showed, 'overall 0/1' for good. It is refused in one
line naming the cell."""

from __future__ import annotations

import json

import pytest

from tinytui.cli.options import build_parser
from tinytui.cli.practice_command import practice_app
from tinytui.cli.run_setup import UsageError


def lesson(tmp_path, cells) -> str:
    path = tmp_path / "lesson.json"
    doc = {
        "format": "tinytui-lesson/1",
        "prompt": ["a", "woodchuck", "would", "chuck"],
        "target": "wood",
        "cells": [{"name": n, "index": ix} for n, ix in cells],
    }
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(("name", "index", "shown"), [("E", [0, 0], "E"), ("blocks.0.W_Q", [0, 0, 0], "W_Q")])
def test_a_lesson_asking_a_weight_is_refused_in_one_line(tmp_path, name, index, shown):
    path = lesson(tmp_path, [("blocks.0.scores.1", [1, 0]), (name, index)])
    with pytest.raises(UsageError) as refused:
        practice_app(build_parser().parse_args(["practice", path]))
    said = str(refused.value)
    assert "\n" not in said and "cells[1]" in said and f"{shown} is a weight" in said


def test_values_of_both_walks_are_asked(tmp_path):
    path = lesson(tmp_path, [("blocks.0.scores.1", [1, 0]), ("grad.blocks.0.W_O", [0, 0]), ("mask", [0, 1])])
    assert practice_app(build_parser().parse_args(["practice", path])) is not None
