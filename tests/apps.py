"""Apps for tests: the debugger as `tinytui ARGS…` would open it."""

import numpy as np

from tests.random_models import config, weights
from tinytui.cli.options import build_parser
from tinytui.cli.run_setup import setup_from
from tinytui.model.io.document import ModelFile
from tinytui.model.switches import Switches
from tinytui.model.trace import DEFAULT_LR
from tinytui.session.session import Session
from tinytui.session.state import State
from tinytui.tui.app import TinyTuiApp


def make_app(*argv: str, **options) -> TinyTuiApp:
    setup = setup_from(build_parser().parse_args(list(argv)))
    options.setdefault("record", setup.record)
    return TinyTuiApp(Session(setup.model, setup.state), **options)


def random_app(tokens: int, d: int = 8, heads: int = 2, vocab: int = 16) -> TinyTuiApp:
    """The debugger on a seeded random model of this size (tokens prompt positions)."""
    cfg = config(d, heads, d // heads, 2 * d, vocab, n_ctx=tokens)
    params = weights(np.random.default_rng(3), cfg, 1 / np.sqrt(d))
    prompt = tuple(cfg.vocab[(7 * i) % vocab] for i in range(tokens))
    model = ModelFile("random", "", params, prompt, cfg.vocab[1])
    return TinyTuiApp(Session(model, State(model.params, prompt, model.target, Switches(), DEFAULT_LR)))
