"""--target on a checkpoint: a word is the word after a space when that is one piece, else the piece it
is; a piece spelt as vocab.json spells it is itself; anything of several pieces is refused with them."""

import pytest

from tests.gpt2.checkpoints import TINY
from tinytui.model import checks
from tinytui.model.io.checkpoint import load_checkpoint

BPE = load_checkpoint(TINY).tokenizer


@pytest.mark.parametrize(
    ("typed", "piece"),
    [
        ("to", "Ġto"),  # the next word of a prompt: after a space
        ("in", "Ġin"),  # 'in' is a piece too, but a typed word is the word after a space
        (" river", "Ġriver"),
        ("Ġto", "Ġto"),  # as vocab.json spells it
        ("ar", "ar"),  # ' ar' is two pieces, 'ar' one
        ("é", "é"),  # the byte 0xE9's own letter in the byte alphabet, not the text é (Ã©)
        ("<|endoftext|>", "<|endoftext|>"),
    ],
)
def test_a_target_is_one_piece(typed, piece):
    assert BPE.target(typed) == piece


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("zebras", "'zebras' is 6 pieces here (Ġ·z·e·b·r·as)"),
        ("river ", "'river ' is 2 pieces here (Ġriver·Ġ)"),
        ("a long way to go", "'a long way to go' is 9 pieces here (Ġa·Ġlo·n·g·Ġw·ay·…)"),
    ],
)
def test_a_target_of_several_pieces_is_refused(typed, says):
    with pytest.raises(checks.Invalid) as info:
        BPE.target(typed)
    assert str(info.value).startswith(says + "; the target is one piece")
