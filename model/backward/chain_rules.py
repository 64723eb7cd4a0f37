"""The chain rule of each part of the forward pass, as model/backward/gradients.py runs it: a norm (with
GPT-2's gain and bias, or RMSNorm), a block in reverse (steps 12 … 5, with Llama's rotary positions,
grouped key/value heads and gated feed-forward when the model has them), the embedding lookup (steps
4 … 2), and the axes a parameter's gradient is labelled with. Each function reads the trace's stored
tensors as its cache and writes what it works out into g (trace name -> gradient) and pg (full parameter
name -> gradient); none cleans −0.0 (gradients.py does, once a part is finished). corpus.py reuses the
block and the norm.
"""

from __future__ import annotations

import numpy as np

from tinytui.model import ops
from tinytui.model.config import ModelConfig
from tinytui.model.names import prefix
from tinytui.model.params import Params
from tinytui.model.switches import Switches
from tinytui.model.trace import Axis, Trace


def param_axes(cfg: ModelConfig) -> dict[str, tuple[Axis, ...]]:
    """The labelled axes of a parameter's gradient, by its block-local name (E's: vocab × dims)."""
    dims, units = Axis("dims", cfg.dims), Axis("units", cfg.unit_labels())
    k = Axis("k", cfg.head_dim_labels())
    heads, kv_heads = Axis("heads", cfg.head_labels()), Axis("heads", cfg.kv_head_labels())
    head_rows = Axis("heads", tuple(f"h{h + 1}.{c}" for h in range(cfg.n_heads) for c in k.labels))
    per_head, per_kv_head = (heads, dims, k), (kv_heads, dims, k)
    vector = (dims,)
    return {
        "W_U": (dims, Axis("vocab", cfg.vocab)),
        "W_gate": (dims, units),
        "W_up": (dims, units),
        "W_down": (units, dims),
        "P": (Axis("positions", cfg.position_labels()), dims),
        "lnf_g": vector,
        "lnf_b": vector,
        "ln1_g": vector,
        "ln1_b": vector,
        "W_Q": per_head,
        "W_K": per_kv_head,
        "W_V": per_kv_head,
        "b_Q": (heads, k),
        "b_K": (kv_heads, k),
        "b_V": (kv_heads, k),
        "W_O": (head_rows, dims),
        "b_O": vector,
        "ln2_g": vector,
        "ln2_b": vector,
        "W_1": (dims, units),
        "b_1": (units,),
        "W_2": (units, dims),
        "b_2": vector,
    }


def norm_backward(grad_out, x, eps: float, w, which: str, pg, full: str, kind: str = "layer") -> np.ndarray:
    """∂L/∂x through out = LN(x)[·g + b] (kind "rms": RMS(x)[·g]), row by row. With a gain (w has which +
    "g"), its gradient and the bias's go into pg under full + "g"/"b" (summed over rows): ∂L/∂g = Σ
    ∂L/∂out ⊙ x̂, ∂L/∂b = Σ ∂L/∂out (RMSNorm has no b), and the norm's own backward reads ∂L/∂x̂ = ∂L/∂out
    ⊙ g. Without them this is the norm's backward alone."""
    backward = ops.NORM_BACKWARDS[kind]
    gain = w.get(which + "g")
    if gain is None:
        return backward(grad_out, x, eps)
    x_hat = ops.NORMS[kind](x, eps)
    rows = tuple(range(grad_out.ndim - 1))  # every axis but the last: a (T, d) gradient sums over T
    pg[full + "g"] = (grad_out * x_hat).sum(axis=rows)
    if kind == "layer":
        pg[full + "b"] = grad_out.sum(axis=rows)
    return backward(grad_out * gain, x, eps)


