import gc
import os

import pytest

from tinytui.cli.garbage_collector import YOUNG
from tinytui.model.io.model_file import load_default
from tinytui.model.trace import run


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook: unknown under -p no:xdist
def pytest_xdist_auto_num_workers(config):
    """`-n auto`: two workers a core. About half of a test's time under Pilot is spent asleep (each key
    press waits for the app to go idle), so a second worker on the core runs while the first waits.
    PYTEST_XDIST_AUTO_NUM_WORKERS still sets the number outright."""
    from xdist.plugin import pytest_xdist_auto_num_workers as per_core  # the cores this process may use

    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return per_core(config)  # the number given
    return 2 * per_core(config)


def pytest_collection_finish(session):
    """What collection made (every test module, item and parametrisation: some 170,000 objects) lives
    until the run ends: frozen, the cycle collector stops walking it in each of the worker's thousands
    of collections, a fifth of a worker's CPU time. The young are collected every YOUNG new containers,
    as in the debugger's own process (garbage_collector.settle), not Python's 700."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG, middle, old)


@pytest.fixture(scope="session")
def chapter():
    return load_default()


@pytest.fixture(scope="session")
def trace(chapter):
    return run(chapter.params, chapter.prompt, chapter.target)
