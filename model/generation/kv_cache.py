"""The KV cache: the keys and values of every position already run, and the new position's pass that
computes only its own row of Q, K and V and reuses the earlier rows.

Under the causal mask a position never reads a later one, so appending a token changes no earlier
row anywhere: each block's K and V rows of the earlier positions are the ones already computed, and
the new position needs only its own row of every tensor. Its query row attends to all the cached keys
and its own. The result equals the full recompute's last row (tests/generation, to 1e-12).

Without the mask an earlier position attends to the new one, so from the second block on its K and V
rows change: the cache holds only in a model of one block (its K and V rows are the earlier tokens'
own, whatever follows). reusable() says which, and why not in words.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tinytui.model import ops
from tinytui.model.config import ModelConfig
from tinytui.model.forward import activate, ffn_input, linear, norm, residual, scaled
from tinytui.model.names import prefix
from tinytui.model.params import Params
from tinytui.model.switches import Switches
from tinytui.model.trace import Trace

NOT_REUSABLE = (
    "without the causal mask every earlier position attends to the new one, so from block 2 on their "
    "K and V rows change: nothing is reused, every row is computed again"
)


def reusable(cfg: ModelConfig, switches: Switches) -> bool:
    """Whether the earlier rows of K and V stay the same when a token is appended."""
    return switches.causal_mask or cfg.n_blocks == 1


@dataclass(frozen=True)
class KVCache:
    """The K and V rows of positions 0 … length−1: keys[b][h] and values[b][h] are (length, d_head),
    block b 0-based, head h 0-based."""

    keys: tuple[tuple[np.ndarray, ...], ...]
    values: tuple[tuple[np.ndarray, ...], ...]

    @property
    def length(self) -> int:
        return int(self.keys[0][0].shape[0])


def from_trace(trace: Trace) -> KVCache:
    """The cache a full pass leaves: its K and V of every block and head (the trace's own arrays)."""
    cfg = trace.cfg

    def rows(c: str) -> tuple[tuple[np.ndarray, ...], ...]:
        return tuple(
            tuple(trace[f"{prefix(b)}{c}.{h + 1}"] for h in range(cfg.n_heads)) for b in range(cfg.n_blocks)
        )

    return KVCache(rows("k"), rows("v"))


@dataclass(frozen=True)
class NewPosition:
    """The new position's pass: its row of every tensor by the trace's names (blocks.0.q.1 is (d_head,),
    blocks.0.attn.1 is its row of weights over every position, (length + 1,)), z, logits and probs;
    and the cache with its K and V rows appended."""

    position: int
    token: str
    rows: dict[str, np.ndarray]
    cache: KVCache

    @property
    def logits(self) -> np.ndarray:
        return self.rows["logits"]


def extend(params: Params, cache: KVCache, token: str, switches: Switches) -> NewPosition:
    """Run only the new position (token at index cache.length), reading earlier K and V from the cache.
    ValueError when the model has no such position (learned positions end at n_ctx) or when, without
    the mask, the cache does not hold (see reusable())."""
    cfg = params.cfg
    p = cache.length
    if not reusable(cfg, switches):
        raise ValueError(NOT_REUSABLE)
    if cfg.learned_positions and p >= cfg.n_ctx:
        raise ValueError(f"position {p} is past the model's {cfg.n_ctx} learned positions")
    rows: dict[str, np.ndarray] = {}
    x = params["E"][cfg.token_id(token)]  # (d,)
    if not switches.positional_encoding:
        pe = np.zeros(cfg.d_model)
    elif cfg.learned_positions:
        pe = params["P"][p]
    else:
        pe = ops.positional_encoding(p + 1, cfg.d_model)[p]
    x = rows["x"] = x + pe
    keys, values = [], []
    for b in range(cfg.n_blocks):
        x, k_b, v_b = _block_row(params.block(b), x, cache, b, cfg, switches, rows)
        keys.append(k_b)
        values.append(v_b)
    z = scaled(ops.layer_norm(x, cfg.eps)[0], params.get("lnf_g"), params.get("lnf_b"))  # (d,)
    rows["z"] = z
    rows["logits"] = z @ params["E"].T  # (V,)
    rows["probs"] = ops.softmax(rows["logits"])
    for arr in rows.values():
        arr.setflags(write=False)
    return NewPosition(p, token, rows, KVCache(tuple(keys), tuple(values)))


def _block_row(w, x, cache: KVCache, b: int, cfg: ModelConfig, sw: Switches, rows: dict):
    """Block b on the new position's row x (d,): its output row, and the block's K and V per head with
    the new row appended ((length + 1, d_head) each)."""
    pre = prefix(b)
    eps, ln1, ln2 = cfg.eps, (w.get("ln1_g"), w.get("ln1_b")), (w.get("ln2_g"), w.get("ln2_b"))
    x_norm = norm(x, *ln1, eps, sw.norm)[2]
    rows[pre + "x_norm"] = x_norm
    scale = np.sqrt(cfg.d_head)
    heads, keys, values = [], [], []
    for h in range(cfg.n_heads):
        n = h + 1
        q, k, v = (x_norm @ w[f"W_{c}"][h] for c in "QKV")  # (d_head,) each: this row only
        if cfg.attn_bias:
            q, k, v = q + w["b_Q"][h], k + w["b_K"][h], v + w["b_V"][h]
        K = np.vstack([cache.keys[b][h], k])  # (length + 1, d_head): the cached rows, then this one
        V = np.vstack([cache.values[b][h], v])
        s = K @ q / scale  # (length + 1,): the last row of scores; the mask blocks none of it
        a = ops.softmax(s)
        head = np.zeros_like(v) if sw.is_ablated(b, n) else a @ V
        rows.update({f"{pre}q.{n}": q, f"{pre}k.{n}": k, f"{pre}v.{n}": v, f"{pre}scores.{n}": s})
        rows.update({f"{pre}attn.{n}": a, f"{pre}head.{n}": head})
        heads.append(head)
        keys.append(K)
        values.append(V)
    mha = np.concatenate(heads) @ w["W_O"]
    if cfg.attn_bias:
        mha = mha + w["b_O"]
    rows[pre + "mha"] = mha
    x_mid = rows[pre + "x_mid"] = residual(x, mha, sw.residual, sw.norm, *ln1, eps)
    f_in = rows[pre + "x_mid_norm"] = ffn_input(x_mid, *ln2, eps, sw.norm)
    hidden_pre = rows[pre + "hidden_pre"] = linear(f_in, w["W_1"], w["b_1"])
    hidden = rows[pre + "hidden"] = activate(hidden_pre, sw.activation)
    ffn = rows[pre + "ffn"] = linear(hidden, w["W_2"], w["b_2"])
    y = rows[pre + "y"] = residual(x_mid, ffn, sw.residual, sw.norm, *ln2, eps)
    return y, tuple(keys), tuple(values)
