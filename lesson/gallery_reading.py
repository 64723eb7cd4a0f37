"""The gallery reading of a run (the project's second source): paintings, artists, filters, as data.

Each prompt position is a painting: its vector in the residual stream. A block is a day. In the
morning each head (an artist) adds strokes to every painting: at position p head h adds
head_h[p] · W_O^(h), and the strokes of all artists add up to mha[p]. In the evening the FFN (a filter)
changes each painting on its own, by ffn[p]. The last painting of the finished gallery gives the
logits, so the gallery's prediction is the run's.

day()           every painting at every moment of the run (Gallery, Painting, Day)
captions()      plain sentences about the run, every number in them a value of the run (Caption); with
                rotary positions the second says how the queries and keys were turned instead of marked
norm_caption()  RMSNorm before the artists or the filter, with the last painting's divisor
artist_rules()  one head's two rules, B = M W_V W_O^(h) and A = softmax((M W_Q)(M W_K)ᵀ/√d_k + mask),
                with A·B, that head's strokes (ArtistRules); read off the run, so with rotary positions
                q and k are turned, and grouped heads read their shared W_K, W_V
scale_card()    GPT-3's sizes from the source beside this model's (ScaleRow)
picture_shape(), Gallery.picture()   a d_model vector as a small RGB image, when d_model is 3·h·w
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tinytui.lesson.texts.wording import in_words, listed, tops_as_shown
from tinytui.model import count, ops
from tinytui.model.analysis.circuits import head_out_rows
from tinytui.model.config import ModelConfig
from tinytui.model.params import Params
from tinytui.model.trace import Trace

MAX_ASPECT = 4  # a picture wider than this many times its height is drawn as a one-row strip


def picture_shape(d_model: int) -> tuple[int, int, int] | None:
    """(h, w, 3) with h·w·3 = d_model, as square as it factors (12288 -> 64×64); a 1×n strip when the
    closest factoring is more than MAX_ASPECT times wider than high; None unless 3 divides d_model."""
    if d_model <= 0 or d_model % 3:
        return None
    n = d_model // 3
    h = max(k for k in range(1, math.isqrt(n) + 1) if n % k == 0)
    w = n // h
    return (h, w, 3) if w <= MAX_ASPECT * h else (1, n, 3)


def shade(vector: np.ndarray, scale: float, shape: tuple[int, int, int]) -> np.ndarray:
    """The vector as RGB values in [0, 1]: 0.5 is zero, 0 and 1 are −scale and +scale (clipped)."""
    v = np.asarray(vector, dtype=np.float64)
    if scale <= 0 or not np.isfinite(scale):
        return np.full(shape, 0.5)
    return np.clip(0.5 + 0.5 * v / scale, 0.0, 1.0).reshape(shape)


@dataclass(frozen=True)
class Day:
    """One block, seen from one painting: the morning's strokes, then the evening's filter."""

    block: int  # 0-based, as in the canonical names
    strokes: tuple[np.ndarray, ...]  # per head, head 1 first: head_h[p] · W_O^(h), each (d,)
    morning: np.ndarray  # all the strokes together: mha[p]
    canvas: np.ndarray  # the painting after the morning: x_mid[p]
    filter_change: np.ndarray  # what the filter adds: ffn[p]
    evening: np.ndarray  # the painting at the end of the day: y[p]


@dataclass(frozen=True)
class Painting:
    """One prompt position seen as a painting: its token, its stock image and position mark, the
    painting it starts as, and each day (block) it goes through."""

    position: int
    token: str
    label: str  # as the app labels rows: "1:woodchuck"
    stock: np.ndarray  # the token's stock image: emb[p]
    mark: np.ndarray  # the position mark: pe[p] (zero with PE off, and with rotary positions or none)
    start: np.ndarray  # the painting on opening day: x[p] = emb + pe
    days: tuple[Day, ...]

    @property
    def finished(self) -> np.ndarray:
        return self.days[-1].evening

    def vectors(self) -> list[np.ndarray]:
        out = [self.stock, self.mark, self.start]
        for day in self.days:
            out += [*day.strokes, day.morning, day.canvas, day.filter_change, day.evening]
        return out


@dataclass(frozen=True)
class Prediction:
    """What the finished gallery predicts: the run's likeliest next token and its probability, and the
    runner-up's."""

    token: str  # the painting the gallery predicts: the run's top token
    probability: float
    runner_up: str | None  # the next most likely token (None with a one-token vocabulary)
    runner_up_probability: float | None


