"""The backward's parts: which gradients each part gives, what it reads first, and how it is computed.

parts(trace) lists them in an order they can be computed in, each after the parts it reads: ∂L/∂ℓ; ∂L/∂z;
E's unembedding share; the final norm; each block from the last, with the gradients of its weights as a
part of their own (nothing further down reads them); the embedding; E's total. BackwardParts is the
mixin of Gradients (gradients.py) that computes one part from the trace (the forward's cache, as in
llm.c) and keeps what it gives; chain_rules.py holds the chain rule each part applies.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tinytui.model.backward.chain_rules import (
    block_backward,
    block_weight_gradients,
    embedding_backward,
    norm_backward,
)
from tinytui.model.backward.rows import unembed_share
from tinytui.model.config import ModelConfig
from tinytui.model.names import FINAL_NORM_PARAMS, GRAD, UNEMBED_PARAM, prefix, split
from tinytui.model.params import Params, param_shapes
from tinytui.model.trace import Axis, Tensor, Trace

E_SHARES = ("grad.E.lookup", "grad.E.unembed")  # E is read twice: its gradient has a share of each


def e_shares(cfg: ModelConfig) -> tuple[str, ...]:
    """E's shares: the lookup's, and the unembedding's when E is the unembedding too (tied)."""
    return E_SHARES if cfg.tied else E_SHARES[:1]


# A block's weights whose gradients nothing further down reads: a part of their own, after the block's
_MATRICES: tuple[str, ...] = ("W_2", "b_2", "W_1", "b_1", "W_O", "b_O", "W_Q", "W_K", "W_V", "b_Q", "b_K")
_MATRICES += ("b_V", "W_down", "W_gate", "W_up")


def block_tensors(cfg: ModelConfig) -> tuple[str, ...]:
    """A block's tensors that get a gradient inside the block (its y gets one from the part above it),
    by local name: the feed-forward's, the attention's, one per head (k and v: per key/value head)."""
    ffn = ("ffn", "hidden", "gate", "up", "gate_pre") if cfg.gated else ("ffn", "hidden", "hidden_pre")
    queries, kv = range(1, cfg.n_heads + 1), range(1, cfg.n_kv_heads + 1)
    rope = cfg.positions == "rope"
    per_head = (
        ("head", queries),
        ("attn", queries),
        ("v", kv),
        ("scores", queries),
        ("q", queries),
        ("k", kv),
        *((("q_pre", queries), ("k_pre", kv)) if rope else ()),
    )
    heads = (f"{t}.{h}" for t, which in per_head for h in which)
    return (*ffn, "x_mid_norm", "x_mid", "mha", "x_norm", *heads)


@dataclass(frozen=True)
class Part:
    """A piece of the backward computed at once: the parts it reads, the gradients it gives, its method."""

    key: str
    after: tuple[str, ...]
    names: tuple[str, ...]
    run: str
    block: int | None = None


def parts(trace: Trace) -> tuple[Part, ...]:
    """The backward's parts of a run in the order they can be computed (each after the ones it reads).
    The stream each block hands its gradient on to is the one the forward passed it (Trace.stream_into)."""
    cfg = trace.cfg
    shapes, n = param_shapes(cfg), cfg.n_blocks
    final_norm = tuple(GRAD + p for p in FINAL_NORM_PARAMS if p in shapes)
    unembedding = (
        Part("E.unembed", ("logits",), ("grad.E.unembed",), "_unembed_share")
        if cfg.tied
        else Part("W_U", ("logits",), (GRAD + UNEMBED_PARAM,), "_unembed_matrix")
    )
    found = [
        Part("logits", (), ("grad.logits",), "_loss"),
        Part("z", ("logits",), ("grad.z",), "_through_E"),
        unembedding,
        Part("final", ("z",), (*final_norm, GRAD + trace.stream_into()), "_final_norm"),
    ]
    above = "final"
    for b in reversed(range(n)):
        pre = GRAD + prefix(b)
        weights = tuple(GRAD + p for p in shapes if p.startswith(prefix(b)))
        matrices = tuple(w for w in weights if split(w.removeprefix(GRAD))[1] in _MATRICES)
        norms = tuple(w for w in weights if w not in matrices)  # their gains and biases (GPT-2)
        below = GRAD + trace.stream_into(b)  # what the block hands on
        names = (*(pre + t for t in block_tensors(cfg)), *norms, below)
        found.append(Part(f"block.{b}", (above,), names, "_block", b))
        found.append(Part(f"weights.{b}", (f"block.{b}",), matrices, "_block_weights", b))
        above = f"block.{b}"
    learned = ("grad.pe", "grad.P") if cfg.learned_positions else ()
    found.append(Part("embed", (above,), ("grad.emb", *learned, "grad.E.lookup"), "_embedding"))
    found.append(Part("E", ("embed", "logits"), ("grad.E",), "_E_total"))
    return tuple(found)


