"""GPT-2 small's cost in tinytui, on random weights of its exact shapes, each figure beside its floor
measured in the same run. By hand (needs the gpt2 extra, `pip install -e '.[gpt2]'`):

python benchmarks/bench_gpt2.py            # writes the checkpoint folder to a temporary folder in /tmp

The folder is what `huggingface-cli download gpt2` gives, spelt as the hub's file spells it: config.json
(12 blocks, 12 heads, d 768, 1,024 positions, 50,257 tokens), model.safetensors in float32 without the
"transformer." prefix and with each block's causal-mask buffer (so 548 MB, as the real one), and a
synthetic byte-level BPE of 50,257 pieces (the 256 bytes, 50,000 merges of byte pairs, <|endoftext|>).
Each measurement runs in a fresh process (peak memory from getrusage maxrss), twice in turns (the
fastest time of each figure is kept): loading the checkpoint
(checking the weights file whole, the tokenizer), then reading every weight (each is widened to float64
at its first read), the forward pass at 16 and
64 tokens, the backward pass, one edit + recompute (a cell of W_2 in the last block, and of E), against
floors: reading the same float32 bytes into float64 arrays with numpy alone, and a bare numpy forward of
GPT-2's arithmetic (no names, labels, copies or checks). Results also go to benchmarks/results/gpt2.txt.

python benchmarks/bench_gpt2.py --decode [--torch-python PYTHON] [--baseline PYTHON] [FOLDER]

sets tinytui beside transformers (GPT2LMHeadModel, torch, one thread each) on the same folder: the
imports, the load (load_checkpoint and from_pretrained alone: the time to a model ready for its first
forward, tokenizer included for tinytui; and the peak RSS), the first forward (16 tokens:
tinytui widens each weight to float64 as it first reads it), one decode step with the KV cache (the
median of 20, from the 16-token prompt), and 32 greedy tokens end to end (the prompt's forward and 31
steps with the cache), for transformers in float64 and float32. Every figure runs in a fresh process,
ROUNDS_DECODE times in turns, and the fastest time (peak: the median) is kept; the greedy tokens of
tinytui and transformers float64 must be the same. transformers is not one of tinytui's dependencies:
PYTHON is an interpreter that has torch and transformers (by default this one). --baseline runs tinytui
a fourth time with another interpreter (one whose tinytui is an earlier commit: a change before and
after).
Results go to benchmarks/results/gpt2_decode.txt.
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
from bench_model import maxrss_bytes, mb, per_call, ratio

RESULTS = Path(__file__).parent / "results" / "gpt2.txt"
DECODE_RESULTS = Path(__file__).parent / "results" / "gpt2_decode.txt"
ROUNDS_DECODE = 5
NEW_TOKENS = 32
STEPS = 20
SHAPE = {"vocab_size": 50257, "n_embd": 768, "n_head": 12, "n_layer": 12, "n_positions": 1024}
ROUNDS = 2
TEXT = "The capital of France is Paris, and the river that runs through it is the Seine; boats go by"


def byte_alphabet() -> list[str]:
    """GPT-2's printable spelling of the 256 bytes (printable Latin-1 as itself, the rest from U+0100)."""
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    out, extra = {}, 0
    for b in range(256):
        if b in keep:
            out[b] = chr(b)
        else:
            out[b] = chr(256 + extra)
            extra += 1
    return [out[b] for b in range(256)]


