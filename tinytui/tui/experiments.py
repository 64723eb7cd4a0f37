"""The experiment switches as one table: key, binding id, footer label, palette text and the session call.

The app builds its bindings, help entries and palette commands from EXPERIMENTS, so a new switch is one
row here (and a field in model.switches.Switches).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import NamedTuple

from tinytui.model.switches import Switches
from tinytui.session.session import Session
from tinytui.session.state import Event


# a NamedTuple, not a frozen dataclass: loaded as the app starts, and a frozen dataclass compiles
# its methods from source as its class is made (~3 M instructions; a NamedTuple's ~0.5 M)
class Experiment(NamedTuple):
    """One experiment switch as the app offers it: its key, its words in the footer, the palette and
    the ? screen, what flipping it does to the session, and how to tell whether it is on."""

    id: str  # binding id and palette key
    key: str  # the single key that flips it ("" for palette only)
    footer: str  # short label in the footer
    palette: str  # the command palette's title
    help: str  # what flipping it shows, in one sentence
    apply: Callable[[Session], Event]
    is_on: Callable[[Switches], bool]  # the chapter's setting counts as "on"
    on_words: str = "the chapter's setting"  # what "on" is, for the palette's note
    when: str = ""  # "controller.method" -> bool: whether the model has what it switches ("" = always)


def _toggle(name: str, head: int | None = None) -> Callable[[Session], Event]:
    return lambda s: s.toggle(name, head)


def cycle_ablation(session: Session) -> Event:
    """none → head 1 off → head 2 off → … → every head off → none."""
    n = session.model.cfg.n_heads
    off = sorted(session.state.switches.ablated_heads)
    order: list[frozenset[int]] = [frozenset()] + [frozenset({h}) for h in range(1, n + 1)]
    if n > 1:  # one head alone is already every head: listed twice, the cycle would stay on it
        order.append(frozenset(range(1, n + 1)))
    current = frozenset(off)
    nxt = order[(order.index(current) + 1) % len(order)] if current in order else frozenset()
    return session.set_switches(replace(session.state.switches, ablated_heads=nxt))


EXPERIMENTS: tuple[Experiment, ...] = (
    Experiment(
        "toggle-mask",
        "m",
        "Mask",
        "Toggle the causal mask",
        "With the mask off, every position may also attend to the positions after it, not only to itself "
        "and those before.",
        _toggle("causal_mask"),
        lambda sw: sw.causal_mask,
    ),
    Experiment(
        "toggle-pe",
        "o",
        "PE",
        "Toggle the positional encoding",
        "Without positional encoding (and without the mask) word order is invisible: a permuted prompt "
        "gives the same vectors, permuted.",
        _toggle("positional_encoding"),
        lambda sw: sw.positional_encoding,
    ),
    Experiment(
        "cycle-heads",
        "H",
        "Ablate head",
        "Cycle head ablation (none, each head alone in turn, then every head)",
        "An ablated head's output is replaced by zeros, so you see what it alone contributed.",
        cycle_ablation,
        lambda sw: not sw.ablated_heads,
    ),
    Experiment(
        "ablate-head-1",
        "",
        "",
        "Ablate head 1 (toggle)",
        "Head 1's output becomes zeros, so what is left is what the other heads contribute.",
        _toggle("ablated_heads", 1),
        lambda sw: 1 not in sw.ablated_heads,
    ),
    Experiment(
        "ablate-head-2",
        "",
        "",
        "Ablate head 2 (toggle)",
        "Head 2's output becomes zeros, so what is left is what the other heads contribute.",
        _toggle("ablated_heads", 2),
        lambda sw: 2 not in sw.ablated_heads,
        when="experiments.has_second_head",
    ),
    Experiment(
        "toggle-activation",
        "a",
        "ReLU/GELU",
        "Switch the FFN activation (ReLU ↔ GELU; a gated model: SiLU → ReLU → GELU)",
        "GELU (what GPT uses) lets small negative values through instead of cutting them to zero; in a gated "
        "(SwiGLU) feed-forward the switch changes the gate's activation, SiLU being the model's own.",
        _toggle("activation"),
        lambda sw: sw.activation == "relu",
    ),
    Experiment(
        "toggle-norm",
        "P",
        "Pre/post-norm",
        "Switch the norms' placement (pre ↔ post)",
        "Post-norm (the 2017 transformer) normalises after each residual add, not before each sublayer.",
        _toggle("norm"),
        lambda sw: sw.norm == "pre",
    ),
    Experiment(
        "toggle-norm-kind",
        "l",
        "LayerNorm/RMSNorm",
        "Switch the norm (LayerNorm ↔ RMSNorm)",
        "RMSNorm divides each row by its root mean square and takes no mean away (Llama's norm); no new "
        "weights, so the chapter's model runs either way (a model whose norms have gains keeps its own).",
        _toggle("norm_kind"),
        lambda sw: sw.norm_kind is None,
        "the model's own norm",
    ),
    Experiment(
        "toggle-positions",
        "O",
        "Sinusoids/RoPE",
        "Switch the positions (sinusoids added ↔ RoPE)",
        "RoPE adds nothing to x at step 4: it turns each head's queries and keys by their position at step "
        "6, so a score depends on how far apart two tokens are. o switches positions off altogether.",
        _toggle("positions"),
        lambda sw: sw.positions is None,
        "the model's own positions",
    ),
    Experiment(
        "toggle-residual",
        "r",
        "Residual",
        "Toggle the residual connections",
        "Without residuals each sublayer replaces the stream instead of adding to it.",
        _toggle("residual"),
        lambda sw: sw.residual,
    ),
)

EXPERIMENT_BY_ID = {e.id: e for e in EXPERIMENTS}
