"""One name for every tensor, parameter and gradient, and one label for each on screen.

Canonical names, in the spirit of TransformerLens' hook names:
- model-wide tensors are bare: ids, emb, pe, x, mask, z, logits, probs, loss, grad_logits, …
- a block's tensors and weights are "blocks.<b>.<local>": "blocks.0.x_mid", "blocks.1.W_Q";
  a head's tensor adds the head, 1-based as the chapter counts them: "blocks.0.attn.2";
- the embedding table is "E"; GPT-2's other model-wide weights are "P" (learned positions) and
  "lnf_g", "lnf_b" (the final norm's gain and bias);
- a gradient is "grad." + the name of what it is the gradient of: "grad.blocks.0.W_2", "grad.logits".

What the blocks of Llama, Qwen2 and Mistral add, each only in a model that has it (config.py):
- grouped-query attention: W_K, W_V, b_K, b_V and the tensors k.g, v.g (k_pre.g) have one entry per
  key/value head g (1-based), fewer than the query heads; query head h reads k.g, v.g with
  g = (h − 1) // (n_heads / n_kv_heads) + 1. With as many as query heads nothing changes;
- rotary positions: q_pre.h and k_pre.g are the projections x W_Q, x W_K, and q.h and k.g the same rows
  turned by their position: what the scores read is q and k in every model, as hidden is what W_2
  reads (hidden_pre before the ReLU);
- RMSNorm: ln1.mean_sq (the mean of the squares each row is divided by the root of) instead of
  ln1.mean and ln1.var; its gain ln1_g, ln2_g, lnf_g and no bias;
- the gated feed-forward: gate_pre = x W_gate, gate = SiLU(gate_pre), up = x W_up, hidden = gate ⊙ up,
  ffn = hidden W_down (W_gate, W_up (d, f), W_down (f, d), no biases);
- an untied unembedding: W_U (d, V), model-wide; logits = z W_U.

The stage tables (lesson/stages.py, lesson/walk_steps.py) write block-local names ("attn.{h}", "W_O",
"grad.y");
resolve() turns them into canonical ones for a block. label() is the one way a name is shown.
Older spellings ("attn.2" for block 0, "W_Q@1", "grad.W_2") are read by canonical(), so recordings
made before this naming still replay.
"""

from __future__ import annotations

GRAD = "grad."
BLOCK = "blocks."

# Per-block parameter names, in the order the chapter introduces them.
BLOCK_PARAMS = ("W_Q", "W_K", "W_V", "W_O", "W_1", "b_1", "W_2", "b_2")
PARAMS = ("E", *BLOCK_PARAMS)  # the short names a stage table reads
# What GPT-2 has and the chapter's model lacks, each there only when its ModelConfig switch is on:
NORM_PARAMS = ("ln1_g", "ln1_b", "ln2_g", "ln2_b")  # norm_affine: each norm's gain and bias, (d,)
ATTN_BIAS_PARAMS = ("b_Q", "b_K", "b_V", "b_O")  # attn_bias: (n_heads, d_head) each, b_O (d,)
FINAL_NORM_PARAMS = ("lnf_g", "lnf_b")  # norm_affine: the final norm's (model-wide)
POSITION_PARAM = "P"  # positions == "learned": (n_ctx, d), model-wide
UNEMBED_PARAM = "W_U"  # tied False: the unembedding's own matrix (d, V), model-wide
GATED_PARAMS = ("W_gate", "W_up", "W_down")  # activation "swiglu": in place of W_1, b_1, W_2, b_2
# Every block parameter in the order the forward pass reads them (the chapter's keep their order).
ALL_BLOCK_PARAMS = (
    "ln1_g", "ln1_b", "W_Q", "W_K", "W_V", "b_Q", "b_K", "b_V", "W_O", "b_O",
    "ln2_g", "ln2_b", "W_1", "b_1", "W_2", "b_2", *GATED_PARAMS,
)  # fmt: skip
MODEL_PARAMS = ("E", POSITION_PARAM, *FINAL_NORM_PARAMS, UNEMBED_PARAM)  # model-wide, bare names
ALL_PARAMS = (*MODEL_PARAMS, *ALL_BLOCK_PARAMS)
# one tensor per head: "<local>.<h>" (k, v, k_pre: per key/value head)
PER_HEAD = ("q", "k", "v", "scores", "attn", "head", "q_pre", "k_pre")
WHOLE_NUMBERS = frozenset({"ids", "mask"})  # tensors of whole numbers: token ids, the mask's 0 and 1
BLOCK_TENSORS = (
    "ln1.mean",
    "ln1.var",
    "ln1.mean_sq",
    "x_norm",
    *PER_HEAD,
    "mha",
    "x_mid",
    "x_mid_norm",
    "hidden_pre",
    "gate_pre",
    "gate",
    "up",
    "hidden",
    "ffn",
    "y",
)


