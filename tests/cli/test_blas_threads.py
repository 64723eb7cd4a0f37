"""The tinytui command gives numpy's BLAS one thread (launch.limit_blas_threads), set before numpy loads, and
keeps a thread count the user chose."""

import glob
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

# The command's entry point with the program replaced by one that reports what OpenBLAS was given; the
# entry point must not have loaded numpy before it set the variables (they are read once, at load).
PROBE = """
import sys, types
from tinytui.cli import launch
assert "numpy" not in sys.modules, "numpy loaded before the thread policy"

def main(argv):
    import ctypes, glob, os
    import numpy
    libs = glob.glob(os.path.join(os.path.dirname(numpy.__file__), "..", "numpy.libs", "*openblas*"))
    print(ctypes.CDLL(libs[0]).scipy_openblas_get_num_threads64_(), os.environ["OMP_NUM_THREADS"])
    return 0

sys.modules["tinytui.cli.main"] = types.SimpleNamespace(main=main)
sys.exit(launch.main([]))
"""


def openblas_of_numpy() -> bool:
    libs = glob.glob(str(Path(np.__file__).parent.parent / "numpy.libs" / "*scipy_openblas64*"))
    return bool(libs)


def probe(**env: str) -> list[str]:
    clean = {k: v for k, v in os.environ.items() if not k.endswith(("_NUM_THREADS", "MAXIMUM_THREADS"))}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env={**clean, **env}, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@pytest.mark.skipif(not openblas_of_numpy(), reason="numpy here is not built on scipy-openblas")
def test_the_command_gives_blas_one_thread_unless_the_user_chose():
    assert probe() == ["1", "1"]
    assert probe(OPENBLAS_NUM_THREADS="2") == ["2", "1"]
