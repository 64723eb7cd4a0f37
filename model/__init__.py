"""The chapter's transformer in pure numpy. Importing this package never imports textual or rich."""

from model.config import ModelConfig
from model.diff import TraceDiff, diff, no_change
from model.files import ModelFile, ModelFileError, load, load_default, save
from model.params import Params
from model.stages import STAGE_BY_NUMBER, STAGES, Stage
from model.switches import Switches
from model.trace import Trace, run

__all__ = [
    "STAGES",
    "STAGE_BY_NUMBER",
    "ModelConfig",
    "ModelFile",
    "ModelFileError",
    "Params",
    "Stage",
    "Switches",
    "Trace",
    "TraceDiff",
    "diff",
    "load",
    "load_default",
    "no_change",
    "run",
    "save",
]
