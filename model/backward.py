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

BACKWARD_STAGES is the table of the backward walk (steps 15 → 2) in the same spirit as stages.py.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tinytui.model import ops
from tinytui.model.config import ModelConfig
from tinytui.model.names import grad, prefix, split
from tinytui.model.params import Params, param_shapes
from tinytui.model.switches import Switches
from tinytui.model.trace import Axis, Tensor, TensorMap, Trace

PREFIX = "grad."


grad_name = grad  # the name of the gradient of a tensor or parameter (names.grad)


@dataclass(frozen=True)
class Gradients(TensorMap):
    """dL/d(everything) for one trace. Mapping access by gradient name gives a read-only array."""

    cfg: ModelConfig
    loss: float
    tensors: dict[str, Tensor]

    def param(self, name: str) -> np.ndarray:
        """The gradient of a parameter given by its full ('blocks.0.W_2') or short ('W_2') name."""
        return self[grad_name(name)]

    def for_params(self) -> dict[str, np.ndarray]:
        """Full parameter name -> its gradient, the shape Params.with_arrays takes."""
        return {name: self.param(name) for name in param_shapes(self.cfg)}

    def to_json(self) -> dict:
        return {name: t.to_json() for name, t in self.tensors.items()}


def _param_axes(cfg: ModelConfig) -> dict[str, tuple[Axis, ...]]:
    dims, units = Axis("dims", cfg.dims), Axis("units", cfg.unit_labels())
    k = Axis("k", cfg.head_dim_labels())
    heads = Axis("heads", cfg.head_labels())
    head_rows = Axis("heads", tuple(f"h{h + 1}.{c}" for h in range(cfg.n_heads) for c in k.labels))
    per_head = (heads, dims, k)
    return {
        "W_Q": per_head,
        "W_K": per_head,
        "W_V": per_head,
        "W_O": (head_rows, dims),
        "W_1": (dims, units),
        "b_1": (units,),
        "W_2": (units, dims),
        "b_2": (dims,),
    }


def gradients(params: Params, trace: Trace) -> Gradients:
    """Backpropagate trace's loss. trace must be run(params, …): its tensors are the forward cache."""
    cfg, sw = params.cfg, trace.switches
    if trace.cfg != cfg:
        raise ValueError("the trace was computed for a different model shape")
    eps = cfg.eps
    g: dict[str, np.ndarray] = {}  # trace name -> gradient
    pg: dict[str, np.ndarray] = {}  # full parameter name -> gradient

    # 15: L = −log softmax(ℓ)[t]  ->  ∂L/∂ℓ = p − onehot(t)
    onehot = np.zeros(cfg.n_vocab)
    onehot[cfg.token_id(trace.target)] = 1.0
    g["logits"] = trace["probs"] - onehot
    # 14: ℓ = z Eᵀ  ->  ∂L/∂z = ∂L/∂ℓ E,  ∂L/∂E (unembedding share) = ∂L/∂ℓ ⊗ z
    E = params["E"]
    g["z"] = g["logits"] @ E
    e_unembed = np.outer(g["logits"], trace["z"])
    # 13: z = LN(y_T) of the last block; the other rows of y do not reach the loss directly
    last_y = prefix(cfg.n_blocks - 1) + "y"
    dy = np.zeros_like(trace[last_y])
    dy[-1] = ops.layer_norm_backward(g["z"], trace[last_y][-1], eps)
    # 12 … 5, block by block from the last
    for b in reversed(range(cfg.n_blocks)):
        pre = prefix(b)
        g[pre + "y"] = dy
        x_in = trace["x"] if b == 0 else trace[prefix(b - 1) + "y"]
        dy = _block_backward(params.block(b), trace, x_in, dy, cfg, sw, pre, g, pg, pre)
    g["x"] = dy
    # 4: x = emb + PE, PE is fixed  ->  ∂L/∂emb = ∂L/∂x
    g["emb"] = dy
    # 2: emb_p = E[id_p]  ->  row id_p of E collects ∂L/∂emb_p (a token used twice collects twice)
    e_lookup = np.zeros_like(E)
    np.add.at(e_lookup, trace["ids"].astype(int), g["emb"])
    pg["E"] = e_lookup + e_unembed

    return _package(cfg, trace, g, pg, e_lookup, e_unembed)


