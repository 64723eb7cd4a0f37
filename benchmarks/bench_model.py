"""What a model costs at three sizes, each figure beside its floor measured in the same run. By hand:

python benchmarks/bench_model.py            # chapter, mid (d 64), gpt2 (GPT-2-small shapes, vocab 2,000)
python benchmarks/bench_model.py chapter mid  # some of them

Per size: load time and peak memory, JSON and safetensors (each load in a fresh process, peak from
getrusage maxrss); one edit + recompute + diff; 25 edits then 25 undos (peak memory against the
model's own bytes); the recorder's per-event state check. Floors: reading the same bytes into arrays
with np.fromfile (load), a bare numpy forward with no names, labels or copies (recompute), hashing
only the array an edit changed (recorder). Results also go to benchmarks/results/model.txt.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SIZES = {
    "chapter": None,  # the preset
    "mid": {"d": 64, "heads": 4, "blocks": 2, "d_ff": 256, "vocab": 64, "tokens": 16},
    "gpt2": {"d": 768, "heads": 12, "blocks": 12, "d_ff": 3072, "vocab": 2000, "tokens": 64},
}
RESULTS = Path(__file__).parent / "results" / "model.txt"


def maxrss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kB on Linux


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def make(size: str, folder: Path) -> None:
    """Write the model as JSON (if it fits the 256 MB limit) and as safetensors."""
    from tinytui.model.config import ModelConfig
    from tinytui.model.io.document import ModelFile
    from tinytui.model.io.model_file import MAX_FILE_BYTES, load_default, save
    from tinytui.model.params import Params, param_shapes

    spec = SIZES[size]
    if spec is None:
        model = load_default()
    else:
        rng = np.random.default_rng(0)
        d, h = spec["d"], spec["heads"]
        cfg = ModelConfig(
            vocab=tuple(f"t{i}" for i in range(spec["vocab"])),
            dims=tuple(f"d{i}" for i in range(d)),
            d_model=d,
            n_heads=h,
            d_head=d // h,
            d_ff=spec["d_ff"],
            n_blocks=spec["blocks"],
            n_ctx=spec["tokens"],
        )
        arrays = {n: rng.normal(0, 0.02, s) for n, s in param_shapes(cfg).items()}
        params = Params(cfg, arrays)
        prompt = tuple(cfg.vocab[i] for i in rng.integers(0, spec["vocab"], spec["tokens"]))
        model = ModelFile(size, "", params, prompt, cfg.vocab[1])
    save(model, folder / "binary.json", binary=True)
    if model.params.total() * 25 < MAX_FILE_BYTES:  # ~25 bytes a number as JSON text
        save(model, folder / "inline.json", binary=False)


def child(what: str, folder: Path) -> dict:
    """One measurement in this (fresh) process; returns figures as a dict."""
    t0 = time.perf_counter()
    from tinytui.model.io.model_file import load

    if what.startswith("make-"):  # in a child too, so the parent stays small (children inherit maxrss)
        make(what.removeprefix("make-"), folder)
        return {}
    if what == "imports":
        return {"maxrss": maxrss_bytes()}
    if what.startswith("load-"):
        path = folder / ("inline.json" if what == "load-json" else "binary.json")
        base = maxrss_bytes()
        t0 = time.perf_counter()
        m = load(path)
        return {"s": time.perf_counter() - t0, "maxrss": maxrss_bytes(), "base": base, "n": m.params.total()}
    if what == "floor-read":
        raw = (folder / "binary.safetensors").read_bytes()
        n = int.from_bytes(raw[:8], "little")
        header = json.loads(raw[8 : 8 + n])
        del raw
        base = maxrss_bytes()
        t0 = time.perf_counter()
        arrays = []
        with open(folder / "binary.safetensors", "rb") as f:
            for key, e in header.items():
                if key != "__metadata__":
                    f.seek(8 + n + e["data_offsets"][0])
                    arrays.append(np.fromfile(f, "<f8", (e["data_offsets"][1] - e["data_offsets"][0]) // 8))
        return {"s": time.perf_counter() - t0, "maxrss": maxrss_bytes(), "base": base}
    model = load(folder / "binary.json")
    nbytes = sum(a.nbytes for a in model.params.values())
    if what == "edit":
        return edit_figures(model)
    if what == "undo":
        from tinytui.session.session import Session

        base = rss_bytes()
        s = Session(model)
        trace = sum(t.values.nbytes for t in s.trace.tensors.values())  # the session holds two of these
        name = "blocks.0.W_1" if model.cfg.n_blocks else "E"
        shape = model.params[name].shape
        rng = np.random.default_rng(1)
        t0 = time.perf_counter()
        for _ in range(25):
            s.edit(name, tuple(int(rng.integers(k)) for k in shape), float(rng.normal()))
        for _ in range(25):
            s.undo()
        took = time.perf_counter() - t0
        return {
            "s": took,
            "maxrss": maxrss_bytes(),
            "base": base,
            "now": rss_bytes(),
            "model": nbytes,
            "trace": trace,
        }
    raise SystemExit(f"unknown measurement {what}")


def per_call(fn, repeats: int, setup=None) -> float:
    """The best of repeats timed calls (the machine may be shared: the minimum is the figure that
    repeats); setup, untimed, runs before each."""
    fn() if setup is None else (setup(), fn())
    best = float("inf")
    for _ in range(repeats):
        if setup is not None:
            setup()
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def bare_forward(params, ids, cfg):
    """The arithmetic of the forward pass and nothing else (no names, labels, copies or checks)."""
    x = params["E"][ids]
    T = len(ids)
    mask = np.triu(np.full((T, T), -1e9), 1)
    for b in range(cfg.n_blocks):
        w = params.block(b)
        xn = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + cfg.eps)
        q, k, v = (xn @ w[m] for m in ("W_Q", "W_K", "W_V"))  # (h, T, d_head)
        s = q @ k.transpose(0, 2, 1) / np.sqrt(cfg.d_head) + mask
        a = np.exp(s - s.max(-1, keepdims=True))
        a /= a.sum(-1, keepdims=True)
        x = x + np.concatenate(list(a @ v), axis=-1) @ w["W_O"]
        xn = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + cfg.eps)
        x = x + np.maximum(xn @ w["W_1"] + w["b_1"], 0) @ w["W_2"] + w["b_2"]
    z = x[-1]
    return z @ params["E"].T


def edit_figures(model) -> dict:
    from tinytui.model.diff import diff
    from tinytui.recording.event_log import check_json, event_json
    from tinytui.recording.state_digest import legacy_params_digest
    from tinytui.session.session import Session

    s = Session(model)
    name = "blocks.0.W_1"
    shape = model.params[name].shape
    rng = np.random.default_rng(2)
    repeats = 5 if model.params.total() > 10**6 else 200

    def cell():
        return tuple(int(rng.integers(k)) for k in shape)

    edit = per_call(lambda: s.edit(name, cell(), float(rng.normal())), repeats)
    d = per_call(lambda: diff(s.previous, s.trace), repeats)
    ids = np.array([model.cfg.token_id(t) for t in model.prompt])
    floor_forward = per_call(lambda: bare_forward(s.params, ids, model.cfg), repeats)
    # the recorder after an edit: its state check, then the whole line of an edit event (edits + check)
    events = []
    s.listeners.append(events.append)
    check_json(s)  # the arrays no edit changes are hashed once, here
    new_edit = lambda: s.edit(name, cell(), float(rng.normal()))  # noqa: E731
    check = per_call(lambda: check_json(s), repeats, setup=new_edit)
    line = per_call(lambda: event_json(1, events[-1], s), repeats, setup=new_edit)
    floor_check = per_call(lambda: hashlib.sha256(s.params[name]).digest(), repeats)
    legacy = per_call(lambda: legacy_params_digest(s.params), max(1, repeats // 3))
    return {
        "edit": edit,
        "diff": d,
        "floor_forward": floor_forward,
        "check": check,
        "event_line": line,
        "floor_check": floor_check,
        "legacy_check": legacy,
    }


def run_child(what: str, folder: Path, env: dict[str, str] | None = None) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", what, str(folder)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **(env or {})},
    )
    if out.returncode:
        return {"error": (out.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(out.stdout)


def mb(x: float) -> str:
    return f"{x / 2**20:8.1f} MB"


def ratio(a: float, b: float) -> str:
    return f"{a / b:6.2f}×" if b else "   n/a"


def measure(size: str, lines: list[str]) -> None:
    def say(text: str) -> None:
        print(text, flush=True)
        lines.append(text)

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        run_child(f"make-{size}", folder)
        imports = run_child("imports", folder)["maxrss"]
        say(f"\n== {size} (files written in {time.perf_counter() - t0:.1f} s) ==")
        floor = run_child("floor-read", folder)
        say(f"  load floor (np.fromfile of the same bytes): {floor['s']:8.3f} s  peak {mb(floor['maxrss'])}")
        for kind in ("load-json", "load-safetensors"):
            if kind == "load-json" and not (folder / "inline.json").exists():
                say("  load JSON: not written (the JSON would be over the 256 MB limit tinytui reads)")
                continue
            r = run_child(kind, folder)
            if "error" in r:
                say(f"  {kind}: {r['error']}")
                continue
            model_bytes = r["n"] * 8
            say(
                f"  {kind:17s} {r['s']:8.3f} s ({ratio(r['s'], floor['s'])} floor)  peak {mb(r['maxrss'])}"
                f" (imports {mb(imports)}, weights {mb(model_bytes)}; peak − imports ="
                f" {ratio(r['maxrss'] - imports, model_bytes)} weights)"
            )
        e = run_child("edit", folder)
        if "error" in e:
            say(f"  edit: {e['error']}")
        else:
            ff = e["floor_forward"]
            say(
                f"  edit + recompute      {e['edit'] * 1e3:9.2f} ms  (bare numpy forward {ff * 1e3:.2f} ms:"
                f" {ratio(e['edit'], ff)})"
            )
            d = e["diff"]
            say(f"  diff of two traces    {d * 1e3:9.2f} ms  ({ratio(d, ff)} the bare forward)")
            say(
                f"  recorder check/event  {e['check'] * 1e3:9.2f} ms  (sha256 of the one edited array"
                f" {e['floor_check'] * 1e3:.2f} ms; the old full digest {e['legacy_check'] * 1e3:.2f} ms)"
            )
            say(f"  recorder event line   {e['event_line'] * 1e3:9.2f} ms  (the edit's line: edits + check)")
        for how, env in (("", None), (" (fixed mmap threshold)", {"MALLOC_MMAP_THRESHOLD_": "131072"})):
            u = run_child("undo", folder, env)
            if "error" in u:
                say(f"  undo: {u['error']}")
                continue
            say(
                f"  25 edits + 25 undos{how}: {u['s']:.2f} s; process peak {mb(u['maxrss'])}:"
                f" {ratio(u['maxrss'], u['model'])} the weights ({mb(u['model'])}),"
                f" {ratio(u['maxrss'] - imports, u['model'])} over the imports' {mb(imports)}"
                f" (one trace {mb(u['trace'])})"
            )


def main(argv: list[str]) -> None:
    if argv[:1] == ["--child"]:
        print(json.dumps(child(argv[1], Path(argv[2]))))
        return
    sizes = argv or list(SIZES)
    lines = [
        f"tinytui benchmarks/bench_model.py, {time.strftime('%Y-%m-%d %H:%M')}",
        f"machine: {platform.platform()}, {os.cpu_count()} CPUs, numpy {np.__version__},"
        f" python {platform.python_version()}",
    ]
    print("\n".join(lines))
    for size in sizes:
        measure(size, lines)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text("\n".join(lines) + "\n")
    print(f"\nwritten to {RESULTS}")


if __name__ == "__main__":
    main(sys.argv[1:])
