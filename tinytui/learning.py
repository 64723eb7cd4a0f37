"""Learning in the app: the backward walk (b), the gradient overlay (d), a learning step (L), training
k steps (T) and the learning rate — keys, actions, palette entries and the loss curves.

TinyTuiApp mixes in LearningActions, puts LEARNING_BINDINGS into its BINDINGS, calls setup_learning()
from __init__, builds its View with view_mode(), and hands n / p / go-to-step to walk() and walk_to()
while the walk is on. Every change still goes through app.apply(); the numbers come from the session
(Session.learn_step, train, set_lr, gradients) and are drawn by tinytui.widgets.backward.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from textual.binding import Binding

from tinytui.model.backward import BACKWARD_STAGES
from tinytui.model.learn import MAX_STEPS, check_steps
from tinytui.model.stages import STAGES
from tinytui.report import fmt
from tinytui.screens.ask import AskScreen
from tinytui.session import Event, Refused, Session, State, Training
from tinytui.widgets.cells import PARAM_NAMES
from tinytui.widgets.view import Curve, Mode

if TYPE_CHECKING:
    from tinytui.app import PaletteCommand, TinyTuiApp

WALK = tuple(s.number for s in BACKWARD_STAGES)  # 15, 14, …, 2: the order the walk visits the steps
DEFAULT_STEPS = 10
STEPS_WITH_WEIGHTS = tuple(s.number for s in STAGES if any(name in PARAM_NAMES for name in s.reads))

LEARNING_BINDINGS = [
    # One key, two bindings: check_action shows the one that applies, so the footer says what b does now.
    Binding("b", "backward_walk", "Backward", id="backward-walk",
            tooltip="Walk the gradient backwards, step 15 → 2, with n and p (b or Esc leaves)"),
    Binding("b", "leave_backward", "Forward", id="leave-backward",
            tooltip="Leave the backward walk: back to the forward pass at the same step"),
    Binding("escape", "leave_backward", "Forward", show=False, id="leave-backward-escape",
            tooltip="Leave the backward walk"),
    Binding("d", "toggle_gradients", "∂L/∂w", show=False, id="gradient-overlay",
            tooltip="Show the gradient ∂L/∂w beside every weight matrix, shaded by sign and size (d hides)"),
    Binding("L", "learning_step", "Learn", show=False, id="learning-step",
            tooltip="One SGD step of size lr on every weight (undoable); ctrl+p → Set learning rate…"),
    Binding("T", "train", "Train", show=False, id="train",
            tooltip="Train k steps as one undoable change (asks for k) and show the loss curve"),
]  # fmt: skip


class LossCurves:
    """Remembers the losses of each learning run by the state it made, so undo hides the curve and
    redo brings it back. Listens to the session's events (a replayed learn event counts too)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._made: dict[
            int, tuple[State, Curve]
        ] = {}  # id(state) -> (state, curve); the state keeps id valid
        session.listeners.append(self._heard)

    def _heard(self, event: Event) -> None:
        losses = event.data.get("losses")
        if event.kind == "learn" and isinstance(losses, list) and losses:
            curve = Curve(
                int(event.data.get("steps", len(losses) - 1)), float(event.data["lr"]), tuple(losses)
            )
            self._made[id(self.session.state)] = (self.session.state, curve)

    def current(self) -> Curve | None:
        """The curve of the run that made the current weights, if the last change was one."""
        made = self._made.get(id(self.session.state))
        return made[1] if made is not None and made[0] is self.session.state else None


def parse_steps(text: str) -> int:
    """A number of steps as typed, 1 to MAX_STEPS; ValueError with the reason.

    Checked here, before the training goes to a thread, so a bad k is refused in the box itself.
    """
    return check_steps(text)  # tinytui.model.checks.steps: the one place a step count is checked


