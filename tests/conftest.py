import pytest

from tinytui.model import load_default, run


@pytest.fixture(scope="session")
def chapter():
    return load_default()


@pytest.fixture(scope="session")
def trace(chapter):
    return run(chapter.params, chapter.prompt, chapter.target)
