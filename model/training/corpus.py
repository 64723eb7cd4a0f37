"""Training on a plain-text corpus: next-token prediction at every position of every line.

A line is whitespace-separated tokens w_0 … w_n. The model reads w_0 … w_{n−1} (T = n positions) and at
every position p predicts the next token:

    z_p = LN(y_p)   (y: the last block's output, every row; GPT-2: ·lnf_g + lnf_b)      ℓ_p = z_p Eᵀ
    L_line = (1/T) Σ_p −log softmax(ℓ_p)[w_{p+1}]

The stepper's own loss (trace.run) is the last position's term alone; this is the objective a language
model is really trained on. A batch's loss is the mean over every token it predicts, per token (a line of
ten positions counts ten times as much as a line of one), and so is the corpus loss:

    L_batch = Σ_lines T·L_line / Σ_lines T

The backward pass is by hand, like model/backward/gradients.py, and reuses its block rule
(chain_rules.block_backward): only the
top changes — every row of y now receives gradient, each through its own LN — and the embedding lookup
at the bottom is the same. tests/model/test_corpus_gradients.py checks it against central finite
differences.

Optimisers: SGD (θ ← θ − lr·g) and Adam (Kingma & Ba: β1 0.9, β2 0.999, ε 1e-8, bias-corrected).
Batches are drawn from default_rng(seed): the lines shuffled, taken `batch` at a time, reshuffled when
they run out; so a seed, a corpus and a starting model give the same trained weights, bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

# numpy imports numpy.random when it is first asked for. Imported here, with this module (before `tinytui
# train` says it has begun), not inside the first step: a SIGTERM that lands while numpy.random's compiled
# modules load is lost there, and the training it should stop ran on (1 start in 15 on a busy machine).
from numpy.random import default_rng

from tinytui.model import checks, ops
from tinytui.model.backward.chain_rules import block_backward, embedding_backward, norm_backward
from tinytui.model.names import prefix
from tinytui.model.params import Params
from tinytui.model.switches import Switches, defaults
from tinytui.model.trace import run

MAX_STEPS = 100_000  # a corpus run is a batch job, not one undoable change (checks.MAX_STEPS is the app's)
MAX_BATCH = 10_000
OPTIMIZERS = ("adam", "sgd")
ADAM_BETAS = (0.9, 0.999)
ADAM_EPS = 1e-8


@dataclass(frozen=True)
class Line:
    """One line of a training corpus: its line number in the text and the tokens on it."""

    number: int  # 1-based line number in the corpus text
    tokens: tuple[str, ...]


def read_lines(text: str, source: str = "<corpus>") -> list[Line]:
    """Every non-blank line's tokens (split on whitespace). ValueError with the line number for a line
    of one token (nothing to predict) or with control characters; none at all is refused too."""
    lines: list[Line] = []
    for n, raw in enumerate(text.splitlines(), start=1):
        tokens = tuple(raw.split())
        if not tokens:
            continue
        for tok in tokens:
            try:
                checks.plain_text(tok, "token", 100)
            except checks.Invalid as exc:
                raise ValueError(f"{source}: line {n}: {exc}") from None
        if len(tokens) < 2:
            raise ValueError(
                f"{source}: line {n}: one token has no next token to predict (a line needs two or more)"
            )
        lines.append(Line(n, tokens))
    if not lines:
        raise ValueError(f"{source}: no lines to train on")
    return lines


def new_tokens(lines: Sequence[Line], vocab: Sequence[str]) -> tuple[str, ...]:
    """The corpus's tokens that vocab lacks, in the order they first appear."""
    known = set(vocab)
    out: list[str] = []
    for line in lines:
        for tok in line.tokens:
            if tok not in known:
                known.add(tok)
                out.append(tok)
    return tuple(out)


def check_lines(lines: Sequence[Line], vocab: Sequence[str], n_ctx: int, source: str = "<corpus>") -> None:
    """ValueError naming the first line with a token outside vocab, or longer than the context allows
    (a line of n + 1 tokens reads n positions, so at most n_ctx + 1 tokens)."""
    known = set(vocab)
    for line in lines:
        for tok in line.tokens:
            if tok not in known:
                raise ValueError(
                    f"{source}: line {line.number}: {checks.shown(tok)} is not in the model's vocabulary "
                    f"({len(vocab)} tokens)"
                )
        if len(line.tokens) - 1 > n_ctx:
            raise ValueError(
                f"{source}: line {line.number}: {len(line.tokens)} tokens is longer than the model's "
                f"context allows ({n_ctx} positions, so at most {n_ctx + 1} tokens a line)"
            )


# ---- the loss and its gradient -----------------------------------------------------------------------