class LearningActions:
    """Mixed into TinyTuiApp (which provides session, apply, notify, bell, push_screen, refresh_views)."""

    walking = False  # the backward walk is on; it is at session.step
    show_gradients = False  # d: ∂L/∂w beside each weight

    def setup_learning(self: TinyTuiApp) -> None:
        """From __init__: follow learning runs for their curves and add the palette entries."""
        self.loss_curves = LossCurves(self.session)
        self.command_sources.append(learning_commands)

    def view_mode(self: TinyTuiApp) -> Mode:
        return Mode(self.walking, self.show_gradients, self.loss_curves.current())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # False hides the binding from the footer and lets the key fall through (Esc does nothing else)
        if action == "backward_walk":
            return not self.walking
        if action == "leave_backward":
            return self.walking
        return super().check_action(action, parameters)  # type: ignore[misc]

    # ---- the backward walk ---------------------------------------------------------------------
    def action_backward_walk(self: TinyTuiApp) -> None:
        if self.walking:
            self.action_leave_backward()
            return
        self.walking = True
        step = self.session.step
        if step in WALK:
            self.refresh_views()
        else:  # the walk starts where the gradient does: at the loss
            self.apply(lambda s: s.goto(WALK[0], backward=True), "backward walk")
        self.refresh_bindings()
        self.notify(
            f"Backward pass from step {self.session.step}: n walks on toward step {WALK[-1]}, p back toward "
            f"step {WALK[0]}; b or Esc returns to the forward pass.",
            title="Backward pass",
            timeout=5,
        )

    def action_leave_backward(self: TinyTuiApp) -> None:
        if not self.walking:
            return
        self.walking = False
        self.refresh_views()
        self.refresh_bindings()
        self.notify(f"Forward pass, step {self.session.step}.", timeout=2)

    def walk(self: TinyTuiApp, delta: int) -> None:
        """n (delta +1) goes one step further back through the network; p (−1) returns toward the loss."""
        at = WALK.index(self.session.step) if self.session.step in WALK else 0
        to = at + delta
        if not 0 <= to < len(WALK):
            self.bell()
            end = "the end of the backward walk" if to >= len(WALK) else "where the backward walk starts"
            self.notify(f"Step {WALK[at]} is {end}. b or Esc returns to the forward pass.", timeout=3)
            return
        self.apply(lambda s: s.goto(WALK[to], backward=True), f"backward walk to step {WALK[to]}")

    def walk_to(self: TinyTuiApp, step: int) -> None:
        """A jump while walking stays in the walk: steps 1 and 16 are outside it, so they go to 2 and 15."""
        inside = min(max(step, min(WALK)), max(WALK))
        if inside != step:
            self.notify(
                f"The backward walk covers steps {WALK[0]} to {WALK[-1]}; showing step {inside}. "
                "b or Esc returns to the forward pass.",
                timeout=3,
            )
        self.apply(lambda s: s.goto(inside, backward=True), f"backward walk to step {inside}")

    # ---- the gradient overlay ------------------------------------------------------------------
    def action_toggle_gradients(self: TinyTuiApp) -> None:
        self.show_gradients = not self.show_gradients
        self.refresh_views()
        if not self.show_gradients:
            self.notify("Gradients hidden (d shows them again).", timeout=2)
        elif self.walking:
            self.notify("Each weight is shown beside its gradient (d hides them).", timeout=3)
        else:
            where = ", ".join(str(n) for n in STEPS_WITH_WEIGHTS)
            self.notify(
                f"∂L/∂w beside every weight table (steps {where}); shaded by sign and size. d hides it.",
                timeout=4,
            )

    # ---- learning ------------------------------------------------------------------------------
    def action_learning_step(self: TinyTuiApp) -> None:
        event = self.apply(lambda s: s.learn_step(), "learning step")
        if isinstance(event, Event):
            d = event.data
            self.notify(
                f"One SGD step of size {d['lr']:g} on every weight: loss {fmt(d['loss_old'])} → "
                f"{fmt(d['loss_new'])}; prediction {event.after.prediction}. u undoes it.",
                title="Learning step",
                timeout=5,
            )

    def action_train(self: TinyTuiApp) -> None:
        def submit(text: str) -> str | None:
            try:
                k = parse_steps(text)
            except ValueError as exc:
                return str(exc)
            # A long run (1000 steps take about 2 s) goes to a thread so the screen stays live; the
            # result is applied on the app's thread, and refused if the state moved on meanwhile.
            self.notify(f"Training {k} SGD step{'s' if k != 1 else ''}…", title="Training", timeout=2)
            self.run_worker(lambda: self._train_in_thread(k), thread=True, group="train", exclusive=True)
            return None

        lr = self.session.state.lr
        self.push_screen(
            AskScreen(
                "Train k steps",
                str(DEFAULT_STEPS),
                f"How many SGD steps (1 to {MAX_STEPS}) of size {lr:g}, as one undoable change",
                submit,
            )
        )

    def _train_in_thread(self: TinyTuiApp, k: int) -> None:
        try:
            training = self.session.plan_training(k)
        except Refused as exc:
            self.call_from_thread(self.notify, str(exc), title=f"Not done: train {k} steps", severity="error")
            return
        self.call_from_thread(self._finish_training, training)

    def _finish_training(self: TinyTuiApp, training: Training) -> None:
        event = self.apply(lambda s: s.apply_training(training), f"train {training.k} steps")
        if not isinstance(event, Event):
            return
        d, k = event.data, training.k
        self.notify(
            f"{k} SGD step{'s' if k != 1 else ''} of size {d['lr']:g}: loss {fmt(d['loss_old'])} → "
            f"{fmt(d['loss_new'])}; prediction {event.after.prediction}. The loss curve is in the status "
            "line; u undoes the whole run.",
            title="Trained",
            timeout=6,
        )

    def action_set_lr(self: TinyTuiApp) -> None:
        def submit(text: str) -> str | None:
            refused: list[str] = []
            event = self.apply(lambda s: s.set_lr(text), "learning rate", refused.append)
            if not isinstance(event, Event):
                return refused[0] if refused else "not done"
            self.notify(f"Learning rate {event.data['old']:g} → {event.data['new']:g} (u undoes).", timeout=3)
            return None

        self.push_screen(
            AskScreen(
                "Set the learning rate",
                f"{self.session.state.lr:g}",
                "The SGD step size: a number above 0, such as 0.5, 0.1, 1e-2 or 1/4",
                submit,
            )
        )


def learning_commands(app: TinyTuiApp) -> Iterable[PaletteCommand]:
    from tinytui.app import PaletteCommand  # the app imports this module

    if app.walking:
        yield PaletteCommand(
            "Leave the backward walk", "Back to the forward pass (b or Esc)", app.action_leave_backward
        )
    else:
        yield PaletteCommand(
            "Walk the gradient backwards",
            f"Steps {WALK[0]} → {WALK[-1]}: incoming gradient, local rule, outgoing gradient (b)",
            app.action_backward_walk,
        )
    shown = "Hide" if app.show_gradients else "Show"
    yield PaletteCommand(
        f"{shown} the gradient ∂L/∂w beside the weights",
        "The gradient overlay (d)",
        app.action_toggle_gradients,
    )
    lr = app.session.state.lr
    yield PaletteCommand(
        "Learning step", f"One SGD step of size {lr:g} on every weight (L)", app.action_learning_step
    )
    yield PaletteCommand(
        "Train k steps…",
        f"k SGD steps of size {lr:g} as one undoable change, with the loss curve (T)",
        app.action_train,
    )
    yield PaletteCommand("Set learning rate…", f"Now {lr:g}; the step size of L and T", app.action_set_lr)
