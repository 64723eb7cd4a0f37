import pytest

from tinytui.model.io.model_file import load_default
from tinytui.model.trace import run


@pytest.fixture(scope="session")
def chapter():
    return load_default()


@pytest.fixture(scope="session")
def trace(chapter):
    return run(chapter.params, chapter.prompt, chapter.target)
