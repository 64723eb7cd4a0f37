"""Learning: the backward walk (b), the gradient overlay (d), a learning step (L), training k steps (T)
and the learning rate. The walk and the overlay are session modes (Session.mode), so recording and
replay see them; the numbers come from the session and are drawn by tinytui.present.backward_tables and
gradient_grids."""

from __future__ import annotations

from tinytui.lesson import step_path as steps
from tinytui.lesson.stages import STAGES
from tinytui.model import checks, names
from tinytui.present.view import Curve
from tinytui.report.tables import fmt
from tinytui.session.session import Session
from tinytui.session.state import WALK, Event, Refused, State, Training
from tinytui.tui.actions import Host
from tinytui.tui.widgets.step_view import StepView

DEFAULT_STEPS = 10
STEPS_WITH_WEIGHTS = tuple(s.number for s in STAGES if any(name in names.PARAMS for name in s.reads))


class LossCurves:
    """Remembers the losses of each learning run by the state it made, so undo hides the curve and
    redo brings it back. Listens to the session's events (a replayed learn event counts too)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._made: dict[int, tuple[State, Curve]] = {}  # id(state) -> (state, curve); state keeps id valid
        session.listeners.append(self._heard)

    def _heard(self, event: Event) -> None:
        losses = event.data.get("losses")
        if event.kind == "learn" and isinstance(losses, list) and losses:
            steps = int(event.data.get("steps", len(losses) - 1))
            curve = Curve(steps, float(event.data["lr"]), tuple(losses))
            self._made[id(self.session.state)] = (self.session.state, curve)

    def current(self) -> Curve | None:
        """The curve of the run that made the current weights, if the last change was one."""
        made = self._made.get(id(self.session.state))
        return made[1] if made is not None and made[0] is self.session.state else None


# a new notice about the walk (b) or the gradients (d) takes the place of the last one about it; each
# pair says as many lines at 120 columns, so toggling leaves the notice board's size, and the screen's
# layout, as they were
WALK_NOTICE, GRADIENTS_NOTICE = "walk", "gradients"


class LearningController:
    def __init__(self, host: Host) -> None:
        self.host = host
        self.loss_curves = LossCurves(host.session)

    # ---- the backward walk ---------------------------------------------------------------------
    def walking(self) -> bool:
        return self.host.session.mode.backward

    def can_enter_walk(self) -> bool:
        return not self.walking()

    def enter_walk(self) -> None:
        host = self.host
        if host.session.step in WALK:
            host.apply(lambda s: s.set_mode(backward=True), "backward walk")
        else:  # the walk starts where the gradient does: at the loss
            host.apply(lambda s: s.goto(WALK[0], backward=True), "backward walk")
        host.refresh_bindings()
        where = steps.heading(host.session.here, host.session.model.cfg.n_blocks)
        host.notify(
            f"From {where}: n walks on toward step {WALK[-1]}, p back toward step {WALK[0]}; b or Esc "
            "returns to the forward pass.",
            title="Backward pass",
            timeout=5,
            replaces=WALK_NOTICE,
        )

    def leave_walk(self) -> None:
        host = self.host
        if host.apply(lambda s: s.set_mode(backward=False), "forward pass"):
            host.refresh_bindings()
            where = steps.heading(host.session.here, host.session.model.cfg.n_blocks)
            host.notify(
                f"Back at {where} as the run computes it; b walks the gradient back from here again.",
                title="Forward pass",
                timeout=3,
                replaces=WALK_NOTICE,
            )

    def walk(self, delta: int) -> None:
        """n (delta +1) goes one step further back through the network; p (−1) returns toward the loss.
        With several blocks the walk goes through every block's steps, from the last block to the first."""
        host = self.host
        session = host.session
        path, n_blocks = session.path(backward=True), session.model.cfg.n_blocks
        at = path.index(session.here) if session.here in path else 0
        to = at + delta
        if not 0 <= to < len(path):
            host.bell()
            end = "the end of the backward walk" if to >= len(path) else "where the backward walk starts"
            where = steps.heading(path[at], n_blocks)
            host.notify(
                f"{where[0].upper()}{where[1:]} is {end}. b or Esc returns to the forward pass.", timeout=3
            )
            return
        step = path[to]
        host.apply(
            lambda s: s.goto(step.number, True, step.block),
            f"backward walk to {steps.heading(step, n_blocks)}",
        )

    def walk_to(self, step: int, block: int | None = None) -> None:
        """A jump while walking stays in the walk: steps 1 and 16 are outside it, so they go to 2 and 15."""
        inside = min(max(step, min(WALK)), max(WALK))
        if inside != step:
            self.host.notify(
                f"The backward walk covers steps {WALK[0]} to {WALK[-1]}; showing step {inside}. "
                "b or Esc returns to the forward pass.",
                timeout=3,
            )
        self.host.apply(lambda s: s.goto(inside, True, block), f"backward walk to step {inside}")

    # ---- the gradient overlay ------------------------------------------------------------------
    def toggle_gradients(self) -> None:
        from tinytui.present.gradient_places import gradient_places, where_said

        host = self.host
        shown = not host.session.mode.gradients
        host.apply(lambda s: s.set_mode(gradients=shown), "gradient overlay")
        where = ", ".join(str(n) for n in STEPS_WITH_WEIGHTS)
        rule = "beside a weight table when both fit the width, else below it"
        # where this step's layout (made by apply, above) put each gradient: the note says what is drawn
        views = host.screen.walk_children(StepView)
        places = tuple(place for view in views for place in gradient_places(view.blocks))
        here = where_said(places) if places else ""
        if not shown:
            note = f"Gradients hidden; d shows ∂L/∂w with the weight tables of steps {where} again."
        elif self.walking():
            said = f"shown {here}" if here else f"shown with its weight ({rule})"
            note = f"Each weight's gradient ∂L/∂w is now {said}, shaded by sign and size; d hides them."
        elif here:
            note = (
                f"∂L/∂w is now shown {here} here, and at steps {where} {rule}; shaded by sign and size, "
                "d hides it."
            )
        else:
            note = f"∂L/∂w is now shown at steps {where}, {rule}; shaded by sign and size, d hides it."
        host.notify(note, timeout=3, replaces=GRADIENTS_NOTICE)

    def gradients_note(self) -> str:
        return "now shown" if self.host.session.mode.gradients else "now hidden"

    # ---- learning ------------------------------------------------------------------------------
    def learning_step(self) -> None:
        event = self.host.apply(lambda s: s.learn_step(), "learning step")
        if isinstance(event, Event):
            d = event.data
            self.host.notify(
                f"One SGD step of size {d['lr']:g} on every weight: loss {fmt(d['loss_old'])} → "
                f"{fmt(d['loss_new'])}; prediction {event.after.prediction}. u undoes it.",
                title="Learning step",
                timeout=5,
            )

    def train(self) -> None:
        from tinytui.tui.screens.ask_screen import AskScreen

        host = self.host

        def submit(text: str) -> str | None:
            try:
                k = checks.steps(text)  # in the box itself, before the training goes to a thread
            except ValueError as exc:
                return str(exc)
            # A long run (1000 steps take about 2 s) goes to a thread so the screen stays live; the
            # result is applied on the app's thread, and refused if the state moved on meanwhile.
            host.notify(f"Training {k} SGD step{'s' if k != 1 else ''}…", title="Training", timeout=2)
            host.run_worker(lambda: self._train_in_thread(k), thread=True, group="train", exclusive=True)
            return None

        lr = host.session.state.lr
        why = f"How many SGD steps (1 to {checks.MAX_STEPS}) of size {lr:g}, as one undoable change"
        host.push_screen(AskScreen("Train k steps", str(DEFAULT_STEPS), why, submit))

    def _train_in_thread(self, k: int) -> None:
        host = self.host
        try:
            training = host.session.plan_training(k)
        except Refused as exc:
            host.call_from_thread(host.notify, str(exc), title=f"Not done: train {k} steps", severity="error")
            return
        host.call_from_thread(self.finish_training, training)

    def finish_training(self, training: Training) -> None:
        event = self.host.apply(lambda s: s.apply_training(training), f"train {training.k} steps")
        if not isinstance(event, Event):
            return
        d, k = event.data, training.k
        self.host.notify(
            f"{k} SGD step{'s' if k != 1 else ''} of size {d['lr']:g}: loss {fmt(d['loss_old'])} → "
            f"{fmt(d['loss_new'])}; prediction {event.after.prediction}. The loss curve is in the status "
            "line; u undoes the whole run.",
            title="Trained",
            timeout=6,
        )

    def set_lr(self) -> None:
        from tinytui.tui.screens.ask_screen import AskScreen

        host = self.host

        def submit(text: str) -> str | None:
            refused: list[str] = []
            event = host.apply(lambda s: s.set_lr(text), "learning rate", refused.append)
            if not isinstance(event, Event):
                return refused[0] if refused else "not done"
            host.notify(f"Learning rate {event.data['old']:g} → {event.data['new']:g} (u undoes).", timeout=3)
            return None

        hint = "The SGD step size: a number above 0, such as 0.5, 0.1, 1e-2 or 1/4"
        host.push_screen(AskScreen("Set the learning rate", f"{host.session.state.lr:g}", hint, submit))

    def lr_note(self) -> str:
        return f"now {self.host.session.state.lr:g}"