def embedding_backward(params: Params, trace: Trace, dx: np.ndarray, g, pg) -> np.ndarray:
    """Steps 4 … 2: x = emb + pe, emb_p = E[id_p]. Fills g["emb"] (and g["pe"], pg["P"] for learned
    positions) and returns E's lookup share: row id_p collects ∂L/∂emb_p (a token used twice, twice)."""
    cfg = params.cfg
    g["emb"] = dx  # 4: a sum passes its gradient to both terms; sinusoids are fixed, they take none
    if cfg.learned_positions:
        g["pe"] = dx
        d_p = np.zeros((cfg.n_ctx, cfg.d_model))
        if trace.switches.positional_encoding:  # 3: pe = P[:T], so row p of P collects ∂L/∂pe_p
            d_p[: dx.shape[0]] = dx
        pg["P"] = d_p
    # np.zeros, not zeros_like: the pages of the rows no prompt token uses are never touched (at GPT-2's
    # 50,257 × 768 that is 300 MB not written); 0.0 + x is never −0.0, so put() need not clean it
    e_lookup = np.zeros(params["E"].shape)
    np.add.at(e_lookup, trace["ids"].astype(int), dx)
    return e_lookup


def block_backward(w, trace, x_in, dy, cfg, sw: Switches, b: int, g, pg, weights: bool = True) -> np.ndarray:
    """One block in reverse: from ∂L/∂y to ∂L/∂(block input). Writes gradients into g and pg; those of
    the block's weights only with weights (else block_weight_gradients makes them when they are asked
    for: nothing further down the backward reads them). The norms' gains and biases are always made."""
    pre = full = prefix(b)  # its tensors' names and its weights' names start alike: "blocks.<b>."
    eps, kind, t = cfg.eps, cfg.norm, (lambda name: trace[pre + name])
    x_mid = t("x_mid")
    ln1, ln2 = full + "ln1_", full + "ln2_"  # where the norms' gain and bias gradients go, if they have them

    # 12: y = [LN₂](x' + ffn)  (post-norm puts the norm here; residual off drops x')
    if sw.norm == "post":
        raw = x_mid + t("ffn") if sw.residual else t("ffn")
        dy = norm_backward(dy, raw, eps, w, "ln2_", pg, ln2, kind)
    g[pre + "ffn"] = d_ffn = dy

    # 11: hidden = act(x'_n W_1 + b_1), or gated: act(x'_n W_gate) ⊙ x'_n W_up;  x'_n = LN₂(x') (pre-norm)
    d_fin = (_gated_backward if cfg.gated else _ffn_backward)(w, t, d_ffn, sw, pre, g)
    g[pre + "x_mid_norm"] = d_fin
    d_mid = norm_backward(d_fin, x_mid, eps, w, "ln2_", pg, ln2, kind) if sw.norm == "pre" else d_fin.copy()
    if sw.residual:
        d_mid += dy
    g[pre + "x_mid"] = d_mid

    # 10: x' = [LN₁](x + mha)
    if sw.norm == "post":
        raw = x_in + t("mha") if sw.residual else t("mha")
        d_mid = norm_backward(d_mid, raw, eps, w, "ln1_", pg, ln1, kind)
    g[pre + "mha"] = d_mha = d_mid

    # 9: mha = [head_1; …] W_O [+ b_O],  head_h = A_h V_g (zeros, and so constant, when ablated)
    dk = cfg.d_head
    # Wᵀ on the right (A @ W.T) is OpenBLAS's threaded path even for these small products, and on a busy
    # machine each waits for a second core (GPT-2 small: 40 of them a block, up to 0.5 s): W on the left of
    # a contiguous Aᵀ is its single-threaded small-matrix path, the same numbers bit for bit
    d_heads = np.ascontiguousarray(_times_w_t(d_mha, w["W_O"]))
    d_xn_t = np.zeros((cfg.d_model, d_mha.shape[0]))  # ∂L/∂x_n transposed, summed over heads and Q, K, V
    scale = np.sqrt(dk)
    # key/value head -> its gradient, summed over the query heads that read it
    d_keys: dict[int, np.ndarray] = {}
    d_values: dict[int, np.ndarray] = {}
    for h in range(cfg.n_heads):
        n, kv = h + 1, cfg.kv_head(h) + 1
        g[f"{pre}head.{n}"] = d_head = d_heads[:, h * dk : (h + 1) * dk]
        a, q, k, v = t(f"attn.{n}"), t(f"q.{n}"), t(f"k.{kv}"), t(f"v.{kv}")
        if sw.is_ablated(b, n):
            d_a, d_v = np.zeros_like(a), np.zeros_like(v)
        else:
            d_a, d_v = d_head @ v.T, a.T @ d_head
        g[f"{pre}attn.{n}"] = d_a
        # 8: A = softmax(S + M); M is a constant, so ∂L/∂S = ∂L/∂(S + M), exactly 0 where masked
        g[f"{pre}scores.{n}"] = d_s = ops.softmax_backward(d_a, a)
        # 7: S = Q Kᵀ / √d_k; a key/value head read by several query heads sums what each sends back
        g[f"{pre}q.{n}"] = d_q = d_s @ k / scale
        _add(d_keys, kv, d_s.T @ q / scale)
        _add(d_values, kv, d_v)
        # 6: Q = x_n W_Q[h] [+ b_Q[h]] (turned by position with RoPE), K and V likewise
        d_xn_t += w["W_Q"][h] @ np.ascontiguousarray(_unturned(g, pre, "q", n, d_q, cfg, sw).T)
        if (h + 1) % cfg.group_size == 0:  # the last query head of the group: K and V are complete
            g[f"{pre}k.{kv}"], g[f"{pre}v.{kv}"] = d_keys[kv], d_values[kv]
            d_k = _unturned(g, pre, "k", kv, d_keys[kv], cfg, sw)
            for c, d_out in (("K", d_k), ("V", d_values[kv])):
                d_xn_t += w["W_" + c][kv - 1] @ np.ascontiguousarray(d_out.T)
    g[pre + "x_norm"] = d_xn = np.ascontiguousarray(d_xn_t.T)

    # 5: x_n = LN₁(x) (pre-norm) or x itself (post-norm); the residual adds ∂L/∂x' straight through
    d_x = norm_backward(d_xn, x_in, eps, w, "ln1_", pg, ln1, kind) if sw.norm == "pre" else d_xn.copy()
    if sw.residual:
        d_x += d_mid
    if weights:
        block_weight_gradients(trace, b, cfg, g, pg)
    return d_x


