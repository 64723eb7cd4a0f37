"""How a recording names the model it was made with: a tinytui model file written out whole (the
chapter's 172 weights fit on the first line), or a GPT-2 checkpoint by its folder and the sha256 of its
model.safetensors, since copying 500 MB of weights into every recording would be absurd.

Replay loads the checkpoint from that folder again and refuses, in one line, when the weights there are
not the ones recorded (another file has another hash): the events' checks would fail one by one anyway,
and the user should hear why at once.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tinytui.model.io.checkpoint import CheckpointModel, load_checkpoint
from tinytui.model.io.document import ModelFile, parse, to_document
from tinytui.model.io.field_checks import ModelFileError
from tinytui.recording.log_values import BadLine, keys, plain, shown

CHECKPOINT = "tinytui-checkpoint/1"  # the "format" of a reference to a checkpoint folder
REF_KEYS = ("format", "name", "path", "sha256")
_SHA256 = re.compile(r"[0-9a-f]{64}")


def model_json(model: ModelFile) -> dict[str, Any]:
    """What the first line of a recording holds for its model."""
    if isinstance(model, CheckpointModel):
        return {
            "format": CHECKPOINT,
            "name": model.name,
            "path": str(model.folder.resolve()),  # absolute: replay may run from another folder
            "sha256": model.weights_sha256,
        }
    return to_document(model)


def model_from_json(doc: Any) -> ModelFile:
    """The model a recording's first line names; BadLine (one line) when it cannot be had."""
    if not (isinstance(doc, dict) and doc.get("format") == CHECKPOINT):
        try:
            return parse(doc, source="model")
        except ModelFileError as exc:
            raise BadLine(str(exc)) from None
    keys(doc, REF_KEYS, (), "model")
    path, sha256 = plain(doc["path"], "model: path"), doc["sha256"]
    if not isinstance(sha256, str) or not _SHA256.fullmatch(sha256):
        raise BadLine(f"model: sha256: expected 64 hexadecimal digits, got {shown(sha256)}")
    try:
        model = load_checkpoint(Path(path))
    except ModelFileError as exc:
        raise BadLine(f"model: the recording's checkpoint cannot be loaded: {exc}") from None
    if model.weights_sha256 != sha256:
        raise BadLine(
            f"model: {model.weights_path} is not the checkpoint this was recorded with (its sha256 is "
            f"{model.weights_sha256[:12]}…, the recording's {sha256[:12]}…); replay needs the same weights"
        )
    return model
