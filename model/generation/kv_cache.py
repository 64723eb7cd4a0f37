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

The rows live in buffers allocated ahead (KVRows): a new position writes its row in place rather than
copying the cache, and every head is computed at once (one product for the queries of all heads, one
for the scores, one for the outputs), in float64 like the full pass.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tinytui.model import ops
from tinytui.model.config import ModelConfig
from tinytui.model.forward import activate, ffn_input, gate, linear, norm, residual, rms_norm, scaled
from tinytui.model.names import prefix
from tinytui.model.params import Params
from tinytui.model.switches import Switches, run_config
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
    """The K and V rows of positions 0 … length−1 of every block and key/value head. keys[b][g] and
    values[b][g] are (length, d_head), block b 0-based, key/value head g 0-based (as many as the query
    heads but in grouped attention): read-only views of buffers with room for the rows to come."""

    rows: KVRows
    length: int

    @property
    def keys(self) -> tuple[tuple[np.ndarray, ...], ...]:
        return self.rows.held(self.rows.keys, self.length)

    @property
    def values(self) -> tuple[tuple[np.ndarray, ...], ...]:
        return self.rows.held(self.rows.values, self.length)


class KVRows:
    """The buffers a cache and the caches extended from it share: keys and values are (n_blocks,
    n_kv_heads, capacity, d_head), rows 0 … filled−1 written. A row once written is never written again
    (a cache of length L reads its first L rows only), so extending a cache writes one row in place, and
    extending the same cache a second time (its row L is another cache's already) moves to buffers of
    its own. Full buffers are moved to ones twice as long: a token costs one row, not a copy of all."""

    def __init__(self, keys: np.ndarray, values: np.ndarray, filled: int):
        self.keys, self.values, self.filled = keys, values, filled

    @property
    def capacity(self) -> int:
        return int(self.keys.shape[2])

    def room_at(self, length: int) -> bool:
        """Whether row `length` can be written here for a cache of that length."""
        return self.filled == length < self.capacity

    def moved(self, length: int, capacity: int) -> KVRows:
        """New buffers of that capacity holding rows 0 … length−1 of these."""
        keys, values = (np.empty((*a.shape[:2], capacity, a.shape[3])) for a in (self.keys, self.values))
        keys[:, :, :length], values[:, :, :length] = self.keys[:, :, :length], self.values[:, :, :length]
        return KVRows(keys, values, length)

    @staticmethod
    def held(buffer: np.ndarray, length: int) -> tuple[tuple[np.ndarray, ...], ...]:
        out = buffer[:, :, :length]
        out.flags.writeable = False
        return tuple(tuple(block) for block in out)


def from_trace(trace: Trace, room: int = 16) -> KVCache:
    """The cache a full pass leaves: its K and V of every block and head, copied into buffers with room
    for that many more positions (generate asks for as many as it will append)."""
    cfg, T = trace.cfg, len(trace.prompt)
    shape = (cfg.n_blocks, cfg.n_kv_heads, T + max(room, 1), cfg.d_head)
    rows = KVRows(np.empty(shape), np.empty(shape), T)
    for b in range(cfg.n_blocks):
        for g in range(cfg.n_kv_heads):
            rows.keys[b, g, :T] = trace[f"{prefix(b)}k.{g + 1}"]
            rows.values[b, g, :T] = trace[f"{prefix(b)}v.{g + 1}"]
    return KVCache(rows, T)


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
    cfg = run_config(params.cfg, switches)  # the norm and positions the switches run, as the full pass does
    p = cache.length
    if not reusable(cfg, switches):
        raise ValueError(NOT_REUSABLE)
    if cfg.learned_positions and p >= cfg.n_ctx:
        raise ValueError(f"position {p} is past the model's {cfg.n_ctx} learned positions")
    held = cache.rows
    if not held.room_at(p):
        held = held.moved(p, max(2 * held.capacity, p + 16))
    rows: dict[str, np.ndarray] = {}
    x = params["E"][cfg.token_id(token)]  # (d,)
    if not switches.positional_encoding or cfg.positions in ("rope", "none"):
        pe = np.zeros(cfg.d_model)  # rotary positions turn q and k in each block instead
    elif cfg.learned_positions:
        pe = params["P"][p]
    else:
        pe = ops.positional_encoding(p + 1, cfg.d_model)[p]
    x = rows["x"] = x + pe
    for b in range(cfg.n_blocks):
        x = _block_row(params.block(b), x, held, p, b, cfg, switches, rows)
    held.filled = p + 1
    z = scaled(ops.NORMS[cfg.norm](x, cfg.eps), params.get("lnf_g"), params.get("lnf_b"))  # (d,)
    rows["z"] = z
    rows["logits"] = z @ params["E"].T if cfg.tied else z @ params["W_U"]  # (V,)
    rows["probs"] = ops.softmax(rows["logits"])
    for arr in rows.values():
        arr.flags.writeable = False
    return NewPosition(p, token, rows, KVCache(held, p + 1))


