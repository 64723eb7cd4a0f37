"""The stepper's path through a model of any depth: the stage table with the block's steps once per block.

A model of N blocks is shown as steps 1–4 (words to vectors), then steps 5–12 for block 1, again for
block 2, …, then steps 13–16 (the output). Each of those is a Step: a stage and, for the block's own
steps, which block. With one block the path is the chapter's sixteen steps, one Step per stage.

The stage table writes block-local names ("attn.{h}", "W_O", "x"); name() turns them into the canonical
names of one Step. Inside a block, "x" is the stream that enters it: the embedding sum x for block 1,
the previous block's y after that. Outside the blocks, "y" is the last block's output (what step 13 reads).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from tinytui.lesson.arch_names import CHAPTER, Arch, for_model
from tinytui.lesson.stages import STAGE_BY_NUMBER, STAGES, Stage
from tinytui.model import names
from tinytui.model.config import ModelConfig
from tinytui.model.diff import TraceDiff
from tinytui.model.trace import Trace

FIRST_IN_BLOCK = next(s.number for s in STAGES if s.per_block)  # 5: the block's first step


# a NamedTuple, not a frozen dataclass: loaded as the app starts, and a frozen, ordered dataclass compiles
# eight methods from source as its class is made (~4.5 M instructions; a NamedTuple's ~0.5 M); it orders
# as the dataclass did, by number, then block
class Step(NamedTuple):
    """One stop on the stepper's path: a stage, and for a block's own steps (5–12) which block."""

    number: int  # the stage's number, 1–16, as the chapter counts
    block: int | None = None  # 0-based block of a block step (5–12); None for the model-wide steps

    @property
    def stage(self) -> Stage:
        return STAGE_BY_NUMBER[self.number]


def forward(n_blocks: int) -> tuple[Step, ...]:
    """Every step of the forward pass in the order the stepper visits them."""
    out: list[Step] = []
    block_stages = [s for s in STAGES if s.per_block]
    for stage in STAGES:
        if not stage.per_block:
            out.append(Step(stage.number))
        elif stage is block_stages[0]:
            out += [Step(s.number, b) for b in range(n_blocks) for s in block_stages]
    return tuple(out)


def backward(n_blocks: int, walked: tuple[int, ...]) -> tuple[Step, ...]:
    """The backward walk's steps (walked: stage numbers in walk order, e.g. 15 … 2): the blocks' steps
    are visited from the last block to the first, as the gradient flows."""
    out: list[Step] = []
    in_block = [n for n in walked if STAGE_BY_NUMBER[n].per_block]
    for number in walked:
        if not STAGE_BY_NUMBER[number].per_block:
            out.append(Step(number))
        elif number == in_block[0]:
            out += [Step(n, b) for b in reversed(range(n_blocks)) for n in in_block]
    return tuple(out)


def at(number: int, block: int, n_blocks: int) -> Step:
    """The Step of a stage number seen from block (0-based): a block step takes the block (clamped to
    the model), a model-wide step takes none."""
    if STAGE_BY_NUMBER[number].per_block:
        return Step(number, min(max(block, 0), n_blocks - 1))
    return Step(number)


def heading(step: Step, n_blocks: int) -> str:
    """'step 8' for a one-block model or a model-wide step; 'block 2 · step 8' for a block's step."""
    if step.block is None or n_blocks == 1:
        return f"step {step.number}"
    return f"block {step.block + 1} · step {step.number}"


def of_all(step: Step, n_blocks: int, sep: str = " of ") -> str:
    """'Step 9 of 16', or 'Block 2 of 3 · step 9 of 16' for a block's step of a model with several."""
    last = STAGES[-1].number
    if step.block is None or n_blocks == 1:
        return f"Step {step.number}{sep}{last}"
    return f"Block {step.block + 1}{sep}{n_blocks} · step {step.number}{sep}{last}"


def short(step: Step, n_blocks: int) -> str:
    """The step in few characters: '8', or '2·8' for block 2's step 8 (the step list, file names)."""
    if step.block is None or n_blocks == 1:
        return str(step.number)
    return f"{step.block + 1}·{step.number}"


def name(local: str, step: Step, n_blocks: int) -> str:
    """A stage table's name (no "{h}") as the canonical name it means at step."""
    grad = local.startswith(names.GRAD)
    bare = local[len(names.GRAD) :] if grad else local
    if step.block is None:
        b = n_blocks - 1  # after the blocks a block name means the last block's (step 13 reads its y)
        full = names.in_block(b, bare) if bare == "y" else names.canonical(bare)
    elif bare == "x" and step.block > 0:
        full = names.prefix(step.block - 1) + "y"  # the stream entering the block
    else:
        full = names.in_block(step.block, bare)
    return names.GRAD + full if grad else full


