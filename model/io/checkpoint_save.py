"""An edited GPT-2 or Llama-family checkpoint saved as a checkpoint folder, to be tokenized and opened again.

A checkpoint's tokenizer lives in its folder (vocab.json, merges.txt), not in a tinytui model file, so
an edited checkpoint saved as a model file could not split typed text any more. It is saved as a new
folder instead, as checkpoint.py reads it: config.json, vocab.json and merges.txt copied byte for byte
from the folder it was loaded from (their ids and pieces checked against the model's first), and
model.safetensors in the Hugging Face layout (checkpoint_weights.to_params inverted) holding the
edited weights: float32 as GPT-2's own file when every weight is exactly a float32 (an unedited one, or
an edit to a value float32 holds), else float64, so a saved edit always reads back exactly.

An edited checkpoint's folder also holds tinytui.json, its name and a sentence saying which weights
were edited (document.derived's, as a saved model file says it), which checkpoint.py reads back as the
model's name and about; other tools ignore the file.

The folder is written whole or not at all: its files go into a new hidden folder beside it (created,
never reused, so nothing in it can be a planted link), each fsynced, and that folder is renamed to
the name asked for, which must not exist: a folder is never overwritten or merged into.
The prompt and target are not saved: a checkpoint folder opens with its default text.

A Llama-family folder is saved the same way: config.json and tokenizer.json copied, and the weights in
one model.safetensors in its own layout (llama_weights.to_params inverted), whether the folder they came
from held one file or shards.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
from pathlib import Path

import numpy as np

from tinytui.model.io import bpe, llama_checkpoint
from tinytui.model.io.checkpoint import NAMES_FILE, CheckpointModel
from tinytui.model.io.checkpoint_weights import CheckpointError
from tinytui.model.io.document import ModelFile, derived
from tinytui.model.io.model_file import save
from tinytui.model.io.safe_io import atomic_write_bytes, fresh_folder_beside, read_regular_file, refuse
from tinytui.model.params import Params

COPIED = ("config.json", "vocab.json", "merges.txt")  # the folder's own files, as they are
LLAMA_COPIED = ("config.json", "tokenizer.json")  # a Llama-family folder's; its weights in one file
MAX_COPY_BYTES = bpe.MAX_VOCAB_BYTES


def suggested_name(model: ModelFile, stem: str) -> str:
    """What the save box offers: 'gpt2-edited' (a folder) for a checkpoint, else 'stem-edited.json'."""
    return f"{stem}-edited" if isinstance(model, CheckpointModel) else f"{stem}-edited.json"


def save_edited(model: ModelFile, params: Params, prompt, target: str, path: str | Path) -> Path:
    """The app's save, and where it went: a checkpoint as a checkpoint folder (save_checkpoint; the .json
    the save box adds to a name without a suffix is dropped, a folder is not a JSON file), any other model
    as a model file with its prompt and target (files.save). OSError or ValueError say why not."""
    path = Path(path)
    if isinstance(model, CheckpointModel):
        folder = path.with_suffix("") if path.suffix == ".json" else path
        save_checkpoint(model, params, folder)
        return folder
    save(derived(model, params, tuple(prompt), target), path)  # says it is edited, and where
    return path


def hf_tensors(params: Params) -> dict[str, np.ndarray]:
    """The Hugging Face tensors of GPT-2 weights (names without "transformer."): the inverse of
    checkpoint_weights.to_params (W_Q[h] is c_attn's columns h·dk…(h+1)·dk of its first third, …)."""
    cfg = params.cfg
    d = cfg.d_model

    def columns(per_head: np.ndarray) -> np.ndarray:
        """(H, d, dk) -> (d, H·dk); a bias (H, dk) -> (H·dk,)."""
        if per_head.ndim == 2:
            return per_head.reshape(-1)
        return per_head.transpose(1, 0, 2).reshape(d, -1)

    out = {"wte.weight": params["E"], "wpe.weight": params["P"]}
    for b in range(cfg.n_blocks):
        h, p = f"h.{b}.", f"blocks.{b}."
        for ln, short in (("ln_1", "ln1"), ("ln_2", "ln2")):
            out[f"{h}{ln}.weight"], out[f"{h}{ln}.bias"] = params[f"{p}{short}_g"], params[f"{p}{short}_b"]
        out[f"{h}attn.c_attn.weight"] = np.concatenate([columns(params[f"{p}W_{x}"]) for x in "QKV"], axis=1)
        out[f"{h}attn.c_attn.bias"] = np.concatenate([columns(params[f"{p}b_{x}"]) for x in "QKV"])
        out[f"{h}attn.c_proj.weight"], out[f"{h}attn.c_proj.bias"] = params[f"{p}W_O"], params[f"{p}b_O"]
        out[f"{h}mlp.c_fc.weight"], out[f"{h}mlp.c_fc.bias"] = params[f"{p}W_1"], params[f"{p}b_1"]
        out[f"{h}mlp.c_proj.weight"], out[f"{h}mlp.c_proj.bias"] = params[f"{p}W_2"], params[f"{p}b_2"]
    out["ln_f.weight"], out["ln_f.bias"] = params["lnf_g"], params["lnf_b"]
    return out


def llama_tensors(params: Params) -> dict[str, np.ndarray]:
    """The Hugging Face tensors of Llama-family weights ("model." names; lm_head when untied): the inverse
    of llama_weights.to_params (q_proj's rows h·k … (h+1)·k are W_Q[h] transposed, …)."""
    cfg = params.cfg

    def rows(per_head: np.ndarray) -> np.ndarray:
        """(n, d, k) -> (n·k, d); a bias (n, k) -> (n·k,)."""
        return (
            per_head.reshape(-1)
            if per_head.ndim == 2
            else per_head.transpose(0, 2, 1).reshape(-1, cfg.d_model)
        )

    out = {"model.embed_tokens.weight": params["E"]}
    for b in range(cfg.n_blocks):
        layer, p = f"model.layers.{b}.", f"blocks.{b}."
        out[layer + "input_layernorm.weight"] = params[p + "ln1_g"]
        out[layer + "post_attention_layernorm.weight"] = params[p + "ln2_g"]
        for name in "QKV":
            proj = f"{layer}self_attn.{name.lower()}_proj."
            out[proj + "weight"] = rows(params[f"{p}W_{name}"])
            if cfg.attn_bias:
                out[proj + "bias"] = rows(params[f"{p}b_{name}"])
        out[layer + "self_attn.o_proj.weight"] = params[p + "W_O"].T
        if cfg.out_bias:
            out[layer + "self_attn.o_proj.bias"] = params[p + "b_O"]
        for name in ("gate", "up", "down"):
            out[f"{layer}mlp.{name}_proj.weight"] = params[f"{p}W_{name}"].T
    out["model.norm.weight"] = params["lnf_g"]
    if not cfg.tied:
        out["lm_head.weight"] = params["W_U"].T
    return out


def weights_bytes(params: Params, family: str = "gpt2") -> bytes:
    """model.safetensors' bytes: float32 when that holds every weight exactly, else float64."""
    from safetensors.numpy import save as safetensors_bytes

    tensors = hf_tensors(params) if family == "gpt2" else llama_tensors(params)
    exact = all(np.array_equal(a.astype(np.float32), a) for a in tensors.values())
    dtype = "<f4" if exact else "<f8"
    data = {name: np.ascontiguousarray(a, dtype=dtype) for name, a in tensors.items()}
    return safetensors_bytes(data, metadata={"format": "pt"})


def save_checkpoint(model: CheckpointModel, params: Params, folder: str | Path) -> None:
    """The edited weights as a new checkpoint folder (see the module's docstring); OSError with a
    sentence in strerror if the folder exists or cannot be written, CheckpointError if the source
    folder's tokenizer no longer matches the model."""
    folder = Path(folder)
    if os.path.lexists(folder):
        raise _exists(folder)
    llama = model.family != "gpt2"
    copies = {name: _source_bytes(model, name) for name in (LLAMA_COPIED if llama else COPIED)}
    if llama:  # the tokenizer as it is now: still the model's pieces?
        tokenizer = llama_checkpoint.load_tokenizer(model.folder)
        vocab_file = model.folder / llama_checkpoint.TOKENIZER
        pieces = llama_checkpoint.vocabulary(tokenizer, model.cfg.n_vocab, model.folder)
    else:
        vocab = bpe.read_vocab(model.folder / "vocab.json")
        vocab_file, pieces = model.folder / "vocab.json", tuple(sorted(vocab, key=vocab.__getitem__))
    if pieces != model.cfg.vocab:
        raise CheckpointError(f"{vocab_file}: changed since the checkpoint was loaded")
    weights = weights_bytes(params, model.family)
    files = [*copies.items(), ("model.safetensors", weights)]
    saved = derived(model, params, model.prompt, model.target)
    if saved.about != model.about:  # edited: the folder says so, as a saved model file does
        files.append((NAMES_FILE, names_bytes(saved.name, saved.about)))
    tmp = fresh_folder_beside(folder)
    try:
        for name, data in files:
            atomic_write_bytes(tmp / name, data)
        if os.path.lexists(folder):  # again, just before the rename
            raise _exists(folder)
        os.rename(tmp, folder)
    except BaseException:
        with contextlib.suppress(OSError):
            shutil.rmtree(tmp)
        raise


def names_bytes(name: str, about: str) -> bytes:
    """tinytui.json: the edited checkpoint's name and what was edited (checkpoint.read_names reads it)."""
    return (json.dumps({"name": name, "about": about}, ensure_ascii=False, indent=2) + "\n").encode()


def _exists(folder: Path) -> OSError:
    return refuse(
        folder, errno.EEXIST, f"{folder.name} exists; an edited checkpoint is saved as a new folder"
    )


def _source_bytes(model: CheckpointModel, name: str) -> bytes:
    path = model.folder / name
    try:
        return read_regular_file(path, MAX_COPY_BYTES)
    except (OSError, ValueError) as exc:
        why = getattr(exc, "strerror", None) or str(exc)
        raise CheckpointError(f"{path}: cannot copy it into the saved folder ({why})") from None
