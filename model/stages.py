"""THE table of the sixteen stages. The printer, the app, the recorder and the tests all read it.

reads/writes name trace tensors (see trace.py) and parameters (short names: E, W_Q, …), block-local
as names.py spells them; a name with "{h}" stands for one tensor per head (q.1, q.2, …).
names.resolve() turns them into canonical names for a block ("blocks.0.q.1", …).

A stage owns its behaviour: its formula as run (stage_formulas.py), its facts (stage_facts.py) and its
panels (panels.py: what it shows, as data the UI draws by kind). Nothing else asks which step it is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tinytui.model import names
from tinytui.model import panels as P
from tinytui.model.config import ModelConfig
from tinytui.model.panels import Panel
from tinytui.model.params import block_param_shapes, param_shapes
from tinytui.model.switches import Switches
from tinytui.model.texts import attention_texts, formulas, output_texts, stage_facts, step_texts
from tinytui.model.trace import Trace


@dataclass(frozen=True)
class Stage:
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
    facts: Callable[[Trace], list[str]] = stage_facts.none  # see model.facts.stage_facts
    per_block: bool = False  # one of the block's steps (5–12): shown once per block (model/step_path.py)
    # GPT-2's weights this step also reads when the model has them (params_read() says which it has)
    more_reads: tuple[str, ...] = ()


STAGES: tuple[Stage, ...] = (
    Stage(
        "tokens",
        1,
        "Tokens to ids",
        "",
        "id_p = vocab.index(token_p)",
        r"\mathrm{id}_p = \mathrm{vocab}(\text{token}_p)",
        (),
        ("ids",),
        step_texts.tokens,
        panels=(P.tokens(),),
        facts=stage_facts.tokens,
    ),
    Stage(
        "embed",
        2,
        "Embedding lookup",
        "",
        "e_p = E[id_p]",
        r"e_p = E[\mathrm{id}_p]",
        ("ids", "E"),
        ("emb",),
        step_texts.embed,
        panels=(P.tokens("emb"),),
    ),
    Stage(
        "pe",
        3,
        "Positional encoding",
        "17.1",
        "PE[p,2i] = sin(p / 10000^(2i/d)),  PE[p,2i+1] = cos(p / 10000^(2i/d))",
        r"PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{10000^{2i/d}}\right), \quad "
        r"PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{10000^{2i/d}}\right)",
        ("ids",),
        ("pe",),
        step_texts.pe,
        panels=(P.tokens("pe"),),
        as_run=formulas.pe,
        facts=stage_facts.pe,
        more_reads=("P",),
    ),
    Stage(
        "add",
        4,
        "Add position to meaning",
        "17.2",
        "x_p = E[id_p] + PE_p",
        r"x_p = E[\mathrm{id}_p] + PE_p",
        ("emb", "pe"),
        ("x",),
        step_texts.add,
        panels=(P.tokens("x"),),
        inputs=P.tensors("emb", "pe"),
        as_run=formulas.add,
        facts=stage_facts.add,
    ),
    Stage(
        "norm1",
        5,
        "Layer norm",
        "17.3",
        "LN(x) = (x − μ) / √(σ² + ε),  μ and σ² over the row's d entries",
        r"\mathrm{LN}(x) = \frac{x - \mu}{\sqrt{\sigma^2 + \epsilon}}, \quad \mu = \frac{1}{d}\sum_j x_j, "
        r"\quad \sigma^2 = \frac{1}{d}\sum_j (x_j - \mu)^2",
        ("x",),
        ("ln1.mean", "ln1.var", "x_norm"),
        step_texts.norm1,
        panels=(P.stats("ln1.mean", "ln1.var"), *P.tensors("x_norm")),
        inputs=P.tensors("x"),
        as_run=formulas.norm1,
        facts=stage_facts.norm1,
        per_block=True,
        more_reads=("ln1_g", "ln1_b"),
    ),
    Stage(
        "qkv",
        6,
        "Queries, keys, values",
        "17.4",
        "Q = Xn W_Q,  K = Xn W_K,  V = Xn W_V   (per head)",
        r"Q = X_n W^Q, \quad K = X_n W^K, \quad V = X_n W^V",
        ("x_norm", "W_Q", "W_K", "W_V"),
        ("q.{h}", "k.{h}", "v.{h}"),
        attention_texts.qkv,
        panels=P.tensors("q.{h}", "k.{h}", "v.{h}"),
        inputs=P.tensors("x_norm"),
        per_block=True,
        as_run=formulas.qkv,
        more_reads=("b_Q", "b_K", "b_V"),
    ),
    Stage(
        "scores",
        7,
        "Attention scores",
        "17.5",
        "S = Q Kᵀ / √d_k,   d_k = 2,  √d_k = 1.4142",
        r"S = \frac{QK^{\top}}{\sqrt{d_k}}",
        ("q.{h}", "k.{h}"),
        ("scores.{h}",),
        attention_texts.scores,
        panels=P.tensors("scores.{h}"),
        inputs=P.tensors("q.{h}", "k.{h}"),
        as_run=formulas.scores,
        facts=stage_facts.scores,
        per_block=True,
    ),
    Stage(
        "softmax",
        8,
        "Causal mask and softmax",
        "17.6",
        "A = softmax(S + M),   M[i,j] = 0 if j ≤ i else −∞",
        r"A = \mathrm{softmax}\!\left(S + M\right), \quad M_{ij} = \begin{cases} 0 & j \le i \\ "
        r"-\infty & j > i \end{cases}",
        ("scores.{h}",),
        ("mask", "attn.{h}"),
        attention_texts.softmax,
        panels=P.tensors("mask", "attn.{h}"),
        inputs=P.tensors("scores.{h}"),
        as_run=formulas.softmax,
        facts=stage_facts.softmax,
        per_block=True,
    ),
    Stage(
        "combine",
        9,
        "Heads combined",
        "17.7",
        "MHA(X) = [head_1 ; head_2] W_O,   head_h = A_h V_h",
        r"\mathrm{MHA}(X) = \left[\mathrm{head}_1 ; \mathrm{head}_2\right] W^O, \quad "
        r"\mathrm{head}_h = A_h V_h",
        ("attn.{h}", "v.{h}", "W_O"),
        ("head.{h}", "mha"),
        attention_texts.combine,
        panels=P.tensors("head.{h}", "mha"),
        inputs=P.tensors("attn.{h}", "v.{h}"),
        as_run=formulas.combine,
        facts=stage_facts.combine,
        per_block=True,
        more_reads=("b_O",),
    ),
    Stage(
        "residual1",
        10,
        "First residual",
        "17.8",
        "x' = x + MHA(LN(x))",
        r"x' = x + \mathrm{MHA}(\mathrm{LN}(x))",
        ("x", "mha"),
        ("x_mid",),
        attention_texts.residual1,
        panels=P.tensors("x_mid"),
        inputs=P.tensors("x", "mha"),
        as_run=formulas.residual1,
        facts=stage_facts.residual1,
        per_block=True,
    ),
    Stage(
        "ffn",
        11,
        "Feed-forward: widen and rectify",
        "17.9",
        "h = max(0, LN(x') W_1 + b_1)",
        r"\mathrm{FFN}(z) = \max(0,\, z W_1 + b_1)\, W_2 + b_2",
        ("x_mid", "W_1", "b_1"),
        ("x_mid_norm", "hidden_pre", "hidden"),
        output_texts.ffn,
        panels=P.tensors("x_mid_norm", "hidden_pre", "hidden"),
        inputs=P.tensors("x_mid"),
        as_run=formulas.ffn,
        facts=stage_facts.ffn,
        per_block=True,
        more_reads=("ln2_g", "ln2_b"),
    ),
    Stage(
        "residual2",
        12,
        "Feed-forward out and second residual",
        "17.10",
        "y = x' + (h W_2 + b_2)",
        r"y = x' + \mathrm{FFN}(\mathrm{LN}(x'))",
        ("hidden", "W_2", "b_2", "x_mid"),
        ("ffn", "y"),
        output_texts.residual2,
        panels=P.tensors("ffn", "y"),
        inputs=P.tensors("hidden", "x_mid"),
        as_run=formulas.residual2,
        per_block=True,
    ),
    Stage(
        "final_norm",
        13,
        "Final norm, last position",
        "17.3",
        "z = LN(y_last)",
        r"z = \mathrm{LN}(y_{T})",
        ("y",),
        ("z",),
        output_texts.final_norm,
        panels=P.tensors("z"),
        inputs=P.tensors("y"),
        as_run=formulas.final_norm,
        facts=stage_facts.final_norm,
        more_reads=("lnf_g", "lnf_b"),
    ),
    Stage(
        "unembed",
        14,
        "Tied unembedding",
        "17.11",
        "ℓ = z Eᵀ,   p = softmax(ℓ)",
        r"\ell = z E^{\top}, \qquad p = \mathrm{softmax}(\ell)",
        ("z", "E"),
        ("logits", "probs"),
        output_texts.unembed,
        panels=(P.logits(),),
        inputs=P.tensors("z"),
        facts=stage_facts.unembed,
    ),
    Stage(
        "loss",
        15,
        "Loss and its gradient",
        "17.12–17.13",
        "L = −log p_target,   ∂L/∂ℓ = p − onehot(target)",
        r"L = -\log p_{t}, \qquad \frac{\partial L}{\partial \ell} = p - \mathrm{onehot}(t)",
        ("probs", "logits"),
        ("loss", "grad_logits", "logits_stepped", "probs_stepped", "loss_stepped"),
        output_texts.loss,
        panels=(P.loss(), *P.tensors("grad_logits", "logits_stepped", "probs_stepped")),
        inputs=(P.logits(),),
        passed_back=(P.logits_gradient(),),
        facts=stage_facts.loss,
    ),
    Stage(
        "count",
        16,
        "Counting the parameters",
        "",
        "V·d + n_blocks · (3·d·d + d·d + d·d_ff + d_ff + d_ff·d + d)",
        r"V d + N\,(4d^2 + 2 d\, d_{ff} + d_{ff} + d)",
        ("E", "W_Q", "W_K", "W_V", "W_O", "W_1", "b_1", "W_2", "b_2"),
        (),
        output_texts.count_params,
        panels=(P.counts(),),
        as_run=formulas.count_params,
        facts=stage_facts.count_params,
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


def params_read(stage: Stage, cfg: ModelConfig) -> tuple[str, ...]:
    """The weights (block-local names) the step reads in this model: the chapter's, then GPT-2's that
    the config switches on (step 3: P; step 5: ln1_g, ln1_b; step 6: b_Q, b_K, b_V; …)."""
    has = set(param_shapes(cfg)) | set(block_param_shapes(cfg))
    return tuple(n for n in (*stage.reads, *stage.more_reads) if n in names.ALL_PARAMS and n in has)


def formula_as_run(stage: Stage, switches: Switches, cfg: ModelConfig | None = None) -> str:
    """The stage's formula as the switches and the model's architecture make it compute (the chapter's
    when all switches are default and cfg is the chapter's or None)."""
    return stage.as_run(stage.formula, switches, cfg)