@dataclass(frozen=True)
class LineGradients:
    """One corpus line's loss and its gradients, for every parameter and for every trace tensor the
    backward walk reaches, with the logits the line gave."""

    loss: float  # the line's cross-entropy per position (per token it predicts)
    params: dict[str, np.ndarray]  # full parameter name -> ∂L/∂θ
    logits: np.ndarray  # (T, V), every position's
    tensors: dict[str, np.ndarray]  # ∂L/∂(trace tensor) for every tensor the walk reaches, by trace name


def _forward(params: Params, tokens: Sequence[str], sw: Switches):
    tokens = tuple(tokens)
    if len(tokens) < 2:
        raise ValueError("a line needs two or more tokens")
    trace = run(params, tokens[:-1], tokens[-1], sw)
    cfg = params.cfg
    y = trace[prefix(cfg.n_blocks - 1) + "y"]  # (T, d)
    z = ops.NORMS[cfg.norm](y, cfg.eps)  # (T, d): every row, each by itself
    if cfg.norm_affine:
        z = z * params["lnf_g"] + params["lnf_b"] if cfg.norm == "layer" else z * params["lnf_g"]
    logits = z @ params["E"].T if cfg.tied else z @ params["W_U"]  # (T, V)
    targets = np.array([cfg.token_id(t) for t in tokens[1:]])
    top = logits.max(axis=-1, keepdims=True)
    log_probs = logits - top - np.log(np.exp(logits - top).sum(axis=-1, keepdims=True))
    loss = float(-log_probs[np.arange(len(targets)), targets].mean())
    return trace, y, z, logits, log_probs, targets, loss


def line_loss(params: Params, tokens: Sequence[str], switches: Switches | None = None) -> float:
    """The mean next-token cross-entropy over every position of one line."""
    return _forward(params, tokens, switches or defaults(params.cfg))[-1]


def line_gradients(params: Params, tokens: Sequence[str], switches: Switches | None = None) -> LineGradients:
    """The line's loss and its gradient for every parameter, by hand."""
    sw = switches or defaults(params.cfg)
    cfg = params.cfg
    trace, y, z, logits, log_probs, targets, loss = _forward(params, tokens, sw)
    T = len(targets)
    g: dict[str, np.ndarray] = {}
    pg: dict[str, np.ndarray] = {}
    # L = (1/T) Σ_p CE(ℓ_p, t_p)  ->  ∂L/∂ℓ_p = (p_p − onehot(t_p)) / T
    d_logits = np.exp(log_probs)
    d_logits[np.arange(T), targets] -= 1.0
    d_logits /= T
    # ℓ = Z Eᵀ  ->  ∂L/∂Z = ∂L/∂ℓ E,  ∂L/∂E (unembedding share) = ∂L/∂ℓᵀ Z
    # (untied: ℓ = Z W_U  ->  ∂L/∂Z = ∂L/∂ℓ W_Uᵀ,  ∂L/∂W_U = Zᵀ ∂L/∂ℓ, and E has the lookup's share only)
    if cfg.tied:
        d_z = d_logits @ params["E"]
        e_unembed = d_logits.T @ z
    else:
        d_z = d_logits @ params["W_U"].T
        pg["W_U"], e_unembed = z.T @ d_logits, 0.0
    # Z = LN(Y)[·g + b] (or RMSNorm's), row by row: every row of the last block's y now reaches the loss
    dy = norm_backward(d_z, y, cfg.eps, params, "lnf_", pg, "lnf_", cfg.norm)
    for b in reversed(range(cfg.n_blocks)):
        pre = prefix(b)
        g[pre + "y"] = dy
        x_in = trace["x"] if b == 0 else trace[prefix(b - 1) + "y"]
        dy = block_backward(params.block(b), trace, x_in, dy, cfg, sw, b, g, pg)
    g["x"] = dy
    pg["E"] = embedding_backward(params, trace, dy, g, pg) + e_unembed  # and P's, when learned
    grads = {name: pg[name] for name in params}  # the order Params lists them
    return LineGradients(loss, grads, logits, g)


def batch_gradients(
    params: Params, lines: Sequence[Sequence[str]], switches: Switches | None = None
) -> tuple[float, dict[str, np.ndarray]]:
    """The loss per predicted token over all the lines, and its gradient: each line's mean loss and
    gradient weighted by how many tokens it predicts."""
    total: dict[str, np.ndarray] = {name: np.zeros(params[name].shape) for name in params}
    loss, tokens_predicted = 0.0, 0
    for tokens in lines:
        lg = line_gradients(params, tokens, switches)
        n = len(tokens) - 1
        loss += n * lg.loss
        tokens_predicted += n
        for name, arr in lg.params.items():
            total[name] += n * arr
    return loss / tokens_predicted, {name: arr / tokens_predicted for name, arr in total.items()}