@dataclass(frozen=True)
class Gallery:
    """A whole run read as a gallery: every painting through every day, the prediction, the run's
    switches, and what drawing the vectors as pictures needs (a shape and one shared scale)."""

    paintings: tuple[Painting, ...]
    prediction: Prediction
    picture_shape: tuple[int, int, int] | None  # None unless 3 divides d_model
    scale: float  # one normalisation for every picture: the largest |value| of any vector above
    switches: str  # the run's switches, one line
    cfg: ModelConfig  # the model as the run ran it (its norm and positions as the switches set them)
    norm_placement: str  # "pre" or "post", as the switches set it
    position_marks: bool = True  # the positional encoding is on (with it off every mark is zero)

    @property
    def added_positions(self) -> bool:
        """The positions are a mark added to each painting (sinusoids or a learned table), not rotary
        turns of the artists' queries and keys, and not absent."""
        return self.cfg.positions not in ("rope", "none")

    def turns(self) -> np.ndarray | None:
        """Rotary positions: the angle (radians) each painting's queries and keys were turned by, per
        pair of a head's dimensions, fastest pair first (T, d_head/2); None unless the run turned them."""
        if self.cfg.positions != "rope" or not self.position_marks:
            return None
        cfg = self.cfg
        return ops.rope_angles(len(self.paintings), cfg.d_head, cfg.rope_theta, cfg.rope_scaling)

    def picture(self, vector: np.ndarray) -> np.ndarray | None:
        """A vector of this gallery as shaded RGB (h, w, 3) in [0, 1]; None when there is no shape."""
        if self.picture_shape is None:
            return None
        return shade(vector, self.scale, self.picture_shape)


def day(params: Params, trace: Trace) -> Gallery:
    """Every painting at every moment of the run."""
    cfg = params.cfg
    out_rows = [[head_out_rows(params, b, h) for h in range(1, cfg.n_heads + 1)] for b in range(cfg.n_blocks)]
    paintings = []
    for p, token in enumerate(trace.prompt):
        days = []
        for b in range(cfg.n_blocks):
            pre = f"blocks.{b}."
            strokes = tuple(
                trace[f"{pre}head.{h}"][p] @ out_rows[b][h - 1] for h in range(1, cfg.n_heads + 1)
            )
            days.append(
                Day(b, strokes, trace[pre + "mha"][p], trace[pre + "x_mid"][p], trace[pre + "ffn"][p],
                    trace[pre + "y"][p])
            )  # fmt: skip
        label = trace.token_labels[p]
        paintings.append(
            Painting(p, token, label, trace["emb"][p], trace["pe"][p], trace["x"][p], tuple(days))
        )
    probs = trace["probs"]
    order = np.argsort(-probs, kind="stable")
    top = int(order[0])
    second = int(order[1]) if len(order) > 1 else None
    prediction = Prediction(
        cfg.vocab[top],
        float(probs[top]),
        None if second is None else cfg.vocab[second],
        None if second is None else float(probs[second]),
    )
    scale = max(float(np.max(np.abs(v), initial=0.0)) for pt in paintings for v in pt.vectors())
    return Gallery(
        tuple(paintings),
        prediction,
        picture_shape(cfg.d_model),
        scale,
        trace.switches.describe(),
        trace.cfg,
        trace.switches.norm,
        trace.switches.positional_encoding,
    )


# ---- captions ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Caption:
    """One plain sentence about the run in the gallery's words, with every number it quotes, unrounded."""

    kind: str  # "stock", "mark", "artist", "filter", "prediction" or "norm" (norm_caption's)
    position: int | None  # the painting it is about (None for the stock images, the marks, the prediction)
    text: str
    numbers: dict[str, float]  # every number the text quotes, unrounded, by what it is


def _size(v: float) -> str:
    return f"{v:.2f}"


def _percent(p: float) -> str:
    return f"{100 * p:.0f}%"


