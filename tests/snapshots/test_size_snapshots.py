"""A model at size: 16 tokens of prompt, 4 heads, 2 blocks, d_model 16, a 40-word vocabulary (seeded random
weights from tinytui.model.training.seeded_model). Its attention step (block 2's step 8) and its logit pane
(step 14) at 120×40 and 80×24. Regenerate with `pytest tests/snapshots --snapshot-update`, then look at each
as a PNG."""

import pytest

from tinytui.model.training.seeded_model import new_model, sizes
from tinytui.session.session import Session
from tinytui.tui.app import TinyTuiApp

SENTENCE = [
    "the",
    "fox",
    "saw",
    "a",
    "hen",
    "by",
    "the",
    "barn",
    "and",
    "the",
    "hen",
    "ran",
    "to",
    "the",
    "old",
    "oak",
    ".",
]
MORE = [
    "dog",
    "cat",
    "owl",
    "mouse",
    "field",
    "river",
    "stone",
    "tree",
    "wind",
    "rain",
    "sun",
    "moon",
    "hill",
    "path",
    "gate",
    "fence",
    "grass",
    "bird",
]
WORDS = SENTENCE + MORE + ["frog", "bee", "crow", "lake", "road", "roof", "wall", "door", "bell"]
VOCAB = tuple(dict.fromkeys(WORDS))  # 40 words, each once, in order
PROMPT = tuple(WORDS[:16])


def sixteen_tokens() -> TinyTuiApp:
    model = new_model(sizes(16, 4, 32, 2), VOCAB, PROMPT, "oak", seed=11, name="sixteen")
    return TinyTuiApp(Session(model))


@pytest.fixture(autouse=True)
def no_user_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))


def test_the_model_is_the_one_described():
    app = sixteen_tokens()
    cfg = app.session.model.cfg
    assert (len(PROMPT), cfg.n_heads, cfg.n_blocks, cfg.d_model, cfg.n_vocab) == (16, 4, 2, 16, 40)


# block 2's step 8 (8 goes to block 1's, ] to block 2's); Tab twice: its heatmap (the mask is first)
def test_attention_of_block_2_at_120x40(snap_compare):
    assert snap_compare(
        sixteen_tokens(), press=["8", "right_square_bracket", "tab", "tab"], terminal_size=(120, 40)
    )


def test_attention_of_block_2_at_80x24(snap_compare):
    assert snap_compare(
        sixteen_tokens(), press=["8", "right_square_bracket", "tab", "tab"], terminal_size=(80, 24)
    )


def test_logit_pane_of_16_tokens_at_120x40(snap_compare):
    assert snap_compare(sixteen_tokens(), press=["G", "p", "p"], terminal_size=(120, 40))


def test_logit_pane_of_16_tokens_at_80x24(snap_compare):
    assert snap_compare(sixteen_tokens(), press=["G", "p", "p"], terminal_size=(80, 24))
