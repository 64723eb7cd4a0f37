"""THE table of the sixteen stages. The printer, the app, the recorder and the tests all read it.

reads/writes name trace tensors (see trace.py) and parameters (short names: E, W_Q, …), block-local
as names.py spells them; a name with "{h}" stands for one tensor per head (q.1, q.2, …).
names.resolve() turns them into canonical names for a block ("blocks.0.q.1", …).

A stage owns its behaviour: its formula as run (texts/formulas.py), its facts (texts/stage_facts.py),
its panels (panels.py: what it shows, as data the UI draws by kind) and its step of the backward walk
(walk_steps.py; walk_stages.py reads the walk off this table, last stage first).
Nothing else asks which step it is. Every field is given by keyword.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tinytui.lesson import panels as P
from tinytui.lesson import walk_steps
from tinytui.lesson.arch_names import Arch, for_model
from tinytui.lesson.panels import Panel
from tinytui.lesson.texts import attention_texts, formulas, output_texts, stage_facts, step_texts
from tinytui.model import names
from tinytui.model.config import ModelConfig
from tinytui.model.params import block_param_shapes, param_shapes
from tinytui.model.switches import Switches
from tinytui.model.trace import Trace


@dataclass(frozen=True, kw_only=True, eq=False)
class Stage:
    """One of the sixteen stages of the forward pass: its number, title and formula, the tensors it reads
    and writes, the panels it shows, its texts, and its step of the backward walk."""

    id: str
    number: int  # 1–16, as the user sees it
    title: str
    equation: str  # the chapter's equation number(s), "" where it prints none
    formula: str  # the equation in plain text, for the terminal
    latex: str  # the equation as the chapter writes it, for handouts
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    explain: Callable[[Trace], str]  # step_texts.py: what the step does, and what this run shows
    panels: tuple[Panel, ...] = ()  # what the step makes, in the order it is shown (covers writes)
    inputs: tuple[Panel, ...] = ()  # what it shows of earlier steps' tensors (its weights: from reads)
    passed_back: tuple[Panel, ...] = ()  # the backward walk's "passed back" panels, if not its gradients
    # (formula, switches, config or None) -> the formula as the model computes it
    as_run: Callable[[str, Switches, ModelConfig | None], str] = formulas.as_written
    facts: Callable[[Trace], list[str]] = stage_facts.none  # see texts/stage_facts.py
    per_block: bool = False  # one of the block's steps (5–12): shown once per block (lesson/step_path.py)
    # GPT-2's weights this step also reads when the model has them (params_read() says which it has)
    more_reads: tuple[str, ...] = ()
    # its step of the backward walk (lesson/walk_steps.py), None for a step the walk does not
    # reverse; lesson/walk_stages.py reads the walk off this table
    backward: Callable[[walk_steps.Walk], walk_steps.WalkStep] | None = None
    # in a model with rotary positions, this step makes q_pre and k_pre and turns them into q and k
    turns_qk: bool = False
    # what the step's E stands for in a model whose unembedding is its own W_U (None: E itself)
    untied_e: tuple[str, ...] | None = None


STAGES: tuple[Stage, ...] = (
    Stage(
        id="tokens",
        number=1,
        title="Tokens to ids",
        equation="",
        formula="id_p = vocab.index(token_p)",
        latex=r"\mathrm{id}_p = \mathrm{vocab}(\text{token}_p)",
        reads=(),
        writes=("ids",),
        explain=step_texts.tokens,
        panels=(P.tokens(),),
        facts=stage_facts.tokens,
    ),
    Stage(
        id="embed",
        number=2,
        title="Embedding lookup",
        equation="",
        formula="e_p = E[id_p]",
        latex=r"e_p = E[\mathrm{id}_p]",
        reads=("ids", "E"),
        writes=("emb",),
        explain=step_texts.embed,
        panels=(P.tokens("emb"),),
        backward=walk_steps.embed,
    ),
    Stage(
        id="pe",
        number=3,
        title="Positional encoding",
        equation="17.1",
        formula="PE[p,2i] = sin(p / 10000^(2i/d)),  PE[p,2i+1] = cos(p / 10000^(2i/d))",
        latex=r"PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{10000^{2i/d}}\right), \quad "
        r"PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{10000^{2i/d}}\right)",
        reads=("ids",),
        writes=("pe",),
        explain=step_texts.pe,
        panels=(P.tokens("pe"),),
        as_run=formulas.pe,
        facts=stage_facts.pe,
        more_reads=("P",),
        backward=walk_steps.pe,
    ),
    Stage(
        id="add",
        number=4,
        title="Add position to meaning",
        equation="17.2",
        formula="x_p = E[id_p] + PE_p",
        latex=r"x_p = E[\mathrm{id}_p] + PE_p",
        reads=("emb", "pe"),
        writes=("x",),
        explain=step_texts.add,
        panels=(P.tokens("x"),),
        inputs=P.tensors("emb", "pe"),
        as_run=formulas.add,
        facts=stage_facts.add,
        backward=walk_steps.add,
    ),
    Stage(
        id="norm1",
        number=5,
        title="Layer norm",
        equation="17.3",
        formula="LN(x) = (x − μ) / √(σ² + ε),  μ and σ² over the row's d entries",
        latex=r"\mathrm{LN}(x) = \frac{x - \mu}{\sqrt{\sigma^2 + \epsilon}}, "
        r"\quad \mu = \frac{1}{d}\sum_j x_j, \quad \sigma^2 = \frac{1}{d}\sum_j (x_j - \mu)^2",
        reads=("x",),
        writes=("ln1.mean", "ln1.var", "x_norm"),
        explain=step_texts.norm1,
        panels=(P.stats("ln1.mean", "ln1.var"), *P.tensors("x_norm")),
        inputs=P.tensors("x"),
        as_run=formulas.norm1,
        facts=stage_facts.norm1,
        per_block=True,
        more_reads=("ln1_g", "ln1_b"),
        backward=walk_steps.norm1,
    ),
    Stage(
        id="qkv",
        number=6,
        title="Queries, keys, values",
        equation="17.4",
        formula="Q = Xn W_Q,  K = Xn W_K,  V = Xn W_V   (per head)",
        latex=r"Q = X_n W^Q, \quad K = X_n W^K, \quad V = X_n W^V",
        reads=("x_norm", "W_Q", "W_K", "W_V"),
        writes=("q.{h}", "k.{h}", "v.{h}"),
        explain=attention_texts.qkv,
        facts=stage_facts.qkv,
        panels=P.tensors("q.{h}", "k.{h}", "v.{h}"),
        inputs=P.tensors("x_norm"),
        per_block=True,
        as_run=formulas.qkv,
        more_reads=("b_Q", "b_K", "b_V"),
        turns_qk=True,
        backward=walk_steps.qkv,
    ),
    Stage(
        id="scores",
        number=7,
        title="Attention scores",
        equation="17.5",
        formula="S = Q Kᵀ / √d_k,   d_k = 2,  √d_k = 1.4142",
        latex=r"S = \frac{QK^{\top}}{\sqrt{d_k}}",
        reads=("q.{h}", "k.{h}"),
        writes=("scores.{h}",),
        explain=attention_texts.scores,
        panels=P.tensors("scores.{h}"),
        inputs=P.tensors("q.{h}", "k.{h}"),
        as_run=formulas.scores,
        facts=stage_facts.scores,
        per_block=True,
        backward=walk_steps.scores,
    ),
    Stage(
        id="softmax",
        number=8,
        title="Causal mask and softmax",
        equation="17.6",
        formula="A = softmax(S + M),   M[i,j] = 0 if j ≤ i else −∞",
        latex=r"A = \mathrm{softmax}\!\left(S + M\right), \quad M_{ij} = \begin{cases} 0 & j \le i \\ "
        r"-\infty & j > i \end{cases}",
        reads=("scores.{h}",),
        writes=("mask", "attn.{h}"),
        explain=attention_texts.softmax,
        panels=P.tensors("mask", "attn.{h}"),
        inputs=P.tensors("scores.{h}"),
        as_run=formulas.softmax,
        facts=stage_facts.softmax,
        per_block=True,
        backward=walk_steps.softmax,
    ),
    Stage(
        id="combine",
        number=9,
        title="Heads combined",
        equation="17.7",
        formula="MHA(X) = [head_1 ; head_2] W_O,   head_h = A_h V_h",
        latex=r"\mathrm{MHA}(X) = \left[\mathrm{head}_1 ; \mathrm{head}_2\right] W^O, \quad "
        r"\mathrm{head}_h = A_h V_h",
        reads=("attn.{h}", "v.{h}", "W_O"),
        writes=("head.{h}", "mha"),
        explain=attention_texts.combine,
        panels=P.tensors("head.{h}", "mha"),
        inputs=P.tensors("attn.{h}", "v.{h}"),
        as_run=formulas.combine,
        facts=stage_facts.combine,
        per_block=True,
        more_reads=("b_O",),
        backward=walk_steps.combine,
    ),
    Stage(
        id="residual1",
        number=10,
        title="First residual",
        equation="17.8",
        formula="x' = x + MHA(LN(x))",
        latex=r"x' = x + \mathrm{MHA}(\mathrm{LN}(x))",
        reads=("x", "mha"),
        writes=("x_mid",),
        explain=attention_texts.residual1,
        panels=P.tensors("x_mid"),
        inputs=P.tensors("x", "mha"),
        as_run=formulas.residual1,
        facts=stage_facts.residual1,
        per_block=True,
        backward=walk_steps.residual1,
    ),
    Stage(
        id="ffn",
        number=11,
        title="Feed-forward: widen and rectify",
        equation="17.9",
        formula="h = max(0, LN(x') W_1 + b_1)",
        latex=r"\mathrm{FFN}(z) = \max(0,\, z W_1 + b_1)\, W_2 + b_2",
        reads=("x_mid", "W_1", "b_1"),
        writes=("x_mid_norm", "hidden_pre", "hidden"),
        explain=output_texts.ffn,
        panels=P.tensors("x_mid_norm", "hidden_pre", "hidden"),
        inputs=P.tensors("x_mid"),
        as_run=formulas.ffn,
        facts=stage_facts.ffn,
        per_block=True,
        more_reads=("ln2_g", "ln2_b"),
        backward=walk_steps.ffn,
    ),
    Stage(
        id="residual2",
        number=12,
        title="Feed-forward out and second residual",
        equation="17.10",
        formula="y = x' + (h W_2 + b_2)",
        latex=r"y = x' + \mathrm{FFN}(\mathrm{LN}(x'))",
        reads=("hidden", "W_2", "b_2", "x_mid"),
        writes=("ffn", "y"),
        explain=output_texts.residual2,
        panels=P.tensors("ffn", "y"),
        inputs=P.tensors("hidden", "x_mid"),
        as_run=formulas.residual2,
        per_block=True,
        backward=walk_steps.residual2,
    ),
    Stage(
        id="final_norm",
        number=13,
        title="Final norm, last position",
        equation="17.3",
        formula="z = LN(y_last)",
        latex=r"z = \mathrm{LN}(y_{T})",
        reads=("y",),
        writes=("z",),
        explain=output_texts.final_norm,
        panels=P.tensors("z"),
        inputs=P.tensors("y"),
        as_run=formulas.final_norm,
        facts=stage_facts.final_norm,
        more_reads=("lnf_g", "lnf_b"),
        backward=walk_steps.final_norm,
    ),
    Stage(
        id="unembed",
        number=14,
        title="Tied unembedding",
        equation="17.11",
        formula="ℓ = z Eᵀ,   p = softmax(ℓ)",
        latex=r"\ell = z E^{\top}, \qquad p = \mathrm{softmax}(\ell)",
        reads=("z", "E"),
        writes=("logits", "probs"),
        explain=output_texts.unembed,
        panels=(P.logits(),),
        inputs=P.tensors("z"),
        as_run=formulas.unembed,
        facts=stage_facts.unembed,
        untied_e=("W_U",),
        backward=walk_steps.unembed,
    ),
    Stage(
        id="loss",
        number=15,
        title="Loss and its gradient",
        equation="17.12–17.13",
        formula="L = −log p_target,   ∂L/∂ℓ = p − onehot(target)",
        latex=r"L = -\log p_{t}, \qquad \frac{\partial L}{\partial \ell} = p - \mathrm{onehot}(t)",
        reads=("probs", "logits"),
        writes=("loss", "grad_logits", "logits_stepped", "probs_stepped", "loss_stepped"),
        explain=output_texts.loss,
        panels=(P.loss(), *P.tensors("grad_logits", "logits_stepped", "probs_stepped")),
        inputs=(P.logits(),),
        passed_back=(P.logits_gradient(),),
        facts=stage_facts.loss,
        backward=walk_steps.loss,
    ),
    Stage(
        id="count",
        number=16,
        title="Counting the parameters",
        equation="",
        formula="V·d + n_blocks · (3·d·d + d·d + d·d_ff + d_ff + d_ff·d + d)",
        latex=r"V d + N\,(4d^2 + 2 d\, d_{ff} + d_{ff} + d)",
        reads=("E", "W_Q", "W_K", "W_V", "W_O", "W_1", "b_1", "W_2", "b_2"),
        writes=(),
        explain=output_texts.count_params,
        panels=(P.counts(),),
        as_run=formulas.count_params,
        facts=stage_facts.count_params,
        untied_e=("E", "W_U"),
    ),
)

STAGE_BY_NUMBER = {s.number: s for s in STAGES}
FIRST, LAST = STAGES[0].number, STAGES[-1].number

# The chapter script's stage groups (tinytui print --embed, …).
GROUPS: dict[str, tuple[int, ...]] = {
    "embed": (1, 2, 3, 4),
    "attention": (5, 6, 7, 8, 9, 10),
    "ffn": (11, 12),
    "logits": (13, 14),
    "loss": (15,),
    "params": (16,),
}


# Post-norm runs each block's norm after its add: its gain and bias are read by the step that adds.
POST_NORM_READ_AT = {"ln1_g": "residual1", "ln1_b": "residual1", "ln2_g": "residual2", "ln2_b": "residual2"}


def params_read(stage: Stage, cfg: ModelConfig, switches: Switches | None = None) -> tuple[str, ...]:
    """The weights (block-local names) the step reads in this model as these switches run it (None: the
    chapter's): the chapter's, then GPT-2's that the config switches on (step 3: P; step 5: ln1_g,
    ln1_b; step 6: b_Q, b_K, b_V; …). In post-norm the block's norm gains and biases move from steps 5
    and 11 to the adds they follow, steps 10 and 12."""
    has = set(param_shapes(cfg)) | set(block_param_shapes(cfg))
    arch = Arch.of(cfg)
    read = [m for n in (*stage.reads, *stage.more_reads) for m in for_model(n, stage, arch)]
    if switches is not None and switches.norm == "post":
        read = [n for n in read if n not in POST_NORM_READ_AT]
        read += [n for n, at in POST_NORM_READ_AT.items() if at == stage.id]
    return tuple(dict.fromkeys(n for n in read if n in names.ALL_PARAMS and n in has))


def formula_as_run(stage: Stage, switches: Switches, cfg: ModelConfig | None = None) -> str:
    """The stage's formula as the switches and the model's architecture make it compute (the chapter's
    when all switches are default and cfg is the chapter's or None)."""
    return stage.as_run(stage.formula, switches, cfg)


def title_for(stage: Stage, cfg: ModelConfig | None, switches: Switches | None = None) -> str:
    """The stage's title in this model and run: RMSNorm at step 5, a gate (or GELU) at step 11, W_U at
    step 14 when the model has them, nothing added at step 4 when no position is, no residual at steps 10
    and 12 with it switched off (the chapter's title otherwise, and for cfg None). switches: the run's
    (its activation, positions, residual), None for the model's own."""
    if cfg is None:
        return stage.title
    activation = switches.activation if switches is not None else None
    if stage.id == "add" and (
        cfg.positions in ("rope", "none") or (switches is not None and not switches.positional_encoding)
    ):  # step 4's formula says the same: x is the embedding itself
        return "Meaning alone, no position added"
    if stage.id in ("residual1", "residual2") and switches is not None and not switches.residual:
        return "Attention out, no residual" if stage.id == "residual1" else "Feed-forward out, no residual"
    if stage.id == "norm1" and cfg.norm == "rms":
        return "RMSNorm"
    if stage.id == "ffn":  # widened as the chapter's is, or narrowed, or kept as wide (the step's words)
        wide = "widen" if cfg.d_ff > cfg.d_model else "narrow" if cfg.d_ff < cfg.d_model else "map"
        if cfg.gated:
            return f"Feed-forward: {wide} and gate"
        if (activation or cfg.activation) != "relu":  # GELU rectifies nothing
            return f"Feed-forward: {wide} and activate"
        return f"Feed-forward: {wide} and rectify"
    if stage.id == "unembed" and not cfg.tied:
        return "Unembedding (its own W_U)"
    return stage.title


def equation_words(stage: Stage, cfg: ModelConfig | None, word: str = "equation") -> str:
    """The chapter's equation beside the step, as this model computes it: "equation 17.4" (word "":
    "17.4"), and what the model does there that the chapter has no equation for ("equation 17.4; RoPE
    is not in the chapter", "RMSNorm is not in the chapter"); "" for a step with neither."""
    number, missing = stage.equation, ""
    if cfg is not None:
        rope, rms = cfg.positions == "rope", cfg.norm == "rms"
        if stage.id == "pe" and cfg.positions != "sinusoid":
            number, missing = "", {"rope": "RoPE", "learned": "A learned table P"}.get(cfg.positions, "")
        elif stage.id in ("norm1", "final_norm") and rms:
            number, missing = "", "RMSNorm"
        elif stage.id == "qkv" and rope:
            missing = "RoPE"
        elif stage.id == "ffn" and cfg.gated:
            number, missing = "", "The gate (SwiGLU)"
    said = f"{word} {number}".strip() if number else ""
    if missing:
        said = f"{said}; {missing} is not in the chapter" if said else f"{missing} is not in the chapter"
    return said


def latex_for(stage: Stage, cfg: ModelConfig | None) -> str:
    """The stage's equation in LaTeX as this model computes it (handouts, print --markdown): RMSNorm,
    rotary positions (nothing added; q and k turned at step 6), the gated feed-forward, W_U."""
    if cfg is None:
        return stage.latex
    rope, none = cfg.positions == "rope", cfg.positions == "none"
    rms, gated = cfg.norm == "rms", cfg.gated
    gain = r" \odot g" if cfg.norm_affine else ""  # the chapter's norms, switched to RMSNorm, have none
    layer_affine = cfg.norm_affine and not rms  # GPT-2's LayerNorm: a gain and a bias after LN
    ln = r"\mathrm{LN}(x) = \frac{x - \mu}{\sqrt{\sigma^2 + \epsilon}}"
    biased = {w: f" + b^{w}" if cfg.attn_bias else "" for w in "QKV"}  # b_Q, b_K, b_V
    turned = (r"\mathrm{RoPE}(", ")") if rope else ("", "")
    q, k = (f"{turned[0]}X_n W^{w}{biased[w]}{turned[1]}" for w in "QK")
    heads = {1: r"\mathrm{head}_1", 2: r"\mathrm{head}_1 ; \mathrm{head}_2"}.get(
        cfg.n_heads, r"\mathrm{head}_1 ; \dots ; \mathrm{head}_H"
    )
    heads = rf"\left[{heads}\right] W^O"
    by_id = {
        "pe": r"PE = 0" if rope or none else r"PE_p = P[p]" if cfg.learned_positions else None,
        "add": r"x_p = E[\mathrm{id}_p]"
        if rope or none
        else r"x_p = E[\mathrm{id}_p] + P[p]"
        if cfg.learned_positions
        else None,
        "norm1": r"\mathrm{RMS}(x) = \frac{x}{\sqrt{\frac{1}{d}\sum_j x_j^2 + \epsilon}}" + gain
        if rms
        else rf"x_n = g_1 \odot \mathrm{{LN}}(x) + b_1, \quad {ln}"
        if layer_affine
        else None,
        "qkv": rf"Q = {q}, \quad K = {k}, \quad V = X_n W^V{biased['V']}" if rope or cfg.attn_bias else None,
        "combine": rf"\mathrm{{MHA}}(X) = {heads}"
        + (" + b^O" if cfg.out_bias else "")
        + r", \quad "
        + (
            r"\mathrm{head}_h = A_h V_{g(h)}"
            if cfg.n_kv_heads != cfg.n_heads
            else r"\mathrm{head}_h = A_h V_h"
        )
        if cfg.n_kv_heads != cfg.n_heads or cfg.out_bias or cfg.n_heads != 2
        else None,
        "residual1": r"x' = x + \mathrm{MHA}(\mathrm{RMS}(x))" if rms else None,
        "ffn": r"h = \mathrm{SiLU}(z W_{\mathrm{gate}}) \odot z W_{\mathrm{up}}"
        if gated
        else r"\mathrm{FFN}(z) = \mathrm{GELU}(z W_1 + b_1)\, W_2 + b_2"
        if cfg.activation == "gelu"
        else None,
        "residual2": r"y = x' + h W_{\mathrm{down}}" if gated else None,
        "final_norm": r"z = \mathrm{RMS}(y_{T})" + (gain + "_f" if gain else "")
        if rms
        else r"z = g_f \odot \mathrm{LN}(y_{T}) + b_f"
        if layer_affine
        else None,
        "unembed": r"\ell = z W_U, \qquad p = \mathrm{softmax}(\ell)" if not cfg.tied else None,
        "count": _count_latex(cfg),
    }
    return by_id.get(stage.id) or stage.latex


def _count_latex(cfg: ModelConfig) -> str | None:
    """Step 16's count in LaTeX when this model's formula is not the chapter's (GPT-2's extra terms, the
    Llama family's): the same terms the text formula writes, set as math."""
    from tinytui.model import count  # the counts' step only

    text = count.formula(cfg)
    if text == count.FORMULA:
        return None
    for plain, math in (("d_ff", "d_{ff}"), ("n_ctx", "n_{ctx}"), ("H_kv", "H_{kv}"), ("²", "^2")):
        text = text.replace(plain, math)
    return text.replace("·", r" \cdot ")