def captions(gallery: Gallery) -> list[Caption]:
    """Sentences for a reader who is not technical: which stock picture is boldest and which position
    mark biggest; per painting, which artist added the most and how much the filter changed it; then
    what the finished gallery predicts and how sure it is. A sentence that singles one out says so only
    when no other reads the same at the precision it is quoted with; equals are named as a tie."""
    out = [_stock_caption(gallery), _mark_caption(gallery)]
    out += [_artist_caption(pt, pt.days, gallery.cfg.out_bias) for pt in gallery.paintings]
    out += [_filter_caption(pt, pt.days) for pt in gallery.paintings]
    out.append(_prediction_caption(gallery.prediction))
    return out


def day_captions(gallery: Gallery, block: int) -> list[Caption]:
    """The artist and filter sentences of one day (block, 0-based) alone, per painting: what a day's
    morning and evening show, with no word of the days before or after it."""
    artists = [_artist_caption(pt, (pt.days[block],), gallery.cfg.out_bias) for pt in gallery.paintings]
    return artists + [_filter_caption(pt, (pt.days[block],)) for pt in gallery.paintings]


def _stock_caption(gallery: Gallery) -> Caption:
    text = (
        "Each word of the prompt is hung as a plain stock picture: the same word always starts from the "
        "same picture, wherever it hangs."
    )
    sizes = [float(np.linalg.norm(pt.stock)) for pt in gallery.paintings]
    size, labels = _largest(gallery, sizes)
    if len(sizes) == 1:
        said = f"It has a size of {_size(size)}."
    elif len(labels) == len(sizes):
        said = f"All {in_words(len(sizes))} are equally bold: each has a size of {_size(size)}."
    elif len(labels) > 1:
        said = f"The boldest, tied at a size of {_size(size)}, are {listed(labels)}."
    else:
        said = f"The boldest one is {labels[0]}, of size {_size(size)}."
    return Caption("stock", None, f"{text} {said}", {"stock": size})


def _mark_caption(gallery: Gallery) -> Caption:
    if gallery.cfg.positions == "rope":
        return _turn_caption(gallery)
    if gallery.cfg.positions == "none":
        text = (
            "This model has no positions at all: nothing is added to a painting for where it hangs and "
            "nothing is turned: each painting is still its stock picture, and nothing in it or in an "
            "artist's queries and keys says where it hangs."
        )
        return Caption("mark", None, text, {})
    if not gallery.position_marks:
        text = (
            "The position marks are switched off (PE off): nothing on a painting says where it hangs, so "
            "the artists cannot tell the order of the words."
        )
        return Caption("mark", None, text, {})
    source = (
        "the row for that position of a table the model learned"
        if gallery.cfg.positions == "learned"
        else "sines and cosines of the position, worked out by a formula, not learned"
    )
    text = (
        f"Every painting gets a mark saying where it hangs in the row, added on top of its stock picture: "
        f"{source}."
    )
    sizes = [float(np.linalg.norm(pt.mark)) for pt in gallery.paintings]
    size, labels = _largest(gallery, sizes)
    if len(sizes) == 1:
        said = f"Its mark has a size of {_size(size)}."
    elif len(labels) == len(sizes):
        said = f"No mark is bigger than another: all {in_words(len(sizes))} positions tie at {_size(size)}."
    elif len(labels) > 1:
        said = f"The biggest marks, tied at a size of {_size(size)}, are on {listed(labels)}."
    else:
        said = f"The biggest mark, of size {_size(size)}, is on {labels[0]}."
    stock = max(float(np.linalg.norm(pt.stock)) for pt in gallery.paintings)
    beside = _beside_the_stock(size, stock)
    return Caption("mark", None, f"{text} {said} {beside}", {"mark": size, "boldest stock": stock})


def _beside_the_stock(mark: float, stock: float) -> str:
    """How the biggest mark compares with the boldest stock picture, as the sizes quoted read."""
    boldest = f"the boldest stock picture's size, {_size(stock)}"
    if _size(mark) == _size(stock):
        return f"That is as big as {boldest}."
    if mark < stock / 2 and float(_size(mark)) < float(_size(stock)) / 2:  # so too as the sizes read
        return f"That is less than half {boldest}: the marks are faint beside the pictures."
    return f"That is {'less' if mark < stock else 'more'} than {boldest}."


