"""The table of the backward walk (steps 15 → 2), in the same spirit as stages.py: what arrives at each
step, its local rules spelled for the switches and the model's architecture, what it produces, what
leaves. model/backward/gradients.py computes the numbers; this says what they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tinytui.model.switches import Switches

if TYPE_CHECKING:
    from tinytui.model.config import ModelConfig


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


def _heads(name: str, n: int) -> str:
    """'head_1; head_2', or 'head_1; …; head_12' when there are more than three."""
    if n <= 3:
        return "; ".join(f"{name}_{h}" for h in range(1, n + 1))
    return f"{name}_1; …; {name}_{n}"


def backward_stages(sw: Switches | None = None, cfg: ModelConfig | None = None) -> tuple[BackwardStage, ...]:
    """The walk from step 15 back to step 2, its rules spelled for the given switches and for the
    model's architecture (cfg; None: the chapter's): GPT-2's gains, biases and position table get
    their gradients at the steps that read them.

    Names are block 0's (as stages.py names them) with "{h}" for one per head (stages.expand_names).
    With more than one block, step 13's outgoing gradient lands on the last block's y and the walk
    shows block 0; the later blocks' gradients are in Gradients under "grad.blocks.<b>.…".
    """
    sw = sw or Switches()
    post, res = sw.norm == "post", sw.residual
    affine = cfg is not None and cfg.norm_affine
    bias = cfg is not None and cfg.attn_bias
    learned = cfg is not None and cfg.learned_positions
    ln1 = ("grad.ln1_g", "grad.ln1_b") if affine else ()
    ln2 = ("grad.ln2_g", "grad.ln2_b") if affine else ()

    def gain_rules(out: str, which: str, x_hat: str) -> tuple[str, ...]:
        """A norm's gain and bias: their gradients, and what LN's own backward then reads."""
        if not affine:
            return ()
        return (
            f"∂L/∂{which}_g = Σ_p ∂L/∂{out}_p ⊙ {x_hat}_p,   ∂L/∂{which}_b = Σ_p ∂L/∂{out}_p",
            f"LN backward reads ∂L/∂{out} ⊙ {which}_g   (the gain scales what reaches the normalised row)",
        )

    # the heads as the rules write them: the chapter's two, or the model's (head_1; …; head_12 for GPT-2)
    n_heads = 2 if cfg is None else cfg.n_heads
    heads, d_heads = _heads("head", n_heads), _heads("∂L/∂head", n_heads)

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
                "∂L/∂y_T = (g − mean(g) − ẑ·mean(g·ẑ)) / √(σ² + ε),   g = ∂L/∂z"
                + (" ⊙ lnf_g,   ẑ = LN(y_T)" if affine else ""),
                *(("∂L/∂lnf_g = ∂L/∂z ⊙ ẑ,   ∂L/∂lnf_b = ∂L/∂z",) if affine else ()),
                "∂L/∂y_p = 0 for every earlier row p",
            ),
            (),
            ("grad.lnf_g", "grad.lnf_b") if affine else (),
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
                *(gain_rules("y", "ln2", "x̂") if post else ()),
                skip_y,
                "∂L/∂W_2 = hiddenᵀ · ∂L/∂ffn",
                "∂L/∂b_2 = Σ_p ∂L/∂ffn_p",
                "∂L/∂hidden = ∂L/∂ffn · W_2ᵀ",
            ),
            ("grad.ffn",),
            ("grad.W_2", "grad.b_2", *(ln2 if post else ())),
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
                "∂L/∂W_1 = x'_nᵀ · ∂L/∂h_pre   (x'_n = "
                + ("x', post-norm)" if post else ("g₂ ⊙ LN(x') + b₂)" if affine else "LN(x'))")),
                "∂L/∂b_1 = Σ_p ∂L/∂h_pre_p",
                "∂L/∂x'_n = ∂L/∂h_pre · W_1ᵀ",
                ("∂L/∂x' = ∂L/∂x'_n" if post else "∂L/∂x' = LN backward of ∂L/∂x'_n")
                + (" + the skip share from step 12" if res else ""),
                *(() if post else gain_rules("x'_n", "ln2", "LN(x')")),
            ),
            ("grad.hidden_pre", "grad.x_mid_norm"),
            ("grad.W_1", "grad.b_1", *(() if post else ln2)),
            ("grad.x_mid",),
            "A unit that did not fire passes no gradient back, so its column of W_1 learns nothing "
            "from this prompt. The live units route the error through W_1 into the stream.",
        ),
        BackwardStage(
            10,
            "Through the first residual",
            ("grad.x_mid",),
            (
                "∂L/∂mha = LN backward of ∂L/∂x'   (post-norm)" if post else "∂L/∂mha = ∂L/∂x'",
                *(gain_rules("x'", "ln1", "x̂") if post else ()),
                skip_x,
            ),
            (),
            ln1 if post else (),
            ("grad.mha",),
            "The skip connection hands the gradient straight back to x, whatever attention does. "
            "That unobstructed path is what lets deep stacks train.",
        ),
        BackwardStage(
            9,
            "Through W_O and the heads",
            ("grad.mha",),
            (
                f"∂L/∂W_O = [{heads}]ᵀ · ∂L/∂mha",
                *(("∂L/∂b_O = Σ_p ∂L/∂mha_p",) if bias else ()),
                f"[{d_heads}] = ∂L/∂mha · W_Oᵀ",
                "∂L/∂A_h = ∂L/∂head_h · V_hᵀ",
                "∂L/∂V_h = A_hᵀ · ∂L/∂head_h",
                "an ablated head outputs a constant 0: its A and V get exactly 0",
            ),
            ("grad.head.{h}",),
            ("grad.W_O", *(("grad.b_O",) if bias else ())),
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
                *(("∂L/∂b_Q[h] = Σ_p ∂L/∂Q_h[p]   (the same for b_K, b_V)",) if bias else ()),
                "∂L/∂x_n = Σ_h (∂L/∂Q_h W_Q[h]ᵀ + ∂L/∂K_h W_K[h]ᵀ + ∂L/∂V_h W_V[h]ᵀ)",
            ),
            (),
            ("grad.W_Q", "grad.W_K", "grad.W_V", *(("grad.b_Q", "grad.b_K", "grad.b_V") if bias else ())),
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
                *(() if post else gain_rules("x_n", "ln1", "LN(x)")),
            ),
            (),
            () if post else ln1,
            ("grad.x",),
            "The attention branch's gradient rejoins the skip path here; the sum is the whole gradient "
            "of the block's input.",
        ),
        BackwardStage(
            4,
            "Through the addition of position",
            ("grad.x",),
            (
                "∂L/∂emb = ∂L/∂x",
                "∂L/∂pe = ∂L/∂x   (pe is read from P)" if learned else "PE is fixed: it takes no gradient",
            ),
            (),
            (),
            ("grad.emb", "grad.pe") if learned else ("grad.emb",),
            "Meaning and position were added, so both receive the whole gradient; the position table "
            "passes its share on to P at step 3."
            if learned
            else "Meaning and position were added, so the embedding rows receive the whole gradient; the "
            "sinusoids have nothing to learn.",
        ),
        BackwardStage(
            3,
            "Positional encoding",
            ("grad.pe",) if learned else (),
            (
                "∂L/∂P[p] = ∂L/∂pe_p for the prompt's positions p < T, 0 for the rows it did not read"
                + ("" if sw.positional_encoding else "   (PE off: pe did not read P, every row gets 0)"),
            )
            if learned
            else ("PE has no parameters: nothing to update",),
            (),
            ("grad.P",) if learned else (),
            (),
            "The positions are a learned table, so each row the prompt used takes its position's "
            "gradient; rows beyond the prompt learn nothing from it."
            if learned
            else "The positional table is a formula, not a weight, so the backward walk passes it by.",
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


def backward_stage_for(
    number: int, sw: Switches | None = None, cfg: ModelConfig | None = None
) -> BackwardStage:
    """The walk's stage that reverses forward step number (2–15), its rules spelled for sw and cfg."""
    return next(s for s in backward_stages(sw, cfg) if s.number == number)


BACKWARD_STAGES = backward_stages()
BACKWARD_BY_NUMBER = {s.number: s for s in BACKWARD_STAGES}