class BackwardParts:
    """Gradients' computing of each part (the method a Part names) and keeping of what a part gives.

    Gradients.__init__ sets what these read: the model's cfg, params and trace, the parameters' axes,
    _done (gradient name -> its finished Tensor) and _passed (trace name -> its gradient as computed)."""

    cfg: ModelConfig
    _params: Params
    _trace: Trace
    _axes: dict[str, tuple[Axis, ...]]
    _done: dict[str, Tensor]
    _passed: dict[str, np.ndarray]

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
        self._put(GRAD + name, arr + 0.0)

    def _put_all(self, g: dict[str, np.ndarray], pg: dict[str, np.ndarray]) -> None:
        for name, arr in (*g.items(), *pg.items()):  # trace names and full parameter names alike
            self._put(GRAD + name, arr)

    def _axes_of(self, name: str) -> tuple[Axis, ...]:
        of = name.removeprefix(GRAD)
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
        """14: ℓ = z Eᵀ  ->  ∂L/∂z = ∂L/∂ℓ E  (untied, ℓ = z W_U  ->  ∂L/∂z = ∂L/∂ℓ W_Uᵀ)"""
        if self.cfg.tied:
            self._hand_on("z", self._passed["logits"] @ self._params["E"])
        else:
            self._hand_on("z", self._params[UNEMBED_PARAM] @ self._passed["logits"])

    def _unembed_matrix(self) -> None:
        """14 (untied): ∂L/∂W_U = z ⊗ ∂L/∂ℓ, W_U's column t collecting z times ℓ_t's gradient"""
        self._put(GRAD + UNEMBED_PARAM, np.outer(self._trace["z"], self._passed["logits"]))

    def _unembed_share(self) -> None:
        """14: ∂L/∂E (unembedding share) = ∂L/∂ℓ ⊗ z"""
        self._put("grad.E.unembed", unembed_share(self._passed["logits"], self._trace["z"]), clean=False)

    def _final_norm(self) -> None:
        """13: z = LN(y_T)[·g + b] of the last block; the other rows of y do not reach the loss directly"""
        last_y = self._trace.stream_into()
        y = self._trace[last_y]
        pg: dict[str, np.ndarray] = {}
        dy = np.zeros_like(y)
        d_z, cfg = self._passed["z"], self.cfg
        dy[-1] = norm_backward(d_z, y[-1], cfg.eps, self._params, "lnf_", pg, "lnf_", cfg.norm)
        self._put_all({}, pg)
        self._hand_on(last_y, dy)

    def _block(self, b: int) -> None:
        """12 … 5 of block b, from ∂L/∂y to the gradient of the block's input."""
        trace = self._trace
        g: dict[str, np.ndarray] = {}
        pg: dict[str, np.ndarray] = {}
        stream_in = trace.stream_into(b)
        dy = self._passed[prefix(b) + "y"]
        w, sw = self._params.block(b), trace.switches
        d_x = block_backward(w, trace, trace[stream_in], dy, self.cfg, sw, b, g, pg, weights=False)
        self._put_all(g, pg)  # after the block: its rules read what they computed, as computed
        self._hand_on(stream_in, d_x)

    def _block_weights(self, b: int) -> None:
        """Block b's weight gradients, from its tensors' gradients as kept. Those are cleaned of −0.0, which
        changes no bit here: a sum of products that differ only in the sign of a zero differs at most in
        the sign of a zero result, and that is cleaned too."""
        pre = prefix(b)
        pg: dict[str, np.ndarray] = {}
        g = {pre + t: self._done[GRAD + pre + t].values for t in block_tensors(self.cfg)}
        block_weight_gradients(self._trace, b, self.cfg, g, pg)
        self._put_all({}, pg)

    def _embedding(self) -> None:
        """4 … 2: emb and pe (and P, learned) get ∂L/∂x; E's lookup share collects it row by token."""
        g: dict[str, np.ndarray] = {}
        pg: dict[str, np.ndarray] = {}
        e_lookup = embedding_backward(self._params, self._trace, self._passed["x"], g, pg)
        self._put_all(g, pg)
        self._put("grad.E.lookup", e_lookup, clean=False)  # np.zeros + rows: 0.0 + x is never −0.0

    def _E_total(self) -> None:
        """2: ∂L/∂E = lookup share + unembedding share, added only in the rows of the prompt's tokens: in
        every other row the lookup share is +0.0, and +0.0 + u is u (the unembedding share, cleaned of
        −0.0). The same bits as adding the two tables whole, without a 300 MB sum; and without keeping
        the unembedding share when nothing asked for it (the overlay at step 14 shows only the total)."""
        lookup = self._done["grad.E.lookup"].values
        if not self.cfg.tied:  # E is read once, by the lookup: its share is the whole
            self._put("grad.E", lookup.copy(), clean=False)
            return
        unembed = self._done.get("grad.E.unembed")
        if unembed is not None:
            total = unembed.values.copy()
        else:  # made as _unembed_share makes it
            total = unembed_share(self._passed["logits"], self._trace["z"])
        rows = np.unique(self._trace["ids"].astype(int))
        total[rows] = lookup[rows] + total[rows]
        self._put("grad.E", total, clean=False)
