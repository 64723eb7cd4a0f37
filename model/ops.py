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


def rms_norm(x: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """RMSNorm per row, no gain: x / √(mean(x²) + ε), nothing subtracted. x (…, d) -> (normalised, mean
    of squares (…,))."""
    mean_sq = (x * x).mean(axis=-1)
    return x / np.sqrt(mean_sq[..., None] + eps), mean_sq


def rms_norm_backward(grad: np.ndarray, x: np.ndarray, eps: float) -> np.ndarray:
    """∂L/∂x from ∂L/∂RMS(x), per row: (g − x̂·mean(g·x̂)) / √(mean(x²) + ε), x̂ = RMS(x). LN's rule
    without the mean's term, as RMSNorm subtracts no mean."""
    x_hat, mean_sq = rms_norm(x, eps)
    gx_mean = (grad * x_hat).mean(axis=-1, keepdims=True)
    return (grad - x_hat * gx_mean) / np.sqrt(mean_sq[..., None] + eps)


NORMS = {"layer": lambda x, eps: layer_norm(x, eps)[0], "rms": lambda x, eps: rms_norm(x, eps)[0]}
NORM_BACKWARDS = {"layer": layer_norm_backward, "rms": rms_norm_backward}


def rope_angles(T: int, k: int, theta: float, scaling=None, start: int = 0) -> np.ndarray:
    """The rotary angles of positions start … start+T−1: angle[p, i] = p · f_i with f_i = θ^(−2i/k),
    i < k/2 (Llama 3's scaling stretches the low frequencies). -> (T, k/2)"""
    freq = 1.0 / theta ** (np.arange(0, k, 2, dtype=np.float64) / k)
    if scaling is not None:
        freq = llama3_frequencies(freq, scaling)
    return np.arange(start, start + T, dtype=np.float64)[:, None] * freq[None, :]


def llama3_frequencies(freq: np.ndarray, s) -> np.ndarray:
    """Llama 3's rule (rope_type "llama3"): a wavelength 2π/f longer than L / low_freq_factor (L the
    original context) has f divided by factor, shorter than L / high_freq_factor is kept, and between
    the two f is blended from f/factor to f as L / wavelength runs from low to high_freq_factor."""
    wavelength = 2 * np.pi / freq
    L = s.original_max_position_embeddings
    scaled = np.where(wavelength > L / s.low_freq_factor, freq / s.factor, freq)
    smooth = (L / wavelength - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor)
    blended = (1 - smooth) * scaled / s.factor + smooth * scaled
    between = (wavelength >= L / s.high_freq_factor) & (wavelength <= L / s.low_freq_factor)
    return np.where(between, blended, scaled)


def rotate(x: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """RoPE: dims i and i + k/2 of each row turn together by that row's angle_i (the pairing Hugging
    Face's Llama uses): (a, b) -> (a cos − b sin, b cos + a sin). x (T, k), angles (T, k/2) -> (T, k)"""
    half = x.shape[-1] // 2
    a, b = x[..., :half], x[..., half:]
    cos, sin = np.cos(angles), np.sin(angles)
    return np.concatenate([a * cos - b * sin, b * cos + a * sin], axis=-1)


def rotate_backward(grad: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """∂L/∂x from ∂L/∂rotate(x): a rotation's transpose turns back by the same angle."""
    return rotate(grad, -angles)


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
    """GELU, tanh form (as GPT-2 computes it). h·h·h, not h**3: numpy raises to a power of 3 by the
    general pow, 40 times slower, which made GELU a tenth of a GPT-2 decode step."""
    return 0.5 * h * (1.0 + np.tanh(GELU_C * (h + 0.044715 * (h * h * h))))


def silu(h: np.ndarray) -> np.ndarray:
    """SiLU (swish): h · σ(h), the gate of Llama's feed-forward."""
    return h / (1.0 + np.exp(-h))


ACTIVATIONS = {"relu": relu, "gelu": gelu, "silu": silu}


def relu_backward(grad: np.ndarray, h: np.ndarray) -> np.ndarray:
    """∂L/∂h from ∂L/∂relu(h): passed where h > 0, exactly 0 where the unit is dead (h ≤ 0)."""
    return np.where(h > 0, grad, 0.0)


def gelu_backward(grad: np.ndarray, h: np.ndarray) -> np.ndarray:
    """∂L/∂h from ∂L/∂gelu(h), the derivative of the tanh form above."""
    t = np.tanh(GELU_C * (h + 0.044715 * (h * h * h)))  # as gelu computes it
    slope = 0.5 * (1.0 + t) + 0.5 * h * (1.0 - t**2) * GELU_C * (1.0 + 3 * 0.044715 * h**2)
    return grad * slope


def silu_backward(grad: np.ndarray, h: np.ndarray) -> np.ndarray:
    """∂L/∂h from ∂L/∂silu(h): σ(h) · (1 + h · (1 − σ(h)))."""
    sig = 1.0 / (1.0 + np.exp(-h))
    return grad * sig * (1.0 + h * (1.0 - sig))


ACTIVATION_BACKWARDS = {"relu": relu_backward, "gelu": gelu_backward, "silu": silu_backward}


def cross_entropy(logits: np.ndarray, target: int) -> tuple[float, np.ndarray]:
    """(17.12, 17.13) loss = -log p[target]; grad wrt logits = p - onehot. (V,) -> (float, (V,))"""
    p = softmax(logits)
    onehot = np.zeros_like(p)
    onehot[target] = 1.0
    return float(-np.log(p[target])), p - onehot
