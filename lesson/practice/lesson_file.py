"""A lesson: a run and the cells a teacher chose as questions, in a JSON file of format tinytui-lesson/1.

    {"format": "tinytui-lesson/1",
     "title": "Attention scores by hand",                    optional
     "model": null,                                          null: the chapter's; else a preset's name or a
                                                             model path, relative to the lesson's folder
     "prompt": ["a", "woodchuck", "would", "chuck"], "target": "wood",
     "switches": {"causal_mask": true, …},                   Switches.to_dict(); missing ones are defaults
     "edits": [{"name": "blocks.0.W_Q", "index": [0, 1, 1], "value": 0.5}],
     "cells": [{"name": "blocks.0.scores.2", "index": [1, 0], "note": "q·k, then ÷√2"}]}

read_lesson() reads a regular file of at most MAX_BYTES (model/io/safe_io.py) and checks every field's
type and size, so a hostile file is refused in one line (LessonError) and changes nothing; whether the
names, tokens and cells exist in the model is checked when the lesson is opened on it (edited_params,
and the questions' explain()). save_lesson() writes atomically and never through a symbolic link.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from tinytui.model import checks
from tinytui.model.config import ModelConfig
from tinytui.model.io.safe_io import TextFileError, atomic_writer, check_writable_target, read_utf8
from tinytui.model.params import Params
from tinytui.model.switches import CHOICES, FLAGS, Switches, run_config

FORMAT = "tinytui-lesson/1"
MAX_BYTES = 4 * 2**20
MAX_CELLS = 10_000
MAX_EDITS = 100_000
MAX_TOKENS = 4096
MAX_TEXT = 500  # characters of a note or the title
MAX_NAME = 200  # characters of a name, a token or a model path
MAX_AXES = 8
FIELDS = ("format", "title", "model", "prompt", "target", "switches", "lr", "edits", "cells")


class LessonError(ValueError):
    """A lesson file that cannot be used; str() is one line saying why."""


@dataclass(frozen=True)
class LessonCell:
    """A cell asked as a question: canonical name, full index, and the teacher's note ("" for none)."""

    name: str
    index: tuple[int, ...]
    note: str = ""


@dataclass(frozen=True)
class Edit:
    """A weight cell set before the questions are asked."""

    name: str
    index: tuple[int, ...]
    value: float


@dataclass(frozen=True)
class Lesson:
    """A lesson as its file holds it: which model to open, the prompt and target, the switches and
    weight edits to set first, and the cells asked as questions."""

    prompt: tuple[str, ...]
    target: str
    switches: Switches = field(default_factory=Switches)
    cells: tuple[LessonCell, ...] = ()
    edits: tuple[Edit, ...] = ()
    model: str | None = None  # None: the chapter's model
    title: str = ""
    lr: float | None = None  # None: the default learning rate
    # the switches the file names (the others are the model's defaults: GELU for GPT-2 unless it says)
    switches_named: tuple[str, ...] = field(default=(), compare=False)

    def to_json(self) -> dict:
        doc: dict = {"format": FORMAT}
        if self.title:
            doc["title"] = self.title
        doc |= {"model": self.model, "prompt": list(self.prompt), "target": self.target}
        doc["switches"] = self.switches.to_dict()
        if self.lr is not None:
            doc["lr"] = self.lr
        doc["edits"] = [{"name": e.name, "index": list(e.index), "value": e.value} for e in self.edits]
        doc["cells"] = [
            {"name": c.name, "index": list(c.index), **({"note": c.note} if c.note else {})}
            for c in self.cells
        ]
        return doc


def lesson_text(lesson: Lesson) -> str:
    """The file's text: one cell and one edit a line, so a teacher can read and diff it."""
    doc = lesson.to_json()
    head = {k: v for k, v in doc.items() if k not in ("edits", "cells")}
    parts = []
    for key in ("edits", "cells"):
        items = ",\n".join("  " + json.dumps(i, ensure_ascii=False, allow_nan=False) for i in doc[key])
        parts.append(f' "{key}": [' + (f"\n{items}\n ]" if items else "]"))
    return json.dumps(head, ensure_ascii=False, allow_nan=False)[:-1] + ",\n" + ",\n".join(parts) + "}\n"


