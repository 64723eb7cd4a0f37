"""The app's KV-cache heading and `tinytui generate` count the same cache: the app's numbers are one
block's and say so when there are several, and n_blocks of them are the command's. At a full context
step 14 offers no token and no draw."""

import re
from dataclasses import replace
from pathlib import Path

from tinytui.model.generation.kv_cache import saving
from tinytui.model.generation.sampling import Sampling
from tinytui.model.io.model_file import load, load_default
from tinytui.model.switches import defaults
from tinytui.model.trace import DEFAULT_LR
from tinytui.present.next_token_grids import NEXT_STEP, generation_sections, kv_saving
from tinytui.present.view import View
from tinytui.session.session import Session
from tinytui.session.state import State

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


def test_at_a_full_context_step_14_chooses_and_draws_nothing():
    chapter = load_default()
    full = ("a", "woodchuck", "would", "chuck", "how", "much", "wood", "a") * 2
    assert len(full) == chapter.cfg.n_ctx
    for temperature in (0.0, 0.8):
        session = Session(chapter, State(chapter.params, full, "wood", defaults(chapter.cfg), DEFAULT_LR))
        session.set_sampling(Sampling(temperature))
        view = View.of(session)
        (section,) = generation_sections(replace(view, step=NEXT_STEP))
        assert section.title == "Next token — none: the prompt fills the context of 16 positions"
        assert "appends it" not in section.title and "draw" not in section.title
