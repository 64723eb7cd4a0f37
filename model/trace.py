"""A run's record: every intermediate of the forward pass under a stable name, with labelled axes.

Names (h = 1…H): ids, emb, pe, x, ln1.mean, ln1.var, x_norm, q.h, k.h, v.h, scores.h (before the mask),
mask (1 = may attend, 0 = blocked), attn.h, head.h, mha, x_mid, x_mid_norm, hidden_pre, hidden, ffn,
y, z, logits, probs, loss, grad_logits, logits_stepped, probs_stepped, loss_stepped. A Llama-family
model has ln1.mean_sq for ln1.mean and ln1.var, q_pre.h and k_pre.g before RoPE turns them, k.g and v.g
per key/value head, and gate_pre, gate, up for hidden_pre (names.py).
A block's names carry its prefix, "blocks.<b>." (blocks.0.attn.2; see names.py); z is computed
from the last block's y.

run() writes a Trace by running model/forward.py (the formulas, in the chapter's order) on a Tape. The
Tape names each tensor and records what it was computed from; given an earlier trace (run(...,
reuse=trace)) it keeps that trace's tensor wherever the inputs are the same, so an edit recomputes only
what it reaches, bit for bit as a full run would (tests/model/test_recompute.py). first_stale() says how
much of an earlier trace a run could keep, to choose among several.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, NamedTuple, TypeGuard

import numpy as np

from tinytui.model.config import ModelConfig
from tinytui.model.forward import LOSS_NAMES, forward
from tinytui.model.names import BLOCK, POSITION_PARAM, in_block, prefix
from tinytui.model.params import Params
from tinytui.model.switches import Switches, defaults, run_config

DEFAULT_LR = 0.5


# a NamedTuple, not a frozen dataclass: loaded as the app starts, and a frozen dataclass compiles
# its methods from source as its class is made (~3 M instructions; a NamedTuple's ~0.5 M)
class Axis(NamedTuple):
    """One axis of a tensor: what runs along it (its name, such as "tokens" or "dims") and the
    label shown for each index along it."""

    name: str  # "tokens", "dims", "heads", "k", "units", "vocab", "keys"
    labels: tuple[str, ...]


# a NamedTuple, not a frozen dataclass: loaded as the app starts, and a frozen dataclass compiles
# its methods from source as its class is made (~3 M instructions; a NamedTuple's ~0.5 M)
class Tensor(NamedTuple):
    """A named array of numbers with one labelled Axis per dimension: an intermediate of a run, a
    gradient, or a table read off the weights."""

    name: str
    values: np.ndarray  # read-only
    axes: tuple[Axis, ...]  # one per dimension of values; () for a scalar

    def to_json(self) -> dict:
        return {
            "axes": [{"name": a.name, "labels": list(a.labels)} for a in self.axes],
            "values": _json_values(self.values),
        }


def _json_values(arr: np.ndarray):
    if arr.ndim == 0:
        return float(arr)
    return [_json_values(a) for a in arr]


class TensorMap(Mapping[str, np.ndarray]):
    """Named tensors: mapping access gives the array, .tensor() the labelled Tensor."""

    if TYPE_CHECKING:  # read-only here: a Trace holds them, Gradients computes them when first read

        @property
        def tensors(self) -> dict[str, Tensor]: ...

    def __getitem__(self, name: str) -> np.ndarray:
        return self.tensors[name].values

    def __iter__(self) -> Iterator[str]:
        return iter(self.tensors)

    def __len__(self) -> int:
        return len(self.tensors)

    def tensor(self, name: str) -> Tensor:
        return self.tensors[name]


@dataclass(frozen=True)
class Trace(TensorMap):
    """Everything one forward pass computed. Mapping access gives the array; .tensor() the labels too."""

    cfg: ModelConfig
    prompt: tuple[str, ...]
    target: str
    switches: Switches
    lr: float
    tensors: dict[str, Tensor] = field(repr=False)
    # the weights it was run with (None: not known), so a later run can tell what changed since
    params: Params | None = field(default=None, repr=False, compare=False)
    # what each tensor was computed from (Tape): its input tensors' arrays, weights and plain values
    sources: dict[str, tuple] = field(default_factory=dict, repr=False, compare=False)

    @property
    def token_labels(self) -> tuple[str, ...]:
        return tuple(f"{p}:{tok}" for p, tok in enumerate(self.prompt))

    @property
    def prediction(self) -> str:
        return self.cfg.vocab[int(np.argmax(self["probs"]))]

    @property
    def loss(self) -> float:
        return float(self["loss"])

    def inputs_of(self, name: str) -> tuple[str, ...]:
        """The tensors and weights the tensor named name was computed from, by canonical name, in the
        order its formula takes them (empty for a trace that did not record it)."""
        by_array = {id(t.values): n for n, t in self.tensors.items()}
        found = []
        for item in self.sources.get(name, ()):
            if isinstance(item, Weight):
                found.append(item.name)
            elif isinstance(item, np.ndarray) and id(item) in by_array:
                found.append(by_array[id(item)])
        return tuple(found)

    def stream_into(self, b: int | None = None) -> str:
        """The residual stream's tensor block b reads (b None: the one the final norm reads), as the
        forward passed it on: x into the first block, each block's y into the next, the last y into z.
        Read off the formula that reads it first (the block's first norm, z), which takes it first."""
        reader = "z" if b is None else prefix(b) + "x_norm"
        found = self.inputs_of(reader)
        if not found:
            raise ValueError(f"this trace did not record what {reader} was computed from")
        return found[0]

    def to_json(self) -> dict:
        return {
            "prompt": list(self.prompt),
            "target": self.target,
            "switches": self.switches.to_dict(),
            "lr": self.lr,
            "prediction": self.prediction,
            "tensors": {name: t.to_json() for name, t in self.tensors.items()},
        }


# The parts of a run, in order (see the module's docstring); a block b's part is BLOCKS + b.
EMBED, BLOCKS = 0, 1
HEAD_NAMES = ("z", "logits", "probs")


def head_part(cfg: ModelConfig) -> int:
    return BLOCKS + cfg.n_blocks


def loss_part(cfg: ModelConfig) -> int:
    return BLOCKS + cfg.n_blocks + 1


def nothing_changed(cfg: ModelConfig) -> int:
    return BLOCKS + cfg.n_blocks + 2


def part_of(name: str, cfg: ModelConfig) -> int:
    """The part of a run that computes the tensor named name."""
    if name.startswith(BLOCK):
        return BLOCKS + int(name.split(".", 2)[1])
    if name in HEAD_NAMES:
        return head_part(cfg)
    if name in LOSS_NAMES:
        return loss_part(cfg)
    return EMBED


def first_stale(
    reuse: Trace, params: Params, prompt: tuple[str, ...], target: str, switches: Switches, lr: float
) -> int:
    """The first part of a run on these inputs whose tensors differ from reuse's: EMBED when nothing can
    be kept (another prompt or model, a switch every block reads, weights not known), nothing_changed()
    when every tensor would be the same. (To choose which earlier trace a run should reuse.)"""
    cfg = run_config(params.cfg, switches)
    if reuse.params is None or reuse.prompt != prompt or (reuse.cfg is not cfg and reuse.cfg != cfg):
        return EMBED
    start = _first_switch_reader(reuse.switches, switches, cfg)
    ids = {cfg.token_id(t) for t in prompt}
    for name, cells in params.differences(reuse.params).items():
        start = min(start, _first_reader(name, cells, ids, len(prompt), cfg))
    if target != reuse.target or lr != reuse.lr:
        start = min(start, loss_part(cfg))
    return start


def _first_switch_reader(old: Switches, new: Switches, cfg: ModelConfig) -> int:
    """The first part that reads a switch that differs (a head ablated: its block's part)."""
    unablated: dict[str, Any] = {"ablated_heads": frozenset(), "ablated": frozenset()}
    if replace(old, **unablated) != replace(new, **unablated):
        return EMBED  # the mask, positions, norm, activation or residual: read from the embedding on
    if old.ablated_heads != new.ablated_heads:
        return BLOCKS  # a head of every block
    return min((BLOCKS + b for b, _ in old.ablated ^ new.ablated), default=nothing_changed(cfg))


def _first_reader(name: str, cells, ids: set[int], T: int, cfg: ModelConfig) -> int:
    """The first part that reads the changed cells of parameter name (cells None: the whole array)."""
    if name.startswith(BLOCK):
        return part_of(name, cfg)
    if name == "E":  # the prompt's rows are its embedding; every row is read by the logits
        if cells is None or any(index[0] in ids for index in cells):
            return EMBED
        return head_part(cfg)
    if name == POSITION_PARAM:  # only the prompt's positions are read
        if cells is None or any(index[0] < T for index in cells):
            return EMBED
        return nothing_changed(cfg)
    return head_part(cfg)  # the final norm's gain and bias


def run(
    params: Params,
    prompt: Sequence[str],
    target: str,
    switches: Switches | None = None,
    lr: float = DEFAULT_LR,
    reuse: Trace | None = None,
    patch: Mapping[str, Callable[[np.ndarray], np.ndarray]] | None = None,
) -> Trace:
    """Every tensor of the forward pass, the loss and one SGD step's effect on it. With reuse (an earlier
    trace of these weights or others), what these inputs would compute the same is kept as it is and
    only the rest is computed (Tape): the same tensors, bit for bit, as without it. patch: tensor name ->
    a function of its values giving the values the rest of the run reads instead (activation patching)."""
    switches = switches or defaults(params.cfg)
    cfg = run_config(params.cfg, switches)  # the model's norm and positions, or the switches' in their place
    prompt, lr = tuple(prompt), float(lr)
    _check_inputs(cfg, prompt, target)
    tape = Tape.start(params, prompt, reuse, patch or {}, cfg)
    forward(tape, cfg, prompt, target, switches, lr)
    if _same_run(reuse, params, target, lr, switches) and _all_kept(reuse, tape.tensors):
        return reuse
    return Trace(cfg, prompt, target, switches, lr, tape.tensors, params, tape.sources)


def _check_inputs(cfg: ModelConfig, prompt: tuple[str, ...], target: str) -> None:
    if not prompt:
        raise ValueError("the prompt is empty")
    for tok in (*prompt, target):
        if not cfg.has_token(tok):
            raise ValueError(f"{tok!r} is not in the vocabulary")
    if cfg.learned_positions and len(prompt) > cfg.n_ctx:
        raise ValueError(f"{len(prompt)} tokens is longer than the model's {cfg.n_ctx} learned positions")


def _same_run(
    reuse: Trace | None, params: Params, target: str, lr: float, switches: Switches
) -> TypeGuard[Trace]:
    if reuse is None or reuse.params is not params:
        return False
    return (reuse.target, reuse.lr, reuse.switches) == (target, lr, switches)


def _all_kept(reuse: Trace, tensors: dict[str, Tensor]) -> bool:
    return len(tensors) == len(reuse.tensors) and all(reuse.tensors.get(n) is t for n, t in tensors.items())


# ---- the tape: how a run writes its tensors, keeping an earlier run's where it may ----------------
# a NamedTuple, not a frozen dataclass: loaded as the app starts, and a frozen dataclass compiles
# its methods from source as its class is made (~3 M instructions; a NamedTuple's ~0.5 M)
class Weight(NamedTuple):
    """A parameter as an input: read from the Params only when the tensor is computed."""

    name: str


def axes_of(cfg: ModelConfig, prompt: tuple[str, ...]) -> dict[str, Axis]:
    """The axes an axes string names, by letter: T tokens, S the keys they attend to, d dims, k a head's
    dims, f feed-forward units, V the vocabulary."""
    tokens = tuple(f"{p}:{tok}" for p, tok in enumerate(prompt))
    return {
        "T": Axis("tokens", tokens),
        "S": Axis("keys", tokens),
        "d": Axis("dims", cfg.dims),
        "k": Axis("k", cfg.head_dim_labels()),
        "f": Axis("units", cfg.unit_labels()),
        "V": Axis("vocab", cfg.vocab),
    }


class _Record:
    """What one run has written: its tensors, what each was computed from, and the run it may reuse."""

    def __init__(
        self,
        params: Params,
        axes: dict[str, Axis],
        old: dict[str, Tensor],
        sources: dict[str, tuple],
        changed: frozenset[str],
    ):
        self.params = params
        self.axes = axes
        self.out: dict[str, Tensor] = {}
        self.sources: dict[str, tuple] = {}  # tensor name -> the inputs it was computed from
        self.old, self.old_sources = old, sources  # the earlier run's ({} when there is none to reuse)
        self.changed: frozenset[str] = changed  # weights that may read differently from the earlier run's
        self.weights: dict[tuple[int | None, str], Weight | None] = {}  # made once a run, by (block, name)
        self.axes_by_spec: dict[str, tuple[Axis, ...]] = {}  # "T d" -> (tokens, dims)
        self.patch: dict[str, Callable[[np.ndarray], np.ndarray]] = {}  # name -> what replaces its values


class Tape:
    """t(name, axes, formula, *inputs) -> the named tensor's values (a tuple of names gives a tuple)."""

    def __init__(self, record: _Record, block: int | None = None):
        self._record = record
        self._block = block

    @classmethod
    def start(
        cls,
        params: Params,
        prompt: tuple[str, ...],
        reuse: Trace | None = None,
        patch: Mapping[str, Callable[[np.ndarray], np.ndarray]] | None = None,
        cfg: ModelConfig | None = None,
    ) -> Tape:
        """A tape for a run of params on prompt; reuse: an earlier Trace to keep tensors from; patch:
        tensor name -> what replaces its values; cfg: the model as the run's switches run it (run_config;
        params.cfg when not given)."""
        old: dict[str, Tensor] = {}
        sources: dict[str, tuple] = {}
        changed: frozenset[str] = frozenset()
        cfg = cfg or params.cfg
        same_model = reuse is not None and (reuse.cfg is cfg or reuse.cfg == cfg)
        if reuse is not None and same_model and reuse.params is not None and reuse.prompt == prompt:
            old, sources = reuse.tensors, reuse.sources
            changed = frozenset(params.differences(reuse.params))
        record = _Record(params, axes_of(params.cfg, prompt), old, sources, changed)
        record.patch = dict(patch or {})
        return cls(record)

    def block(self, b: int) -> Tape:
        """The same tape, naming tensors and reading weights of block b."""
        return Tape(self._record, b)

    def weight(self, name: str) -> Weight | None:
        """A parameter of this block (or of the model), or None when the model has none of that name."""
        key, made = (self._block, name), self._record.weights
        if key not in made:
            full = name if self._block is None else in_block(self._block, name)
            made[key] = Weight(full) if full in self._record.params else None
        return made[key]

    @property
    def tensors(self) -> dict[str, Tensor]:
        return self._record.out

    @property
    def sources(self) -> dict[str, tuple]:
        return self._record.sources

    def __call__(self, names, axes, formula: Callable, *inputs):
        single = isinstance(names, str)
        names, axes = ((names,), (axes,)) if single else (tuple(names), tuple(axes))
        if self._block is not None:
            names = tuple(prefix(self._block) + n for n in names)
        tensors = self._tensors(names, axes, single, formula, inputs)
        rec = self._record
        for i, name in enumerate(names):
            if name in rec.patch:  # a patched tensor is never the same input as any run's: never kept
                tensors[i] = self._tensor(name, np.array(rec.patch[name](tensors[i].values)), axes[i])
            rec.out[name] = tensors[i]
            rec.sources[name] = (*inputs, _PATCHED) if name in rec.patch else inputs
        return tensors[0].values if single else tuple(t.values for t in tensors)

    def _tensors(self, names, axes, single: bool, formula: Callable, inputs: tuple) -> list[Tensor]:
        """The earlier run's tensors where they may be kept, else formula computed on the inputs."""
        before = self._earlier(names, inputs)
        kept = self._kept(before, names, inputs)
        if kept is not None:
            return kept
        values = formula(*[self._record.params[i.name] if isinstance(i, Weight) else i for i in inputs])
        made = [self._tensor(n, v, a) for n, v, a in zip(names, (values,) if single else values, axes)]
        return self._same_bits(before, names, made, inputs) or made

    def _tensor(self, name: str, values, axes: str) -> Tensor:
        fresh = isinstance(values, np.ndarray) and values.flags.owndata and values.flags.writeable
        arr = values if fresh and values.dtype == np.float64 else np.array(values, dtype=np.float64)
        arr.setflags(write=False)  # a formula's own new array is taken; an input or a view is copied
        by_spec = self._record.axes_by_spec
        if axes not in by_spec:
            by_spec[axes] = tuple(self._record.axes[a] for a in axes.split())
        return Tensor(name, arr, by_spec[axes])

    def _earlier(self, names: tuple[str, ...], inputs: tuple) -> tuple | None:
        """What the earlier run computed these tensors from (None: it has not all of them)."""
        rec = self._record
        before = rec.old_sources.get(names[0])
        if before is None or len(before) != len(inputs) or any(n not in rec.old for n in names):
            return None
        return before

    def _kept(self, before: tuple | None, names, inputs: tuple) -> list[Tensor] | None:
        """The earlier run's tensors when every input is the same as theirs, else None."""
        if before is None:
            return None
        for was, now in zip(before, inputs):
            if isinstance(now, Weight):
                if was != now or now.name in self._record.changed:
                    return None
            elif not _same_input(was, now):
                return None
        return [self._record.old[n] for n in names]

    def _same_bits(
        self, before: tuple | None, names, made: list[Tensor], inputs: tuple
    ) -> list[Tensor] | None:
        """The earlier tensors when a changed weight was all that differed and the bits came out the same
        (a row of E the prompt does not use, a row of P past it, another head's slice of W_Q)."""
        if before is None or not all(
            isinstance(now, Weight) or _same_input(was, now) for was, now in zip(before, inputs)
        ):
            return None
        old = [self._record.old[n] for n in names]
        if all(_bits(o.values) == _bits(m.values) and o.axes == m.axes for o, m in zip(old, made)):
            return old
        return None


_PATCHED = object()  # the last input of a patched tensor: the same as no other input


def _same_input(was, now) -> bool:
    """An array is the same input only when it is the very same array; anything else when it is equal
    and of the same type (so 1 is not True, and 0.0 is not -0.0)."""
    if isinstance(now, np.ndarray) or isinstance(was, np.ndarray):
        return was is now
    if type(was) is not type(now):
        return False
    if isinstance(now, float):
        return _bits(np.float64(was)) == _bits(np.float64(now))
    if isinstance(now, list | tuple):
        return len(was) == len(now) and all(_same_input(a, b) for a, b in zip(was, now))
    return bool(was == now)


def _bits(arr) -> tuple:
    a = np.asarray(arr)
    return a.shape, a.dtype.str, a.tobytes()
