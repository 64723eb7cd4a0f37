"""An edited checkpoint saved from the app is a checkpoint folder again: it loads back with the edit and
tokenizes typed text to the same ids (its vocab.json and merges.txt come along)."""

import errno
import os

import numpy as np
import pytest
from safetensors import safe_open

from tests.apps import make_app
from tests.gpt2.checkpoints import TINY, copy
from tests.tui.helpers import press
from tinytui.model.io.checkpoint import load_checkpoint
from tinytui.model.io.checkpoint_save import hf_tensors, save_checkpoint, save_edited, suggested_name
from tinytui.model.io.checkpoint_weights import CheckpointError, to_params
from tinytui.session.session import Session

TEXT = "The river runs to the mill again"


@pytest.fixture(scope="module")
def tiny():
    return load_checkpoint(TINY)


def dtypes(folder) -> set[str]:
    with safe_open(str(folder / "model.safetensors"), framework="numpy") as st:
        names = st.keys()
        return {st.get_slice(name).get_dtype() for name in names}


def test_the_hugging_face_layout_maps_back_to_the_same_weights(tiny):
    again = to_params(tiny.cfg, hf_tensors(tiny.params))
    assert all(np.array_equal(again[name], tiny.params[name]) for name in tiny.params)


def test_a_saved_edit_loads_back_exactly_with_the_same_token_ids(tiny, tmp_path):
    session = Session(tiny)
    session.edit("blocks.1.W_Q", (2, 5, 3), "0.123456789")  # not a float32: saved as float64
    session.edit("blocks.0.b_V", (1, 0), "-2")
    folder = tmp_path / "tiny-edited"
    where = save_edited(tiny, session.params, session.state.prompt, session.state.target, f"{folder}.json")
    assert where == folder  # the .json the save box adds is dropped: a folder
    files = ["config.json", "merges.txt", "model.safetensors", "tinytui.json", "vocab.json"]
    assert sorted(os.listdir(folder)) == files
    for name in ("config.json", "vocab.json", "merges.txt"):  # the tokenizer, byte for byte
        assert (folder / name).read_bytes() == (TINY / name).read_bytes()
    assert dtypes(folder) == {"F64"}
    back = load_checkpoint(folder)
    assert back.params["blocks.1.W_Q"][2, 5, 3] == 0.123456789
    assert back.params["blocks.0.b_V"][1, 0] == -2.0
    assert all(np.array_equal(back.params[n], session.params[n]) for n in tiny.params)
    assert back.tokenizer.ids(TEXT) == tiny.tokenizer.ids(TEXT)
    assert back.prompt_pieces(TEXT) == tiny.prompt_pieces(TEXT)
    assert back.cfg == tiny.cfg
    assert [p.name for p in tmp_path.iterdir()] == ["tiny-edited"]  # no temporary folder left behind
    # it says it is edited, and which weights, as a saved model file does
    assert back.name == f"{tiny.name}-edited"
    assert back.about.startswith(f"Derived from {tiny.name} with 2 weights edited: ")
    assert "blocks.1.W_Q[2,5,3]" in back.about and "0.123456789" in back.about
    assert back.about.endswith(f"read from {folder}.")


def test_an_unedited_save_has_no_names_file(tiny, tmp_path):
    save_checkpoint(tiny, tiny.params, tmp_path / "same")
    assert "tinytui.json" not in os.listdir(tmp_path / "same")
    back = load_checkpoint(tmp_path / "same")
    assert back.name == "same" and back.about.startswith("A GPT-2 checkpoint (2 blocks")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("[1, 2]", "not a JSON object"),
        ('{"name": "x"}', 'expected an object of "name" and "about"'),
        ('{"name": "x", "about": "y", "more": 1}', 'expected an object of "name" and "about"'),
        (r'{"name": "x\u001b[31m", "about": "y"}', "name: control character U+001B"),
        ('{"name": 3, "about": "y"}', "name: expected a string"),
        ("{nope", "not a JSON object"),
    ],
)
def test_a_names_file_that_is_not_two_plain_strings_is_refused_in_one_line(tmp_path, text, why):
    folder = copy(TINY, tmp_path / "odd")
    (folder / "tinytui.json").write_text(text)
    with pytest.raises(CheckpointError) as caught:
        load_checkpoint(folder)
    assert str(caught.value).startswith(f"{folder / 'tinytui.json'}: ") and why in str(caught.value)


def test_an_edit_float32_holds_keeps_the_file_float32(tiny, tmp_path):
    session = Session(tiny)
    session.edit("E", (7, 1), "0.5")
    save_checkpoint(tiny, session.params, tmp_path / "f32")
    assert dtypes(tmp_path / "f32") == {"F32"}
    assert load_checkpoint(tmp_path / "f32").params["E"][7, 1] == 0.5


def test_an_existing_name_or_a_link_is_refused_and_left_alone(tiny, tmp_path):
    (tmp_path / "there").mkdir()
    (tmp_path / "there" / "keep.txt").write_text("mine")
    os.symlink(tmp_path / "there", tmp_path / "link")
    for name in ("there", "link"):
        with pytest.raises(OSError) as refused:
            save_checkpoint(tiny, tiny.params, tmp_path / name)
        assert refused.value.errno == errno.EEXIST
        assert refused.value.strerror == f"{name} exists; an edited checkpoint is saved as a new folder"
    assert os.listdir(tmp_path / "there") == ["keep.txt"] and os.path.islink(tmp_path / "link")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "there"]


def test_a_tokenizer_changed_on_disk_since_loading_is_refused(tmp_path):
    source = copy(tmp_path)
    model = load_checkpoint(source)
    (source / "vocab.json").write_text('{"a": 0}', encoding="utf-8")
    with pytest.raises(ValueError, match=r"vocab.json: changed since the checkpoint was loaded"):
        save_checkpoint(model, model.params, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_the_suggested_name_is_a_folder_for_a_checkpoint(tiny, chapter):
    assert suggested_name(tiny, "tiny-gpt2") == "tiny-gpt2-edited"
    assert suggested_name(chapter, "chapter17") == "chapter17-edited.json"


async def test_ctrl_s_in_the_app_saves_the_checkpoint_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = make_app("--model", str(TINY), "--prompt", "The river runs", "--target", "to")
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply(lambda s: s.edit("blocks.1.b_V", (0, 0), "3"), "edit b_V")
        await pilot.pause()
        await press(pilot, "ctrl+s")
        dialog = app.screen
        assert dialog.title_text == "Save the edited model as a checkpoint folder"
        assert dialog.hint.endswith("tinytui --model FOLDER")
        await press(pilot, "enter")  # the suggested name
        await pilot.pause()
    back = load_checkpoint(tmp_path / "tiny-gpt2-edited")
    assert back.params["blocks.1.b_V"][0, 0] == 3.0
    assert back.prompt_pieces("The river runs") == ("The", "Ġriver", "Ġruns")
    assert not (tmp_path / "tiny-gpt2-edited.json").exists()