def resolve(
    templates: tuple[str, ...], n_heads: int, step: Step, n_blocks: int, arch: Arch = CHAPTER
) -> tuple[str, ...]:
    """A stage table's names as the canonical names of one step in a model of this architecture, "{h}"
    expanded to every head and "{g}" to every key/value head."""
    n_kv = arch.n_kv_heads or n_heads
    out: list[str] = []
    for template in templates:
        for local in for_model(template, step.stage, arch):
            key, count = ("g", n_kv) if "{g}" in local else ("h", n_heads)
            heads = range(1, count + 1) if "{" + key + "}" in local else (None,)
            out += [name(local.format(**{key: h}) if h else local, step, n_blocks) for h in heads]
    return tuple(out)


def resolve_for(templates: tuple[str, ...], cfg: ModelConfig, step: Step) -> tuple[str, ...]:
    """resolve() for a model: its heads, key/value heads, blocks and architecture."""
    return resolve(tuple(templates), cfg.n_heads, step, cfg.n_blocks, Arch.of(cfg))


def templates_for(template: str, cfg: ModelConfig, step: Step) -> tuple[str, ...]:
    """One name of the stage table as the names (still with "{h}", "{g}") it stands for in this model
    at step: a table per name ("q.{h}" at step 6 of a RoPE model: "q_pre.{h}" and "q.{h}")."""
    return for_model(template, step.stage, Arch.of(cfg))


def expand(templates: tuple[str, ...], cfg: ModelConfig, step: Step) -> tuple[str, ...]:
    """Names already spelled for the model (templates_for's) as canonical names, "{h}" and "{g}"
    expanded to the heads, nothing else translated."""
    grouped = Arch(n_kv_heads=cfg.n_kv_heads, grouped=cfg.n_kv_heads != cfg.n_heads)
    return resolve(tuple(templates), cfg.n_heads, step, cfg.n_blocks, grouped)


@dataclass(frozen=True)
class BlockTrace(Trace):
    """A trace as the texts of one block's steps read it (see focus)."""

    block: int = 0  # the block the texts speak of, 0-based


def focus(trace: Trace, step: Step) -> Trace:
    """The trace as a step's texts and facts read it. They are written with block 0's names ("x" for the
    stream in, "blocks.0.attn.1", …); for block b's step, those names give block b's tensors and "x" the
    stream entering block b, so every sentence quotes the block the step shows. Model-wide steps get the
    trace itself."""
    if step.block is None:
        return trace
    b = step.block
    tensors = dict(trace.tensors)
    if b > 0:
        pre, first = names.prefix(b), names.prefix(0)
        tensors.update({first + n[len(pre) :]: t for n, t in trace.tensors.items() if n.startswith(pre)})
        tensors["x"] = trace.tensors[trace.stream_into(b)]
    # with the params: the texts name the model's own norm and positions beside what the switches run
    return BlockTrace(
        trace.cfg, trace.prompt, trace.target, trace.switches, trace.lr, tensors, trace.params, block=b
    )


WRITTEN_KEPT = 1024  # steps' names a store of written names holds: GPT-2 small's path is 100 steps


def changed_per_step(
    changes: TraceDiff,
    n_heads: int,
    n_blocks: int,
    arch: Arch = CHAPTER,
    written: dict[tuple, tuple[str, ...]] | None = None,
) -> dict[Step, int]:
    """How many values each step of the forward path wrote changed (a block's steps once per block;
    with one block, one Step per stage). written: where to keep the names each step writes, for one
    who asks on every change (the step list: at 12 blocks of 12 heads this takes 1.8 ms working them
    out, 0.3 ms with them kept); emptied when it holds WRITTEN_KEPT."""
    out: dict[Step, int] = {}
    if written is not None and len(written) >= WRITTEN_KEPT:
        written.clear()
    for step in forward(n_blocks):
        key = (step, n_heads, n_blocks, arch)
        names_of = written.get(key) if written is not None else None
        if names_of is None:
            names_of = resolve(step.stage.writes, n_heads, step, n_blocks, arch)
            if written is not None:
                written[key] = names_of
        out[step] = sum(changes.tensors[n].n_changed for n in names_of if n in changes.tensors)
    return out
