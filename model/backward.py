"""Backpropagation by hand: the gradient of the loss for every parameter and every intermediate.

gradients(params, trace) walks the forward pass in reverse, reading the trace's stored tensors as its
cache. Each named tensor is a node: its gradient is how the loss would move if that one value were
nudged and everything after it recomputed.

Naming (names.py): a gradient is "grad." + the canonical name of what it is the gradient of —
"grad.x", "grad.blocks.0.q.1", "grad.logits", "grad.blocks.0.W_2", "grad.E". grad_name() turns any
parameter or tensor name into its gradient's name. E is used twice, so besides "grad.E" (the total)
there are its two shares,
"grad.E.lookup" (step 2, the embedding lookup) and "grad.E.unembed" (step 14, the tied unembedding).

What is exactly zero: scores at masked positions (the softmax cannot move them), hidden_pre at dead
ReLU units, everything upstream of an ablated head (its attn, scores, q, k, v, its W_Q, W_K, W_V and
its rows of W_O), and the lookup share of E for tokens not in the prompt. grad.attn above the
diagonal, grad.hidden at dead units and grad.head of an ablated head are in general NOT zero: the
loss would change if those values could change, but nothing flows back through them.

What GPT-2 adds (when the config has it): ∂L/∂P (rows 0…T−1 are ∂L/∂pe, the rest 0), each norm's
gain and bias (∂L/∂g = Σ_p ∂L/∂out ⊙ x̂, ∂L/∂b = Σ_p ∂L/∂out, and ∂L/∂x̂ = ∂L/∂out ⊙ g before LN's own
backward), the attention biases (∂L/∂b_Q[h] = Σ_p ∂L/∂q_h, …, ∂L/∂b_O = Σ_p ∂L/∂mha). With learned
positions "grad.pe" is there too.

Computed as far as asked (the trace is the forward's cache, as in llm.c): Gradients(params, trace)
computes nothing until a gradient is read, and then only the parts of the backward that lead to it, in
order from the loss down, each part once: ∂L/∂ℓ; ∂L/∂z; E's unembedding share (GPT-2: a 50,257 × 768
outer product, so only when it is asked for); the final norm; each block, from the last, and apart from
it the gradients of its weights (nothing further down reads them); the embedding; E's total. Reading
block 12's gradients of GPT-2 costs the loss, ∂L/∂z, the final norm and one block, not the 124 M weight
gradients. gradients(params, trace) computes everything at once: each value is the same, bit for bit,
whatever was asked first (tests/model/test_lazy_gradients.py).

backward_rules.py holds the chain rule of each part; backward_stages.py the table of the backward walk
(steps 15 → 2), re-exported here.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from tinytui.model.backward_rows import e_rows, unembed_share
from tinytui.model.backward_rules import (
    block_backward,
    block_weight_gradients,
    embedding_backward,
    norm_backward,
    param_axes,
)
from tinytui.model.backward_stages import (  # re-exported: callers import the walk from here
    BACKWARD_BY_NUMBER,
    BACKWARD_STAGES,
    BackwardStage,
    backward_stage_for,
    backward_stages,
)
from tinytui.model.config import ModelConfig
from tinytui.model.names import FINAL_NORM_PARAMS, grad, prefix, split
from tinytui.model.params import Params, param_shapes
from tinytui.model.trace import Axis, Tensor, TensorMap, Trace

_block_backward = block_backward  # corpus.py's name for it

PREFIX = "grad."
E_SHARES = ("grad.E.lookup", "grad.E.unembed")  # E is read twice: its gradient has a share of each

grad_name = grad  # the name of the gradient of a tensor or parameter (names.grad)

# A block's tensors that get a gradient inside the block (its y gets one from the part above it)
_BLOCK_TENSORS = ("ffn", "hidden", "hidden_pre", "x_mid_norm", "x_mid", "mha", "x_norm")
_HEAD_TENSORS = ("head", "attn", "v", "scores", "q", "k")
# A block's weights whose gradients nothing further down reads: a part of their own, after the block's
_MATRICES = ("W_2", "b_2", "W_1", "b_1", "W_O", "b_O", "W_Q", "W_K", "W_V", "b_Q", "b_K", "b_V")


@dataclass(frozen=True)
class _Part:
    """A piece of the backward computed at once: the parts it reads, the gradients it gives, its method."""

    key: str
    after: tuple[str, ...]
    names: tuple[str, ...]
    run: str
    block: int | None = None


def _parts(cfg: ModelConfig) -> tuple[_Part, ...]:
    """The backward's parts in the order they can be computed (each after the ones it reads)."""
    shapes, n = param_shapes(cfg), cfg.n_blocks
    final_norm = tuple(PREFIX + p for p in FINAL_NORM_PARAMS if p in shapes)
    parts = [
        _Part("logits", (), ("grad.logits",), "_loss"),
        _Part("z", ("logits",), ("grad.z",), "_through_E"),
        _Part("E.unembed", ("logits",), ("grad.E.unembed",), "_unembed_share"),
        _Part("final", ("z",), (*final_norm, PREFIX + prefix(n - 1) + "y"), "_final_norm"),
    ]
    above = "final"
    for b in reversed(range(n)):
        pre = PREFIX + prefix(b)
        heads = (f"{pre}{t}.{h}" for t in _HEAD_TENSORS for h in range(1, cfg.n_heads + 1))
        weights = tuple(PREFIX + p for p in shapes if p.startswith(prefix(b)))
        matrices = tuple(w for w in weights if split(w.removeprefix(PREFIX))[1] in _MATRICES)
        norms = tuple(w for w in weights if w not in matrices)  # their gains and biases (GPT-2)
        below = PREFIX + (prefix(b - 1) + "y" if b else "x")  # what the block hands on
        names = (*(pre + t for t in _BLOCK_TENSORS), *heads, *norms, below)
        parts.append(_Part(f"block.{b}", (above,), names, "_block", b))
        parts.append(_Part(f"weights.{b}", (f"block.{b}",), matrices, "_block_weights", b))
        above = f"block.{b}"
    learned = ("grad.pe", "grad.P") if cfg.learned_positions else ()
    parts.append(_Part("embed", (above,), ("grad.emb", *learned, "grad.E.lookup"), "_embedding"))
    parts.append(_Part("E", ("embed", "logits"), ("grad.E",), "_E_total"))
    return tuple(parts)


