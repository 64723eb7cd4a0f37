"""run(): the forward pass, keeping every intermediate under a stable name with labelled axes.

Names (h = 1…H): ids, emb, pe, x, ln1.mean, ln1.var, x_norm, q.h, k.h, v.h, scores.h (before the mask),
mask (1 = may attend, 0 = blocked), attn.h, head.h, mha, x_mid, x_mid_norm, hidden_pre, hidden, ffn,
y, z, logits, probs, loss, grad_logits, logits_stepped, probs_stepped, loss_stepped.
A block's names carry its prefix, "blocks.<b>." (blocks.0.attn.2; see names.py); z is computed
from the last block's y.

run(..., reuse=trace) recomputes only what differs from an earlier trace of the same prompt, in two
grains. Its four parts, in order (the embedding; each block; the head z, logits, probs; the loss and
the step after it), are kept whole, the very same Tensor objects, when nothing they read changed and no
part before them was recomputed: an edit of block b's weights or a head ablated in block b runs blocks
b… and the head; a row of E that the prompt does not use, or the final norm, runs the head only; a
target or learning rate runs the loss only. Inside a part that runs, a tensor is kept too when its
inputs are the very tensors it was computed from and the weights and switches it reads are the same
(_Same): a mask toggled keeps the norms, queries, keys, values and scores; an edit of W_O keeps its
block's attention. Every tensor computed reads exactly what a full run's would (the same arrays, bit
for bit), so the result is bit for bit a full run's (tests/model/test_recompute.py).

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
from tinytui.model.names import BLOCK, FINAL_NORM_PARAMS, POSITION_PARAM, in_block, prefix
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
    same = _Same.of(reuse, params, prompt, target, switches, lr)
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

    def take(names: tuple[str, ...], inputs: tuple[str, ...], weights=(), switches=()) -> bool:
        """Whether names were taken as they are from reuse (see _Same), into out."""
        return same is not None and same.take(out, names, inputs, weights, switches)

    if start > EMBED:
        keep(EMBED)
    else:
        ids = np.array([cfg.token_id(t) for t in prompt])
        if not take(("ids",), ()):
            put("ids", ids, tokens)
        if not take(("emb",), ("ids",), (PROMPT_ROWS,)):
            put("emb", params["E"][ids], tokens, dims)  # (T, d)
        if not take(("pe",), (), (PROMPT_POSITIONS,), ("positional_encoding",)):
            pe = params["P"][:T] if cfg.learned_positions else ops.positional_encoding(T, cfg.d_model)
            put("pe", pe if switches.positional_encoding else np.zeros_like(pe), tokens, dims)
        if not take(("x",), ("emb", "pe")):
            put("x", out["emb"].values + out["pe"].values, tokens, dims)  # (T, d)
        if not take(("mask",), (), (), ("causal_mask",)):
            put("mask", np.tril(np.ones((T, T))) if switches.causal_mask else np.ones((T, T)), tokens, keys)

    stream = "x"  # the name of the residual stream into the next block
    for b in range(cfg.n_blocks):
        if start > BLOCKS + b:
            keep(BLOCKS + b)
        else:
            w = params.block(b)
            _block(w, stream, cfg, switches, b, put, take, out, (tokens, keys, dims, k_axis, units))
        stream = prefix(b) + "y"

    if start > head_part(cfg):
        keep(head_part(cfg))
    else:
        if not take(("z",), (stream,), FINAL_NORM_PARAMS):
            z = ops.layer_norm(out[stream].values[-1], cfg.eps)[0]  # (d,)
            if cfg.norm_affine:
                z = z * params["lnf_g"] + params["lnf_b"]
            put("z", z, dims)
        if not take(("logits", "probs"), ("z",), ("E",)):
            logits = put("logits", out["z"].values @ params["E"].T, vocab)  # (V,)
            put("probs", ops.softmax(logits), vocab)

    logits = out["logits"].values
    if not take(LOSS_NAMES, ("logits",), (), (TARGET_AND_LR,)):
        t = cfg.token_id(target)
        loss, grad = ops.cross_entropy(logits, t)
        put("loss", loss)
        put("grad_logits", grad, vocab)
        stepped = put("logits_stepped", logits - lr * grad, vocab)
        put("probs_stepped", ops.softmax(stepped), vocab)
        put("loss_stepped", ops.cross_entropy(stepped, t)[0])
    return Trace(cfg, prompt, target, switches, lr, out, params)


# what the embedding reads of E and P: the prompt's rows and positions (a change elsewhere is not read)
PROMPT_ROWS, PROMPT_POSITIONS = "E: the prompt's rows", "P: the prompt's positions"
TARGET_AND_LR = "the target and the learning rate"  # what the loss reads besides the logits


class _Same:
    """What a run may take as it is from an earlier trace of the same prompt and model: a tensor whose
    inputs are the very tensors the earlier run computed it from, whose weights read the same, and whose
    switches say the same, would be computed again bit for bit (the same arithmetic on the same arrays).
    A mask toggled keeps the embedding, the norms, queries, keys, values and scores; an edit of W_O keeps
    its block's attention."""

    def __init__(self, old: Trace, changed: set[str], switches: Switches, same_loss: bool):
        self.old = old.tensors
        self.changed = changed  # weight names that may read differently (and PROMPT_ROWS, …)
        self.before, self.now = old.switches, switches
        self.same_loss = same_loss  # the target and the learning rate

    @classmethod
    def of(
        cls,
        old: Trace | None,
        params: Params,
        prompt: tuple[str, ...],
        target: str,
        switches: Switches,
        lr: float,
    ) -> _Same | None:
        """What can be taken from old for a run on these inputs (None: nothing, another prompt or model)."""
        if old is None or old.params is None or old.prompt != prompt:
            return None
        cfg = params.cfg
        if old.cfg is not cfg and old.cfg != cfg:
            return None
        differences = params.differences(old.params)
        changed = set(differences)
        ids = {cfg.token_id(t) for t in prompt}
        for name, read_as in (("E", PROMPT_ROWS), (POSITION_PARAM, PROMPT_POSITIONS)):
            if name in differences and _first_reader(name, differences[name], ids, len(prompt), cfg) == EMBED:
                changed.add(read_as)
        return cls(old, changed, switches, old.target == target and old.lr == lr)

    def switch(self, name) -> bool:
        """Whether a switch says the same in both runs (name: a Switches field, TARGET_AND_LR, or a
        (block, head) pair: whether that head is ablated)."""
        if name == TARGET_AND_LR:
            return self.same_loss
        if isinstance(name, tuple):
            return self.before.is_ablated(*name) == self.now.is_ablated(*name)
        return getattr(self.before, name) == getattr(self.now, name)

    def take(self, out: dict[str, Tensor], names, inputs, weights, switches) -> bool:
        """Put the earlier run's tensors named names into out when they can be taken as they are."""
        if any(w in self.changed for w in weights) or not all(self.switch(n) for n in switches):
            return False
        old = self.old
        if any(i not in old or out.get(i) is not old[i] for i in inputs):
            return False
        if any(n not in old for n in names):
            return False
        for n in names:
            out[n] = old[n]
        return True


