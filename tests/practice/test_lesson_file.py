"""Lesson files (tinytui-lesson/1): written atomically and read back the same; a hostile file is refused
in one line and changes nothing."""

from __future__ import annotations

import json
import os

import pytest

from tinytui.lesson.practice.lesson_file import (
    FORMAT,
    MAX_BYTES,
    Edit,
    Lesson,
    LessonCell,
    LessonError,
    check_on,
    edited_params,
    lesson_text,
    model_path,
    parse_lesson,
    read_lesson,
    save_lesson,
)
from tinytui.model.switches import Switches

LESSON = Lesson(
    prompt=("a", "woodchuck", "would", "chuck"),
    target="wood",
    switches=Switches(causal_mask=False, ablated_heads=frozenset({2})),
    cells=(LessonCell("blocks.0.scores.2", (1, 0), "q·k, then ÷√2"), LessonCell("loss", ())),
    edits=(Edit("blocks.0.W_Q", (0, 1, 1), 0.5),),
    title="Scores by hand",
    lr=0.25,
)


def test_round_trip(tmp_path):
    path = tmp_path / "lesson.json"
    save_lesson(path, LESSON)
    assert read_lesson(path) == LESSON
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["format"] == FORMAT and doc["model"] is None
    assert doc["cells"] == [
        {"name": "blocks.0.scores.2", "index": [1, 0], "note": "q·k, then ÷√2"},
        {"name": "loss", "index": []},
    ]
    assert doc["edits"] == [{"name": "blocks.0.W_Q", "index": [0, 1, 1], "value": 0.5}]
    assert doc["switches"]["causal_mask"] is False and doc["switches"]["ablated_heads"] == [2]
    assert path.read_text(encoding="utf-8").count("\n") == 8  # the head, an edit and each cell on a line
    minimal = parse_lesson('{"format": "tinytui-lesson/1", "prompt": ["a"], "target": "wood", "cells": []}')
    assert minimal == Lesson(("a",), "wood")


def test_edits_and_heads_checked_on_the_model(chapter):
    params = edited_params(LESSON, chapter.params)
    assert params["blocks.0.W_Q"][0, 1, 1] == 0.5
    check_on(LESSON, 2, 1)
    bad = Lesson(("a",), "wood", edits=(Edit("blocks.0.W_Q", (0, 9, 1), 1.0),))
    with pytest.raises(LessonError, match=r"^edits\[0\]: W_Q\[0, 9, 1\] is outside its shape \(2, 4, 2\)$"):
        edited_params(bad, chapter.params)
    with pytest.raises(LessonError, match="no parameter named 'W_Z'"):
        edited_params(Lesson(("a",), "wood", edits=(Edit("W_Z", (0,), 1.0),)), chapter.params)
    with pytest.raises(
        LessonError, match=r"^switches.ablated_heads: there is no head 3 \(heads are 1 to 2\)$"
    ):
        check_on(Lesson(("a",), "wood", switches=Switches(ablated_heads=frozenset({3}))), 2, 1)


def test_model_path_is_read_beside_the_lesson(tmp_path):
    (tmp_path / "m.json").write_text("{}")
    lesson = Lesson(("a",), "wood", model="m.json")
    assert model_path(lesson, tmp_path / "lesson.json") == str(tmp_path / "m.json")
    assert model_path(Lesson(("a",), "wood", model="woodland"), tmp_path / "l.json") == "woodland"
    assert model_path(Lesson(("a",), "wood"), tmp_path / "l.json") is None


