"""Model files: the preset loads, saves round-trip, and every bad file gets a one-line error."""

import json
import sys

import pytest

from tinytui.model.io.document import to_document
from tinytui.model.io.field_checks import ModelFileError
from tinytui.model.io.model_file import default_model_path, load, load_default, save


@pytest.fixture
def doc():
    return json.loads(default_model_path().read_text())


def write(tmp_path, doc, raw=None):
    p = tmp_path / "m.json"
    p.write_text(raw if raw is not None else json.dumps(doc))
    return p


def test_preset_matches_the_shared_chapter_model(doc):
    assert doc["format"] == "tinytui-model/1"
    m = load_default()
    assert m.prompt == ("a", "woodchuck", "would", "chuck")
    assert m.target == "wood"
    assert m.params.total() == 172


def test_save_round_trips(tmp_path, chapter):
    edited = chapter.params.with_edit("blocks.0.W_O", (2, 3), 0.25)
    from tinytui.model.io.document import ModelFile

    p = tmp_path / "edited.json"
    save(ModelFile("edited", "", edited, chapter.prompt, chapter.target), p)
    back = load(p)
    assert back.params == edited
    assert back.params["blocks.0.W_O"][2, 3] == 0.25
    assert not list(tmp_path.glob("*.tmp"))


def _mut(doc, path, value):
    d = doc
    for key in path[:-1]:
        d = d[key]
    if value is KeyError:
        del d[path[-1]]
    else:
        d[path[-1]] = value
    return doc


@pytest.mark.parametrize(
    ("path", "value", "field", "why"),
    [
        (("weights", "E"), [[0, 0, 1]] * 8, "weights.E[0]", "expected shape"),
        (("weights", "blocks", 0, "W_Q"), KeyError, "weights.blocks[0].W_Q", "missing"),
        (("weights", "blocks", 0, "W_X"), [[1]], "weights.blocks[0].W_X", "unknown key"),
        (("weights", "blocks", 0, "b_2"), [0, 0, "one", 1], "weights.blocks[0].b_2[2]", "expected a number"),
        (("weights", "blocks", 0, "b_2"), [0, 0, float("nan"), 1], "weights.blocks[0].b_2[2]", "finite"),
        (("weights", "blocks", 0, "b_1"), [0, 0, 0, 0, 0, 0, 0, float("inf")], "b_1[7]", "finite"),
        (("prompt",), ["a", "beaver"], "prompt[1]", "not in the vocabulary"),
        (("prompt",), [], "prompt", "empty"),
        (("target",), "beaver", "target", "not in the vocabulary"),
        (("d_model",), "4", "d_model", "positive whole number"),
        (("vocab",), KeyError, "vocab", "missing"),
        (("colour",), "blue", "colour", "unknown key"),
        (("format",), "tinytui-model/9", "format", "expected"),
        (("eps",), -1, "eps", "positive"),
    ],
)
def test_bad_fields_get_one_line_errors(tmp_path, doc, path, value, field, why):
    p = write(tmp_path, _mut(doc, path, value))
    with pytest.raises(ModelFileError) as exc:
        load(p)
    msg = str(exc.value)
    assert "\n" not in msg
    assert msg.startswith(str(p))
    assert field in msg and why in msg


def test_not_json(tmp_path):
    p = write(tmp_path, None, raw='{"format": "tinytui-model/1",')
    with pytest.raises(ModelFileError, match="not JSON"):
        load(p)


def test_missing_file(tmp_path):
    with pytest.raises(ModelFileError, match="cannot read"):
        load(tmp_path / "nope.json")


def test_top_level_not_an_object(tmp_path):
    with pytest.raises(ModelFileError, match="expected a JSON object"):
        load(write(tmp_path, [1, 2]))


def test_doc_round_trip_is_stable(chapter):
    from tinytui.model.io.document import ModelFile, parse

    again = parse(to_document(ModelFile("x", "", chapter.params, chapter.prompt, chapter.target)))
    assert again.params == chapter.params


def test_model_package_imports_no_ui():
    import subprocess

    code = (
        "import tinytui.model, tinytui.lesson.texts.facts, tinytui.model.count, tinytui.model.diff; "
        "import sys; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