def _block_backward(w, trace, x_in, dy, cfg, sw: Switches, pre: str, g, pg, full: str) -> np.ndarray:
    """One block in reverse: from ∂L/∂y to ∂L/∂(block input). Writes gradients into g and pg."""
    eps, t = cfg.eps, (lambda name: trace[pre + name])
    x_mid, x_mid_norm = t("x_mid"), t("x_mid_norm")

    # 12: y = [LN](x' + ffn)  (post-norm puts the LN here; residual off drops x')
    if sw.norm == "post":
        raw = x_mid + t("ffn") if sw.residual else t("ffn")
        dy = ops.layer_norm_backward(dy, raw, eps)
    g[pre + "ffn"] = d_ffn = dy
    pg[full + "W_2"] = t("hidden").T @ d_ffn
    pg[full + "b_2"] = d_ffn.sum(axis=0)
    g[pre + "hidden"] = d_ffn @ w["W_2"].T

    # 11: hidden = act(x'_n W_1 + b_1),  x'_n = LN(x') (pre-norm) or x' itself (post-norm)
    g[pre + "hidden_pre"] = d_pre = ops.ACTIVATION_BACKWARDS[sw.activation](
        g[pre + "hidden"], t("hidden_pre")
    )
    pg[full + "W_1"] = x_mid_norm.T @ d_pre
    pg[full + "b_1"] = d_pre.sum(axis=0)
    g[pre + "x_mid_norm"] = d_fin = d_pre @ w["W_1"].T
    d_mid = ops.layer_norm_backward(d_fin, x_mid, eps) if sw.norm == "pre" else d_fin.copy()
    if sw.residual:
        d_mid += dy
    g[pre + "x_mid"] = d_mid

    # 10: x' = [LN](x + mha)
    if sw.norm == "post":
        raw = x_in + t("mha") if sw.residual else t("mha")
        d_mid = ops.layer_norm_backward(d_mid, raw, eps)
    g[pre + "mha"] = d_mha = d_mid

    # 9: mha = [head_1; …] W_O,  head_h = A_h V_h (zeros, and so constant, when ablated)
    dk = cfg.d_head
    heads = np.concatenate([t(f"head.{h + 1}") for h in range(cfg.n_heads)], axis=-1)
    pg[full + "W_O"] = heads.T @ d_mha
    d_heads = d_mha @ w["W_O"].T
    x_norm = t("x_norm")
    d_xn = np.zeros_like(x_norm)
    dW = {name: np.zeros_like(w[name]) for name in ("W_Q", "W_K", "W_V")}
    scale = np.sqrt(dk)
    for h in range(cfg.n_heads):
        n = h + 1
        g[f"{pre}head.{n}"] = d_head = d_heads[:, h * dk : (h + 1) * dk]
        a, q, k, v = t(f"attn.{n}"), t(f"q.{n}"), t(f"k.{n}"), t(f"v.{n}")
        if sw.is_ablated(int(pre.split(".")[1]), n):
            d_a, d_v = np.zeros_like(a), np.zeros_like(v)
        else:
            d_a, d_v = d_head @ v.T, a.T @ d_head
        g[f"{pre}attn.{n}"], g[f"{pre}v.{n}"] = d_a, d_v
        # 8: A = softmax(S + M); M is a constant, so ∂L/∂S = ∂L/∂(S + M), exactly 0 where masked
        g[f"{pre}scores.{n}"] = d_s = ops.softmax_backward(d_a, a)
        # 7: S = Q Kᵀ / √d_k
        g[f"{pre}q.{n}"] = d_q = d_s @ k / scale
        g[f"{pre}k.{n}"] = d_k = d_s.T @ q / scale
        # 6: Q = x_n W_Q[h], K = x_n W_K[h], V = x_n W_V[h]
        for name, d_out in (("W_Q", d_q), ("W_K", d_k), ("W_V", d_v)):
            dW[name][h] = x_norm.T @ d_out
            d_xn += d_out @ w[name][h].T
    for name, arr in dW.items():
        pg[full + name] = arr
    g[pre + "x_norm"] = d_xn

    # 5: x_n = LN(x) (pre-norm) or x itself (post-norm); the residual adds ∂L/∂x' straight through
    d_x = ops.layer_norm_backward(d_xn, x_in, eps) if sw.norm == "pre" else d_xn.copy()
    if sw.residual:
        d_x += d_mid
    return d_x