def make(folder: Path) -> None:
    d, n_layer, V, n_ctx = SHAPE["n_embd"], SHAPE["n_layer"], SHAPE["vocab_size"], SHAPE["n_positions"]
    config = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "activation_function": "gelu_new"}
    config |= {**SHAPE, "n_inner": None, "layer_norm_epsilon": 1e-5, "n_ctx": n_ctx}
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    alphabet = byte_alphabet()
    merges = [(a, b) for a in alphabet for b in alphabet][: V - 257]
    vocab = {t: i for i, t in enumerate([*alphabet, *(a + b for a, b in merges), "<|endoftext|>"])}
    assert len(vocab) == V
    (folder / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    lines = ["#version: 0.2", *(f"{a} {b}" for a, b in merges)]
    (folder / "merges.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")

    from safetensors.numpy import save_file

    rng = np.random.default_rng(0)

    def w(*shape: int, scale: float = 0.02) -> np.ndarray:
        return (rng.standard_normal(shape, dtype=np.float32) * scale).astype(np.float32)

    t = {"wte.weight": w(V, d), "wpe.weight": w(n_ctx, d, scale=0.01)}
    mask = np.tril(np.ones((n_ctx, n_ctx), np.float32))[None, None]
    for b in range(n_layer):
        h = f"h.{b}."
        t |= {h + "ln_1.weight": 1 + w(d, scale=0.1), h + "ln_1.bias": w(d), h + "attn.bias": mask}
        t |= {h + "attn.c_attn.weight": w(d, 3 * d), h + "attn.c_attn.bias": w(3 * d)}
        t |= {h + "attn.c_proj.weight": w(d, d), h + "attn.c_proj.bias": w(d)}
        t |= {h + "ln_2.weight": 1 + w(d, scale=0.1), h + "ln_2.bias": w(d)}
        t |= {h + "mlp.c_fc.weight": w(d, 4 * d), h + "mlp.c_fc.bias": w(4 * d)}
        t |= {h + "mlp.c_proj.weight": w(4 * d, d), h + "mlp.c_proj.bias": w(d)}
    t |= {"ln_f.weight": 1 + w(d, scale=0.1), "ln_f.bias": w(d)}
    save_file(t, str(folder / "model.safetensors"), metadata={"format": "pt"})


def fused(p, cfg) -> list[dict[str, np.ndarray]]:
    """Each block's weights as the fastest plain forward wants them (untimed): Q, K and V of every head
    in one (d, 3d) matrix, as GPT-2's own c_attn keeps them, so one matrix product makes all three."""
    blocks = []
    for b in range(cfg.n_blocks):
        w = {k.rsplit(".", 1)[1]: p[k] for k in p if k.startswith(f"blocks.{b}.")}
        cat = [w[f"W_{m}"].transpose(1, 0, 2).reshape(cfg.d_model, -1) for m in "QKV"]
        w["qkv"] = np.ascontiguousarray(np.concatenate(cat, axis=1))
        w["qkv_b"] = np.concatenate([w[f"b_{m}"].reshape(-1) for m in "QKV"])
        blocks.append(w)
    return blocks


def bare_forward(p, blocks, ids: np.ndarray, cfg) -> np.ndarray:
    """GPT-2's arithmetic and nothing else: the floor of a forward pass."""
    T, H, dk = len(ids), cfg.n_heads, cfg.d_head
    x = p["E"][ids] + p["P"][:T]
    mask = np.triu(np.full((T, T), -np.inf), 1)

    def ln(v, g, b):
        return (v - v.mean(-1, keepdims=True)) / np.sqrt(v.var(-1, keepdims=True) + cfg.eps) * g + b

    for w in blocks:
        qkv = ln(x, w["ln1_g"], w["ln1_b"]) @ w["qkv"] + w["qkv_b"]  # (T, 3d)
        q, k, v = (
            qkv[:, i * H * dk : (i + 1) * H * dk].reshape(T, H, dk).transpose(1, 0, 2) for i in range(3)
        )
        s = q @ k.transpose(0, 2, 1) / np.sqrt(dk) + mask
        a = np.exp(s - s.max(-1, keepdims=True))
        a /= a.sum(-1, keepdims=True)
        x = x + (a @ v).transpose(1, 0, 2).reshape(T, H * dk) @ w["W_O"] + w["b_O"]
        hp = ln(x, w["ln2_g"], w["ln2_b"]) @ w["W_1"] + w["b_1"]
        hid = 0.5 * hp * (1 + np.tanh(np.sqrt(2 / np.pi) * (hp + 0.044715 * (hp * hp * hp))))
        x = x + hid @ w["W_2"] + w["b_2"]
    return ln(x[-1], p["lnf_g"], p["lnf_b"]) @ p["E"].T


def prompt_ids() -> list[int]:
    """The 16 token ids both sides start from (the same for every run)."""
    return [int(i) for i in np.random.default_rng(7).integers(256, SHAPE["vocab_size"] - 1, 16)]


def tinytui_decode(folder: Path) -> dict:
    """tinytui's load, first forward, decode step and 32 greedy tokens (one thread)."""
    t0 = time.perf_counter()
    from tinytui.model.generation import continuation, kv_cache
    from tinytui.model.generation.sampling import Sampling
    from tinytui.model.io.checkpoint import load_checkpoint
    from tinytui.model.switches import defaults
    from tinytui.model.trace import run

    out = {"import_s": time.perf_counter() - t0}
    t0 = time.perf_counter()
    model = load_checkpoint(folder)
    out |= {"load_s": time.perf_counter() - t0, "load_maxrss": maxrss_bytes()}
    params, cfg = model.params, model.cfg
    prompt = [cfg.vocab[i] for i in prompt_ids()]
    sw = defaults(cfg)
    t0 = time.perf_counter()
    trace = run(params, prompt, prompt[-1], sw)
    out["first_forward_s"] = time.perf_counter() - t0
    out["forward_maxrss"] = maxrss_bytes()
    cache, token, steps = kv_cache.from_trace(trace, room=STEPS), cfg.vocab[int(trace["logits"].argmax())], []
    for _ in range(STEPS):
        t0 = time.perf_counter()
        new = kv_cache.extend(params, cache, token, sw)
        steps.append(time.perf_counter() - t0)
        cache, token = new.cache, cfg.vocab[int(new.logits.argmax())]
    out["step_s"] = float(np.median(steps))
    runs = []
    for _ in range(3):
        t0 = time.perf_counter()
        made = continuation.generate(params, prompt, prompt[-1], sw, NEW_TOKENS, Sampling())
        runs.append(time.perf_counter() - t0)
    out["tokens_s"] = float(np.median(runs))
    out["tokens"] = [cfg.token_id(t) for t in made.tokens]
    out["maxrss"] = maxrss_bytes()
    return out


def transformers_decode(folder: Path, dtype: str) -> dict:
    """The same figures for transformers' GPT2LMHeadModel in float64 or float32 (one thread)."""
    t0 = time.perf_counter()
    import torch
    from transformers import GPT2LMHeadModel
    from transformers.utils import logging

    logging.disable_progress_bar()
    torch.set_num_threads(1)
    kind = {"float64": torch.float64, "float32": torch.float32}[dtype]
    out = {"import_s": time.perf_counter() - t0}
    t0 = time.perf_counter()
    model = GPT2LMHeadModel.from_pretrained(str(folder), dtype=kind).eval()
    out |= {"load_s": time.perf_counter() - t0, "load_maxrss": maxrss_bytes()}
    ids = torch.tensor([prompt_ids()])
    with torch.inference_mode():
        t0 = time.perf_counter()
        first = model(ids, use_cache=True)
        out["first_forward_s"] = time.perf_counter() - t0
        out["forward_maxrss"] = maxrss_bytes()
        past, token, steps = first.past_key_values, first.logits[0, -1].argmax().view(1, 1), []
        for _ in range(STEPS):
            t0 = time.perf_counter()
            new = model(token, past_key_values=past, use_cache=True)
            steps.append(time.perf_counter() - t0)
            past, token = new.past_key_values, new.logits[0, -1].argmax().view(1, 1)
        out["step_s"] = float(np.median(steps))
        runs = []
        for _ in range(3):
            t0 = time.perf_counter()
            made = model.generate(ids, max_new_tokens=NEW_TOKENS, do_sample=False, pad_token_id=0)
            runs.append(time.perf_counter() - t0)
    out["tokens_s"] = float(np.median(runs))
    out["tokens"] = [int(i) for i in made[0, ids.shape[1] :]]
    out["maxrss"] = maxrss_bytes()
    return out


def child(what: str, folder: Path) -> dict:
    if what == "tinytui-decode":
        return tinytui_decode(folder)
    if what.startswith("transformers-"):
        return transformers_decode(folder, what.split("-", 1)[1])
    if what == "make":
        make(folder)
        return {}
    if what == "imports":
        import tinytui.model.io.checkpoint
        import tinytui.session.session

        assert tinytui.model.io.checkpoint and tinytui.session.session

        return {"maxrss": maxrss_bytes()}
    if what == "floor-load":
        from safetensors import safe_open

        t0 = time.perf_counter()
        with safe_open(str(folder / "model.safetensors"), framework="numpy") as f:
            arrays = [f.get_tensor(k).astype(np.float64) for k in f.keys() if not k.endswith("attn.bias")]  # noqa: SIM118
        return {"s": time.perf_counter() - t0, "maxrss": maxrss_bytes(), "n": sum(a.size for a in arrays)}
    from tinytui.model.backward.gradients import gradients
    from tinytui.model.io.checkpoint import load_checkpoint
    from tinytui.model.io.checkpoint_weights import sha256
    from tinytui.model.trace import run
    from tinytui.session.session import Session

    out: dict = {"sha256_s": per_call(lambda: sha256(folder / "model.safetensors"), 1)}
    t0 = time.perf_counter()
    model = load_checkpoint(folder)
    out |= {"load_s": time.perf_counter() - t0, "load_maxrss": maxrss_bytes(), "n": model.params.total()}
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
            floor_logits = bare_forward(params, blocks, ids, cfg)
            out["floor_agrees"] = float(np.abs(floor_logits - trace["logits"]).max())
            out["backward16_s"] = per_call(lambda trace=trace: gradients(params, trace), 2)
            out["after_backward_maxrss"] = maxrss_bytes()
            session = Session(model, None)
            session.set_prompt(pieces)
            rng = np.random.default_rng(1)
            for name in ("blocks.11.W_2", "E"):
                cells = [tuple(int(rng.integers(k)) for k in params[name].shape) for _ in range(4)]
                edits = iter(cells)
                edit = lambda s=session, n=name, e=edits: s.edit(n, next(e), 0.5)  # noqa: E731
                out[f"edit_{name}_s"] = per_call(edit, 3)
            out["session_maxrss"] = maxrss_bytes()
    return out


def fastest(results: list[dict]) -> dict:
    """Per figure, the smallest time of the runs (the keys s and …_s); everything else from the first."""
    return {
        k: min(r[k] for r in results) if k == "s" or k.endswith("_s") else v for k, v in results[0].items()
    }


def run_child(what: str, folder: Path, python: str = sys.executable) -> dict:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    out = subprocess.run(
        [python, __file__, "--child", what, str(folder)], capture_output=True, text=True, check=False, env=env
    )
    if out.returncode:
        return {"error": (out.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(out.stdout)


def decode(folder: Path | None, python: str, baseline: str | None = None) -> None:
    """tinytui beside transformers float64 and float32: load, first forward, decode step, 32 tokens."""
    lines = [
        f"tinytui benchmarks/bench_gpt2.py --decode, {time.strftime('%Y-%m-%d %H:%M')}",
        f"machine: {platform.platform()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f},"
        f" numpy {np.__version__}, one BLAS/torch thread; fastest of {ROUNDS_DECODE} fresh processes each",
    ]
    print("\n".join(lines), flush=True)
    with tempfile.TemporaryDirectory(dir="/tmp", prefix="tinytui-gpt2-") as tmp:
        if folder is None:
            folder = Path(tmp)
            run_child("make", folder)
        sides = {"tinytui": (sys.executable, "tinytui-decode")}
        sides |= {f"transformers {d}": (python, f"transformers-{d}") for d in ("float64", "float32")}
        if baseline:
            sides["tinytui baseline"] = (baseline, "tinytui-decode")
        got: dict[str, list[dict]] = {side: [] for side in sides}
        for _ in range(ROUNDS_DECODE):  # in turns, so a busy moment of the machine falls on all three
            for side, (exe, what) in sides.items():
                got[side].append(run_child(what, folder, exe))
    failed = [r["error"] for runs in got.values() for r in runs if "error" in r]
    if failed:
        print(f"failed: {failed[0]}")
        return
    # each time the fastest of the runs (the one that repeats on a shared machine), each peak the median
    med = {
        side: {
            k: float(min(r[k] for r in runs) if k.endswith("_s") else np.median([r[k] for r in runs]))
            for k in runs[0]
            if k != "tokens"
        }
        for side, runs in got.items()
    }
    same = all(r["tokens"] == got["transformers float64"][0]["tokens"] for r in got["tinytui"])
    lines.append(f"greedy tokens of tinytui and transformers float64 the same: {same}")
    figures = (
        ("imports", "import_s", 1e3, "ms"),
        ("load, to a model ready for its first forward", "load_s", 1e3, "ms"),
        ("first forward, 16 tokens", "first_forward_s", 1e3, "ms"),
        ("one decode step (KV cache)", "step_s", 1e3, "ms"),
        (f"{NEW_TOKENS} greedy tokens end to end", "tokens_s", 1e3, "ms"),
        ("peak RSS after load", "load_maxrss", 2**-20, "MB"),
        ("peak RSS after the first forward", "forward_maxrss", 2**-20, "MB"),
        ("peak RSS at the end", "maxrss", 2**-20, "MB"),
    )
    for title, key, scale, unit in figures:
        t, f64, f32 = (med[s][key] for s in list(sides)[:3])
        lines.append(
            f"{title:46s} tinytui {t * scale:8.1f} {unit}  transformers float64 {f64 * scale:8.1f}"
            f" ({ratio(t, f64)})  float32 {f32 * scale:8.1f} ({ratio(t, f32)})"
        )
        if baseline:
            b = med["tinytui baseline"][key]
            lines.append(
                f"{'':46s} baseline {b * scale:7.1f} {unit}  ({ratio(b, f64)} float64,"
                f" {ratio(b, f32)} float32)"
            )
    print("\n".join(lines[2:]))
    DECODE_RESULTS.parent.mkdir(exist_ok=True)
    DECODE_RESULTS.write_text("\n".join(lines) + "\n")
    print(f"\nwritten to {DECODE_RESULTS}")


def main(argv: list[str]) -> None:
    if argv[:1] == ["--child"]:
        print(json.dumps(child(argv[1], Path(argv[2]))))
        return
    if argv[:1] == ["--decode"]:
        options = {argv[i]: argv[i + 1] for i in range(1, len(argv) - 1) if argv[i].startswith("--")}
        values = set(options.values())
        given = [a for a in argv[1:] if not a.startswith("--") and a not in values]
        decode(
            Path(given[0]) if given else None,
            options.get("--torch-python", sys.executable),
            options.get("--baseline"),
        )
        return
    lines = [
        f"tinytui benchmarks/bench_gpt2.py, {time.strftime('%Y-%m-%d %H:%M')}",
        f"machine: {platform.platform()}, {os.cpu_count()} CPUs, numpy {np.__version__},"
        f" python {platform.python_version()}",
    ]

    def say(text: str) -> None:
        print(text, flush=True)
        lines.append(text)

    print("\n".join(lines), flush=True)
    with tempfile.TemporaryDirectory(dir="/tmp", prefix="tinytui-gpt2-") as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        run_child("make", folder)
        size = (folder / "model.safetensors").stat().st_size
        say(f"checkpoint folder written in {time.perf_counter() - t0:.1f} s (model.safetensors {mb(size)})")
        imports = run_child("imports", folder)["maxrss"]
        # each measurement ROUNDS times, in turns, each time in a fresh process: the machine may be
        # shared, so the fastest of each figure is the one that repeats (peaks are the same each time)
        runs = [(run_child("floor-load", folder), run_child("measure", folder)) for _ in range(ROUNDS)]
        failed = [x["error"] for pair in runs for x in pair if "error" in x]
        if failed:
            say(f"failed: {failed[0]}")
            return
        floor, r = (fastest([pair[i] for pair in runs]) for i in (0, 1))
        weights = r["n"] * 8
        say(f"parameters {r['n']:,} (float64 in memory: {mb(weights)}); imports alone peak {mb(imports)}")
        say(
            f"load floor (safetensors -> float64, numpy only) {floor['s']:7.2f} s  peak {mb(floor['maxrss'])}"
        )
        whole, over = r["load_s"] + r["widen_s"], ratio(r["widen_maxrss"] - imports, weights)
        say(
            f"load checkpoint {r['load_s']:7.2f} s  peak {mb(r['load_maxrss'])}; every weight widened to"
            f" float64 at its first read {r['widen_s']:.2f} s more ({ratio(whole, floor['s'])} floor)"
            f"  peak {mb(r['widen_maxrss'])} = {over} the weights"
            f" over the imports; the file's sha256, when asked for, {r['sha256_s']:.2f} s"
        )
        for T in (16, 64):
            f, fl = r[f"forward{T}_s"], r[f"floor{T}_s"]
            say(
                f"forward, {T:2d} tokens {f * 1e3:8.1f} ms  (bare numpy forward {fl * 1e3:.1f} ms:"
                f" {ratio(f, fl)})"
            )
        say(f"  the bare forward's logits agree with tinytui's to {r['floor_agrees']:.1e}")
        say(f"backward, 16 tokens {r['backward16_s'] * 1e3:7.1f} ms  peak {mb(r['after_backward_maxrss'])}")
        for name in ("blocks.11.W_2", "E"):
            e = r[f"edit_{name}_s"]
            say(f"edit {name:13s} + recompute {e * 1e3:7.1f} ms  ({ratio(e, r['floor16_s'])} bare forward)")
        say(f"session with edits: peak {mb(r['session_maxrss'])}")
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text("\n".join(lines) + "\n")
    print(f"\nwritten to {RESULTS}")


if __name__ == "__main__":
    main(sys.argv[1:])