def corpus_loss(params: Params, lines: Sequence[Line], switches: Switches | None = None) -> float:
    """The next-token cross-entropy per token, over every position of every line."""
    sw = switches or defaults(params.cfg)
    with np.errstate(all="ignore"):
        losses = [line_loss(params, line.tokens, sw) for line in lines]
        weights = [len(line.tokens) - 1 for line in lines]
        return float(np.dot(losses, weights) / sum(weights))


# ---- optimisers and the training loop ---------------------------------------------------------------


class SGD:
    def __init__(self, lr: float) -> None:
        self.lr = lr

    def step(self, params: Params, grads: dict[str, np.ndarray]) -> Params:
        return params.with_arrays({name: params[name] - self.lr * g for name, g in grads.items()})


class Adam:
    def __init__(self, lr: float, betas: tuple[float, float] = ADAM_BETAS, eps: float = ADAM_EPS) -> None:
        self.lr, (self.b1, self.b2), self.eps = lr, betas, eps
        self.t = 0
        self.m: dict[str, np.ndarray] = {}
        self.v: dict[str, np.ndarray] = {}

    def step(self, params: Params, grads: dict[str, np.ndarray]) -> Params:
        self.t += 1
        c1, c2 = 1.0 - self.b1**self.t, 1.0 - self.b2**self.t
        updates = {}
        for name, g in grads.items():
            m = self.m[name] = self.b1 * self.m.get(name, 0.0) + (1.0 - self.b1) * g
            v = self.v[name] = self.b2 * self.v.get(name, 0.0) + (1.0 - self.b2) * g * g
            updates[name] = params[name] - self.lr * (m / c1) / (np.sqrt(v / c2) + self.eps)
        return params.with_arrays(updates)


def optimizer(kind: str, lr: float) -> SGD | Adam:
    if kind not in OPTIMIZERS:
        raise ValueError(f"{kind!r} is not an optimizer ({' or '.join(OPTIMIZERS)})")
    return Adam(lr) if kind == "adam" else SGD(lr)


@dataclass(frozen=True)
class TrainRun:
    """What training on a corpus leaves: the new parameters, each step's batch loss, and the loss on
    the whole corpus before and after."""

    params: Params  # after the last step
    losses: tuple[float, ...]  # each step's batch loss per token, before that step's update
    loss_before: float  # the corpus loss per token at the start
    loss_after: float  # and at the end


def train(
    params: Params,
    lines: Sequence[Line],
    steps: int,
    lr: float,
    kind: str = "adam",
    batch: int = 8,
    seed: int = 0,
    switches: Switches | None = None,
    on_step: Callable[[int, float], None] | None = None,
) -> TrainRun:
    """`steps` optimiser steps of `batch` lines each. ValueError (nothing returned) for a bad argument, a
    line the model cannot read, or a step that overflows. on_step(step, batch loss) after each step."""
    if isinstance(steps, bool) or not isinstance(steps, int) or not 1 <= steps <= MAX_STEPS:
        raise ValueError(f"the number of steps must be between 1 and {MAX_STEPS}, not {steps!r}")
    if isinstance(batch, bool) or not isinstance(batch, int) or not 1 <= batch <= MAX_BATCH:
        raise ValueError(f"the batch must be between 1 and {MAX_BATCH} lines, not {batch!r}")
    lr = checks.lr(lr)
    opt = optimizer(kind, lr)
    sw = switches or defaults(params.cfg)
    cfg = params.cfg
    check_lines(lines, cfg.vocab, cfg.n_ctx)
    rng = default_rng(seed)
    queue: list[int] = []
    losses: list[float] = []
    with np.errstate(all="ignore"):  # overflow is checked after each step and reported as a ValueError
        before = corpus_loss(params, lines, sw)
        for step in range(1, steps + 1):
            chosen = []
            for _ in range(min(batch, len(lines))):
                if not queue:
                    queue = [int(i) for i in rng.permutation(len(lines))][::-1]
                chosen.append(lines[queue.pop()].tokens)
            loss, grads = batch_gradients(params, chosen, sw)
            params = opt.step(params, grads)
            if not (math.isfinite(loss) and all(np.all(np.isfinite(a)) for a in params.values())):
                raise ValueError(
                    f"step {step} of {steps} overflows at lr {lr:g}; try a smaller learning rate"
                )
            losses.append(loss)
            if on_step is not None:
                on_step(step, loss)
        after = corpus_loss(params, lines, sw)
    if not math.isfinite(after):
        raise ValueError(f"the trained model overflows at lr {lr:g}; try a smaller learning rate")
    return TrainRun(params, tuple(losses), before, after)
