"""Make the tiny Llama and Qwen2 checkpoints of tests/llama/fixtures and what `transformers` computes on them.

Run by hand, never in CI (CI has no torch), in a separate environment that has torch, transformers,
tokenizers and safetensors (the CPU build of torch: a plain `pip install torch` pulls CUDA):

    python3 -m venv /tmp/fixture-venv
    /tmp/fixture-venv/bin/pip install torch==2.13.0 transformers tokenizers safetensors
    /tmp/fixture-venv/bin/python scripts/make_llama_fixture.py

It trains a byte-level BPE of a couple of hundred pieces on the paragraphs below (our own words), saved
as tokenizer.json, and builds two seeded random models with transformers' own classes:

- tiny-llama: LlamaForCausalLM, 2 blocks, d 16, 4 query heads of 8 over 2 key/value heads (so the heads
  are wider than d / heads), SwiGLU of 24 units, RMSNorm, an untied lm_head, rotary positions with θ = 100
  and Llama 3's scaling from an original context of 32, so that of a head's four frequencies one is kept,
  one blended and two stretched. Saved in bfloat16, as Llama 3 is published, with transformers' own
  config.json (rope_parameters, the newer spelling).
- tiny-qwen2: Qwen2ForCausalLM, 1 block, d 16, 4 query heads of 4 over one key/value head (multi-query),
  biases on Q, K and V and none on the output, tied embeddings, rope_theta 10000. Saved in float32, split
  in shards with model.safetensors.index.json, and its config.json rewritten in the spelling most
  published checkpoints carry (rope_theta at the top, rope_scaling null), as an older transformers wrote it.

reference.json holds, per prompt, the ids transformers' fast tokenizer gives (no special tokens added),
and, from the model in float64 (model.double(); the weights are bf16 or f32 values, so exactly the
file's): the loss of a target token after the last position and the greedy continuation (generate,
do_sample=False); reference.safetensors (float64, 8 bytes a number rather than JSON's twenty) the
logits at every position ("<prompt>.logits") and, for the first prompt, the gradient of that loss for
every weight ("0.grad.<Hugging Face name>").

transformers computes RMSNorm and the rotary angles in float32 whatever the model's dtype; so that
float64 means float64, this script replaces those two forwards with the same formulas kept in the
input's dtype, and the rotary frequencies with the same rule computed in float64 (checked against
transformers' own float32 frequencies to 1e-6). Attention runs through torch's
scaled_dot_product_attention ("sdpa"), which keeps float64. Every weight is drawn away from its
default (RMSNorm gains of 1, zero biases). Running it again gives the same files.
"""

from __future__ import annotations

import json
import math
import shutil
import sys
import tempfile
from pathlib import Path

import torch
from safetensors.torch import save_file
from tokenizers import ByteLevelBPETokenizer
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM
from transformers.models.llama import modeling_llama
from transformers.models.qwen2 import modeling_qwen2

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "llama" / "fixtures"
VOCAB_SIZE = 300  # <|endoftext|>, 256 bytes and 43 merges
SEED = 45
END = "<|endoftext|>"

# Written for this fixture: short paragraphs with repeated words, so that BPE has merges to learn.
TEXT = """\
The lamp on the desk burns late. A student reads a page, then reads it again, and writes a number in the
margin. The number is small, and she checks it by hand: a row times a column, added up, then the next.
When the sum is right she turns the page; when it is wrong she starts the row again from the left.

The page says a model reads a sentence one word at a time. Each word looks back at the words before it
and takes a little from each, more from some than from others. The student writes down how much it takes
from each, and the numbers add up to one. She checks that too, and it holds, and she turns the page.

Late at night the lamp is the only light in the house. The numbers in the margin grow into a table, the
table into a second table, and at the end of the chapter the model guesses the next word. It guesses
wrong, and the student smiles, because she can see exactly why.
"""

PROMPTS = [  # (prompt text, next word): the loss is of the next word's first piece after the prompt
    ("The student reads the page", "and"),
    ("she checks the table by hand", "the"),
]
GREEDY_TOKENS = 6