def affine(x_hat: np.ndarray, w, which: str) -> np.ndarray:
    """x̂·g + b with the block's gain and bias of norm `which` ("ln1", "ln2"); x̂ itself when the
    model's norms have none (the chapter's: then nothing is computed, so its figures stay bit for bit)."""
    gain = w.get(which + "_g")
    return x_hat if gain is None else x_hat * gain + w[which + "_b"]


def _block(w, stream: str, cfg: ModelConfig, sw: Switches, b: int, put, take, out, axes) -> None:
    """One transformer block on the residual stream out[stream] (T, d), putting block b's tensors; what
    take finds unchanged since the earlier run (its inputs, weights and switches the same) is kept."""
    tokens, keys, dims, k_axis, units = axes
    eps, pre = cfg.eps, prefix(b)  # pre: what every name of block b starts with

    def weights(*names: str) -> tuple[str, ...]:
        return tuple(in_block(b, n) for n in names)

    x = out[stream].values
    ln1 = weights("ln1_g", "ln1_b")
    if not take((pre + "ln1.mean", pre + "ln1.var", pre + "x_norm"), (stream,), ln1, ("norm",)):
        if sw.norm == "pre":
            x_hat, mean, var = ops.layer_norm(x, eps)
            x_norm = affine(x_hat, w, "ln1")
        else:  # post-norm: the sublayer reads the raw stream
            x_norm, mean, var = x, x.mean(axis=-1), x.var(axis=-1)
        put(pre + "ln1.mean", mean, tokens)
        put(pre + "ln1.var", var, tokens)
        put(pre + "x_norm", x_norm, tokens, dims)
    x_norm = out[pre + "x_norm"].values

    scale = np.sqrt(cfg.d_head)
    bias = cfg.attn_bias
    mask = None
    heads = []
    for h in range(cfg.n_heads):
        n = h + 1
        for c in "QKV":  # (T, k) each
            name = f"{pre}{c.lower()}.{n}"
            if not take((name,), (pre + "x_norm",), weights(f"W_{c}", f"b_{c}")):
                a = x_norm @ w[f"W_{c}"][h]
                put(name, a + w[f"b_{c}"][h] if bias else a, tokens, k_axis)
        q, k, v = (out[f"{pre}{c}.{n}"].values for c in "qkv")
        if not take((f"{pre}scores.{n}",), (f"{pre}q.{n}", f"{pre}k.{n}")):
            put(f"{pre}scores.{n}", q @ k.T / scale, tokens, keys)  # (T, T)
        if not take((f"{pre}attn.{n}",), (f"{pre}scores.{n}", "mask")):
            if mask is None:
                mask = np.where(out["mask"].values > 0, 0.0, ops.NEG_INF)
            put(f"{pre}attn.{n}", ops.softmax(out[f"{pre}scores.{n}"].values + mask), tokens, keys)
        if not take((f"{pre}head.{n}",), (f"{pre}attn.{n}", f"{pre}v.{n}"), (), ((b, n),)):
            head = np.zeros_like(v) if sw.is_ablated(b, n) else out[f"{pre}attn.{n}"].values @ v
            put(f"{pre}head.{n}", head, tokens, k_axis)
        heads.append(pre + f"head.{n}")
    if not take((pre + "mha",), tuple(heads), weights("W_O", "b_O")):
        mha = np.concatenate([out[h].values for h in heads], axis=-1) @ w["W_O"]
        put(pre + "mha", mha + w["b_O"] if bias else mha, tokens, dims)  # (T, d)
    if not take((pre + "x_mid",), (stream, pre + "mha"), ln1, ("residual", "norm")):
        mha = out[pre + "mha"].values
        x_mid = x + mha if sw.residual else mha
        if sw.norm == "post":
            x_mid = affine(ops.layer_norm(x_mid, eps)[0], w, "ln1")
        put(pre + "x_mid", x_mid, tokens, dims)
    x_mid = out[pre + "x_mid"].values

    ln2 = weights("ln2_g", "ln2_b")
    if not take((pre + "x_mid_norm",), (pre + "x_mid",), ln2, ("norm",)):
        f_in = affine(ops.layer_norm(x_mid, eps)[0], w, "ln2") if sw.norm == "pre" else x_mid
        put(pre + "x_mid_norm", f_in, tokens, dims)
    if not take((pre + "hidden_pre",), (pre + "x_mid_norm",), weights("W_1", "b_1")):
        f_in = out[pre + "x_mid_norm"].values
        put(pre + "hidden_pre", f_in @ w["W_1"] + w["b_1"], tokens, units)  # (T, ff)
    if not take((pre + "hidden",), (pre + "hidden_pre",), (), ("activation",)):
        put(pre + "hidden", ops.ACTIVATIONS[sw.activation](out[pre + "hidden_pre"].values), tokens, units)
    if not take((pre + "ffn",), (pre + "hidden",), weights("W_2", "b_2")):
        put(pre + "ffn", out[pre + "hidden"].values @ w["W_2"] + w["b_2"], tokens, dims)  # (T, d)
    if not take((pre + "y",), (pre + "x_mid", pre + "ffn"), ln2, ("residual", "norm")):
        ffn = out[pre + "ffn"].values
        y = x_mid + ffn if sw.residual else ffn
        if sw.norm == "post":
            y = affine(ops.layer_norm(y, eps)[0], w, "ln2")
        put(pre + "y", y, tokens, dims)