class Gradients(TensorMap):
    """dL/d(everything) for one trace, each part computed when first read. Mapping access by gradient
    name gives a read-only array; iterating, len() and `in` list the names without computing anything;
    .tensors (and to_json, for_params) computes everything."""

    def __init__(self, params: Params, trace: Trace):
        if trace.cfg != params.cfg:
            raise ValueError("the trace was computed for a different model shape")
        self.cfg: ModelConfig = params.cfg
        self.loss: float = trace.loss
        self._params, self._trace = params, trace
        self._parts = {p.key: p for p in _parts(self.cfg)}
        self._part_of = {name: p.key for p in self._parts.values() for name in p.names}
        after_e = (grad_name(p) for p in param_shapes(self.cfg) if p != "E")  # the order Params lists them
        in_trace = (PREFIX + n for n in trace if PREFIX + n in self._part_of)  # so the JSON reads forward
        self._names = ("grad.E", *E_SHARES, *after_e, *in_trace)
        self._axes = param_axes(self.cfg)
        self._done: dict[str, Tensor] = {}
        self._finished: set[str] = set()
        self._passed: dict[str, np.ndarray] = {}  # trace name -> its gradient as the next part reads it
        self._lock = threading.RLock()  # a part is computed once even if two threads ask

    # ---- the mapping ---------------------------------------------------------------------------------
    def __getitem__(self, name: str) -> np.ndarray:
        return self.tensor(name).values

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __contains__(self, name: object) -> bool:
        return name in self._part_of

    def tensor(self, name: str) -> Tensor:
        found = self._done.get(name)
        if found is None:
            self._finish(self._part_of[name])  # KeyError for a name this model has no gradient of
            found = self._done[name]
        return found

    @property
    def tensors(self) -> dict[str, Tensor]:
        """Every gradient, in the order the names list them (computes whatever is not yet)."""
        self.everything()
        return {name: self._done[name] for name in self._names}

    def everything(self) -> Gradients:
        """Compute every part not yet computed; self, for gradients(params, trace)."""
        for key in self._parts:
            self._finish(key)
        return self

    def computed(self) -> tuple[str, ...]:
        """The gradients computed so far (in the names' order): what the readers so far have needed."""
        return tuple(name for name in self._names if name in self._done)

    def rows(self, name: str, rows) -> np.ndarray:  # type: ignore[no-untyped-def]
        """These rows of a 2-d gradient, the same numbers as self[name][rows]. E's gradient and its
        unembedding share, when not yet computed, are made for these rows only (backward_rows.py): at
        GPT-2 each whole table is 300 MB, while the overlay and the inspector read some 64 rows."""
        return e_rows(self, name, np.asarray(rows, dtype=int))

    def axes(self, name: str) -> tuple[Axis, ...]:
        """A gradient's axes, without computing it."""
        if name not in self._part_of:
            raise KeyError(name)
        return self._axes_of(name)

    def param(self, name: str) -> np.ndarray:
        """The gradient of a parameter given by its full ('blocks.0.W_2') or short ('W_2') name."""
        return self[grad_name(name)]

    def for_params(self) -> dict[str, np.ndarray]:
        """Full parameter name -> its gradient, the shape Params.with_arrays takes."""
        return {name: self.param(name) for name in param_shapes(self.cfg)}

    def to_json(self) -> dict:
        return {name: t.to_json() for name, t in self.tensors.items()}

    # ---- computing the parts -------------------------------------------------------------------------
    def _finish(self, key: str) -> None:
        with self._lock:
            if key in self._finished:
                return
            part = self._parts[key]
            for before in part.after:
                self._finish(before)
            run = getattr(self, part.run)
            run() if part.block is None else run(part.block)
            self._finished.add(key)

    def _put(self, name: str, arr: np.ndarray, clean: bool = True) -> None:
        """Keep a finished gradient. No −0.0 (−0.0 + 0.0 is +0.0, all else unchanged): a blocked gradient
        reads 0. In place where the array is this pass's own and no later part reads it (GPT-2's E
        shares are 300 MB each), else on a copy; not at all for an array made by adding to +0.0
        (clean=False), which cannot hold −0.0."""
        if not clean:
            pass
        elif arr.flags.writeable:
            np.add(arr, 0.0, out=arr)
        else:
            arr = arr + 0.0
        arr.setflags(write=False)
        self._done[name] = Tensor(name, arr, self._axes_of(name))

    def _hand_on(self, name: str, arr: np.ndarray) -> None:
        """A gradient the next part reads: that part gets it as computed, the mapping a cleaned copy."""
        self._passed[name] = arr
        self._put(PREFIX + name, arr + 0.0)

    def _put_all(self, g: dict[str, np.ndarray], pg: dict[str, np.ndarray]) -> None:
        for name, arr in (*g.items(), *pg.items()):  # trace names and full parameter names alike
            self._put(PREFIX + name, arr)

    def _axes_of(self, name: str) -> tuple[Axis, ...]:
        of = name.removeprefix(PREFIX)
        if of == "E" or name in E_SHARES:
            return (Axis("vocab", self.cfg.vocab), Axis("dims", self.cfg.dims))
        if of in self._params:
            return self._axes[split(of)[1]]
        return self._trace.tensor(of).axes

    def _loss(self) -> None:
        """15: L = −log softmax(ℓ)[t]  ->  ∂L/∂ℓ = p − onehot(t)"""
        onehot = np.zeros(self.cfg.n_vocab)
        onehot[self.cfg.token_id(self._trace.target)] = 1.0
        self._hand_on("logits", self._trace["probs"] - onehot)

    def _through_E(self) -> None:
        """14: ℓ = z Eᵀ  ->  ∂L/∂z = ∂L/∂ℓ E"""
        self._hand_on("z", self._passed["logits"] @ self._params["E"])

    def _unembed_share(self) -> None:
        """14: ∂L/∂E (unembedding share) = ∂L/∂ℓ ⊗ z"""
        self._put("grad.E.unembed", unembed_share(self._passed["logits"], self._trace["z"]), clean=False)

    def _final_norm(self) -> None:
        """13: z = LN(y_T)[·g + b] of the last block; the other rows of y do not reach the loss directly"""
        last_y = prefix(self.cfg.n_blocks - 1) + "y"
        y, pg = self._trace[last_y], {}
        dy = np.zeros_like(y)
        dy[-1] = norm_backward(self._passed["z"], y[-1], self.cfg.eps, self._params, "lnf_", pg, "lnf_")
        self._put_all({}, pg)
        self._hand_on(last_y, dy)

    def _block(self, b: int) -> None:
        """12 … 5 of block b, from ∂L/∂y to the gradient of the block's input."""
        trace, g, pg = self._trace, {}, {}
        x_in = trace["x"] if b == 0 else trace[prefix(b - 1) + "y"]
        dy = self._passed[prefix(b) + "y"]
        w, sw = self._params.block(b), trace.switches
        d_x = block_backward(w, trace, x_in, dy, self.cfg, sw, b, g, pg, weights=False)
        self._put_all(g, pg)  # after the block: its rules read what they computed, as computed
        self._hand_on(prefix(b - 1) + "y" if b else "x", d_x)

    def _block_weights(self, b: int) -> None:
        """Block b's weight gradients, from its tensors' gradients as kept. Those are cleaned of −0.0, which
        changes no bit here: a sum of products that differ only in the sign of a zero differs at most in
        the sign of a zero result, and that is cleaned too."""
        pre, pg = prefix(b), {}
        tensors = (
            *_BLOCK_TENSORS,
            *(f"{t}.{h}" for t in _HEAD_TENSORS for h in range(1, self.cfg.n_heads + 1)),
        )
        g = {pre + t: self._done[PREFIX + pre + t].values for t in tensors}
        block_weight_gradients(self._trace, b, self.cfg, g, pg)
        self._put_all({}, pg)

    def _embedding(self) -> None:
        """4 … 2: emb and pe (and P, learned) get ∂L/∂x; E's lookup share collects it row by token."""
        g, pg = {}, {}
        e_lookup = embedding_backward(self._params, self._trace, self._passed["x"], g, pg)
        self._put_all(g, pg)
        self._put("grad.E.lookup", e_lookup, clean=False)  # np.zeros + rows: 0.0 + x is never −0.0

    def _E_total(self) -> None:
        """2: ∂L/∂E = lookup share + unembedding share, added only in the rows of the prompt's tokens: in
        every other row the lookup share is +0.0, and +0.0 + u is u (the unembedding share, cleaned of
        −0.0). The same bits as adding the two tables whole, without a 300 MB sum; and without keeping
        the unembedding share when nothing asked for it (the overlay at step 14 shows only the total)."""
        lookup = self._done["grad.E.lookup"].values
        unembed = self._done.get("grad.E.unembed")
        if unembed is not None:
            total = unembed.values.copy()
        else:  # made as _unembed_share makes it
            total = unembed_share(self._passed["logits"], self._trace["z"])
        rows = np.unique(self._trace["ids"].astype(int))
        total[rows] = lookup[rows] + total[rows]
        self._put("grad.E", total, clean=False)


def gradients(params: Params, trace: Trace) -> Gradients:
    """Backpropagate trace's loss through everything. trace must be run(params, …): its tensors are the
    forward cache. Gradients(params, trace) is the same, computed only as far as it is read."""
    return Gradients(params, trace).everything()


__all__ = [
    "BACKWARD_BY_NUMBER",
    "BACKWARD_STAGES",
    "E_SHARES",
    "PREFIX",
    "BackwardStage",
    "Gradients",
    "backward_stage_for",
    "backward_stages",
    "embedding_backward",
    "grad_name",
    "gradients",
    "norm_backward",
]