def save_lesson(path: str | Path, lesson: Lesson) -> None:
    """Write the lesson to path: all of it or nothing, never through a symbolic link (OSError)."""
    check_writable_target(path)
    with atomic_writer(path) as f:
        f.write(lesson_text(lesson))


def read_lesson(path: str | Path) -> Lesson:
    """The lesson in the file at path, its fields checked; LessonError (one line) for anything else."""
    try:
        text = read_utf8(path, MAX_BYTES)
    except TextFileError as exc:
        if exc.byte is not None:
            raise LessonError(f"it is not UTF-8 text (byte {exc.byte})") from None
        raise LessonError(exc.reason) from None
    return parse_lesson(text)


def parse_lesson(text: str) -> Lesson:
    """A lesson from its file's text; LessonError names the field that is wrong."""
    try:
        doc = json.loads(text, parse_constant=_no_constant, object_pairs_hook=_no_duplicates)
    except LessonError:
        raise
    except RecursionError:
        raise LessonError("it is nested too deeply to be a lesson") from None
    except ValueError as exc:
        raise LessonError(f"it is not JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise LessonError(f'expected a JSON object with "format": "{FORMAT}"')
    if doc.get("format") != FORMAT:
        got = doc.get("format")
        shown = checks.shown(got) if isinstance(got, str) else json.dumps(got)[:40]
        raise LessonError(f'format: expected "{FORMAT}", got {shown}')
    extra = [k for k in doc if k not in FIELDS]
    if extra:
        raise LessonError(f"{checks.shown(extra[0])} is not a field of a lesson ({', '.join(FIELDS)})")
    for key in ("prompt", "target", "cells"):
        if key not in doc:
            raise LessonError(f"{key}: missing")
    model = doc.get("model")
    if model is not None:
        model = _text(model, "model", MAX_NAME)
        if not model:  # "" would be the lesson's own folder, read as a checkpoint folder
            raise LessonError("model: empty (null for the chapter's model, else a preset's name or a path)")
    prompt = doc["prompt"]
    if not isinstance(prompt, list) or not prompt or len(prompt) > MAX_TOKENS:
        raise LessonError(f"prompt: expected a list of 1 to {MAX_TOKENS} tokens")
    tokens = tuple(_text(t, f"prompt[{i}]", MAX_NAME) for i, t in enumerate(prompt))
    lr = doc.get("lr")
    if lr is not None:
        lr = _checked("lr", checks.lr, _number(lr, "lr"))
    return Lesson(
        prompt=tokens,
        target=_text(doc["target"], "target", MAX_NAME),
        switches=_switches(doc.get("switches", {})),
        cells=tuple(_cell(c, f"cells[{i}]") for i, c in enumerate(_list(doc["cells"], "cells", MAX_CELLS))),
        edits=tuple(
            _edit(e, f"edits[{i}]") for i, e in enumerate(_list(doc.get("edits", []), "edits", MAX_EDITS))
        ),
        model=model,
        title=_text(doc.get("title", ""), "title", MAX_TEXT),
        lr=lr,
        switches_named=tuple(doc.get("switches", {})),
    )


def edited_params(lesson: Lesson, base: Params) -> Params:
    """base with the lesson's edits set; LessonError when one names no weight cell of this model."""
    params = base
    for i, e in enumerate(lesson.edits):
        try:
            params = params.with_edit(e.name, e.index, e.value)
        except ValueError as exc:
            raise LessonError(f"edits[{i}]: {exc}") from None
    return params


def model_path(lesson: Lesson, lesson_path: str | Path) -> str | None:
    """What --model would be for the lesson's model: a path relative to the lesson's folder when one is
    there, else the text as written (a preset's name); None for the chapter's model."""
    if lesson.model is None:
        return None
    beside = Path(lesson_path).parent / lesson.model
    return str(beside) if beside.exists() else lesson.model


# ---- the fields ----------------------------------------------------------------------------------------


def _no_constant(name: str):
    raise LessonError(f"{name} is not a number a lesson can hold")


def _no_duplicates(pairs: list) -> dict:
    out: dict = {}
    for k, v in pairs:
        if k in out:
            raise LessonError(f"{checks.shown(k)} appears twice in one object")
        out[k] = v
    return out


def _checked(where: str, check, *values):
    try:
        return check(*values)
    except ValueError as exc:
        raise LessonError(f"{where}: {exc}") from None


def _text(x: object, where: str, limit: int) -> str:
    try:
        return checks.plain_text(x, where, limit).strip()
    except ValueError as exc:
        raise LessonError(str(exc)) from None


def check_on(lesson: Lesson, n_heads: int, n_blocks: int, cfg: ModelConfig | None = None) -> None:
    """LessonError when the lesson's switches name a head or block the model does not have, or (given
    the model's cfg) a norm or positions it cannot run."""
    if cfg is not None:
        try:
            run_config(cfg, lesson.switches)
        except ValueError as exc:
            raise LessonError(f"switches: {exc}") from None
    for h in lesson.switches.ablated_heads:
        _checked("switches.ablated_heads", checks.head, h, n_heads)
    for b, h in lesson.switches.ablated:
        if not 0 <= b < n_blocks:
            raise LessonError(f"switches.ablated: the model has no block {b + 1} (it has {n_blocks})")
        _checked("switches.ablated", checks.head, h, n_heads)


def _list(x: object, where: str, limit: int) -> list:
    if not isinstance(x, list):
        raise LessonError(f"{where}: expected a list")
    if len(x) > limit:
        raise LessonError(f"{where}: {len(x)} items is more than a lesson holds (at most {limit})")
    return x


def _object(x: object, where: str, keys: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict:
    if not isinstance(x, dict):
        raise LessonError(f"{where}: expected an object with {', '.join(keys)}")
    for k in x:
        if k not in keys + optional:
            raise LessonError(f"{where}: {checks.shown(k)} is not one of {', '.join(keys + optional)}")
    for k in keys:
        if k not in x:
            raise LessonError(f"{where}: {k} missing")
    return x


def _number(x: object, where: str) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise LessonError(f"{where}: expected a number")
    value = float(x)  # a huge integer overflows to inf here, refused below
    if not math.isfinite(value):
        raise LessonError(f"{where}: not a finite number")
    return value


def _index(x: object, where: str) -> tuple[int, ...]:
    if not isinstance(x, list) or len(x) > MAX_AXES:
        raise LessonError(f"{where}.index: expected a list of at most {MAX_AXES} whole numbers")
    if not all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < 2**31 for i in x):
        raise LessonError(f"{where}.index: expected whole numbers from 0 up")
    return tuple(x)


def _cell(x: object, where: str) -> LessonCell:
    doc = _object(x, where, ("name", "index"), ("note",))
    note = _text(doc.get("note", ""), f"{where}.note", MAX_TEXT)
    return LessonCell(_text(doc["name"], f"{where}.name", MAX_NAME), _index(doc["index"], where), note)


def _edit(x: object, where: str) -> Edit:
    doc = _object(x, where, ("name", "index", "value"))
    name = _text(doc["name"], f"{where}.name", MAX_NAME)
    return Edit(name, _index(doc["index"], where), _number(doc["value"], f"{where}.value"))


def _switches(x: object) -> Switches:
    if not isinstance(x, dict):
        raise LessonError("switches: expected an object")
    for name in FLAGS:
        if name in x and not isinstance(x[name], bool):
            raise LessonError(f"switches.{name}: expected true or false")
    for name, options in CHOICES.items():
        if name in x and x[name] not in options:
            raise LessonError(f"switches.{name}: expected one of {', '.join(options)}")
    heads = x.get("ablated_heads", [])
    if not isinstance(heads, list) or not all(isinstance(h, int) and not isinstance(h, bool) for h in heads):
        raise LessonError("switches.ablated_heads: expected a list of head numbers")
    if len(heads) > 1024:
        raise LessonError("switches.ablated_heads: more heads than a model has")
    pairs = x.get("ablated", [])
    ok = isinstance(pairs, list) and len(pairs) <= 4096
    ok = ok and all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(i, int) and not isinstance(i, bool) for i in p)
        for p in pairs
    )
    if not ok:
        raise LessonError("switches.ablated: expected a list of [block, head] pairs")
    return _checked("switches", Switches.from_dict, x)