def tokenizer_file(folder: Path) -> Path:
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator([TEXT], vocab_size=VOCAB_SIZE, min_frequency=2, special_tokens=[END])
    path = folder / "tokenizer.json"
    bpe.save(str(path))
    return path


def drawn(net: torch.nn.Module) -> torch.nn.Module:
    """Every weight away from its default: RMSNorm gains around 1, biases around 0.3, the rest N(0, 0.4²)."""
    gen = torch.Generator().manual_seed(SEED)
    with torch.no_grad():
        for name, p in net.named_parameters():
            noise = torch.randn(p.shape, generator=gen, dtype=torch.float32)
            if name.endswith("norm.weight") or name.endswith("layernorm.weight"):
                p.copy_(1.0 + 0.3 * noise)
            elif name.endswith(".bias"):
                p.copy_(0.3 * noise)
            elif name.endswith("embed_tokens.weight") or name == "lm_head.weight":
                p.copy_(0.5 * noise)
            else:
                p.copy_(0.4 * noise)
    return net.eval()


def llama(vocab: int, end: int) -> LlamaForCausalLM:
    config = LlamaConfig(
        vocab_size=vocab,
        hidden_size=16,
        intermediate_size=24,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=8,
        max_position_embeddings=64,
        rms_norm_eps=1e-6,
        tie_word_embeddings=False,
        rope_parameters={
            "rope_type": "llama3",
            "rope_theta": 100.0,
            "factor": 8.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 32,
        },
        bos_token_id=end,
        eos_token_id=end,
        attn_implementation="sdpa",
    )
    torch.manual_seed(SEED)
    return drawn(LlamaForCausalLM(config))


def qwen2(vocab: int, end: int) -> Qwen2ForCausalLM:
    config = Qwen2Config(
        vocab_size=vocab,
        hidden_size=16,
        intermediate_size=20,
        num_hidden_layers=1,
        num_attention_heads=4,
        num_key_value_heads=1,
        max_position_embeddings=64,
        rms_norm_eps=1e-6,
        tie_word_embeddings=True,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
        use_sliding_window=False,
        bos_token_id=end,
        eos_token_id=end,
        attn_implementation="sdpa",
    )
    torch.manual_seed(SEED + 1)
    return drawn(Qwen2ForCausalLM(config))


# ---- float64 all the way: RMSNorm and the rotary angles as transformers computes them, in the input's dtype


def rms_forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
    variance = hidden_states.pow(2).mean(-1, keepdim=True)
    return self.weight * (hidden_states * torch.rsqrt(variance + self.variance_epsilon))


def rotary_forward(self, x: torch.Tensor, position_ids: torch.Tensor):
    freqs = position_ids[..., None].to(torch.float64) * self.inv_freq.to(torch.float64)
    emb = torch.cat((freqs, freqs), dim=-1)
    return (emb.cos() * self.attention_scaling).to(x.dtype), (emb.sin() * self.attention_scaling).to(x.dtype)