def _package(cfg, trace: Trace, g, pg, e_lookup, e_unembed) -> Gradients:
    out: dict[str, Tensor] = {}

    def put(name: str, arr: np.ndarray, axes) -> None:
        arr = arr + 0.0  # no −0.0 (−0.0 + 0.0 is +0.0, all else unchanged): a blocked gradient reads 0
        arr.setflags(write=False)
        out[name] = Tensor(name, arr, tuple(axes))

    vocab_dims = (Axis("vocab", cfg.vocab), Axis("dims", cfg.dims))
    put(grad_name("E"), pg["E"], vocab_dims)
    put(PREFIX + "E.lookup", e_lookup, vocab_dims)
    put(PREFIX + "E.unembed", e_unembed, vocab_dims)
    axes = _param_axes(cfg)
    for full in param_shapes(cfg):  # the order Params lists them
        if full != "E":
            put(grad_name(full), pg[full], axes[split(full)[1]])
    for name in trace:  # the trace's own order, so the JSON reads forward
        if name in g:
            put(grad_name(name), g[name], trace.tensor(name).axes)
    return Gradients(cfg, trace.loss, out)


@dataclass(frozen=True)
class BackwardStage:
    """One step of the backward walk: what arrives, the local rule, what it produces, what leaves.

    Gradient names: "incoming" are of this step's outputs and were finished by later steps; "within"
    are of this step's other outputs, computed here on the way; "outgoing" are of earlier steps'
    outputs and are complete when they leave (skip shares are added before a gradient is listed).
    """

    number: int  # the forward step it reverses (15 … 2), as the user sees it
    title: str
    incoming: tuple[str, ...]
    rules: tuple[str, ...]  # the local rules in plain text
    within: tuple[str, ...]
    params: tuple[str, ...]  # parameter gradients produced here
    outgoing: tuple[str, ...]
    explain: str  # our own words


