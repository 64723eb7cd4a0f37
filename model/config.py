"""The shape of a model: sizes, the labels shown for its axes, and what its architecture has.

The chapter's model leaves every architecture switch off: sinusoidal positions, layer norms without
gain or bias, no biases in attention, ReLU. GPT-2 switches them all on (see model/names.py for the
parameters each one adds).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

POSITIONS = ("sinusoid", "learned")  # the chapter's formula, or GPT's table P (n_ctx × d_model)
MODEL_ACTIVATIONS = ("relu", "gelu")  # the model's own; the session's Switches start from it


@dataclass(frozen=True)
class ModelConfig:
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

    def __post_init__(self) -> None:
        if self.positions not in POSITIONS:
            raise ValueError(f"positions must be one of {POSITIONS}, not {self.positions!r}")
        if self.activation not in MODEL_ACTIVATIONS:
            raise ValueError(f"activation must be one of {MODEL_ACTIVATIONS}, not {self.activation!r}")

    @property
    def n_vocab(self) -> int:
        return len(self.vocab)

    @property
    def learned_positions(self) -> bool:
        return self.positions == "learned"

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

    def unit_labels(self) -> tuple[str, ...]:
        return tuple(f"unit {u}" for u in range(self.d_ff))

    def head_dim_labels(self) -> tuple[str, ...]:
        return tuple(f"k{i}" for i in range(self.d_head))

    def position_labels(self) -> tuple[str, ...]:
        """The rows of the learned position table P: 'pos 0' … 'pos n_ctx−1'."""
        return tuple(f"pos {p}" for p in range(self.n_ctx))