def _turn_caption(gallery: Gallery) -> Caption:
    """Rotary positions: nothing is painted on; each morning the artists' queries and keys turn."""
    plain = "No mark is painted on for where a painting hangs: each painting is still its stock picture."
    turns = gallery.turns()
    if turns is None:
        text = (
            f"{plain} This model's positions are rotary (RoPE): they would turn each artist's queries and "
            "keys by position, but the positions are switched off (PE off): nothing is turned either, so "
            "nothing in a painting or in an artist's queries and keys says where it hangs."
        )
        return Caption("mark", None, text, {})
    text = (
        f"{plain} The positions are rotary (RoPE): every morning each artist's queries and keys are "
        "turned, pair of dimensions by pair, by an angle that grows with the position, so a query and a "
        "key meet at an angle set by how far apart their paintings hang, not by where."
    )
    last = gallery.paintings[-1].label
    if len(gallery.paintings) == 1:
        return Caption("mark", None, f"{text} The only painting hangs first: it is not turned.", {})
    step, far = float(turns[1, 0] - turns[0, 0]), float(turns[-1, 0])
    said = (
        f"In the fastest-turning pair the angle grows by {step:.2f} radians a position, so {last}'s "
        f"queries and keys are turned by {far:.2f} radians"
    )
    numbers = {"turn a position": step, "last turn": far}
    if turns.shape[1] > 1:
        slow = float(turns[-1, -1])
        said += f", and by {slow:.2f} in the slowest pair"
        numbers["last turn, slowest pair"] = slow
    return Caption("mark", None, f"{text} {said}.", numbers)


def norm_caption(gallery: Gallery, block: int, when: str) -> Caption | None:
    """What RMSNorm does to the paintings before the artists (when="morning") or the filter ("evening")
    of day block + 1, with the last painting's divisor; None for LayerNorm, which the chapter's words
    already assume."""
    if gallery.cfg.norm != "rms":
        return None
    who = "the artists look at" if when == "morning" else "the filter goes over"
    if gallery.norm_placement == "post":
        added = "their strokes are" if when == "morning" else "its change is"
        text = (
            f"Under post-norm {who} each painting as it is; RMSNorm (a division by the painting's root "
            f"mean square, with no mean taken away) comes after {added} added."
        )
        return Caption("norm", None, text, {})
    last = gallery.paintings[-1]
    day = last.days[block]
    before = day.canvas if when == "evening" else (last.days[block - 1].evening if block else last.start)
    rms = float(np.sqrt(np.mean(np.square(before)) + gallery.cfg.eps))
    gain = (
        ", then each of its numbers times the norm's gain for that dimension"
        if gallery.cfg.norm_affine
        else ""
    )
    text = (
        f"Before {who} it, each painting is normed with RMSNorm: divided by its root mean square, "
        f"√(mean of its squares + ε), with no mean taken away{gain}. The last painting, {last.label}, "
        f"is divided by {rms:.2f} here."
    )
    return Caption("norm", None, text, {"root mean square": rms})


def _largest(gallery: Gallery, sizes: list[float]) -> tuple[float, list[str]]:
    """The largest size and the labels of every painting whose size reads the same as it when quoted."""
    tops = tops_as_shown(sizes, _size)
    return max(sizes), [gallery.paintings[i].label for i in tops]


def _artist_caption(pt: Painting, days: tuple[Day, ...], out_bias: bool) -> Caption:
    """Which artist added the most to a painting over days (the whole run's, or one day's); out_bias: the
    model adds W_O's bias b_O to the strokes each morning, so their total (the attention output) holds it."""
    sizes = [(float(np.linalg.norm(s)), d.block, h) for d in days for h, s in enumerate(d.strokes, 1)]
    size, block, head = max(sizes, key=lambda t: t[0])  # the first of equals: earliest day, lowest head
    tops = [sizes[i] for i in tops_as_shown([t[0] for t in sizes], _size)]
    if size == 0.0:
        text = f"Painting {pt.label}: no artist added anything to it."
        return Caption("artist", pt.position, text, {})
    total = float(np.linalg.norm(sum(d.morning for d in days)))
    bias = ", with the bias b_O added each morning," if out_bias and len(days) > 1 else ""
    bias = ", with the bias b_O," if out_bias and len(days) == 1 else bias
    together = f"all the artists' strokes on it together{bias} come to a size of {_size(total)}."

    def who(block: int, head: int) -> str:
        return f"artist {head}" + (f" of day {block + 1}" if len(days) > 1 else "")

    if len(sizes) == 1:
        text = f"Painting {pt.label}: the one artist painted strokes of size {_size(size)} on it."
        return Caption("artist", pt.position, text, {"strokes": size})
    if len(tops) > 1:  # "the most" would single out one of equals
        names = listed([who(b, h) for _, b, h in tops])
        text = f"Painting {pt.label}: {names} painted equally large strokes, of size {_size(size)}; "
    else:
        text = (
            f"Painting {pt.label}: {who(block, head)} painted the most on it, strokes of size {_size(size)}; "
        )
    return Caption("artist", pt.position, text + together, {"strokes": size, "all strokes": total})


