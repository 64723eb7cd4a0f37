"""A GPT-2 checkpoint's weights are checked whole when the folder is loaded and widened to float64 when
the model first reads them: the arrays are the file's values bit for bit (as the eager layout makes
them), a NaN anywhere is still refused at load, and a file changed in place after loading is refused
in one line when a weight or the sha256 is next read, where a file replaced by a new one (as a save
writes) changes nothing."""

import hashlib
import os

import numpy as np
import pytest
from safetensors.numpy import save_file

from tests.gpt2.checkpoints import TINY, copy, hf_tensors, with_tensors
from tinytui.model.io.checkpoint import load_checkpoint
from tinytui.model.io.checkpoint_weights import CheckpointError, to_params
from tinytui.model.io.field_checks import ModelFileError


def test_the_arrays_read_are_the_files_values_in_tinytuis_layout():
    model = load_checkpoint(TINY)
    hf = {name.removeprefix("transformer."): a for name, a in hf_tensors().items()}
    eager = to_params(model.cfg, hf)
    for name in model.params:
        assert np.array_equal(model.params[name], eager[name]), name
        assert model.params[name].dtype == np.float64 and not model.params[name].flags.writeable
    q, dk, d = model.params["blocks.1.W_Q"], model.cfg.d_head, model.cfg.d_model
    assert np.array_equal(q[2], hf["h.1.attn.c_attn.weight"][:, 2 * dk : 3 * dk])  # head 3's columns
    assert np.array_equal(
        model.params["blocks.1.W_V"][0], hf["h.1.attn.c_attn.weight"][:, 2 * d : 2 * d + dk]
    )
    assert model.params["blocks.1.W_Q"] is q  # made once, the same object on every read


def test_a_nan_in_the_last_block_is_refused_at_load(tmp_path):
    tensors = hf_tensors()
    last = max(n for n in tensors if n.endswith("mlp.c_proj.weight"))
    tensors[last][1, 2] = np.inf
    with pytest.raises(ModelFileError, match=r"mlp\.c_proj\.weight: inf at \[1, 2\] is not a finite number$"):
        load_checkpoint(with_tensors(copy(tmp_path), tensors))


def test_a_file_changed_in_place_after_loading_is_refused_when_next_read(tmp_path):
    folder = copy(tmp_path)
    model = load_checkpoint(folder)
    E = model.params["E"]
    weights = folder / "model.safetensors"
    data = bytearray(weights.read_bytes())
    data[-8:] = bytes(8)  # the last tensor's last values, written over in the same file
    with open(weights, "r+b") as f:
        f.write(data)
    st = os.stat(weights)
    os.utime(weights, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    with pytest.raises(CheckpointError) as info:
        [model.params[name] for name in model.params]
    assert str(info.value) == f"{weights}: the file changed since it was loaded; load the checkpoint again"
    with pytest.raises(CheckpointError):
        _ = model.weights_sha256
    assert model.params["E"] is E  # what was read before stays as it was


def test_a_file_replaced_after_loading_changes_nothing(tmp_path):
    folder = copy(tmp_path)
    before = hashlib.sha256((folder / "model.safetensors").read_bytes()).hexdigest()
    model = load_checkpoint(folder)
    tensors = {name: np.zeros_like(a) for name, a in hf_tensors().items()}
    save_file(tensors, str(tmp_path / "new.safetensors"), metadata={"format": "pt"})
    os.replace(tmp_path / "new.safetensors", folder / "model.safetensors")  # a save's atomic rename
    fresh = load_checkpoint(TINY)
    assert all(np.array_equal(model.params[n], fresh.params[n]) for n in model.params)
    assert model.weights_sha256 == before == fresh.weights_sha256
