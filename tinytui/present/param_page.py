"""What the parameter browser shows of one weight: its title, the page of a big weight it opens on, and the
weight (with its gradient while d shows gradients) as the step view's sections.

The weight is named as the user or a step named it ('W_Q', 'W_Q@1', 'blocks.0.W_Q'); every function here
takes that name and spells it as the model does."""

from __future__ import annotations

from tinytui.model.names import canonical, grad, label
from tinytui.present.cells import param_grid
from tinytui.present.gradient_grids import gradient_grid
from tinytui.present.grid_spec import Section
from tinytui.present.view import View
from tinytui.present.windows import Window, browser


def browser_title(view: View, name: str) -> str:
    """'Parameter W_Q', with its block when the model has several."""
    return f"Parameter {label(canonical(name), view.trace.cfg.n_blocks)}"


def first_page(view: View, name: str) -> Window | None:
    """The page of a big weight the browser opens on; None when it shows the weight whole."""
    return browser(view.params[canonical(name)])


def browser_sections(view: View, name: str, window: Window | None) -> list[Section]:
    """The weight, and its gradient when d shows it (while hidden, no gradient is computed)."""
    rows: tuple = ((param_grid(view, name, window),),)
    if view.mode.gradients:
        rows += ((gradient_grid(view, grad(canonical(name)), "param", window),),)
    return [Section("", "param", rows)]