def frequencies64(rope: dict, dim: int) -> torch.Tensor:
    """transformers' rule (modeling_rope_utils: default and llama3) in float64."""
    freq = 1.0 / (rope["rope_theta"] ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim))
    if rope["rope_type"] == "default":
        return freq
    old, low, high, factor = (
        rope["original_max_position_embeddings"],
        rope["low_freq_factor"],
        rope["high_freq_factor"],
        rope["factor"],
    )
    wavelen = 2 * math.pi / freq
    scaled = torch.where(wavelen > old / low, freq / factor, freq)
    smooth = (old / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = ~(wavelen < old / high) * ~(wavelen > old / low)
    return torch.where(medium, smoothed, scaled)


def in_float64(net, transformers_frequencies: torch.Tensor) -> None:
    net.double()
    for module in net.modules():
        if isinstance(module, (modeling_llama.LlamaRMSNorm, modeling_qwen2.Qwen2RMSNorm)):
            module.forward = rms_forward.__get__(module)
        if isinstance(module, (modeling_llama.LlamaRotaryEmbedding, modeling_qwen2.Qwen2RotaryEmbedding)):
            cfg = net.config
            dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
            exact = frequencies64(cfg.rope_parameters, dim)
            assert torch.allclose(exact, transformers_frequencies.to(torch.float64), rtol=1e-6, atol=0)
            module.inv_freq = exact
            module.forward = rotary_forward.__get__(module)


def reference(net, tok: PreTrainedTokenizerFast, text: str, word: str, n: int, arrays: dict) -> dict:
    ids = tok.encode(text, add_special_tokens=False)
    target = tok.tokenize(" " + word)[0]
    target_id = tok.convert_tokens_to_ids(target)
    net.zero_grad()
    out = net(torch.tensor([ids]))
    logits = out.logits[0]
    loss = -torch.log_softmax(logits[-1], dim=-1)[target_id]
    loss.backward()
    with torch.no_grad():
        made = net.generate(
            torch.tensor([ids]), max_new_tokens=GREEDY_TOKENS, do_sample=False, pad_token_id=tok.eos_token_id
        )
    case = {
        "text": text,
        "ids": ids,
        "pieces": tok.convert_ids_to_tokens(ids),
        "target": target,
        "target_id": target_id,
        "loss": float(loss.detach()),
        "greedy": made[0, len(ids) :].tolist(),
    }
    arrays[f"{n}.logits"] = logits.detach().to(torch.float64).contiguous()
    if n == 0:
        for name, p in net.named_parameters():
            arrays[f"0.grad.{name}"] = p.grad.detach().to(torch.float64).contiguous()
    return case


def make(name: str, net, work: Path, tok: PreTrainedTokenizerFast, save) -> None:
    folder = FIXTURES / name
    saved = work / name
    frequencies = net.model.rotary_emb.inv_freq.clone()  # transformers' own, float32, before any cast
    save(net, saved)
    in_float64(net, frequencies)
    arrays: dict[str, torch.Tensor] = {}
    refs = [reference(net, tok, text, word, n, arrays) for n, (text, word) in enumerate(PROMPTS)]
    assert all(math.isfinite(r["loss"]) for r in refs)
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for f in sorted(saved.iterdir()):
        if f.name == "config.json" or f.name.endswith((".safetensors", ".index.json")):
            shutil.copy(f, folder / f.name)
    shutil.copy(work / "tokenizer.json", folder / "tokenizer.json")
    doc = {
        "made_by": "scripts/make_llama_fixture.py",
        "versions": {"torch": torch.__version__, "transformers": _version("transformers")},
        "prompts": refs,
    }
    (folder / "reference.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    save_file(arrays, str(folder / "reference.safetensors"))


def save_llama(net, folder: Path) -> None:
    net.to(torch.bfloat16).save_pretrained(str(folder), safe_serialization=True)


def save_qwen2(net, folder: Path) -> None:
    net.save_pretrained(str(folder), safe_serialization=True, max_shard_size="4KB")
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    rope = config.pop("rope_parameters")
    config.pop("layer_types", None)
    config["rope_theta"], config["rope_scaling"] = rope["rope_theta"], None  # the older spelling
    (folder / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        path = tokenizer_file(work)
        tok = PreTrainedTokenizerFast(tokenizer_file=str(path), eos_token=END)
        end = tok.convert_tokens_to_ids(END)
        make("tiny-llama", llama(len(tok), end), work, tok, save_llama)
        make("tiny-qwen2", qwen2(len(tok), end), work, tok, save_qwen2)
    for p in sorted(FIXTURES.rglob("*")):
        if p.is_file():
            print(f"{p.stat().st_size:>8}  {p.relative_to(FIXTURES.parent.parent.parent)}")
    return 0


def _version(package: str) -> str:
    from importlib.metadata import version

    return version(package)


if __name__ == "__main__":
    sys.exit(main())
