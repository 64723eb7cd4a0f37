"""A long vocabulary's logit pane lists its most likely tokens and the target, not every token: practice
there asks only the rows the screen lists, each drawn as "?" and answerable, so a step's score can be
made whole (and no probability, a softmax over every token's logit). On the tiny GPT-2 (360 tokens)
step 14 asked 720 cells of which the screen drew 26, and the walk's step 15 asked 360 of which it drew
11."""

from __future__ import annotations

import pytest

from tests.apps import make_app
from tests.gpt2.checkpoints import TINY
from tinytui.cli.options import build_parser
from tinytui.cli.practice_command import practice_app
from tinytui.present.backward_tables import pane_sections
from tinytui.present.grid_spec import GridSpec, LogitsSpec
from tinytui.present.top_tokens import TOP, shown_tokens
from tinytui.tui.app import TinyTuiApp
from tinytui.tui.widgets.status_bar import StatusBar


async def keys(pilot, *pressed: str) -> None:
    for key in pressed:
        await pilot.press(key)
        await pilot.pause()


def status(app: TinyTuiApp) -> str:
    return app.query_one(StatusBar).text


BY_TOKEN = ("logits", "probs", "grad.logits")  # the tensors the pane lists a row per token


def drawn_as_asked(app: TinyTuiApp) -> set:
    """The cells the step's tables draw as '?'."""
    out = set()
    for section in pane_sections(app.view()):
        for row in section.rows:
            for item in row:
                if isinstance(item, GridSpec):
                    for r, sources in enumerate(item.sources):
                        out.update(
                            s
                            for c, s in enumerate(sources)
                            if s is not None and item.cells[r][c].strip() == "?"
                        )
                elif isinstance(item, LogitsSpec):
                    for line in item.rows:
                        for source, text in ((line.logit_source, line.logit), (line.prob_source, line.prob)):
                            if source is not None and text.strip() == "?":
                                out.add(source)
    return out


@pytest.mark.asyncio
async def test_step_14_and_the_walk_s_15_ask_the_listed_rows_only():
    app = make_app("--model", str(TINY))
    async with app.run_test(size=(140, 45)) as pilot:
        await keys(pilot, "k")
        for number, backward in ((14, False), (15, True)):
            app.session.goto(number, backward)
            app.refresh_views()
            await pilot.pause()
            asked = set(app.practice.here())
            assert asked and asked == drawn_as_asked(app)
            listed = {ix[0] for name, ix in asked if name in BY_TOKEN}
            assert TOP <= len(listed) <= TOP + 1  # the most likely and the target
            assert f"practice: 0/{len(asked)}" in status(app)


def test_a_sample_of_step_14_is_drawn_from_the_listed_rows():
    """tinytui practice --step 14 --count 6: all six are rows the pane lists."""
    args = build_parser().parse_args(["practice", "--model", str(TINY), "--step", "14", "--count", "6"])
    app = practice_app(args, remember_theme=False)
    session = app.session
    session.set_practice(True, None, app.practice.pending[1])
    session.goto(14)
    asked = app.practice.here()
    assert len(asked) == 6
    trace = session.trace
    listed = set(shown_tokens(trace["probs"], trace.cfg.vocab.index(trace.target)).ids)
    assert all(name in BY_TOKEN and ix[0] in listed for name, ix in asked)


def test_a_lesson_asking_a_row_the_pane_does_not_list_is_refused(tmp_path):
    """A lesson written by hand may name any token's logit; one the pane does not list could never be
    answered, so it is refused in one line, and a listed one is taken."""
    import json

    from tinytui.cli.run_setup import UsageError
    from tinytui.model.io.checkpoint import load_model
    from tinytui.model.trace import run

    model = load_model(TINY)
    trace = run(model.params, model.prompt, model.target)
    vocab = model.cfg.vocab
    listed = shown_tokens(trace["probs"], vocab.index(model.target)).ids
    unlisted = next(i for i in range(len(vocab)) if i not in listed)

    def lesson(index: int) -> str:
        path = tmp_path / f"lesson{index}.json"
        doc = {"format": "tinytui-lesson/1", "model": str(TINY), "prompt": list(model.prompt)}
        doc |= {"target": model.target, "cells": [{"name": "logits", "index": [index]}]}
        path.write_text(json.dumps(doc), encoding="utf-8")
        return str(path)

    with pytest.raises(UsageError) as refused:
        practice_app(build_parser().parse_args(["practice", lesson(unlisted)]), remember_theme=False)
    said = str(refused.value)
    assert (
        "\n" not in said
        and f"cells[0]: ℓ[{unlisted}]" in said
        and "cannot be worked out from the screen" in said
    )
    assert practice_app(build_parser().parse_args(["practice", lesson(listed[0])]), remember_theme=False)


def test_a_teacher_cannot_mark_a_row_the_pane_does_not_list():
    """Step 15 draws ∂L/∂ℓ for every token, but p of a token the pane does not list is on no screen: X
    on such a row says why instead of marking a question tinytui practice would refuse."""
    app = make_app("--model", str(TINY))
    listed = app.practice.listed()
    unlisted = next(i for i in range(len(app.session.trace.cfg.vocab)) if i not in listed)
    said = app.practice.unaskable(("grad_logits", (unlisted,)))
    assert said.startswith(f"∂L/∂ℓ[{unlisted}] cannot be worked out from the screen")
    assert app.practice.unaskable(("grad_logits", (listed[0],))) == ""
    assert app.practice.unaskable(("blocks.0.scores.1", (0, 0))) == ""
