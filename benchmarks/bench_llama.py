"""A Llama-family model at SmolLM-135M's shapes in tinytui, on random weights, each figure beside its floor
measured in the same run. By hand (needs the gpt2 extra for the tokenizer, `pip install -e '.[gpt2]'`):

python benchmarks/bench_llama.py            # writes the checkpoint folder to a temporary folder in /tmp

The folder is what a Llama-family checkpoint holds: config.json (model_type llama, 30 blocks, d 576,
9 query heads over 3 key/value heads of 64, SwiGLU of 1,536, RMSNorm, rope_theta 10000, 49,152 tokens,
the unembedding tied to E, as SmolLM-135M publishes it), model.safetensors in bfloat16 (as SmolLM ships:
269 MB) and a synthetic byte-level BPE of 49,152 pieces in tokenizer.json. Each measurement runs in a
fresh process (peak memory from getrusage maxrss), twice in turns (the fastest time of each figure is
kept): loading the checkpoint, then reading every weight (widened to float64 at its first read),
the forward pass at 16 and 64 tokens, the backward pass, a step change,
an edit in the last block (a cell of W_down) with its recompute, and its undo, against floors: reading
the same bf16 bytes into float64 arrays with numpy alone, and a bare numpy forward of the same weights
(no names, labels, copies or checks). Results also go to benchmarks/results/llama.txt.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from bench_gpt2 import byte_alphabet, fastest
from bench_model import maxrss_bytes, mb, per_call, ratio

RESULTS = Path(__file__).parent / "results" / "llama.txt"
SHAPE = {
    "vocab_size": 49152,
    "hidden_size": 576,
    "num_attention_heads": 9,
    "num_key_value_heads": 3,
    "num_hidden_layers": 30,
    "intermediate_size": 1536,
}
ROUNDS = 2
THREADS = "OPENBLAS_NUM_THREADS"  # 1: numpy's products on one core (see the README's benchmark notes)
TEXT = "The capital of France is Paris, and the river that runs through it is the Seine; boats go by"


def bf16_file(tensors: dict[str, np.ndarray], path: Path) -> None:
    """A safetensors file of bfloat16 tensors (numpy has no bf16: each float32's top 16 bits)."""
    header, chunks, offset = {}, [], 0
    for name, arr in tensors.items():
        raw = (np.ascontiguousarray(arr, np.float32).view(np.uint32) >> 16).astype("<u2").tobytes()
        header[name] = {
            "dtype": "BF16",
            "shape": list(arr.shape),
            "data_offsets": [offset, offset + len(raw)],
        }
        chunks.append(raw)
        offset += len(raw)
    head = json.dumps(header, separators=(",", ":")).encode()
    head += b" " * (-len(head) % 8)
    with open(path, "wb") as f:
        f.write(len(head).to_bytes(8, "little") + head)
        for raw in chunks:
            f.write(raw)


def make(folder: Path) -> None:
    V, d, n = SHAPE["vocab_size"], SHAPE["hidden_size"], SHAPE["num_hidden_layers"]
    H, KV, ff = SHAPE["num_attention_heads"], SHAPE["num_key_value_heads"], SHAPE["intermediate_size"]
    k = d // H
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_act": "silu", **SHAPE}
    config |= {"rms_norm_eps": 1e-5, "rope_theta": 10000.0, "max_position_embeddings": 2048}
    config |= {"tie_word_embeddings": True, "attention_bias": False, "mlp_bias": False}
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    alphabet = byte_alphabet()
    merges = [(a, b) for a in alphabet for b in alphabet][: V - 257]
    vocab = {t: i for i, t in enumerate([*alphabet, *(a + b for a, b in merges), "<|endoftext|>"])}
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    (folder / "tokenizer.json").write_text(tok.to_str(), encoding="utf-8")

    rng = np.random.default_rng(0)

    def w(*shape: int, scale: float = 0.02) -> np.ndarray:
        return rng.standard_normal(shape, dtype=np.float32) * scale

    t = {"model.embed_tokens.weight": w(V, d)}
    for b in range(n):
        layer = f"model.layers.{b}."
        t |= {layer + "input_layernorm.weight": 1 + w(d, scale=0.1)}
        t |= {layer + "self_attn.q_proj.weight": w(H * k, d), layer + "self_attn.k_proj.weight": w(KV * k, d)}
        t |= {layer + "self_attn.v_proj.weight": w(KV * k, d), layer + "self_attn.o_proj.weight": w(d, H * k)}
        t |= {layer + "post_attention_layernorm.weight": 1 + w(d, scale=0.1)}
        t |= {layer + "mlp.gate_proj.weight": w(ff, d), layer + "mlp.up_proj.weight": w(ff, d)}
        t |= {layer + "mlp.down_proj.weight": w(d, ff)}
    t["model.norm.weight"] = 1 + w(d, scale=0.1)
    bf16_file(t, folder / "model.safetensors")


def fused(p, cfg) -> list[dict[str, np.ndarray]]:
    """Each block's weights as the fastest plain forward wants them (untimed): the query heads' columns
    side by side, and the key/value heads' likewise."""
    blocks = []
    for b in range(cfg.n_blocks):
        w = {k.rsplit(".", 1)[1]: p[k] for k in p if k.startswith(f"blocks.{b}.")}
        for m in "QKV":
            w[m] = np.ascontiguousarray(w[f"W_{m}"].transpose(1, 0, 2).reshape(cfg.d_model, -1))
        w["gate_up"] = np.ascontiguousarray(np.concatenate([w["W_gate"], w["W_up"]], axis=1))
        blocks.append(w)
    return blocks


def bare_forward(p, blocks, ids: np.ndarray, cfg) -> np.ndarray:
    """A Llama block's arithmetic and nothing else: the floor of a forward pass."""
    T, H, KV, k, ff = len(ids), cfg.n_heads, cfg.n_kv_heads, cfg.d_head, cfg.d_ff
    x = p["E"][ids]
    mask = np.triu(np.full((T, T), -np.inf), 1)
    angle = np.arange(T)[:, None] / cfg.rope_theta ** (np.arange(0, k, 2) / k)
    cos, sin = np.cos(angle), np.sin(angle)

    def rms(v, g):
        return v / np.sqrt((v * v).mean(-1, keepdims=True) + cfg.eps) * g

    def turn(v):  # (n, T, k)
        a, b = v[..., : k // 2], v[..., k // 2 :]
        return np.concatenate([a * cos - b * sin, b * cos + a * sin], axis=-1)

    for w in blocks:
        xn = rms(x, w["ln1_g"])
        q = turn((xn @ w["Q"]).reshape(T, H, k).transpose(1, 0, 2))
        kk = turn((xn @ w["K"]).reshape(T, KV, k).transpose(1, 0, 2))
        v = (xn @ w["V"]).reshape(T, KV, k).transpose(1, 0, 2)
        kk, v = np.repeat(kk, H // KV, axis=0), np.repeat(v, H // KV, axis=0)
        s = q @ kk.transpose(0, 2, 1) / np.sqrt(k) + mask
        a = np.exp(s - s.max(-1, keepdims=True))
        a /= a.sum(-1, keepdims=True)
        x = x + (a @ v).transpose(1, 0, 2).reshape(T, H * k) @ w["W_O"]
        gu = rms(x, w["ln2_g"]) @ w["gate_up"]
        g, u = gu[:, :ff], gu[:, ff:]
        x = x + (g / (1 + np.exp(-g)) * u) @ w["W_down"]
    return rms(x[-1], p["lnf_g"]) @ p["E"].T


def child(what: str, folder: Path) -> dict:
    if what == "make":
        make(folder)
        return {}
    if what == "imports":
        import tinytui.model.io.checkpoint
        import tinytui.session.session

        assert tinytui.model.io.checkpoint and tinytui.session.session

        return {"maxrss": maxrss_bytes()}
    if what == "floor-load":
        t0 = time.perf_counter()
        raw = (folder / "model.safetensors").read_bytes()
        n = int.from_bytes(raw[:8], "little")
        header = json.loads(raw[8 : 8 + n])
        arrays = []
        for entry in header.values():
            a, b = entry["data_offsets"]
            half = np.frombuffer(raw, "<u2", (b - a) // 2, 8 + n + a)
            arrays.append((half.astype(np.uint32) << 16).view(np.float32).astype(np.float64))
        return {"s": time.perf_counter() - t0, "maxrss": maxrss_bytes(), "n": sum(a.size for a in arrays)}
    from tinytui.model.backward.gradients import gradients
    from tinytui.model.io.checkpoint import load_checkpoint
    from tinytui.model.trace import run
    from tinytui.session.session import Session

    t0 = time.perf_counter()
    model = load_checkpoint(folder)
    out = {"load_s": time.perf_counter() - t0, "load_maxrss": maxrss_bytes(), "n": model.params.total()}
    t0 = time.perf_counter()
    for name in model.params:  # each weight is widened to float64 when first read (a forward reads all)
        model.params[name]
    out |= {"widen_s": time.perf_counter() - t0, "widen_maxrss": maxrss_bytes()}
    cfg, params = model.cfg, model.params
    blocks = fused(params, cfg)
    for T in (16, 64):
        pieces = model.prompt_pieces(TEXT * 4)[:T]
        ids = np.array([cfg.token_id(t) for t in pieces])
        out[f"forward{T}_s"] = per_call(lambda pieces=pieces: run(params, pieces, "<|endoftext|>"), 3)
        out[f"floor{T}_s"] = per_call(lambda ids=ids: bare_forward(params, blocks, ids, cfg), 3)
        if T == 16:
            trace = run(params, pieces, "<|endoftext|>")
            out["floor_agrees"] = float(
                np.abs(bare_forward(params, blocks, ids, cfg) - trace["logits"]).max()
            )
            out["backward16_s"] = per_call(lambda trace=trace: gradients(params, trace), 2)
            session = Session(model, None)
            session.set_prompt(pieces)
            steps = iter([6, 7, 12, 5, 11, 6])
            out["step_s"] = per_call(lambda s=session, st=steps: s.goto(next(st)), 3)
            last = f"blocks.{cfg.n_blocks - 1}.W_down"
            rng = np.random.default_rng(1)
            cells = iter([tuple(int(rng.integers(k)) for k in params[last].shape) for _ in range(4)])
            out["edit_s"] = per_call(lambda s=session, c=cells, n=last: s.edit(n, next(c), 0.5), 3)
            out["undo_s"] = per_call(lambda s=session: s.undo(), 3)
            out["session_maxrss"] = maxrss_bytes()
    return out


def run_child(what: str, folder: Path) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", what, str(folder)], capture_output=True, text=True, check=False
    )
    if out.returncode:
        return {"error": (out.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(out.stdout)


def main(argv: list[str]) -> None:
    if argv[:1] == ["--child"]:
        print(json.dumps(child(argv[1], Path(argv[2]))))
        return
    lines = [
        f"tinytui benchmarks/bench_llama.py, {time.strftime('%Y-%m-%d %H:%M')}",
        f"machine: {platform.platform()}, {os.cpu_count()} CPUs, numpy {np.__version__},"
        f" python {platform.python_version()}, OPENBLAS_NUM_THREADS {os.environ.get(THREADS, 'unset')}",
    ]

    def say(text: str) -> None:
        print(text, flush=True)
        lines.append(text)

    print("\n".join(lines), flush=True)
    with tempfile.TemporaryDirectory(dir="/tmp", prefix="tinytui-llama-") as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        made = run_child("make", folder)
        if "error" in made:
            say(f"failed: {made['error']}")
            return
        size = (folder / "model.safetensors").stat().st_size
        say(f"checkpoint folder written in {time.perf_counter() - t0:.1f} s (model.safetensors {mb(size)})")
        imports = run_child("imports", folder)["maxrss"]
        runs = [(run_child("floor-load", folder), run_child("measure", folder)) for _ in range(ROUNDS)]
        failed = [x["error"] for pair in runs for x in pair if "error" in x]
        if failed:
            say(f"failed: {failed[0]}")
            return
        floor, r = (fastest([pair[i] for pair in runs]) for i in (0, 1))
        weights = r["n"] * 8
        say(f"parameters {r['n']:,} (float64 in memory: {mb(weights)}); imports alone peak {mb(imports)}")
        say(f"load floor (bf16 -> float64, numpy only) {floor['s']:7.2f} s  peak {mb(floor['maxrss'])}")
        whole, over = r["load_s"] + r["widen_s"], ratio(r["widen_maxrss"] - imports, weights)
        say(
            f"load checkpoint {r['load_s']:7.2f} s  peak {mb(r['load_maxrss'])}; every weight widened to"
            f" float64 at its first read {r['widen_s']:.2f} s more ({ratio(whole, floor['s'])} floor)"
            f"  peak {mb(r['widen_maxrss'])} = {over} the weights"
            " over imports"
        )
        for T in (16, 64):
            f, fl = r[f"forward{T}_s"], r[f"floor{T}_s"]
            say(f"forward, {T:2d} tokens {f * 1e3:8.1f} ms  (bare forward {fl * 1e3:.1f} ms: {ratio(f, fl)})")
        say(f"  the bare forward's logits agree with tinytui's to {r['floor_agrees']:.1e}")
        say(f"backward, 16 tokens {r['backward16_s'] * 1e3:7.1f} ms")
        base = r["floor16_s"]
        say(f"step change          {r['step_s'] * 1e3:7.1f} ms  ({ratio(r['step_s'], base)} bare forward)")
        edit = r["edit_s"]
        say(f"edit last W_down + recompute {edit * 1e3:7.1f} ms  ({ratio(edit, base)} bare forward)")
        say(f"undo                 {r['undo_s'] * 1e3:7.1f} ms  ({ratio(r['undo_s'], base)} bare forward)")
        say(f"session with edits: peak {mb(r['session_maxrss'])}")
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text("\n".join(lines) + "\n")
    print(f"\nwritten to {RESULTS}")


if __name__ == "__main__":
    main(sys.argv[1:])
