"""Make the tiny GPT-2 checkpoint of tests/gpt2/fixtures/tiny-gpt2 and what `transformers` computes on it.

Run by hand, never in CI (CI has no torch), in a separate environment that has torch, transformers,
tokenizers and safetensors:

    python3 -m venv /work/ref-venv
    /work/ref-venv/bin/pip install torch==2.13.0 transformers tokenizers safetensors
    /work/ref-venv/bin/python scripts/make_gpt2_fixture.py

It trains a byte-level BPE of a few hundred tokens on the paragraphs below (our own words), builds a
seeded random GPT-2 (2 blocks, 4 heads, d 16, 32 positions), and writes into the fixture folder what
Hugging Face writes for a real checkpoint (config.json, model.safetensors, vocab.json, merges.txt) and
reference.json: for each prompt the token ids and pieces transformers' own GPT-2 tokenizer gives, and,
computed in float64 (model.double()), the embeddings, each block's residual stream after attention and
after the MLP, each head's attention weights, the final layer norm's output and the logits at the
last position (the next token's, which tinytui computes) and the loss of a target token;
and the ids of a few more texts (the corners of GPT-2's pre-tokenizer). Every weight is drawn well away
from its default (layer-norm gains of 1, zero biases), so a test that ignored a gain or a bias would
fail. Running it again gives the same files.
"""

from __future__ import annotations

import json
import math
import shutil
import sys
import tempfile
from pathlib import Path

import torch
from tokenizers import ByteLevelBPETokenizer
from transformers import GPT2Config, GPT2LMHeadModel, GPT2Tokenizer, GPT2TokenizerFast

FOLDER = Path(__file__).resolve().parent.parent / "tests" / "gpt2" / "fixtures" / "tiny-gpt2"
VOCAB_SIZE = 360  # <|endoftext|>, 256 bytes and 103 merges
SEED = 17
END = "<|endoftext|>"

# Written for this fixture: a few paragraphs with enough repeated words that BPE has merges to learn.
TEXT = """\
Down by the old mill the river runs slow in summer. The miller keeps a small boat tied to the bank,
and on warm evenings he rows it out to look at the water. The water is brown and deep, and the fish
rest in the shade of the willows. He does not fish; he only watches them turn and rise.

In the autumn the river runs fast again. Leaves ride on the water past the mill, red and yellow and
brown, and the wheel turns all day. The miller grinds the grain that the farmers bring in their carts.
Each cart waits its turn in the yard, and the farmers talk about the weather and the price of grain.

In winter the river freezes at the edges. The children of the village slide on the ice near the bank,
and the miller tells them to keep away from the middle, where the water still runs under the ice.
They never listen, but they never fall in either. By spring the ice is gone and the river is high.

A river is a long road for water. It starts as rain on a hill, runs down into a stream, and the
streams meet and grow until the river is wide enough for boats. At the sea the river ends, and the
water rises again as cloud, and falls again as rain on the same hill. The road has no end at all.
"""

# (prompt text, target token string): the target is the next token the loss is measured against
PROMPTS = [
    ("The river runs", "Ġto"),
    ("the miller rows the boat to the", "Ġwater"),
    ("Zebras drink café!", "Ġthe"),  # letters and a byte pair (é) the text never merged
    ("rain" + END + " again", "Ġrain"),  # the end-of-text token inside a prompt
]

# Texts only tokenized (ids and pieces, no forward pass): the corners of GPT-2's pre-tokenizer rule
TOKENIZED = [
    "It's the miller's boat; they'll row, won't they?",
    "  two spaces,\tthen a tab\nand a new line\n\n",
    "Numbers 1234567 and 3.14, a snowman ☃ and an emoji 🐟.",
    "ÜBER straße — naïve façade",
    END + END + "end",
    "",
]


def tokenizer_files(folder: Path) -> None:
    bpe = ByteLevelBPETokenizer()  # GPT-2's byte-level pre-tokenizer, no prefix space
    bpe.train_from_iterator([TEXT], vocab_size=VOCAB_SIZE, min_frequency=2, special_tokens=[END])
    bpe.save_model(str(folder))


def model(vocab_size: int, end_id: int) -> GPT2LMHeadModel:
    config = GPT2Config(
        vocab_size=vocab_size,
        n_positions=32,
        n_embd=16,
        n_layer=2,
        n_head=4,
        activation_function="gelu_new",
        layer_norm_epsilon=1e-5,
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
        bos_token_id=end_id,
        eos_token_id=end_id,
        tie_word_embeddings=True,
    )
    config._attn_implementation = "eager"  # the attention weights are returned only by the eager path
    torch.manual_seed(SEED)
    net = GPT2LMHeadModel(config)
    gen = torch.Generator().manual_seed(SEED)
    with torch.no_grad():
        for name, p in net.named_parameters():
            noise = torch.randn(p.shape, generator=gen, dtype=torch.float32)
            if name.endswith(("ln_1.weight", "ln_2.weight", "ln_f.weight")):
                p.copy_(1.0 + 0.3 * noise)  # gains away from 1
            elif name.endswith(".bias"):
                p.copy_(0.3 * noise)  # biases away from 0
            elif name.endswith("wte.weight"):
                p.copy_(0.5 * noise)
            else:
                p.copy_(0.4 * noise)
    return net.eval()


