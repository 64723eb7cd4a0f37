"""The shape of a model: sizes and the labels shown for its axes."""

from __future__ import annotations

from dataclasses import dataclass


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
    n_ctx: int = 16  # longest prompt the UI lets a user build

    @property
    def n_vocab(self) -> int:
        return len(self.vocab)

    def token_id(self, token: str) -> int:
        return self.vocab.index(token)

    def head_labels(self) -> tuple[str, ...]:
        return tuple(f"head {h + 1}" for h in range(self.n_heads))

    def unit_labels(self) -> tuple[str, ...]:
        return tuple(f"unit {u}" for u in range(self.d_ff))

    def head_dim_labels(self) -> tuple[str, ...]:
        return tuple(f"k{i}" for i in range(self.d_head))