def backward_stages(sw: Switches | None = None) -> tuple[BackwardStage, ...]:
    """The walk from step 15 back to step 2, its rules spelled for the given switches.

    Names are block 0's (as stages.py names them) with "{h}" for one per head (stages.expand_names).
    With more than one block, step 13's outgoing gradient lands on the last block's y and the walk
    shows block 0; the later blocks' gradients are in Gradients under "grad.blocks.<b>.…".
    """
    sw = sw or Switches()
    post, res = sw.norm == "post", sw.residual
    if sw.activation == "relu":
        act = "∂L/∂h_pre = ∂L/∂hidden ⊙ [h_pre > 0]   (a dead unit passes exactly 0)"
    else:
        act = "∂L/∂h_pre = ∂L/∂hidden ⊙ GELU′(h_pre)"
    skip_y = (
        "the skip hands ∂L/∂ffn to x' as well (added at step 11)" if res else "no skip: x' gets nothing here"
    )
    skip_x = (
        "the skip hands ∂L/∂mha to x as well (added at step 5)" if res else "no skip: x gets nothing here"
    )
    return (
        BackwardStage(
            15,
            "Loss to logits",
            (),
            ("∂L/∂ℓ = p − onehot(target)",),
            (),
            (),
            ("grad.logits",),
            "Where the chapter stops: the one-hot target is subtracted from the probabilities. Every "
            "number in the backward walk is this vector pushed back through the steps.",
        ),
        BackwardStage(
            14,
            "Through the tied unembedding",
            ("grad.logits",),
            ("∂L/∂z = ∂L/∂ℓ · E", "∂L/∂E (unembedding share) = ∂L/∂ℓᵀ · z   (row v is ∂L/∂ℓ_v · z)"),
            (),
            ("grad.E.unembed",),
            ("grad.z",),
            "E was read backwards to score the tokens, so it gets its first share of gradient here: "
            "each token's row is pulled toward z or pushed away from it by how wrong its logit was.",
        ),
        BackwardStage(
            13,
            "Through the final norm",
            ("grad.z",),
            (
                "∂L/∂y_T = (g − mean(g) − ẑ·mean(g·ẑ)) / √(σ² + ε),   g = ∂L/∂z",
                "∂L/∂y_p = 0 for every earlier row p",
            ),
            (),
            (),
            ("grad.y",),
            "Only the last row was normalised into z, so only it receives gradient. The norm removes "
            "any part of the gradient that would just shift or rescale the row.",
        ),
        BackwardStage(
            12,
            "Through W_2 and the second residual",
            ("grad.y",),
            (
                "∂L/∂ffn = LN backward of ∂L/∂y   (post-norm)" if post else "∂L/∂ffn = ∂L/∂y",
                skip_y,
                "∂L/∂W_2 = hiddenᵀ · ∂L/∂ffn",
                "∂L/∂b_2 = Σ_p ∂L/∂ffn_p",
                "∂L/∂hidden = ∂L/∂ffn · W_2ᵀ",
            ),
            ("grad.ffn",),
            ("grad.W_2", "grad.b_2"),
            ("grad.hidden",),
            "A sum passes its gradient unchanged to both terms, so the stream and the feed-forward "
            "branch both see it. W_2's gradient pairs each hidden unit's activity with the error it fed.",
        ),
        BackwardStage(
            11,
            "Through the activation and W_1",
            ("grad.hidden",),
            (
                act,
                "∂L/∂W_1 = x'_nᵀ · ∂L/∂h_pre   (x'_n = " + ("x', post-norm)" if post else "LN(x'))"),
                "∂L/∂b_1 = Σ_p ∂L/∂h_pre_p",
                "∂L/∂x'_n = ∂L/∂h_pre · W_1ᵀ",
                ("∂L/∂x' = ∂L/∂x'_n" if post else "∂L/∂x' = LN backward of ∂L/∂x'_n")
                + (" + the skip share from step 12" if res else ""),
            ),
            ("grad.hidden_pre", "grad.x_mid_norm"),
            ("grad.W_1", "grad.b_1"),
            ("grad.x_mid",),
            "A unit that did not fire passes no gradient back, so its column of W_1 learns nothing "
            "from this prompt. The live units route the error through W_1 into the stream.",
        ),
        BackwardStage(
            10,
            "Through the first residual",
            ("grad.x_mid",),
            ("∂L/∂mha = LN backward of ∂L/∂x'   (post-norm)" if post else "∂L/∂mha = ∂L/∂x'", skip_x),
            (),
            (),
            ("grad.mha",),
            "The skip connection hands the gradient straight back to x, whatever attention does. "
            "That unobstructed path is what lets deep stacks train.",
        ),
        BackwardStage(
            9,
            "Through W_O and the heads",
            ("grad.mha",),
            (
                "∂L/∂W_O = [head_1; head_2]ᵀ · ∂L/∂mha",
                "[∂L/∂head_1; ∂L/∂head_2] = ∂L/∂mha · W_Oᵀ",
                "∂L/∂A_h = ∂L/∂head_h · V_hᵀ",
                "∂L/∂V_h = A_hᵀ · ∂L/∂head_h",
                "an ablated head outputs a constant 0: its A and V get exactly 0",
            ),
            ("grad.head.{h}",),
            ("grad.W_O",),
            ("grad.attn.{h}", "grad.v.{h}"),
            "W_O splits the error between the heads. Each head then blames its attention weights by how "
            "much each value vector would have helped, and its values by how much attention they got.",
        ),
        BackwardStage(
            8,
            "Through the softmax and the mask",
            ("grad.attn.{h}",),
            (
                "∂L/∂S_ij = A_ij · (∂L/∂A_ij − Σ_k A_ik ∂L/∂A_ik)",
                "masked entries have A_ij = 0, so their ∂L/∂S_ij is exactly 0",
            ),
            (),
            (),
            ("grad.scores.{h}",),
            "The softmax only passes on how a weight's gradient differs from the row's weighted "
            "average. Above the diagonal the loss would care about the weights, but the mask holds "
            "them at zero, so nothing flows back there.",
        ),
        BackwardStage(
            7,
            "Through the scores",
            ("grad.scores.{h}",),
            ("∂L/∂Q_h = ∂L/∂S_h · K_h / √d_k", "∂L/∂K_h = ∂L/∂S_hᵀ · Q_h / √d_k"),
            (),
            (),
            ("grad.q.{h}", "grad.k.{h}"),
            "A dot product sends each side's gradient along the other side's vector: a query learns "
            "from the keys it scored, a key from the queries that scored it.",
        ),
        BackwardStage(
            6,
            "Through W_Q, W_K, W_V",
            ("grad.q.{h}", "grad.k.{h}", "grad.v.{h}"),
            (
                "∂L/∂W_Q[h] = x_nᵀ · ∂L/∂Q_h   (the same for W_K, W_V)",
                "∂L/∂x_n = Σ_h (∂L/∂Q_h W_Q[h]ᵀ + ∂L/∂K_h W_K[h]ᵀ + ∂L/∂V_h W_V[h]ᵀ)",
            ),
            (),
            ("grad.W_Q", "grad.W_K", "grad.W_V"),
            ("grad.x_norm",),
            "Every head's three projections read the same normalised rows, so all their gradients add "
            "up on the way back into x_n.",
        ),
        BackwardStage(
            5,
            "Through the first norm",
            ("grad.x_norm",),
            (
                (
                    "∂L/∂x = ∂L/∂x_n   (post-norm: the sublayer read x itself)"
                    if post
                    else "∂L/∂x = LN backward of ∂L/∂x_n"
                )
                + (" + the skip share from step 10" if res else ""),
            ),
            (),
            (),
            ("grad.x",),
            "The attention branch's gradient rejoins the skip path here; the sum is the whole gradient "
            "of the block's input.",
        ),
        BackwardStage(
            4,
            "Through the addition of position",
            ("grad.x",),
            ("∂L/∂emb = ∂L/∂x", "PE is fixed: it takes no gradient"),
            (),
            (),
            ("grad.emb",),
            "Meaning and position were added, so the embedding rows receive the whole gradient; the "
            "sinusoids have nothing to learn.",
        ),
        BackwardStage(
            3,
            "Positional encoding",
            (),
            ("PE has no parameters: nothing to update",),
            (),
            (),
            (),
            "The positional table is a formula, not a weight, so the backward walk passes it by.",
        ),
        BackwardStage(
            2,
            "Into the embedding table",
            ("grad.emb",),
            (
                "∂L/∂E[v] (lookup share) = Σ over positions p with id_p = v of ∂L/∂emb_p",
                "∂L/∂E = lookup share + unembedding share (step 14)",
            ),
            (),
            ("grad.E.lookup", "grad.E"),
            (),
            "Only the rows of tokens in the prompt get a lookup share, and a repeated token adds up its "
            "positions. Every row already got an unembedding share at step 14; E's gradient is the sum.",
        ),
    )


def backward_stage_for(number: int, sw: Switches | None = None) -> BackwardStage:
    """The walk's stage that reverses forward step number (2–15), its rules spelled for sw."""
    return next(s for s in backward_stages(sw) if s.number == number)


BACKWARD_STAGES = backward_stages()
BACKWARD_BY_NUMBER = {s.number: s for s in BACKWARD_STAGES}
