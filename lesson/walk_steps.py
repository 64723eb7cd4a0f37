"""What each step of the backward walk says: the gradients that arrive, its local rules spelled for the
switches and the model's architecture, the gradients it makes and passes back, and why, in our words.

One function per forward step that the walk reverses. A forward Stage names its own (lesson/stages.py,
`backward=`), so a step and its way back are declared together; lesson/walk_stages.py walks the
stage table backwards and numbers each step as the forward pass does. Nothing here knows a step's
number or its place in the walk: where a rule points at another step, it asks Walk.step().
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

from tinytui.model.config import ModelConfig
from tinytui.model.switches import ACTIVATION_NAMES, Switches


@dataclass(frozen=True, kw_only=True)
class WalkStep:
    """One step of the backward walk: what arrives, the local rule, what it produces, what leaves.

    Gradient names: "incoming" are of this step's outputs and were finished by later steps; "within"
    are of this step's other outputs, computed here on the way; "outgoing" are of earlier steps'
    outputs and are complete when they leave (skip shares are added before a gradient is listed).
    Names are block 0's (as stages.py names them) with "{h}" for one per head.
    """

    title: str
    incoming: tuple[str, ...]
    rules: tuple[str, ...]  # the local rules in plain text
    within: tuple[str, ...]
    params: tuple[str, ...]  # parameter gradients produced here
    outgoing: tuple[str, ...]
    explain: str  # our own words


# a NamedTuple, not a frozen dataclass: loaded as the app starts, and a frozen dataclass compiles
# its methods from source as its class is made (~3 M instructions; a NamedTuple's ~0.5 M)
class Walk(NamedTuple):
    """The run as the walk's rules spell it: the switches, the parts of GPT-2's architecture the model
    has (cfg None: the chapter's), and the forward step number of each stage id."""

    switches: Switches
    cfg: ModelConfig | None
    numbers: Mapping[str, int]  # stage id -> the step number the user sees

    @property
    def post(self) -> bool:
        return self.switches.norm == "post"

    @property
    def residual(self) -> bool:
        return self.switches.residual

    @property
    def affine(self) -> bool:
        return self.cfg is not None and self.cfg.norm_affine

    @property
    def bias(self) -> bool:
        return self.cfg is not None and self.cfg.attn_bias

    @property
    def out_bias(self) -> bool:
        return self.cfg is not None and self.cfg.out_bias

    @property
    def learned(self) -> bool:
        return self.cfg is not None and self.cfg.learned_positions

    @property
    def n_blocks(self) -> int:
        return 1 if self.cfg is None else self.cfg.n_blocks

    @property
    def n_heads(self) -> int:
        """The heads as the rules write them: the chapter's two, or the model's."""
        return 2 if self.cfg is None else self.cfg.n_heads

    def step(self, stage_id: str) -> int:
        """The number of the forward step with this id (a rule that points at another step)."""
        return self.numbers[stage_id]

    # Llama's choices (config.py); each False for the chapter's model and GPT-2's
    @property
    def rms(self) -> bool:
        return self.cfg is not None and self.cfg.norm == "rms"

    @property
    def gated(self) -> bool:
        return self.cfg is not None and self.cfg.gated

    @property
    def rope(self) -> bool:
        return self.cfg is not None and self.cfg.positions == "rope"

    @property
    def untied(self) -> bool:
        return self.cfg is not None and not self.cfg.tied

    @property
    def grouped(self) -> bool:
        """Fewer key/value heads than query heads: K and V are per key/value head g ("{g}")."""
        return self.cfg is not None and self.cfg.n_kv_heads != self.cfg.n_heads

    @property
    def kv(self) -> str:
        """How a per-head name of K and V is written: "{g}" with shared heads, else "{h}"."""
        return "{g}" if self.grouped else "{h}"

    @property
    def norm(self) -> str:
        """How the rules name the norm: "LN", or "RMSNorm"."""
        return "RMSNorm" if self.rms else "LN"

    def ln(self, which: str) -> tuple[str, ...]:
        """A norm's gain and bias gradients ("ln1", "ln2"), when the model has them (RMSNorm: its gain)."""
        if not self.affine:
            return ()
        return (f"grad.{which}_g",) if self.rms else (f"grad.{which}_g", f"grad.{which}_b")

    def gain_rules(self, out: str, which: str, x_hat: str) -> tuple[str, ...]:
        """A norm's gain and bias: their gradients, and what LN's own backward then reads."""
        if not self.affine:
            return ()
        bias = "" if self.rms else f",   ∂L/∂{which}_b = Σ_p ∂L/∂{out}_p"
        return (
            f"∂L/∂{which}_g = Σ_p ∂L/∂{out}_p ⊙ {x_hat}_p{bias}",
            f"{self.norm} backward reads ∂L/∂{out} ⊙ {which}_g   (the gain scales what reaches the "
            "normalised row)",
        )


def _heads(name: str, n: int) -> str:
    """'head_1; head_2', or 'head_1; …; head_12' when there are more than three."""
    if n <= 3:
        return "; ".join(f"{name}_{h}" for h in range(1, n + 1))
    return f"{name}_1; …; {name}_{n}"


def embed(w: Walk) -> WalkStep:
    return WalkStep(
        title="Into the embedding table",
        incoming=("grad.emb",),
        rules=(
            "∂L/∂E[v] (lookup share) = Σ over positions p with id_p = v of ∂L/∂emb_p",
            "∂L/∂E = the lookup share alone (W_U, not E, made the logits)"
            if w.untied
            else f"∂L/∂E = lookup share + unembedding share (step {w.step('unembed')})",
        ),
        within=(),
        params=("grad.E.lookup", "grad.E"),
        outgoing=(),
        explain="Only the rows of tokens in the prompt get a lookup share, and a repeated token adds up its "
        + (
            f"positions. W_U, not E, scored the tokens at step {w.step('unembed')}, so this share is E's "
            "whole gradient: the rows of tokens not in the prompt learn nothing."
            if w.untied
            else f"positions. Every row already got an unembedding share at step {w.step('unembed')}; E's "
            "gradient is the sum."
        ),
    )


def pe(w: Walk) -> WalkStep:
    if w.rope and not w.switches.positional_encoding:
        return WalkStep(
            title="Positional encoding",
            incoming=(),
            rules=("rotary positions switched off: no parameters, nothing added to x, nothing turned",),
            within=(),
            params=(),
            outgoing=(),
            explain="The positions were switched off: nothing was added to x and q and k were not turned, "
            "so there is nothing here to pass a gradient through.",
        )
    if w.rope:
        return WalkStep(
            title="Positional encoding",
            incoming=(),
            rules=("rotary positions have no parameters: nothing to update, and nothing was added to x",),
            within=(),
            params=(),
            outgoing=(),
            explain=f"The positions turned q and k at step {w.step('qkv')}; the backward walk turned their "
            "gradients back there.",
        )
    if not w.learned:
        return WalkStep(
            title="Positional encoding",
            incoming=(),
            rules=("PE has no parameters: nothing to update",),
            within=(),
            params=(),
            outgoing=(),
            explain="The positional table is a formula, not a weight, so the backward walk passes it by.",
        )
    off = "" if w.switches.positional_encoding else "   (PE off: pe did not read P, every row gets 0)"
    return WalkStep(
        title="Positional encoding",
        incoming=("grad.pe",),
        rules=("∂L/∂P[p] = ∂L/∂pe_p for the prompt's positions p < T, 0 for the rows it did not read" + off,),
        within=(),
        params=("grad.P",),
        outgoing=(),
        explain="The positions are a learned table, so each row the prompt used takes its position's "
        "gradient; rows beyond the prompt learn nothing from it."
        if w.switches.positional_encoding
        else "With the positions switched off pe did not read P, so no row of P learns anything here.",
    )


def add(w: Walk) -> WalkStep:
    if w.cfg is not None and w.cfg.positions in ("rope", "none"):
        return WalkStep(
            title="Straight through: no position added",
            incoming=("grad.x",),
            rules=("∂L/∂emb = ∂L/∂x   (nothing was added: x is the embedding itself)",),
            within=(),
            params=(),
            outgoing=("grad.emb",),
            explain="Nothing was added to the stream at this step"
            + (
                f": the positions turned q and k at step {w.step('qkv')} instead."
                if w.rope and w.switches.positional_encoding
                else "."
            ),
        )
    on = w.switches.positional_encoding
    none_to_p = f"; P gets none at step {w.step('pe')}" if w.learned else ""  # PE off: pe read no P
    return WalkStep(
        title="Through the addition of position" if on else "Straight through: no position added",
        incoming=("grad.x",),
        rules=(
            "∂L/∂emb = ∂L/∂x",
            (f"∂L/∂pe = ∂L/∂x   ({'pe is read from P' if on else 'PE off: pe did not read P'})")
            if w.learned
            else "PE is fixed: it takes no gradient",
        ),
        within=(),
        params=(),
        outgoing=("grad.emb", "grad.pe") if w.learned else ("grad.emb",),
        explain="Meaning and position were added, so both receive the whole gradient; the position table "
        f"passes its share on to P at step {w.step('pe')}."
        if w.learned and on
        else "Meaning and position were added, so the embedding rows receive the whole gradient; the "
        "sinusoids have nothing to learn."
        if on
        else "With the positions switched off nothing was added, so the embedding rows receive the whole "
        f"gradient{none_to_p}.",
    )


def norm1(w: Walk) -> WalkStep:
    skip = f" + the skip share from step {w.step('residual1')}" if w.residual else ""
    return WalkStep(
        title="Through the first norm",
        incoming=("grad.x_norm",),
        rules=(
            (
                "∂L/∂x = ∂L/∂x_n   (post-norm: the sublayer read x itself)"
                if w.post
                else f"∂L/∂x = {w.norm} backward of ∂L/∂x_n"
            )
            + skip,
            *(() if w.post else w.gain_rules("x_n", "ln1", f"{w.norm}(x)")),
        ),
        within=(),
        params=() if w.post else w.ln("ln1"),
        outgoing=("grad.x",),
        explain="The attention branch's gradient rejoins the skip path here; the sum is the whole gradient "
        "of the block's input."
        if w.residual
        else "With the residual off there is no skip path: the attention branch's gradient is the whole "
        "gradient of the block's input.",
    )


def qkv(w: Walk) -> WalkStep:
    kv = w.kv
    turn = (
        (
            "RoPE turned q and k by position: ∂L/∂Q_pre_h = ∂L/∂Q_h turned back by the same angles "
            "(a rotation's transpose), and ∂L/∂K_pre likewise",
        )
        if w.rope
        else ()
    )
    q, k = ("Q_pre", "K_pre") if w.rope else ("Q", "K")
    if w.grouped:  # K and V per key/value head g, shared by its group of query heads
        rules = (
            *turn,
            f"∂L/∂W_Q[h] = x_nᵀ · ∂L/∂{q}_h,   ∂L/∂W_K[g] = x_nᵀ · ∂L/∂{k}_g,   ∂L/∂W_V[g] = x_nᵀ · ∂L/∂V_g",
            *(
                (f"∂L/∂b_Q[h] = Σ_p ∂L/∂{q}_h[p]   (b_K[g], b_V[g]: Σ_p of ∂L/∂{k}_g, ∂L/∂V_g)",)
                if w.bias
                else ()
            ),
            f"∂L/∂x_n = Σ_h ∂L/∂{q}_h W_Q[h]ᵀ + Σ_g (∂L/∂{k}_g W_K[g]ᵀ + ∂L/∂V_g W_V[g]ᵀ)",
        )
    else:
        rules = (
            *turn,
            f"∂L/∂W_Q[h] = x_nᵀ · ∂L/∂{q}_h   (the same for W_K, W_V)",
            *((f"∂L/∂b_Q[h] = Σ_p ∂L/∂{q}_h[p]   (the same for b_K, b_V)",) if w.bias else ()),
            f"∂L/∂x_n = Σ_h (∂L/∂{q}_h W_Q[h]ᵀ + ∂L/∂{k}_h W_K[h]ᵀ + ∂L/∂V_h W_V[h]ᵀ)",
        )
    return WalkStep(
        title="Through W_Q, W_K, W_V",
        incoming=("grad.q.{h}", f"grad.k.{kv}", f"grad.v.{kv}"),
        rules=rules,
        within=("grad.q_pre.{h}", f"grad.k_pre.{kv}") if w.rope else (),
        params=(
            "grad.W_Q",
            "grad.W_K",
            "grad.W_V",
            *(("grad.b_Q", "grad.b_K", "grad.b_V") if w.bias else ()),
        ),
        outgoing=("grad.x_norm",),
        explain=_qkv_words(w),
    )


def _qkv_words(w: Walk) -> str:
    if w.n_heads == 1:
        return (
            "The head's three projections read the same normalised rows, so their three gradients add up on "
            "the way back into x_n."
        )
    if w.grouped:  # W_K and W_V belong to the key/value heads, fewer than the query heads
        return (
            "Every query head's W_Q and every key/value head's W_K and W_V read the same normalised rows, so "
            "all their gradients add up on the way back into x_n."
        )
    return (
        "Every head's three projections read the same normalised rows, so all their gradients add up on the "
        "way back into x_n."
    )


def scores(w: Walk) -> WalkStep:
    return WalkStep(
        title="Through the scores",
        incoming=("grad.scores.{h}",),
        rules=(
            ("∂L/∂Q_h = ∂L/∂S_h · K_g / √d_k", "∂L/∂K_g = Σ over g's query heads h of ∂L/∂S_hᵀ · Q_h / √d_k")
            if w.grouped
            else ("∂L/∂Q_h = ∂L/∂S_h · K_h / √d_k", "∂L/∂K_h = ∂L/∂S_hᵀ · Q_h / √d_k")
        ),
        within=(),
        params=(),
        outgoing=("grad.q.{h}", f"grad.k.{w.kv}"),
        explain="A dot product sends each side's gradient along the other side's vector: a query learns "
        "from the keys it scored, a key from the queries that scored it.",
    )


def softmax(w: Walk) -> WalkStep:
    mask = w.switches.causal_mask
    if w.n_blocks == 1:
        rows = (
            "Only the last position reaches the loss, so every row of ∂L/∂A but the last is exactly zero, "
            "above the diagonal or not, and so are those rows of ∂L/∂S."
        )
        held = (
            "The last row sees every position, so the mask holds none of its weights at zero." if mask else ""
        )
    else:
        rows = (
            "In the last block only the last position reaches the loss, so there every row of ∂L/∂A but "
            "the last is exactly zero, above the diagonal or not. In the blocks before it any row can "
            "carry gradient"
            + (
                ", and a masked weight is held at zero (A_ij = 0), so its score gets exactly 0 whatever "
                "∂L/∂A says."
                if mask
                else "."
            )
        )
        held = ""
    return WalkStep(
        title="Through the softmax and the mask",
        incoming=("grad.attn.{h}",),
        rules=(
            "∂L/∂S_ij = A_ij · (∂L/∂A_ij − Σ_k A_ik ∂L/∂A_ik)",
            "masked entries have A_ij = 0, so their ∂L/∂S_ij is exactly 0"
            if mask
            else "the mask is off: no entry is held at A_ij = 0",
        ),
        within=(),
        params=(),
        outgoing=("grad.scores.{h}",),
        explain=" ".join(
            s
            for s in (
                "The softmax only passes on how a weight's gradient differs from the row's weighted average.",
                rows,
                held,
                "" if mask else "With the mask off, no weight is held at zero.",
            )
            if s
        ),
    )


def combine(w: Walk) -> WalkStep:
    heads, d_heads = _heads("head", w.n_heads), _heads("∂L/∂head", w.n_heads)
    return WalkStep(
        title="Through W_O and the heads",
        incoming=("grad.mha",),
        rules=(
            f"∂L/∂W_O = [{heads}]ᵀ · ∂L/∂mha",
            *(("∂L/∂b_O = Σ_p ∂L/∂mha_p",) if w.out_bias else ()),
            f"[{d_heads}] = ∂L/∂mha · W_Oᵀ",
            *(
                ("∂L/∂A_h = ∂L/∂head_h · V_gᵀ", "∂L/∂V_g = Σ over g's query heads h of A_hᵀ · ∂L/∂head_h")
                if w.grouped
                else ("∂L/∂A_h = ∂L/∂head_h · V_hᵀ", "∂L/∂V_h = A_hᵀ · ∂L/∂head_h")
            ),
            "an ablated head outputs a constant 0: its A gets exactly 0 and it adds nothing to ∂L/∂V_g"
            if w.grouped
            else "an ablated head outputs a constant 0: its A and V get exactly 0",
        ),
        within=("grad.head.{h}",),
        params=("grad.W_O", *(("grad.b_O",) if w.out_bias else ())),
        outgoing=("grad.attn.{h}", f"grad.v.{w.kv}"),
        explain=_combine_words(w),
    )


def _combine_words(w: Walk) -> str:
    off = sorted(w.switches.ablated_heads)
    if w.n_heads == 1:
        said = (
            "W_O passes the error back to the one head. It then blames its attention weights by how much "
            "each value vector would have helped, and its values by how much attention they got."
        )
    elif w.grouped:  # a key/value head's values are read by several query heads
        said = (
            "W_O splits the error between the heads. Each query head then blames its attention weights by "
            "how much each value vector would have helped; a key/value head's values gather blame from "
            "every query head that reads them, by how much attention they got."
        )
    else:
        said = (
            "W_O splits the error between the heads. Each head then blames its attention weights by how "
            "much each value vector would have helped, and its values by how much attention they got."
        )
    if len(off) == w.n_heads:
        one = w.n_heads == 1
        every = "The head is ablated: it outputs" if one else "Every head is ablated: each outputs"
        whose = "its" if one else "every head's"
        return (
            f"{every} a constant 0, so W_O and {whose} attention weights and values get exactly 0, and "
            "nothing goes back through attention"
            + (" (only b_O, added whatever the heads give, still learns)." if w.out_bias else ".")
        )
    in_one = [f"head {h} of block {b + 1}" for b, h in sorted(w.switches.ablated) if h not in off]
    if off or in_one:
        heads = " and ".join([f"head {h}" for h in off] + in_one)
        verb = "is" if len(off) + len(in_one) == 1 else "are"
        return (
            f"{said} {heads[0].upper()}{heads[1:]} {verb} ablated: an output held at 0 passes nothing back, "
            "so its attention weights get exactly 0 and it adds nothing to the values' gradient."
        )
    return said


def residual1(w: Walk) -> WalkStep:
    skip = (
        f"the skip hands ∂L/∂mha to x as well (added at step {w.step('norm1')})"
        if w.residual
        else "no skip: x gets nothing here"
    )
    return WalkStep(
        title="Through the first residual" if w.residual else "Through the attention out, no residual",
        incoming=("grad.x_mid",),
        rules=(
            f"∂L/∂mha = {w.norm} backward of ∂L/∂x'   (post-norm)" if w.post else "∂L/∂mha = ∂L/∂x'",
            *(w.gain_rules("x'", "ln1", "x̂") if w.post else ()),
            skip,
        ),
        within=(),
        params=w.ln("ln1") if w.post else (),
        outgoing=("grad.mha",),
        explain=_residual1_words(w),
    )


def _residual1_words(w: Walk) -> str:
    if not w.residual:
        return (
            "With the residual off there is no skip connection: x' was made from attention's output alone, "
            "so the whole gradient goes into attention and x receives only what comes back through it."
        )
    if w.post:
        return (
            f"The skip connection hands x the gradient that the norm after the add passed back ({w.norm} "
            "backward of ∂L/∂x'), whatever attention does; under post-norm that norm sits on the skip path."
        )
    return (
        "The skip connection hands the gradient straight back to x, whatever attention does. That "
        "unobstructed path is what lets deep stacks train."
    )


def _ffn_words(w: Walk) -> str:
    if w.switches.activation == "relu":
        return (
            "A unit that did not fire passes no gradient back, so a unit that fired at no position leaves "
            "its column of W_1 learning nothing from this prompt. The live units route the error through "
            "W_1 into the stream."
        )
    act = ACTIVATION_NAMES[w.switches.activation]
    return (
        f"{act} has a slope below zero too, so even a unit that barely fired passes a little gradient back "
        "and its column of W_1 still learns a little. The error goes through W_1 into the stream."
    )


def ffn(w: Walk) -> WalkStep:
    if w.gated:
        return _gated_ffn(w)
    if w.switches.activation == "relu":
        act = "∂L/∂h_pre = ∂L/∂hidden ⊙ [h_pre > 0]   (a dead unit passes exactly 0)"
    else:
        act = f"∂L/∂h_pre = ∂L/∂hidden ⊙ {ACTIVATION_NAMES[w.switches.activation]}′(h_pre)"
    x_n = "x', post-norm)" if w.post else ("g₂ ⊙ LN(x') + b₂)" if w.affine else "LN(x'))")
    skip = f" + the skip share from step {w.step('residual2')}" if w.residual else ""
    return WalkStep(
        title="Through the activation and W_1",
        incoming=("grad.hidden",),
        rules=(
            act,
            "∂L/∂W_1 = x'_nᵀ · ∂L/∂h_pre   (x'_n = " + x_n,
            "∂L/∂b_1 = Σ_p ∂L/∂h_pre_p",
            "∂L/∂x'_n = ∂L/∂h_pre · W_1ᵀ",
            ("∂L/∂x' = ∂L/∂x'_n" if w.post else "∂L/∂x' = LN backward of ∂L/∂x'_n") + skip,
            *(() if w.post else w.gain_rules("x'_n", "ln2", "LN(x')")),
        ),
        within=("grad.hidden_pre", "grad.x_mid_norm"),
        params=("grad.W_1", "grad.b_1", *(() if w.post else w.ln("ln2"))),
        outgoing=("grad.x_mid",),
        explain=_ffn_words(w),
    )


def _gated_ffn(w: Walk) -> WalkStep:
    """The gated feed-forward's way back: hidden = act(gate_pre) ⊙ up, gate_pre = x'_n W_gate,
    up = x'_n W_up."""
    name = ACTIVATION_NAMES[w.switches.activation]
    act = "[gate_pre > 0]" if w.switches.activation == "relu" else f"{name}′(gate_pre)"
    skip = f" + the skip share from step {w.step('residual2')}" if w.residual else ""
    return WalkStep(
        title="Through the gate, W_gate and W_up",
        incoming=("grad.hidden",),
        rules=(
            "∂L/∂gate = ∂L/∂hidden ⊙ up,   ∂L/∂up = ∂L/∂hidden ⊙ gate   (each factor gets the other)",
            f"∂L/∂gate_pre = ∂L/∂gate ⊙ {act}",
            "∂L/∂W_gate = x'_nᵀ · ∂L/∂gate_pre,   ∂L/∂W_up = x'_nᵀ · ∂L/∂up",
            "∂L/∂x'_n = ∂L/∂gate_pre · W_gateᵀ + ∂L/∂up · W_upᵀ",
            ("∂L/∂x' = ∂L/∂x'_n" if w.post else f"∂L/∂x' = {w.norm} backward of ∂L/∂x'_n") + skip,
            *(() if w.post else w.gain_rules("x'_n", "ln2", f"{w.norm}(x')")),
        ),
        within=("grad.gate", "grad.up", "grad.gate_pre", "grad.x_mid_norm"),
        params=("grad.W_gate", "grad.W_up", *(() if w.post else w.ln("ln2"))),
        outgoing=("grad.x_mid",),
        explain="The gate decides how much of each unit's second projection gets through, so each learns "
        "from the other: a shut gate blocks up's gradient, and a small up leaves the gate little to learn.",
    )


def residual2(w: Walk) -> WalkStep:
    skip = (
        f"the skip hands ∂L/∂ffn to x' as well (added at step {w.step('ffn')})"
        if w.residual
        else "no skip: x' gets nothing here"
    )
    return WalkStep(
        title=f"Through {'W_down' if w.gated else 'W_2'} and the second residual"
        if w.residual
        else f"Through {'W_down' if w.gated else 'W_2'}, no residual",
        incoming=("grad.y",),
        rules=(
            f"∂L/∂ffn = {w.norm} backward of ∂L/∂y   (post-norm)" if w.post else "∂L/∂ffn = ∂L/∂y",
            *(w.gain_rules("y", "ln2", "x̂") if w.post else ()),
            skip,
            *(
                ("∂L/∂W_down = hiddenᵀ · ∂L/∂ffn", "∂L/∂hidden = ∂L/∂ffn · W_downᵀ")
                if w.gated
                else ("∂L/∂W_2 = hiddenᵀ · ∂L/∂ffn", "∂L/∂b_2 = Σ_p ∂L/∂ffn_p", "∂L/∂hidden = ∂L/∂ffn · W_2ᵀ")
            ),
        ),
        within=("grad.ffn",),
        params=(
            *(("grad.W_down",) if w.gated else ("grad.W_2", "grad.b_2")),
            *(w.ln("ln2") if w.post else ()),
        ),
        outgoing=("grad.hidden",),
        explain=(
            "A sum passes its gradient unchanged to both terms, so the stream and the feed-forward "
            "branch both see it."
            if w.residual
            else "With the residual off, y was made from the feed-forward's output alone, so the whole "
            "gradient goes into the feed-forward branch and x' gets nothing here."
        )
        + f" {'W_down' if w.gated else 'W_2'}'s gradient pairs each hidden unit's activity with the error it "
        "fed.",
    )


def final_norm(w: Walk) -> WalkStep:
    if w.rms:
        return WalkStep(
            title="Through the final norm",
            incoming=("grad.z",),
            rules=(
                "∂L/∂y_T = (g − ẑ·mean(g·ẑ)) / √(mean(y_T²) + ε),   g = ∂L/∂z"
                + (" ⊙ lnf_g,   ẑ = RMS(y_T)" if w.affine else ""),
                *(("∂L/∂lnf_g = ∂L/∂z ⊙ ẑ",) if w.affine else ()),
                "∂L/∂y_p = 0 for every earlier row p",
            ),
            within=(),
            params=w.ln("lnf"),
            outgoing=("grad.y",),
            explain="Only the last row was normalised into z, so only it receives gradient. RMSNorm took no "
            "mean away, so it removes only the part of the gradient that would rescale the row.",
        )
    return WalkStep(
        title="Through the final norm",
        incoming=("grad.z",),
        rules=(
            "∂L/∂y_T = (g − mean(g) − ẑ·mean(g·ẑ)) / √(σ² + ε),   g = ∂L/∂z"
            + (" ⊙ lnf_g,   ẑ = LN(y_T)" if w.affine else ""),
            *(("∂L/∂lnf_g = ∂L/∂z ⊙ ẑ,   ∂L/∂lnf_b = ∂L/∂z",) if w.affine else ()),
            "∂L/∂y_p = 0 for every earlier row p",
        ),
        within=(),
        params=w.ln("lnf"),
        outgoing=("grad.y",),
        explain="Only the last row was normalised into z, so only it receives gradient. The norm removes "
        "any part of the gradient that would just shift or rescale the row.",
    )


def unembed(w: Walk) -> WalkStep:
    if w.untied:
        return WalkStep(
            title="Through the unembedding W_U",
            incoming=("grad.logits",),
            rules=("∂L/∂z = ∂L/∂ℓ · W_Uᵀ", "∂L/∂W_U = zᵀ · ∂L/∂ℓ   (column v is z · ∂L/∂ℓ_v)"),
            within=(),
            params=("grad.W_U",),
            outgoing=("grad.z",),
            explain="W_U scored the tokens, so it gets this gradient; E, not read here, learns only from the "
            "lookup at the start.",
        )
    return WalkStep(
        title="Through the tied unembedding",
        incoming=("grad.logits",),
        rules=("∂L/∂z = ∂L/∂ℓ · E", "∂L/∂E (unembedding share) = ∂L/∂ℓᵀ · z   (row v is ∂L/∂ℓ_v · z)"),
        within=(),
        params=("grad.E.unembed",),
        outgoing=("grad.z",),
        explain="E was read backwards to score the tokens, so it gets its first share of gradient here: "
        "each token's row is pulled toward z or pushed away from it by how wrong its logit was.",
    )


def loss(w: Walk) -> WalkStep:
    return WalkStep(
        title="Loss to logits",
        incoming=(),
        rules=("∂L/∂ℓ = p − onehot(target)",),
        within=(),
        params=(),
        outgoing=("grad.logits",),
        explain="Where the chapter stops: the one-hot target is subtracted from the probabilities. Every "
        "number in the backward walk is this vector pushed back through the steps.",
    )
