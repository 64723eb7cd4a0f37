"""Backpropagation by hand: the gradient of the loss for every parameter and every intermediate.

gradients(params, trace) walks the forward pass in reverse, reading the trace's stored tensors as its
cache. Each named tensor is a node: its gradient is how the loss would move if that one value were
nudged and everything after it recomputed.

Naming (names.py): a gradient is "grad." + the canonical name of what it is the gradient of —
"grad.x", "grad.blocks.0.q.1", "grad.logits", "grad.blocks.0.W_2", "grad.E". grad() turns any
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

parts.py lists the parts and computes each (the mixin BackwardParts); chain_rules.py holds the chain
rule of each part (training/corpus.py reuses the block's). The backward walk's steps, read off the stage
table, are the lesson's (lesson/walk_stages.py).

Untied (a model with W_U): ∂L/∂z = W_U ∂L/∂ℓ, ∂L/∂W_U = z ⊗ ∂L/∂ℓ, and E, read only by the lookup, has
the lookup's share alone (grad.E.unembed does not exist). RMSNorm, rotary positions, grouped key/value
heads and the gated feed-forward: chain_rules.py.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import numpy as np

from tinytui.model.backward.chain_rules import param_axes
from tinytui.model.backward.parts import BackwardParts, e_shares, parts
from tinytui.model.backward.rows import e_rows
from tinytui.model.config import ModelConfig
from tinytui.model.names import GRAD, grad
from tinytui.model.params import Params, param_shapes
from tinytui.model.switches import run_config
from tinytui.model.trace import Axis, Tensor, TensorMap, Trace


class Gradients(BackwardParts, TensorMap):
    """dL/d(everything) for one trace, each part computed when first read. Mapping access by gradient
    name gives a read-only array; iterating, len() and `in` list the names without computing anything;
    .tensors (and to_json, for_params) computes everything."""

    def __init__(self, params: Params, trace: Trace):
        if trace.cfg != run_config(params.cfg, trace.switches):
            raise ValueError("the trace was computed for a different model shape")
        self.cfg: ModelConfig = trace.cfg  # the model as the run's switches ran it (its norm, its positions)
        self.loss: float = trace.loss
        self._params, self._trace = params, trace
        self._parts = {p.key: p for p in parts(trace)}
        self._part_of = {name: p.key for p in self._parts.values() for name in p.names}
        after_e = (grad(p) for p in param_shapes(self.cfg) if p != "E")  # the order Params lists them
        in_trace = (GRAD + n for n in trace if GRAD + n in self._part_of)  # so the JSON reads forward
        self._names = ("grad.E", *e_shares(self.cfg), *after_e, *in_trace)
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

    def rows(self, name: str, rows) -> np.ndarray:
        """These rows of a 2-d gradient, the same numbers as self[name][rows]. E's gradient and its
        unembedding share, when not yet computed, are made for these rows only (rows.py): at
        GPT-2 each whole table is 300 MB, while the overlay and the inspector read some 64 rows."""
        return e_rows(self, name, np.asarray(rows, dtype=int))

    def axes(self, name: str) -> tuple[Axis, ...]:
        """A gradient's axes, without computing it."""
        if name not in self._part_of:
            raise KeyError(name)
        return self._axes_of(name)

    def param(self, name: str) -> np.ndarray:
        """The gradient of a parameter given by its full ('blocks.0.W_2') or short ('W_2') name."""
        return self[grad(name)]

    def for_params(self) -> dict[str, np.ndarray]:
        """Full parameter name -> its gradient, the shape Params.with_arrays takes."""
        return {name: self.param(name) for name in param_shapes(self.cfg)}

    def to_json(self) -> dict:
        return {name: t.to_json() for name, t in self.tensors.items()}

    # ---- computing the parts (each part's method is BackwardParts') -----------------------------------
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


def gradients(params: Params, trace: Trace) -> Gradients:
    """Backpropagate trace's loss through everything. trace must be run(params, …): its tensors are the
    forward cache. Gradients(params, trace) is the same, computed only as far as it is read."""
    return Gradients(params, trace).everything()
