"""The shape of a model: sizes, the labels shown for its axes, and what its architecture has.

The chapter's model leaves every architecture switch off: sinusoidal positions, layer norms without
gain or bias, no biases in attention, ReLU. GPT-2 switches them all on (see model/names.py for the
parameters each one adds). The blocks of Llama, Qwen2 and Mistral take other choices: RMSNorm
(norm="rms"), rotary positions (positions="rope", with rope_theta and, for Llama 3, rope_scaling),
fewer key/value heads than query heads (n_kv_heads), a gated feed-forward (activation="swiglu") and an
unembedding of its own (tied=False). Each default is the chapter's, so its numbers do not move.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

# the chapter's formula, GPT's table P (n_ctx × d_model), rotary (q and k turned by position), or nothing
POSITIONS = ("sinusoid", "learned", "rope", "none")
# the model's own feed-forward; the session's Switches start from it ("swiglu": the gate's SiLU)
MODEL_ACTIVATIONS = ("relu", "gelu", "swiglu")
NORMS = ("layer", "rms")  # LayerNorm (the chapter, GPT-2) or RMSNorm (Llama, Qwen2, Mistral)


@dataclass(frozen=True)
class RopeScaling:
    """Llama 3's stretching of the rotary frequencies (config.json's rope_scaling, rope_type "llama3"):
    wavelengths longer than original_max_position_embeddings / low_freq_factor are divided by factor,
    shorter than … / high_freq_factor kept, and those between blended."""

    factor: float
    low_freq_factor: float
    high_freq_factor: float
    original_max_position_embeddings: int


@dataclass(frozen=True)
class ModelConfig:
    """The shape of one model: its vocabulary, the labels of its dimensions, its sizes, and which
    architecture choices it makes (positions, norm, biases, activation). Each default is the chapter's."""

    vocab: tuple[str, ...]  # token strings, indexed from zero
    dims: tuple[str, ...]  # one label per model dimension
    d_model: int
    n_heads: int
    d_head: int
    d_ff: int
    n_blocks: int = 1
    eps: float = 1e-5
    n_ctx: int = 16  # longest prompt the UI lets a user build; the rows of P when positions are learned
    positions: str = "sinusoid"  # "learned": the model-wide parameter P, and pe = P[:T]
    norm_affine: bool = False  # layer norms with gain and bias: ln1_g/b, ln2_g/b per block, lnf_g/b
    attn_bias: bool = False  # biases on Q, K, V (b_Q, b_K, b_V per head) and the attention output (b_O)
    activation: str = "relu"  # the model's own activation ("gelu": the tanh form, as GPT-2)
    norm: str = "layer"  # "rms": x / √(mean(x²) + ε) (· g): no mean taken away, no bias
    n_kv_heads: int = 0  # key/value heads (0: one per query head); query head h reads h // (H / n_kv)
    attn_out_bias: bool = True  # with attn_bias, whether W_O has its bias b_O too (Qwen2's has not)
    tied: bool = True  # logits = z Eᵀ; untied: z W_U with W_U (d_model, V) a matrix of its own
    rope_theta: float = 10000.0  # positions="rope": dims i and i + k/2 turn by p · θ^(−2i/k)
    rope_scaling: RopeScaling | None = None  # Llama 3's frequency scaling, when the config has it

    def __post_init__(self) -> None:
        if self.positions not in POSITIONS:
            raise ValueError(f"positions must be one of {POSITIONS}, not {self.positions!r}")
        if self.activation not in MODEL_ACTIVATIONS:
            raise ValueError(f"activation must be one of {MODEL_ACTIVATIONS}, not {self.activation!r}")
        if self.norm not in NORMS:
            raise ValueError(f"norm must be one of {NORMS}, not {self.norm!r}")
        if not self.n_kv_heads:
            object.__setattr__(self, "n_kv_heads", self.n_heads)  # so MHA compares equal however written
        if self.n_kv_heads < 1 or self.n_heads % self.n_kv_heads:
            raise ValueError(f"n_kv_heads {self.n_kv_heads} must divide n_heads {self.n_heads}")
        if not self.attn_bias and not self.attn_out_bias:
            raise ValueError("attn_out_bias false needs attn_bias (it leaves out b_O alone)")
        if self.positions == "rope" and self.d_head % 2:
            raise ValueError(f"rotary positions turn dims in pairs: d_head {self.d_head} must be even")
        if not self.rope_theta > 0:
            raise ValueError(f"rope_theta must be positive, not {self.rope_theta!r}")

    @property
    def n_vocab(self) -> int:
        return len(self.vocab)

    @property
    def learned_positions(self) -> bool:
        return self.positions == "learned"

    @property
    def group_size(self) -> int:
        """How many query heads read each key/value head (1: multi-head attention)."""
        return self.n_heads // self.n_kv_heads

    def kv_head(self, h: int) -> int:
        """The key/value head (0-based) query head h (0-based) reads: h // group size."""
        return h // self.group_size

    @property
    def out_bias(self) -> bool:
        """Whether the attention output has a bias b_O."""
        return self.attn_bias and self.attn_out_bias

    @property
    def gated(self) -> bool:
        """A gated feed-forward: down(act(x W_gate) ⊙ x W_up)."""
        return self.activation == "swiglu"

    @cached_property
    def _ids(self) -> dict[str, int]:
        # built once: GPT-2 has 50,257 tokens and a tuple's index() would scan them on every lookup
        return {tok: i for i, tok in enumerate(self.vocab)}

    def token_id(self, token: str) -> int:
        """The token's index in the vocabulary; ValueError if it has none (as tuple.index would)."""
        try:
            return self._ids[token]
        except KeyError:
            raise ValueError(f"{token!r} is not in the vocabulary") from None

    def has_token(self, token: str) -> bool:
        return token in self._ids

    def head_labels(self) -> tuple[str, ...]:
        return tuple(f"head {h + 1}" for h in range(self.n_heads))

    def kv_head_labels(self) -> tuple[str, ...]:
        """The key/value heads' labels: the query heads' when there are as many ("head 1" …), else
        "kv head 1" …"""
        if self.n_kv_heads == self.n_heads:
            return self.head_labels()
        return tuple(f"kv head {g + 1}" for g in range(self.n_kv_heads))

    def unit_labels(self) -> tuple[str, ...]:
        return tuple(f"unit {u}" for u in range(self.d_ff))

    def head_dim_labels(self) -> tuple[str, ...]:
        return tuple(f"k{i}" for i in range(self.d_head))

    def position_labels(self) -> tuple[str, ...]:
        """The rows of the learned position table P: 'pos 0' … 'pos n_ctx−1'."""
        return tuple(f"pos {p}" for p in range(self.n_ctx))