def _ffn_backward(w, t, d_ffn, sw: Switches, pre: str, g) -> np.ndarray:
    """11 … 12 of the chapter's feed-forward: ffn = act(x'_n W_1 + b_1) W_2 + b_2. -> ∂L/∂x'_n"""
    g[pre + "hidden"] = d_ffn @ w["W_2"].T
    g[pre + "hidden_pre"] = d_pre = ops.ACTIVATION_BACKWARDS[sw.activation](
        g[pre + "hidden"], t("hidden_pre")
    )
    return d_pre @ w["W_1"].T


def _gated_backward(w, t, d_ffn, sw: Switches, pre: str, g) -> np.ndarray:
    """The gated feed-forward: ffn = (act(x'_n W_gate) ⊙ x'_n W_up) W_down. A product passes each factor
    the gradient times the other factor; x'_n feeds both projections, so its gradient is their sum."""
    g[pre + "hidden"] = d_hidden = d_ffn @ w["W_down"].T
    g[pre + "gate"] = d_gate = d_hidden * t("up")
    g[pre + "up"] = d_up = d_hidden * t("gate")
    g[pre + "gate_pre"] = d_gate_pre = ops.ACTIVATION_BACKWARDS[sw.activation](d_gate, t("gate_pre"))
    return d_gate_pre @ w["W_gate"].T + d_up @ w["W_up"].T


