"""Each head's two circuits read straight off the weights, token against token (vocab × vocab).

For block b and head h (1-based, as the canonical names count heads), with W_O^(h) the d_head rows of
W_O that head h's output is multiplied by:

    QK = E W_Q[h] W_K[h]ᵀ Eᵀ / √d_head     row: the token attending, column: the token attended to
    OV = E W_V[h] W_O^(h) Eᵀ                row: the token attended to, column: the output token whose
                                           logit that token's value pushes up (+) or down (−)
                                           (W_U in place of Eᵀ when the unembedding is not tied)

In grouped-query attention W_K and W_V are those of the key/value head that query head h reads.

They are what the head would do if its input were bare token embeddings, so they depend on the
weights only; the run's switches (mask, PE, ablation, norm placement, residual) do not enter them.

A vocabulary too big for V × V tables (GPT-2's 50,257² would be 20 GB a table, 5,420 GB for its 144
heads) is read for a few tokens: given ids, both circuits have those tokens' rows and columns only (the
prompt's tokens and the target, say): the same numbers as the whole table's at those cells.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tinytui.model.config import ModelConfig
from tinytui.model.params import Params
from tinytui.model.trace import Axis, Tensor


def circuit_ignores(cfg: ModelConfig) -> dict[str, str]:
    """What each circuit leaves out, in a line each, in the terms of the model as it runs (cfg after the
    switches: its norm, its positions, its attention biases), for the UI to show under the tables. Under
    RoPE the QK table is what two words at the same place would score: a query and a key turned by the
    same angle keep their product."""
    norm = "RMSNorm" if cfg.norm == "rms" else "layer norm"
    position = {  # a model without positions has none to ignore
        "sinusoid": "position (no positional encoding), ",
        "learned": "position (no row of the position table P), ",
        "rope": "position (the rotary turn of queries and keys: these are the scores of two words at the "
        "same place), ",
        "none": "",
    }[cfg.positions]
    qk_biases = ", the biases b_Q and b_K" if cfg.attn_bias else ""
    ov_biases = (", the biases b_V and b_O" if cfg.out_bias else ", the bias b_V") if cfg.attn_bias else ""
    return {
        "qk": f"{position}the {norm} before the head, whatever earlier heads and filters added{qk_biases}, "
        "and the mask and softmax: raw scores from bare token embeddings",
        "ov": f"how much attention the token gets, the {norm}s before the head and before the logits"
        f"{ov_biases}, and everything that happens after the head writes: a direct path from one token to "
        "the logits",
    }


def ov_formula(cfg: ModelConfig) -> str:
    """The OV circuit's product for this model: through Eᵀ when the unembedding is tied, W_U when not."""
    return "E W_V W_O^(h) " + ("Eᵀ" if cfg.tied else "W_U")


def head_out_rows(params: Params, block: int, head: int) -> np.ndarray:
    """W_O^(h): the d_head rows of block's W_O that head `head` (1-based) is multiplied by. (d_head, d)"""
    dh = params.cfg.d_head
    w_o = params[f"blocks.{block}.W_O"]
    return w_o[(head - 1) * dh : head * dh]


@dataclass(frozen=True)
class HeadCircuits:
    """One head's QK and OV circuits, read off its weights token against token: for the whole
    vocabulary, or for the tokens in ids only."""

    block: int  # 0-based, as in the canonical names ("blocks.0.…")
    head: int  # 1-based, as in the canonical names ("attn.1")
    qk: Tensor  # (V, V): axes "queries" × "keys"
    ov: Tensor  # (V, V): axes "sources" × "vocab"
    ids: tuple[int, ...] | None = None  # the tokens of the rows and columns, when not the whole vocabulary

    def to_json(self) -> dict:
        return {
            "block": self.block,
            "head": self.head,
            "qk": _rows(self.qk.values),
            "ov": _rows(self.ov.values),
        }


def _rows(values: np.ndarray) -> list[list[float]]:
    return [[float(v) for v in row] for row in values]


def _frozen(values: np.ndarray) -> np.ndarray:
    arr = np.array(values, dtype=np.float64)
    arr.setflags(write=False)
    return arr


def head_circuits(params: Params, block: int, head: int, ids: Sequence[int] | None = None) -> HeadCircuits:
    """The QK and OV circuits of one head (block 0-based, head 1-based); given ids, only those tokens'
    rows and columns, in that order (the whole tables' cells at them)."""
    cfg = params.cfg
    if not 0 <= block < cfg.n_blocks:
        raise ValueError(f"block {block} is not in the model (0–{cfg.n_blocks - 1})")
    if not 1 <= head <= cfg.n_heads:
        raise ValueError(f"head {head} is not in the model (1–{cfg.n_heads})")
    pre = f"blocks.{block}."
    chosen = None if ids is None else tuple(int(i) for i in ids)
    if chosen is not None and not all(0 <= i < cfg.n_vocab for i in chosen):
        raise ValueError(f"a token id is not in the vocabulary (0–{cfg.n_vocab - 1})")
    E = params["E"] if chosen is None else params["E"][list(chosen)]
    tokens = cfg.vocab if chosen is None else tuple(cfg.vocab[i] for i in chosen)
    q = E @ params[pre + "W_Q"][head - 1]  # (V, k): every token's query
    kv = cfg.kv_head(head - 1)  # the key/value head this query head reads (itself but in grouped attention)
    k = E @ params[pre + "W_K"][kv]
    v = E @ params[pre + "W_V"][kv]
    qk = q @ k.T / np.sqrt(cfg.d_head)
    U = E.T if cfg.tied else params["W_U"] if chosen is None else params["W_U"][:, list(chosen)]  # unembed
    ov = v @ head_out_rows(params, block, head) @ U
    name = f"{pre}{{}}.{head}"
    queries, keys = Axis("queries", tokens), Axis("keys", tokens)
    sources, vocab = Axis("sources", tokens), Axis("vocab", tokens)
    return HeadCircuits(
        block,
        head,
        Tensor(name.format("qk"), _frozen(qk), (queries, keys)),
        Tensor(name.format("ov"), _frozen(ov), (sources, vocab)),
        chosen,
    )


def circuits(params: Params, ids: Sequence[int] | None = None) -> list[HeadCircuits]:
    """Every head's circuits, block by block, head by head (given ids, over those tokens only)."""
    cfg = params.cfg
    heads = [(b, h) for b in range(cfg.n_blocks) for h in range(1, cfg.n_heads + 1)]
    return [head_circuits(params, b, h, ids) for b, h in heads]


def circuits_json(params: Params, ids: Sequence[int] | None = None, cfg: ModelConfig | None = None) -> dict:
    """{"heads": [{"block", "head", "qk", "ov"}], "vocab": [...], "ignores": {"qk", "ov"}}; given ids,
    "vocab" is those tokens (the rows' and columns') and "ids" their ids in the whole vocabulary. cfg: the
    model as the switches run it, for the words of "ignores" (the weights' own by default)."""
    vocab = params.cfg.vocab
    doc = {
        "heads": [c.to_json() for c in circuits(params, ids)],
        "vocab": list(vocab) if ids is None else [vocab[int(i)] for i in ids],
        "ignores": circuit_ignores(cfg or params.cfg),
    }
    if ids is not None:
        doc |= {"ids": [int(i) for i in ids], "n_vocab": len(vocab)}
    return doc