def prefix(b: int) -> str:
    """What every name of block b starts with: 'blocks.1.'."""
    return f"{BLOCK}{b}."


def in_block(b: int, local: str) -> str:
    """'x_mid', 1 -> 'blocks.1.x_mid'; model-wide names ('x', 'E', 'logits') stay as they are."""
    return prefix(b) + local if _is_block_local(local) else local


def _is_block_local(local: str) -> bool:
    if local in ALL_BLOCK_PARAMS or local in BLOCK_TENSORS:
        return True
    base, _, head = local.rpartition(".")
    return base in PER_HEAD and (head.isdigit() or head in ("{h}", "{g}"))


def split(name: str) -> tuple[int | None, str]:
    """'blocks.1.attn.2' -> (1, 'attn.2'); 'x' -> (None, 'x'). The grad. prefix is kept on the local part."""
    grad = name.startswith(GRAD)
    bare = name[len(GRAD) :] if grad else name
    if bare.startswith(BLOCK):
        _, b, local = bare.split(".", 2)
        return int(b), (GRAD if grad else "") + local
    return None, name


def grad(name: str) -> str:
    """The name of the gradient of a tensor or parameter: 'W_2' -> 'grad.blocks.0.W_2'."""
    return GRAD + canonical(name)


def resolve(
    names: tuple[str, ...], n_heads: int, block: int = 0, n_kv_heads: int | None = None
) -> tuple[str, ...]:
    """A stage table's names as canonical ones for one block, "{h}" expanded to every head (1-based) and
    "{g}" to every key/value head (n_kv_heads; None: as many as the query heads)."""
    out: list[str] = []
    for name in names:
        grad_ = name.startswith(GRAD)
        local = name[len(GRAD) :] if grad_ else name
        key, count = ("g", n_kv_heads or n_heads) if "{g}" in local else ("h", n_heads)
        heads = range(1, count + 1) if "{" + key + "}" in local else (None,)
        for h in heads:
            one = local.format(**{key: h}) if h is not None else local
            out.append((GRAD if grad_ else "") + in_block(block, one))
    return tuple(out)


def canonical(name: str) -> str:
    """Any spelling tinytui has used for a name -> its canonical name (idempotent).

    'W_Q' -> 'blocks.0.W_Q', 'W_Q@1' -> 'blocks.1.W_Q', 'attn.2' -> 'blocks.0.attn.2',
    'grad.W_2' -> 'grad.blocks.0.W_2'; canonical names and model-wide ones come back unchanged.
    """
    if name.startswith(GRAD):
        return GRAD + canonical(name[len(GRAD) :])
    if name.startswith(BLOCK):
        return name
    base, at, b = name.partition("@")
    if at and b.isdigit():
        return in_block(int(b), base)
    return in_block(0, name)


def label(name: str, n_blocks: int = 1) -> str:
    """How a name is shown: block-local when the model has one block ('attn.2', 'W_Q', 'grad.y'),
    with the block (1-based, as people count) when it has several ('attn.2 (block 2)')."""
    b, local = split(canonical(name))
    if b is None or n_blocks == 1:
        return local
    return f"{local} (block {b + 1})"


def part_label(name: str, n_blocks: int = 1, gated: bool = False) -> str:
    """How a part is shown: 'embedding', 'head 2 (block 1)', 'FFN hidden·W_2', 'b_2 (block 2)'; a gated
    FFN's part is its gate-times-up product through W_down."""
    if name == "emb":
        return "embedding"
    if name == "pe":
        return "positional encoding"
    if name == "lnf_b":
        return "final norm's bias"
    _, b, local = name.split(".", 2)
    hidden = "FFN (gate⊙up)·W_down" if gated else "FFN hidden·W_2"
    words = {"hidden": hidden, "b_2": "FFN b_2", "b_O": "attention b_O"}
    text = words.get(local) or "head " + local.removeprefix("head.") + " ·W_O"
    return text if n_blocks == 1 else f"{text} (block {int(b) + 1})"