def _add(sums: dict, key: int, term: np.ndarray) -> None:
    """sums[key] += term, the first term kept as it is (so one query head per key gives its own bits)."""
    sums[key] = term if key not in sums else sums[key] + term


def _unturned(g, pre: str, which: str, n: int, d_turned: np.ndarray, cfg, sw: Switches) -> np.ndarray:
    """∂L/∂(the projection) from ∂L/∂q (or k). With RoPE, q = rotate(q_pre): a rotation's transpose is
    the turn back by the same angle, so ∂L/∂q_pre is ∂L/∂q turned back (q_pre itself with the encoding
    off). Written into g as q_pre.n / k_pre.n; without RoPE the projection is q itself."""
    if cfg.positions != "rope":
        return d_turned
    if sw.positional_encoding:
        T, k = d_turned.shape
        d_pre = ops.rotate_backward(d_turned, ops.rope_angles(T, k, cfg.rope_theta, cfg.rope_scaling))
    else:
        d_pre = d_turned.copy()
    g[f"{pre}{which}_pre.{n}"] = d_pre
    return d_pre


def _times_w_t(a: np.ndarray, w: np.ndarray) -> np.ndarray:
    """a @ wᵀ computed as (w @ aᵀ)ᵀ, aᵀ made contiguous (see block_backward's step 9)."""
    return (w @ np.ascontiguousarray(a.T)).T


def block_weight_gradients(trace, b: int, cfg, g, pg) -> None:
    """Block b's weights' gradients (W_2, W_1, W_O, W_Q, W_K, W_V and their biases; W_down, W_gate, W_up
    when gated) into pg, from the gradients of what each weight made (g, by trace name, as block_backward
    left them): each weight's is its input rows transposed times its output's gradient, each bias's the
    output's gradient summed."""
    pre = prefix(b)
    t = lambda name: trace[pre + name]  # noqa: E731
    d_ffn, d_mha = g[pre + "ffn"], g[pre + "mha"]
    if cfg.gated:
        pg[pre + "W_down"] = t("hidden").T @ d_ffn
        pg[pre + "W_gate"] = t("x_mid_norm").T @ g[pre + "gate_pre"]
        pg[pre + "W_up"] = t("x_mid_norm").T @ g[pre + "up"]
    else:
        d_pre = g[pre + "hidden_pre"]
        pg[pre + "W_2"] = t("hidden").T @ d_ffn  # 12
        pg[pre + "b_2"] = d_ffn.sum(axis=0)
        pg[pre + "W_1"] = t("x_mid_norm").T @ d_pre  # 11
        pg[pre + "b_1"] = d_pre.sum(axis=0)
    heads = np.concatenate([t(f"head.{h + 1}") for h in range(cfg.n_heads)], axis=-1)
    pg[pre + "W_O"] = heads.T @ d_mha  # 9
    if cfg.out_bias:
        pg[pre + "b_O"] = d_mha.sum(axis=0)
    x_norm = t("x_norm")
    rope = "_pre" if cfg.positions == "rope" else ""  # W_Q and W_K make q_pre and k_pre, turned after
    for c, count, made in (
        ("Q", cfg.n_heads, "q" + rope),
        ("K", cfg.n_kv_heads, "k" + rope),
        ("V", cfg.n_kv_heads, "v"),
    ):
        # 6: Q = x_n W_Q[h] [+ b_Q[h]], K and V likewise (one per key/value head)
        d_w = np.empty((count, cfg.d_model, cfg.d_head))  # every head's slice is set
        d_b = np.zeros((count, cfg.d_head))
        for h in range(count):
            d_out = g[f"{pre}{made}.{h + 1}"]
            d_w[h] = x_norm.T @ d_out
            d_b[h] = d_out.sum(axis=0)
        pg[pre + "W_" + c] = d_w
        if cfg.attn_bias:
            pg[pre + "b_" + c] = d_b