GOOD = {"format": FORMAT, "prompt": ["a"], "target": "wood", "cells": [{"name": "loss", "index": []}]}


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[1, 2]", 'expected a JSON object with "format": "tinytui-lesson/1"'),
        ("{", "it is not JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
        ("[" * 100_000 + "]" * 100_000, "it is nested too deeply to be a lesson"),
        (
            json.dumps({**GOOD, "format": "tinytui-lesson/2"}),
            "format: expected \"tinytui-lesson/1\", got 'tinytui-lesson/2'",
        ),
        (json.dumps({**GOOD, "extra": 1}), "'extra' is not a field of a lesson"),
        (json.dumps({k: v for k, v in GOOD.items() if k != "cells"}), "cells: missing"),
        (json.dumps(GOOD)[:-1] + ', "target": "a"}', "'target' appears twice in one object"),
        (json.dumps({**GOOD, "lr": 1}).replace("1}", "NaN}"), "NaN is not a number a lesson can hold"),
        (json.dumps({**GOOD, "prompt": []}), "prompt: expected a list of 1 to 4096 tokens"),
        (json.dumps({**GOOD, "prompt": ["a\u202eb"]}), "prompt[0]: control character U+202E at position 1"),
        (json.dumps({**GOOD, "cells": {"name": "loss"}}), "cells: expected a list"),
        (json.dumps({**GOOD, "cells": [{"name": "loss"}]}), "cells[0]: index missing"),
        (
            json.dumps({**GOOD, "cells": [{"name": "x", "index": [-1]}]}),
            "cells[0].index: expected whole numbers",
        ),
        (
            json.dumps({**GOOD, "cells": [{"name": "x", "index": [True]}]}),
            "cells[0].index: expected whole numbers",
        ),
        (
            json.dumps({**GOOD, "cells": [{"name": "x", "index": [0], "note": "x" * 501}]}),
            "cells[0].note: 501",
        ),
        (
            json.dumps({**GOOD, "cells": [{"name": "x", "index": [], "why": 1}]}),
            "cells[0]: 'why' is not one of",
        ),
        (json.dumps({**GOOD, "cells": [{"name": "x", "index": []}] * 10_001}), "cells: 10001 items is more"),
        (
            json.dumps({**GOOD, "edits": [{"name": "E", "index": [0, 0], "value": "1"}]}),
            "edits[0].value: expected",
        ),
        (
            json.dumps({**GOOD, "edits": [{"name": "E", "index": [0, 0], "value": 1e308 * 10}]}).replace(
                "Infinity", "1e999"
            ),
            "edits[0].value: not a finite number",
        ),
        (
            json.dumps({**GOOD, "switches": {"causal_mask": "yes"}}),
            "switches.causal_mask: expected true or false",
        ),
        (json.dumps({**GOOD, "switches": {"norm": "mid"}}), "switches.norm: expected one of pre, post"),
        (json.dumps({**GOOD, "switches": {"colour": 1}}), "switches: unknown switch 'colour'"),
        (
            json.dumps({**GOOD, "switches": {"ablated": [[0]]}}),
            "switches.ablated: expected a list of [block, head]",
        ),
        (json.dumps({**GOOD, "lr": -1}), "lr: the learning rate"),
        (json.dumps({**GOOD, "model": " "}), "model: empty (null for the chapter's model"),
    ],
)
def test_hostile_text_is_one_line(text, says):
    with pytest.raises(LessonError) as exc:
        parse_lesson(text)
    message = str(exc.value)
    assert message.startswith(says) and "\n" not in message and len(message) < 300


def test_hostile_files(tmp_path):
    folder = tmp_path / "folder.json"
    folder.mkdir()
    with pytest.raises(LessonError, match=r"^it is a folder, not a regular file$"):
        read_lesson(folder)
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    with pytest.raises(LessonError, match=r"^it is a FIFO, device or socket, not a regular file$"):
        read_lesson(fifo)
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (MAX_BYTES + 1))
    with pytest.raises(LessonError, match=r"^it is larger than 4 MB"):
        read_lesson(big)
    latin = tmp_path / "latin.json"
    latin.write_bytes(json.dumps(GOOD).replace("wood", "w\xf6od").encode("latin-1"))
    with pytest.raises(LessonError, match=r"^it is not UTF-8 text \(byte \d+\)$"):
        read_lesson(latin)
    with pytest.raises(LessonError):
        read_lesson(tmp_path / "missing.json")


def test_saving_never_follows_a_link(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    link = tmp_path / "lesson.json"
    link.symlink_to(victim)
    with pytest.raises(OSError, match="symbolic link"):
        save_lesson(link, LESSON)
    assert victim.read_text() == "keep me" and link.is_symlink()
    assert lesson_text(LESSON).endswith("]}\n")
