"""run(): the forward pass, keeping every intermediate under a stable name with labelled axes.

Names (h = 1…H): ids, emb, pe, x, ln1.mean, ln1.var, x_norm, q.h, k.h, v.h, scores.h (before the mask),
mask (1 = may attend, 0 = blocked), attn.h, head.h, mha, x_mid, x_mid_norm, hidden_pre, hidden, ffn,
y, z, logits, probs, loss, grad_logits, logits_stepped, probs_stepped, loss_stepped.
A block's names carry its prefix, "blocks.<b>." (blocks.0.attn.2; see names.py); z is computed
from the last block's y.

run(..., reuse=trace) recomputes only what differs from an earlier trace of the same prompt: the tensors
it computes in four parts, in order (the embedding; each block; the head z, logits, probs; the loss and the
step after it), and a part is kept, the very same Tensor objects, when nothing it reads changed and no
part before it was recomputed. An edit of block b's weights or a head ablated in block b runs blocks b…
and the head; a row of E that the prompt does not use, or the final norm, runs the head only; a target or
learning rate runs the loss only. Every part computed reads exactly what a full run's would (the same
arrays, bit for bit), so the result is bit for bit a full run's (tests/model/test_recompute.py).

What GPT-2 adds, each when its ModelConfig switch is on (the chapter's model has none of them):
learned positions (pe = P[:T]), layer norms with gain and bias (x_norm = LN(x)·ln1_g + ln1_b, likewise
ln2 for x_mid_norm and lnf for z; post-norm puts ln1 after the first residual add and ln2 after the
second), and biases on Q, K, V (b_Q[h], …) and on the attention output (b_O). The tensor names stay
the same: x_norm is the norm's output, gain and bias applied.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from tinytui.model import ops
from tinytui.model.config import ModelConfig
from tinytui.model.names import BLOCK, POSITION_PARAM, prefix
from tinytui.model.params import Params
from tinytui.model.switches import Switches, defaults

DEFAULT_LR = 0.5


@dataclass(frozen=True)
class Axis:
    name: str  # "tokens", "dims", "heads", "k", "units", "vocab", "keys"
    labels: tuple[str, ...]


@dataclass(frozen=True)
class Tensor:
    name: str
    values: np.ndarray  # read-only
    axes: tuple[Axis, ...]  # one per dimension of values; () for a scalar

    def to_json(self) -> dict:
        return {
            "axes": [{"name": a.name, "labels": list(a.labels)} for a in self.axes],
            "values": _json_values(self.values),
        }


def _json_values(arr: np.ndarray):
    if arr.ndim == 0:
        return float(arr)
    return [_json_values(a) for a in arr]


class TensorMap(Mapping[str, np.ndarray]):
    """Named tensors: mapping access gives the array, .tensor() the labelled Tensor."""

    tensors: dict[str, Tensor]

    def __getitem__(self, name: str) -> np.ndarray:
        return self.tensors[name].values

    def __iter__(self) -> Iterator[str]:
        return iter(self.tensors)

    def __len__(self) -> int:
        return len(self.tensors)

    def tensor(self, name: str) -> Tensor:
        return self.tensors[name]


@dataclass(frozen=True)
class Trace(TensorMap):
    """Everything one forward pass computed. Mapping access gives the array; .tensor() the labels too."""

    cfg: ModelConfig
    prompt: tuple[str, ...]
    target: str
    switches: Switches
    lr: float
    tensors: dict[str, Tensor] = field(repr=False)
    # the weights it was run with (None: not known), so a later run can tell what changed since
    params: Params | None = field(default=None, repr=False, compare=False)

    @property
    def token_labels(self) -> tuple[str, ...]:
        return tuple(f"{p}:{tok}" for p, tok in enumerate(self.prompt))

    @property
    def prediction(self) -> str:
        return self.cfg.vocab[int(np.argmax(self["probs"]))]

    @property
    def loss(self) -> float:
        return float(self["loss"])

    def to_json(self) -> dict:
        return {
            "prompt": list(self.prompt),
            "target": self.target,
            "switches": self.switches.to_dict(),
            "lr": self.lr,
            "prediction": self.prediction,
            "tensors": {name: t.to_json() for name, t in self.tensors.items()},
        }


# The parts of a run, in order (see the module's docstring); a block b's part is BLOCKS + b.
EMBED, BLOCKS = 0, 1
HEAD_NAMES = ("z", "logits", "probs")
LOSS_NAMES = ("loss", "grad_logits", "logits_stepped", "probs_stepped", "loss_stepped")


def head_part(cfg: ModelConfig) -> int:
    return BLOCKS + cfg.n_blocks


def loss_part(cfg: ModelConfig) -> int:
    return BLOCKS + cfg.n_blocks + 1


def nothing_changed(cfg: ModelConfig) -> int:
    return BLOCKS + cfg.n_blocks + 2


def part_of(name: str, cfg: ModelConfig) -> int:
    """The part of a run that computes the tensor named name."""
    if name.startswith(BLOCK):
        return BLOCKS + int(name.split(".", 2)[1])
    if name in HEAD_NAMES:
        return head_part(cfg)
    if name in LOSS_NAMES:
        return loss_part(cfg)
    return EMBED


def first_stale(
    reuse: Trace, params: Params, prompt: tuple[str, ...], target: str, switches: Switches, lr: float
) -> int:
    """The first part of a run on these inputs whose tensors differ from reuse's: EMBED when nothing can
    be kept (another prompt or model, a switch every block reads, weights not known), nothing_changed()
    when every tensor would be the same."""
    cfg = params.cfg
    if reuse.params is None or reuse.prompt != prompt or (reuse.cfg is not cfg and reuse.cfg != cfg):
        return EMBED
    old = reuse.switches
    unablated = {"ablated_heads": frozenset(), "ablated": frozenset()}
    if replace(old, **unablated) != replace(switches, **unablated):
        return EMBED  # the mask, positions, norm, activation or residual: read from the embedding on
    start = nothing_changed(cfg)
    if old.ablated_heads != switches.ablated_heads:
        start = BLOCKS  # a head of every block
    for b, _ in old.ablated ^ switches.ablated:
        start = min(start, BLOCKS + b)
    ids = {cfg.token_id(t) for t in prompt}
    for name, cells in params.differences(reuse.params).items():
        start = min(start, _first_reader(name, cells, ids, len(prompt), cfg))
        if start == EMBED:
            return EMBED
    if target != reuse.target or lr != reuse.lr:
        start = min(start, loss_part(cfg))
    return start


def _first_reader(name: str, cells, ids: set[int], T: int, cfg: ModelConfig) -> int:
    """The first part that reads the changed cells of parameter name (cells None: the whole array)."""
    if name.startswith(BLOCK):
        return part_of(name, cfg)
    if name == "E":  # the prompt's rows are its embedding; every row is read by the logits
        if cells is None or any(index[0] in ids for index in cells):
            return EMBED
        return head_part(cfg)
    if name == POSITION_PARAM:  # only the prompt's positions are read
        if cells is None or any(index[0] < T for index in cells):
            return EMBED
        return nothing_changed(cfg)
    return head_part(cfg)  # the final norm's gain and bias


def run(
    params: Params,
    prompt: Sequence[str],
    target: str,
    switches: Switches | None = None,
    lr: float = DEFAULT_LR,
    reuse: Trace | None = None,
) -> Trace:
    """Every tensor of the forward pass, the loss and one SGD step's effect on it. With reuse (an earlier
    trace of these weights or others), the parts of it that these inputs would compute the same are kept
    as they are and only the rest is computed: the same tensors, bit for bit, as without it."""
    cfg = params.cfg
    switches = switches or defaults(cfg)
    prompt = tuple(prompt)
    lr = float(lr)
    if not prompt:
        raise ValueError("the prompt is empty")
    for tok in (*prompt, target):
        if not cfg.has_token(tok):
            raise ValueError(f"{tok!r} is not in the vocabulary")
    if cfg.learned_positions and len(prompt) > cfg.n_ctx:
        raise ValueError(f"{len(prompt)} tokens is longer than the model's {cfg.n_ctx} learned positions")
    start = EMBED if reuse is None else first_stale(reuse, params, prompt, target, switches, lr)
    if reuse is not None and start == nothing_changed(cfg):
        same = reuse.params is params and reuse.target == target and reuse.lr == lr
        return reuse if same else Trace(cfg, prompt, target, switches, lr, dict(reuse.tensors), params)
    kept: dict[int, list[tuple[str, Tensor]]] = {}
    if reuse is not None and start > EMBED:
        for name, tensor in reuse.tensors.items():
            part = part_of(name, cfg)
            if part < start:
                kept.setdefault(part, []).append((name, tensor))

    T = len(prompt)
    tokens = Axis("tokens", tuple(f"{p}:{tok}" for p, tok in enumerate(prompt)))
    keys = Axis("keys", tokens.labels)
    dims = Axis("dims", cfg.dims)
    k_axis = Axis("k", cfg.head_dim_labels())
    units = Axis("units", cfg.unit_labels())
    vocab = Axis("vocab", cfg.vocab)
    out: dict[str, Tensor] = {}

    def put(name: str, values, *axes: Axis) -> np.ndarray:
        arr = np.array(values, dtype=np.float64)
        arr.setflags(write=False)
        out[name] = Tensor(name, arr, axes)
        return arr

    def keep(part: int) -> None:
        out.update(kept.get(part, ()))

    if start > EMBED:
        keep(EMBED)
        x, allowed = out["x"].values, out["mask"].values
    else:
        ids = np.array([cfg.token_id(t) for t in prompt])
        put("ids", ids, tokens)
        emb = put("emb", params["E"][ids], tokens, dims)  # (T, d)
        pe = params["P"][:T] if cfg.learned_positions else ops.positional_encoding(T, cfg.d_model)
        if not switches.positional_encoding:
            pe = np.zeros_like(pe)
        put("pe", pe, tokens, dims)
        x = put("x", emb + pe, tokens, dims)  # (T, d)
        allowed = np.tril(np.ones((T, T))) if switches.causal_mask else np.ones((T, T))
        put("mask", allowed, tokens, keys)

    for b in range(cfg.n_blocks):
        if start > BLOCKS + b:
            keep(BLOCKS + b)
            x = out[prefix(b) + "y"].values
        else:
            w = params.block(b)
            x = _block(w, x, allowed, cfg, switches, b, put, (tokens, keys, dims, k_axis, units))

    if start > head_part(cfg):
        keep(head_part(cfg))
        logits = out["logits"].values
    else:
        z = ops.layer_norm(x[-1], cfg.eps)[0]  # (d,)
        if cfg.norm_affine:
            z = z * params["lnf_g"] + params["lnf_b"]
        put("z", z, dims)
        logits = put("logits", z @ params["E"].T, vocab)  # (V,)
        put("probs", ops.softmax(logits), vocab)

    t = cfg.token_id(target)
    loss, grad = ops.cross_entropy(logits, t)
    put("loss", loss)
    put("grad_logits", grad, vocab)
    stepped = put("logits_stepped", logits - lr * grad, vocab)
    put("probs_stepped", ops.softmax(stepped), vocab)
    put("loss_stepped", ops.cross_entropy(stepped, t)[0])
    return Trace(cfg, prompt, target, switches, lr, out, params)


def affine(x_hat: np.ndarray, w, which: str) -> np.ndarray:
    """x̂·g + b with the block's gain and bias of norm `which` ("ln1", "ln2"); x̂ itself when the
    model's norms have none (the chapter's: then nothing is computed, so its figures stay bit for bit)."""
    gain = w.get(which + "_g")
    return x_hat if gain is None else x_hat * gain + w[which + "_b"]


def _block(w, x, allowed, cfg: ModelConfig, sw: Switches, b: int, put, axes) -> np.ndarray:
    """One transformer block on the residual stream x (T, d); returns the new stream (T, d)."""
    tokens, keys, dims, k_axis, units = axes
    eps, pre = cfg.eps, prefix(b)  # pre: what every name of block b starts with
    if sw.norm == "pre":
        x_hat, mean, var = ops.layer_norm(x, eps)
        x_norm = affine(x_hat, w, "ln1")
    else:  # post-norm: the sublayer reads the raw stream
        x_norm, mean, var = x, x.mean(axis=-1), x.var(axis=-1)
    put(pre + "ln1.mean", mean, tokens)
    put(pre + "ln1.var", var, tokens)
    put(pre + "x_norm", x_norm, tokens, dims)

    scale = np.sqrt(cfg.d_head)
    mask = np.where(allowed > 0, 0.0, ops.NEG_INF)
    bias = cfg.attn_bias
    heads = []
    for h in range(cfg.n_heads):
        n = h + 1
        q, k, v = (x_norm @ w[f"W_{c}"][h] for c in "QKV")  # (T, k) each
        if bias:
            q, k, v = q + w["b_Q"][h], k + w["b_K"][h], v + w["b_V"][h]
        q = put(f"{pre}q.{n}", q, tokens, k_axis)
        k = put(f"{pre}k.{n}", k, tokens, k_axis)
        v = put(f"{pre}v.{n}", v, tokens, k_axis)
        s = put(f"{pre}scores.{n}", q @ k.T / scale, tokens, keys)  # (T, T)
        a = put(f"{pre}attn.{n}", ops.softmax(s + mask), tokens, keys)
        head = np.zeros_like(v) if sw.is_ablated(b, n) else a @ v
        heads.append(put(f"{pre}head.{n}", head, tokens, k_axis))
    mha = np.concatenate(heads, axis=-1) @ w["W_O"]
    if bias:
        mha = mha + w["b_O"]
    mha = put(pre + "mha", mha, tokens, dims)  # (T, d)
    x_mid = x + mha if sw.residual else mha
    if sw.norm == "post":
        x_mid = affine(ops.layer_norm(x_mid, eps)[0], w, "ln1")
    put(pre + "x_mid", x_mid, tokens, dims)

    f_in = affine(ops.layer_norm(x_mid, eps)[0], w, "ln2") if sw.norm == "pre" else x_mid
    put(pre + "x_mid_norm", f_in, tokens, dims)
    hidden_pre = put(pre + "hidden_pre", f_in @ w["W_1"] + w["b_1"], tokens, units)  # (T, ff)
    hidden = put(pre + "hidden", ops.ACTIVATIONS[sw.activation](hidden_pre), tokens, units)
    ffn = put(pre + "ffn", hidden @ w["W_2"] + w["b_2"], tokens, dims)  # (T, d)
    y = x_mid + ffn if sw.residual else ffn
    if sw.norm == "post":
        y = affine(ops.layer_norm(y, eps)[0], w, "ln2")
    return put(pre + "y", y, tokens, dims)
