"""The tinytui command holds glibc's mmap threshold (launch.hand_back_freed_arrays): after a large array
has been freed, glibc would otherwise serve the next ones of up to 32 MiB from its heap, where freed ones
stay counted against the process (at GPT-2 every edit and backward frees weight-sized arrays)."""

import platform
import subprocess
import sys

import pytest

PROGRAM = """
import os, sys
import numpy as np
from tinytui.cli.launch import hand_back_freed_arrays

def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

if sys.argv[1] == "held":
    hand_back_freed_arrays()
big = np.ones(16 * 2**20 // 8)
del big  # a freed mapping of 16 MiB: glibc raises its threshold past the 8 MiB arrays below
before = rss()
made = []
for _ in range(10):
    made += [np.ones(8 * 2**20 // 8), np.ones(200 * 1024 // 8)]  # 8 MiB, then 200 KiB from the heap
kept = made[1::2]
del made  # the 8 MiB arrays freed, the small ones between them kept
print((rss() - before) // 2**20)
"""


def still_counted(mode: str) -> int:
    """MiB still counted against the process after 80 MiB of arrays were freed."""
    out = subprocess.run([sys.executable, "-c", PROGRAM, mode], capture_output=True, text=True, check=True)
    return int(out.stdout)


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's malloc only")
def test_freed_arrays_are_handed_back():
    assert still_counted("default") > 60  # glibc's own way: the freed arrays stay in its heap
    assert still_counted("held") < 12  # the 10 small arrays kept (2 MiB), nothing of the 80 freed
