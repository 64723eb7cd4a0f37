"""The app's KV-cache heading and `tinytui generate` count the same cache: the app's numbers are one
block's and say so when there are several, and n_blocks of them are the command's."""

import re
from pathlib import Path

from tinytui.model.generation.kv_cache import saving
from tinytui.model.io.model_file import load
from tinytui.present.next_token_grids import kv_saving

LLAMA = Path(__file__).parents[2] / "model" / "presets" / "chapter17-llama.json"


def test_one_blocks_numbers_are_said_to_be_one_blocks():
    cfg = load(LLAMA).cfg
    assert cfg.n_blocks == 2 and cfg.n_kv_heads < cfg.n_heads
    app = kv_saving(cfg)
    assert app.endswith(", in each of the 2 blocks")
    per, full = map(int, re.search(r"(\d+) numbers a position, not (\d+)", app).groups())
    whole, whole_full = map(int, re.search(r"(\d+) numbers a position, not (\d+)", saving(cfg)).groups())
    assert (per * cfg.n_blocks, full * cfg.n_blocks) == (whole, whole_full)
    assert per == 2 * cfg.n_kv_heads * cfg.d_head
