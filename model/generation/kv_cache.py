"""The KV cache: the keys and values of every position already run, and the new position's pass that
computes only its own row of Q, K and V and reuses the earlier rows.

Under the causal mask a position never reads a later one, so appending a token changes no earlier
row anywhere: each block's K and V rows of the earlier positions are the ones already computed, and
the new position needs only its own row of every tensor. Its query row attends to all the cached keys
and its own. The result equals the full recompute's last row (tests/generation, to 1e-12).

Without the mask an earlier position attends to the new one, so from the second block on its K and V
rows change: the cache holds only in a model of one block (its K and V rows are the earlier tokens'
own, whatever follows). reusable() says which, and why not in words.

With grouped-query attention the cache holds one K and one V per key/value head, not per query head:
n_heads / n_kv_heads times smaller (saving() says how much). With rotary positions the cached keys are
the turned ones (k, not k_pre): a key's turn depends on its own position only, so it never changes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tinytui.model import ops
from tinytui.model.config import ModelConfig
from tinytui.model.forward import activate, ffn_input, gate, linear, norm, residual, rms_norm, scaled
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


def saving(cfg: ModelConfig) -> str:
    """How much smaller the cache is for sharing key/value heads, in words ('' for one per query head)."""
    if cfg.n_kv_heads == cfg.n_heads:
        return ""
    per_position = 2 * cfg.n_blocks * cfg.d_head  # a K row and a V row, each block
    return (
        f"{cfg.n_kv_heads} key/value head{'s' if cfg.n_kv_heads > 1 else ''} for {cfg.n_heads} query heads: "
        f"{per_position * cfg.n_kv_heads:,} numbers a position, not {per_position * cfg.n_heads:,} "
        f"({cfg.group_size} times smaller)"
    )


@dataclass(frozen=True)
class KVCache:
    """The K and V rows of positions 0 … length−1: keys[b][g] and values[b][g] are (length, d_head),
    block b 0-based, key/value head g 0-based (as many as the query heads but in grouped attention)."""

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
            tuple(trace[f"{prefix(b)}{c}.{g + 1}"] for g in range(cfg.n_kv_heads))
            for b in range(cfg.n_blocks)
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
    if not switches.positional_encoding or cfg.positions in ("rope", "none"):
        pe = np.zeros(cfg.d_model)  # rotary positions turn q and k in each block instead
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
    z = scaled(ops.NORMS[cfg.norm](x, cfg.eps), params.get("lnf_g"), params.get("lnf_b"))  # (d,)
    rows["z"] = z
    rows["logits"] = z @ params["E"].T if cfg.tied else z @ params["W_U"]  # (V,)
    rows["probs"] = ops.softmax(rows["logits"])
    for arr in rows.values():
        arr.setflags(write=False)
    return NewPosition(p, token, rows, KVCache(tuple(keys), tuple(values)))


def _block_row(w, x, cache: KVCache, b: int, cfg: ModelConfig, sw: Switches, rows: dict):
    """Block b on the new position's row x (d,): its output row, and the block's K and V per key/value
    head with the new row appended ((length + 1, d_head) each)."""
    pre, p = prefix(b), cache.length
    eps, kind = cfg.eps, cfg.norm
    ln1, ln2 = (w.get("ln1_g"), w.get("ln1_b")), (w.get("ln2_g"), w.get("ln2_b"))
    first = rms_norm(x, ln1[0], eps, sw.norm) if kind == "rms" else norm(x, *ln1, eps, sw.norm)
    x_norm = rows[pre + "x_norm"] = first[-1]
    scale = np.sqrt(cfg.d_head)

    def turned(row: np.ndarray, which: str, n: int) -> np.ndarray:
        """The row at position p turned as the full pass turns it (rope on a one-row table at p)."""
        if cfg.positions != "rope":
            return row
        rows[f"{pre}{which}_pre.{n}"] = row
        if not sw.positional_encoding:
            return row
        angles = ops.rope_angles(1, cfg.d_head, cfg.rope_theta, cfg.rope_scaling, start=p)
        return ops.rotate(row[None], angles)[0]

    keys, values = [], []
    for g in range(cfg.n_kv_heads):  # this row of each key/value head, appended to its cache
        k, v = (x_norm @ w[f"W_{c}"][g] for c in "KV")  # (d_head,) each: this row only
        if cfg.attn_bias:
            k, v = k + w["b_K"][g], v + w["b_V"][g]
        k = turned(k, "k", g + 1)
        rows.update({f"{pre}k.{g + 1}": k, f"{pre}v.{g + 1}": v})
        keys.append(np.vstack([cache.keys[b][g], k]))  # (length + 1, d_head): the cached rows, then this one
        values.append(np.vstack([cache.values[b][g], v]))
    heads = []
    for h in range(cfg.n_heads):
        n, g = h + 1, cfg.kv_head(h)
        q = x_norm @ w["W_Q"][h]
        if cfg.attn_bias:
            q = q + w["b_Q"][h]
        q = turned(q, "q", n)
        s = keys[g] @ q / scale  # (length + 1,): the last row of scores; the mask blocks none of it
        a = ops.softmax(s)
        head = np.zeros(cfg.d_head) if sw.is_ablated(b, n) else a @ values[g]
        rows.update({f"{pre}q.{n}": q, f"{pre}scores.{n}": s, f"{pre}attn.{n}": a, f"{pre}head.{n}": head})
        heads.append(head)
    mha = np.concatenate(heads) @ w["W_O"]
    if cfg.out_bias:
        mha = mha + w["b_O"]
    rows[pre + "mha"] = mha
    x_mid = rows[pre + "x_mid"] = residual(x, mha, sw.residual, sw.norm, *ln1, eps, kind)
    f_in = rows[pre + "x_mid_norm"] = ffn_input(x_mid, *ln2, eps, sw.norm, kind)
    if cfg.gated:
        gate_pre = rows[pre + "gate_pre"] = linear(f_in, w["W_gate"], None)
        gated = rows[pre + "gate"] = activate(gate_pre, sw.activation)
        up = rows[pre + "up"] = linear(f_in, w["W_up"], None)
        hidden = rows[pre + "hidden"] = gate(gated, up)
        ffn = rows[pre + "ffn"] = linear(hidden, w["W_down"], None)
    else:
        hidden_pre = rows[pre + "hidden_pre"] = linear(f_in, w["W_1"], w["b_1"])
        hidden = rows[pre + "hidden"] = activate(hidden_pre, sw.activation)
        ffn = rows[pre + "ffn"] = linear(hidden, w["W_2"], w["b_2"])
    y = rows[pre + "y"] = residual(x_mid, ffn, sw.residual, sw.norm, *ln2, eps, kind)
    return y, tuple(keys), tuple(values)