def _filter_caption(pt: Painting, days: tuple[Day, ...]) -> Caption:
    """How much the filter changed a painting over days (the whole run's, or one day's)."""
    ratios = []
    for d in days:
        change, canvas = float(np.linalg.norm(d.filter_change)), float(np.linalg.norm(d.canvas))
        ratio = change / canvas if canvas > 0 else (math.inf if change > 0 else 0.0)
        ratios.append((ratio, change, canvas, d.block))
    ratio, change, canvas, block = max(ratios, key=lambda t: t[0])
    evening = f"the evening of day {block + 1}" if len(ratios) > 1 else "the evening"
    if all(c == 0.0 for _, c, _, _ in ratios):
        text = f"Painting {pt.label}: the filters left it exactly as it was."
        return Caption("filter", pt.position, text, {})
    if canvas == 0.0:
        text = f"Painting {pt.label}: on {evening} the canvas was blank, so the filter made all of it."
        return Caption("filter", pt.position, text, {})
    if len(ratios) == 1:
        how = "changed it by"
    elif len(tops_as_shown([r for r, *_ in ratios], _percent)) == 1:  # one evening changed it the most
        how = f"changed it most on {evening}, by"
    else:
        how = "changed it as much on several evenings, each time by"
    shown_change, shown_canvas = _sizes_for_ratio(change, canvas, ratio)
    text = (
        f"Painting {pt.label}: the filter {how} {_percent(ratio)} of the size of the canvas (a change of "
        f"{shown_change} on a canvas of {shown_canvas})."
    )
    return Caption("filter", pt.position, text, {"change": change, "canvas": canvas, "ratio": ratio})


def _sizes_for_ratio(change: float, canvas: float, ratio: float) -> tuple[str, str]:
    """The two sizes to as few decimals (2 at least) as make their quotient, worked out by hand from
    them, round to the same percent as the ratio quoted beside them."""
    for digits in range(2, 7):
        a, b = f"{change:.{digits}f}", f"{canvas:.{digits}f}"
        if float(b) > 0 and _percent(float(a) / float(b)) == _percent(ratio):
            break
    return a, b


def _prediction_caption(pr: Prediction) -> Caption:
    p = pr.probability
    if p >= 0.9:
        sure = "it is very sure"
    elif p >= 0.6:
        sure = "it is fairly sure"
    elif p >= 0.3:
        sure = "it is far from sure"
    else:
        sure = "it is guessing"
    second = pr.runner_up_probability
    digits = 0  # as many decimals as it takes for the runner-up to read neither as likely as the
    while (  # prediction nor, when it has a chance, as none
        second is not None
        and digits < 4
        and (
            (second < p and f"{100 * p:.{digits}f}" == f"{100 * second:.{digits}f}")
            or (second > 0 and float(f"{100 * second:.{digits}f}") == 0)
        )
    ):
        digits += 1
    text = f"The finished gallery says the next painting is “{pr.token}”, and {sure}: {100 * p:.{digits}f}%"
    numbers = {"probability": p}
    if pr.runner_up is not None and second is not None:
        text += f", with “{pr.runner_up}” next at {100 * second:.{digits}f}%"
        numbers["runner-up probability"] = second
    return Caption("prediction", None, text + ".", numbers)


# ---- an artist's two rules ------------------------------------------------------------------------


