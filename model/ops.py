"""Small pure functions of the forward pass. Shapes: T tokens, d model width, H heads, k head width."""

from __future__ import annotations

import numpy as np

NEG_INF = -np.inf


def positional_encoding(n_pos: int, d: int) -> np.ndarray:
    """(17.1) sinusoids: PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(same). -> (T, d)"""
    pos = np.arange(n_pos, dtype=np.float64)[:, None]  # (T, 1)
    i = np.arange(d)[None, :]  # (1, d)
    angle = pos / np.power(10000.0, (2 * (i // 2)) / d)  # (T, d)
    return np.where(i % 2 == 0, np.sin(angle), np.cos(angle))


def layer_norm(x: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(17.3) per row, no gain or bias. x (…, d) -> (normalised, mean (…,), variance (…,))."""
    mean = x.mean(axis=-1)
    var = ((x - mean[..., None]) ** 2).mean(axis=-1)
    return (x - mean[..., None]) / np.sqrt(var[..., None] + eps), mean, var


def layer_norm_backward(grad: np.ndarray, x: np.ndarray, eps: float) -> np.ndarray:
    """∂L/∂x from ∂L/∂LN(x), per row: (g − mean(g) − x̂·mean(g·x̂)) / √(σ² + ε). x is LN's input."""
    x_hat, _, var = layer_norm(x, eps)  # recomputed from the input so it is bit-for-bit the forward's
    g_mean = grad.mean(axis=-1, keepdims=True)
    gx_mean = (grad * x_hat).mean(axis=-1, keepdims=True)
    return (grad - g_mean - x_hat * gx_mean) / np.sqrt(var[..., None] + eps)


def softmax(s: np.ndarray) -> np.ndarray:
    """Row-wise softmax; -inf entries get exactly zero weight. (…, n) -> (…, n)"""
    shifted = s - s.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)


def softmax_backward(grad: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """∂L/∂s from ∂L/∂softmax(s), per row: p ⊙ (g − Σ p·g). Where p is exactly 0 (masked), so is this."""
    return probs * (grad - (grad * probs).sum(axis=-1, keepdims=True))


def relu(h: np.ndarray) -> np.ndarray:
    return np.maximum(0.0, h)


GELU_C = np.sqrt(2.0 / np.pi)


def gelu(h: np.ndarray) -> np.ndarray:
    """GELU, tanh form (as GPT-2 computes it)."""
    return 0.5 * h * (1.0 + np.tanh(GELU_C * (h + 0.044715 * h**3)))


ACTIVATIONS = {"relu": relu, "gelu": gelu}


def relu_backward(grad: np.ndarray, h: np.ndarray) -> np.ndarray:
    """∂L/∂h from ∂L/∂relu(h): passed where h > 0, exactly 0 where the unit is dead (h ≤ 0)."""
    return np.where(h > 0, grad, 0.0)


def gelu_backward(grad: np.ndarray, h: np.ndarray) -> np.ndarray:
    """∂L/∂h from ∂L/∂gelu(h), the derivative of the tanh form above."""
    t = np.tanh(GELU_C * (h + 0.044715 * h**3))
    slope = 0.5 * (1.0 + t) + 0.5 * h * (1.0 - t**2) * GELU_C * (1.0 + 3 * 0.044715 * h**2)
    return grad * slope


ACTIVATION_BACKWARDS = {"relu": relu_backward, "gelu": gelu_backward}


def cross_entropy(logits: np.ndarray, target: int) -> tuple[float, np.ndarray]:
    """(17.12, 17.13) loss = -log p[target]; grad wrt logits = p - onehot. (V,) -> (float, (V,))"""
    p = softmax(logits)
    onehot = np.zeros_like(p)
    onehot[target] = 1.0
    return float(-np.log(p[target])), p - onehot