def plain(t: torch.Tensor):
    return t.detach().to(torch.float64).tolist()


def reference(net: GPT2LMHeadModel, tok: GPT2Tokenizer, text: str, target: str) -> dict:
    ids = tok.encode(text)
    target_id = tok.convert_tokens_to_ids(target)
    seen: dict[str, torch.Tensor] = {}
    hooks = []
    for b, block in enumerate(net.transformer.h):
        hooks.append(
            block.ln_2.register_forward_pre_hook(lambda m, a, b=b: seen.__setitem__(f"x_mid{b}", a[0]))
        )
        hooks.append(
            block.register_forward_hook(lambda m, a, out, b=b: seen.__setitem__(f"y{b}", _first(out)))
        )
    T = len(ids)
    # the target appended as one more input: its label is the only one counted, so transformers' own
    # loss is the cross-entropy of the last prompt position's prediction, as tinytui measures it. That
    # loss is computed in float32 (transformers casts the logits), so the loss kept is the same formula
    # on the float64 logits, checked against it.
    inputs = torch.tensor([[*ids, target_id]])
    labels = torch.tensor([[-100] * T + [target_id]])
    with torch.no_grad():
        out = net(inputs, labels=labels, output_hidden_states=True, output_attentions=True)
    for h in hooks:
        h.remove()
    logits = out.logits[0, :T]
    by_hand = -torch.log_softmax(logits[-1], dim=-1)[target_id]
    assert abs(float(by_hand) - float(out.loss)) < 1e-5 * float(by_hand), (float(by_hand), float(out.loss))
    tensors = {"x": plain(out.hidden_states[0][0, :T])}
    for b in range(len(net.transformer.h)):
        tensors[f"blocks.{b}.x_mid"] = plain(seen[f"x_mid{b}"][0, :T])
        tensors[f"blocks.{b}.y"] = plain(seen[f"y{b}"][0, :T])
        for h in range(net.config.n_head):
            tensors[f"blocks.{b}.attn.{h + 1}"] = plain(out.attentions[b][0, h, :T, :T])
    # z and the logits at the last position: what tinytui computes (the next token's) and the loss reads;
    # transformers' last hidden state is the one after ln_f
    tensors["z"] = plain(out.hidden_states[-1][0, T - 1])
    tensors["logits"] = plain(logits[-1])
    return {
        "text": text,
        "ids": ids,
        "pieces": tok.convert_ids_to_tokens(ids),
        "target": target,
        "target_id": target_id,
        "loss": float(by_hand),
        "tensors": tensors,
    }


def _first(out):
    return out[0] if isinstance(out, tuple) else out


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        tokenizer_files(work)
        slow = GPT2Tokenizer(str(work / "vocab.json"), str(work / "merges.txt"))
        fast = GPT2TokenizerFast(str(work / "vocab.json"), str(work / "merges.txt"))
        for text in [t for t, _ in PROMPTS] + TOKENIZED:  # transformers' two implementations agree
            assert slow.encode(text) == fast.encode(text), text
        end_id = slow.convert_tokens_to_ids(END)
        net = model(len(slow), end_id)
        net.save_pretrained(str(work / "saved"), safe_serialization=True)
        net = net.double()
        refs = [reference(net, slow, text, target) for text, target in PROMPTS]
        assert all(math.isfinite(r["loss"]) for r in refs)
        if FOLDER.exists():
            shutil.rmtree(FOLDER)
        FOLDER.mkdir(parents=True)
        for name in ("vocab.json", "merges.txt"):
            shutil.copy(work / name, FOLDER / name)
        for name in ("config.json", "model.safetensors"):
            shutil.copy(work / "saved" / name, FOLDER / name)
    doc = {
        "made_by": "scripts/make_gpt2_fixture.py",
        "versions": {"torch": torch.__version__, "transformers": _version("transformers")},
        "prompts": refs,
        "tokenized": [
            {"text": t, "ids": slow.encode(t), "pieces": slow.convert_ids_to_tokens(slow.encode(t))}
            for t in TOKENIZED
        ],
    }
    (FOLDER / "reference.json").write_text(json.dumps(doc) + "\n", encoding="utf-8")
    for p in sorted(FOLDER.iterdir()):
        print(f"{p.stat().st_size:>8}  {p.relative_to(FOLDER.parent.parent.parent.parent)}")
    return 0


def _version(package: str) -> str:
    from importlib.metadata import version

    return version(package)


if __name__ == "__main__":
    sys.exit(main())