def _fused_qkv(w: dict[str, np.ndarray], cfg: ModelConfig) -> np.ndarray | None:
    """The (d, (H + 2G)·k) matrix whose columns are W_Q's, W_K's and W_V's heads in turn, when the three
    are views of one (a GPT-2 block's c_attn as the checkpoint reader lays it out); else None (an edited
    W_Q is an array of its own, say)."""
    base = w["W_Q"].base
    if base is None or w["W_K"].base is not base or w["W_V"].base is not base:
        return None
    H, G, k, d = cfg.n_heads, cfg.n_kv_heads, cfg.d_head, cfg.d_model
    width = (H + 2 * G) * k
    if base.shape != (d, width) or base.dtype != np.float64 or not base.flags.c_contiguous:
        return None
    start, size = base.__array_interface__["data"][0], base.itemsize
    for c, first, n in (("Q", 0, H), ("K", H, G), ("V", H + G, G)):
        a = w[f"W_{c}"]
        at = a.__array_interface__["data"][0]
        if (
            at != start + first * k * size
            or a.shape != (n, d, k)
            or a.strides != (k * size, width * size, size)
        ):
            return None
    return base


def _block_row(w, x, held: KVRows, p: int, b: int, cfg: ModelConfig, sw: Switches, rows: dict):
    """Block b on the new position's row x (d,) at position p: its output row; the block's K and V row
    of every key/value head written to row p of the buffers. Every head at once: one product each for
    Q, K and V ((d,) by (heads, d, d_head)), one for the scores and one for the heads' outputs."""
    pre = prefix(b)
    eps, kind = cfg.eps, cfg.norm
    H, G, k = cfg.n_heads, cfg.n_kv_heads, cfg.d_head
    ln1, ln2 = (w.get("ln1_g"), w.get("ln1_b")), (w.get("ln2_g"), w.get("ln2_b"))
    first = rms_norm(x, ln1[0], eps, sw.norm) if kind == "rms" else norm(x, *ln1, eps, sw.norm)
    x_norm = rows[pre + "x_norm"] = first[-1]
    fused = _fused_qkv(w, cfg)
    if fused is not None:  # one product for every head's query, key and value
        row = x_norm @ fused
        key_value = row[H * k :].reshape(2, G, k)
        q, k_row, v_row = row[: H * k].reshape(H, k), key_value[0], key_value[1]
    else:
        q, k_row, v_row = (x_norm @ w[f"W_{c}"] for c in "QKV")  # (H, k), (G, k), (G, k): this row only
    if cfg.attn_bias:
        q, k_row, v_row = q + w["b_Q"], k_row + w["b_K"], v_row + w["b_V"]
    if cfg.positions == "rope":  # the row at position p turned as the full pass turns it
        rows.update({f"{pre}q_pre.{h + 1}": q[h] for h in range(H)})
        rows.update({f"{pre}k_pre.{g + 1}": k_row[g] for g in range(G)})
        if sw.positional_encoding:
            angles = ops.rope_angles(1, k, cfg.rope_theta, cfg.rope_scaling, start=p)  # (1, k/2)
            q, k_row = ops.rotate(q, angles), ops.rotate(k_row, angles)
    held.keys[b, :, p], held.values[b, :, p] = k_row, v_row
    keys, values = (
        held.keys[b, :, : p + 1],
        held.values[b, :, : p + 1],
    )  # (G, p + 1, k): cached rows, then this one
    # query head h reads key/value head h // group size: the queries grouped as (G, group size, k)
    s = (q.reshape(G, -1, k) @ keys.transpose(0, 2, 1) / np.sqrt(k)).reshape(H, p + 1)  # the mask blocks none
    a = ops.softmax(s)
    heads = (a.reshape(G, -1, p + 1) @ values).reshape(H, k)
    for h in range(H):
        if sw.is_ablated(b, h + 1):
            heads[h] = 0.0
        n = h + 1
        rows.update(
            {
                f"{pre}q.{n}": q[h],
                f"{pre}scores.{n}": s[h],
                f"{pre}attn.{n}": a[h],
                f"{pre}head.{n}": heads[h],
            }
        )
    for g in range(G):
        rows[f"{pre}k.{g + 1}"], rows[f"{pre}v.{g + 1}"] = k_row[g], v_row[g]
    mha = heads.reshape(-1) @ w["W_O"]
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
    return y
