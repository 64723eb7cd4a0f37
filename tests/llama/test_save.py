"""An edited Llama-family checkpoint is saved as a folder again (config.json and tokenizer.json copied,
the weights in one model.safetensors in Llama's layout) and reads back bit for bit, shards or not."""

import numpy as np
import pytest

from tests.llama.checkpoints import LLAMA, QWEN2
from tinytui.model.io.checkpoint import load_checkpoint
from tinytui.model.io.checkpoint_save import save_checkpoint, save_edited


@pytest.mark.parametrize("source", [LLAMA, QWEN2], ids=["llama-bf16", "qwen2-shards"])
def test_an_edited_folder_reads_back_exactly(tmp_path, source):
    model = load_checkpoint(source)
    name = "blocks.0.W_K"
    edited = model.params.with_edit(name, (0, 1, 1), 1 / 3)  # not a float32: the file is float64
    where = save_edited(model, edited, model.prompt, model.target, tmp_path / "edited.json")
    assert where == tmp_path / "edited" and (where / "model.safetensors").exists()
    assert not list(where.glob("model-*.safetensors")) and (where / "tokenizer.json").exists()
    back = load_checkpoint(where)
    assert back.params == edited and back.cfg == model.cfg
    assert back.params[name][0, 1, 1] == 1 / 3 and "edited" in back.name


def test_an_unedited_folder_is_float32_and_the_same_model(tmp_path):
    model = load_checkpoint(LLAMA)
    save_checkpoint(model, model.params, tmp_path / "same")
    from safetensors.numpy import load_file

    saved = load_file(str(tmp_path / "same" / "model.safetensors"))
    assert {a.dtype for a in saved.values()} == {np.dtype(np.float32)} and "lm_head.weight" in saved
    assert load_checkpoint(tmp_path / "same").params == model.params