@dataclass(frozen=True)
class ArtistRules:
    """Head `head` of block `block` as the source's artist with two rules, on this run's paintings."""

    block: int  # 0-based
    head: int  # 1-based
    tokens: tuple[str, ...]  # row labels ("0:a", …)
    paintings: np.ndarray  # M (T, d): the paintings as the head reads them, x_norm (the raw x in post-norm)
    value_rule: np.ndarray  # B = M W_V[h] W_O^(h) (T, d): what each painting would add to the others
    pre_attention: np.ndarray  # (M W_Q)(M W_K)ᵀ / √d_k (T, T): how much row attends to column, raw
    attention: np.ndarray  # A = softmax(pre_attention + mask) (T, T), each row summing to 1
    product: np.ndarray  # A·B (T, d): what the artist paints on each painting
    ablated: bool  # the head is switched off in this run: it paints nothing

    @property
    def strokes(self) -> np.ndarray:
        """What the head adds to the canvas in this run: A·B, or zeros when it is ablated."""
        return np.zeros_like(self.product) if self.ablated else self.product


def artist_rules(params: Params, trace: Trace, block: int, head: int) -> ArtistRules:
    """The rules as the run computed them: its values, scores and attention are the trace's own, so a
    model's biases, rotary positions and shared key/value heads are in them as they were in the run."""
    pre = f"blocks.{block}."
    M = trace[pre + "x_norm"]
    kv = params.cfg.kv_head(head - 1) + 1  # the key/value head it reads: its own but in grouped attention
    B = trace[f"{pre}v.{kv}"] @ head_out_rows(params, block, head)
    S = trace[f"{pre}scores.{head}"]
    A = trace[f"{pre}attn.{head}"]
    ablated = trace.switches.is_ablated(block, head)
    return ArtistRules(block, head, trace.token_labels, M, B, S, A, A @ B, ablated)


# ---- the scale card -------------------------------------------------------------------------------

GPT3: dict[str, int | tuple[int, int, int]] = {  # the source's figures for GPT-3
    "paintings": 2048,
    "days": 96,
    "artists": 96,
    "painting size": 12288,
    "picture": (64, 64, 3),
    "filter width": 49152,
    "head width": 128,
}


LLAMA_3_CONTEXT = 8192  # Llama 3 8B's config.json: max_position_embeddings


def llama3_figures() -> dict[str, int | tuple[int, int, int] | None]:
    """Llama 3 8B's figures, from the shape model/count.py counts to its published 8.03 B parameters."""
    size = count.PUBLISHED["Llama-3-8B"][0]
    return {
        "paintings": LLAMA_3_CONTEXT,
        "days": size.n_blocks,
        "artists": size.n_heads,
        "painting size": size.d_model,
        "picture": picture_shape(size.d_model),  # 4096 is no multiple of 3: no RGB picture
        "filter width": size.d_ff,
        "head width": size.d_model // size.n_heads,
        "key/value heads": size.n_kv_heads or size.n_heads,  # grouped-query: several artists to a set
    }


@dataclass(frozen=True)
class ScaleRow:
    """One row of the scale card: a gallery word, the transformer's term for it, and its figure in
    GPT-3, in this model and in Llama 3 8B."""

    key: str  # the gallery's word, a key of GPT3
    term: str  # the transformer's word for it
    gpt3: int | tuple[int, int, int]
    ours: int | tuple[int, int, int] | None  # None: this model has no such thing (no picture shape)
    llama3: int | tuple[int, int, int] | None = None  # Llama 3 8B's (llama3_figures)


def scale_card(cfg: ModelConfig) -> list[ScaleRow]:
    ours: dict[str, tuple[str, int | tuple[int, int, int] | None]] = {
        "paintings": ("n_ctx, the longest prompt", cfg.n_ctx),
        "days": ("blocks (layers)", cfg.n_blocks),
        "artists": ("attention heads per block", cfg.n_heads),
        "painting size": ("d_model", cfg.d_model),
        "picture": ("d_model as an RGB image", picture_shape(cfg.d_model)),
        "filter width": ("d_ff, the FFN's hidden width", cfg.d_ff),
        "head width": ("d_head", cfg.d_head),
    }
    llama = llama3_figures()
    return [ScaleRow(key, term, GPT3[key], value, llama[key]) for key, (term, value) in ours.items()]
