"""The chapter's transformer in pure numpy. Importing this package never imports textual or rich."""

from tinytui.model.config import ModelConfig
from tinytui.model.diff import TraceDiff, diff, no_change
from tinytui.model.files import ModelFile, ModelFileError, load, load_default, save
from tinytui.model.params import Params
from tinytui.model.stages import STAGE_BY_NUMBER, STAGES, Stage
from tinytui.model.switches import Switches
from tinytui.model.trace import Trace, run

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
