"""The logit pane at size: a long vocabulary shows its most likely tokens and the target, and one line for the
rest (how many, their probability together); a 50,257-token vocabulary is never laid out as 50,257 rows."""

import numpy as np

from tests.apps import make_app
from tests.random_models import config, weights
from tests.tui.helpers import logits, press
from tinytui.model.io.document import ModelFile
from tinytui.model.switches import Switches
from tinytui.model.trace import DEFAULT_LR
from tinytui.present.token_cells import logits_spec
from tinytui.present.top_tokens import LONG_VOCAB, TOP, shown_tokens
from tinytui.present.view import View
from tinytui.present.watch_data import watch_spec
from tinytui.report.print_window import most_likely
from tinytui.session.session import Session
from tinytui.session.state import State


def test_most_likely_is_the_sorted_top_without_sorting_everything():
    rng = np.random.default_rng(0)
    p = rng.random(50_257)
    p /= p.sum()
    top = most_likely(p, 10)
    assert list(top) == list(np.argsort(-p, kind="stable")[:10])
    ties = np.array([0.1, 0.3, 0.3, 0.2, 0.1])
    assert list(most_likely(ties, 5)) == [1, 2, 3, 0, 4]  # equal probabilities: the lower id first


def test_a_short_vocabulary_shows_every_token_in_vocabulary_order():
    shown = shown_tokens(np.full(LONG_VOCAB, 1 / LONG_VOCAB), target=3)
    assert shown.ids == tuple(range(LONG_VOCAB)) and not shown.ranked and shown.line() == ""


def test_a_long_vocabulary_shows_the_top_and_the_target_and_sums_the_rest():
    p = np.array([0.5, 0.2, 0.1] + [0.2 / 20] * 20)  # 23 tokens; the target (id 22) is among the least likely
    shown = shown_tokens(p, target=22)
    assert shown.ids[:3] == (0, 1, 2) and len(shown.ids) == TOP + 1 and shown.ids[-1] == 22
    assert shown.others == 23 - (TOP + 1)
    assert np.isclose(shown.others_p, 0.01 * shown.others)
    assert shown.line() == f"⋯ {shown.others} other tokens, together p = {0.01 * shown.others:.4f}"
    in_top = shown_tokens(p, target=0)  # the target already among the top: no extra row
    assert len(in_top.ids) == TOP and in_top.others == 23 - TOP


def gpt2_sized_session() -> Session:
    """A model with GPT-2's vocabulary size (and nothing else of its size)."""
    cfg = config(4, 1, 4, 4, 50_257)
    params = weights(np.random.default_rng(1), cfg, 0.5)
    prompt = ("t1", "t2", "t3")
    model = ModelFile("wide", "", params, prompt, "t50000")
    return Session(model, State(model.params, prompt, model.target, Switches(), DEFAULT_LR))


def gpt2_sized_view() -> View:
    return View.of(gpt2_sized_session())


def test_a_50257_token_vocabulary_gives_its_top_rows_and_one_line_for_the_rest():
    view = gpt2_sized_view()
    probs = view.trace["probs"]
    spec = logits_spec(view)
    watched = watch_spec(view)
    assert len(spec.rows) == TOP + 1  # the top ten, then the target
    tokens = [r.token for r in spec.rows]
    best = np.argsort(-probs, kind="stable")[:TOP]
    assert tokens[:TOP] == [f"t{i}" for i in best] and tokens[-1] == "t50000"
    assert spec.rows[-1].target and spec.rows[0].predicted and not spec.rows[1].predicted
    rest = 1 - probs[best].sum() - probs[50_000]
    tenth = f"{probs[best[-1]]:.4f}"  # tokens left out that print as the 10th does are said to
    alike = [i for i, q in enumerate(probs.tolist()) if f"{q:.4f}" == tenth and i not in {*best, 50_000}]
    assert len(alike) == 8 and max(probs[alike]) < probs[best[-1]]
    assert spec.others == (
        f"⋯ {50_257 - TOP - 1:,} other tokens, together p = {rest:.4f} · among them 8 also print {tenth}, "
        f"below 't{best[-1]}'"
    )
    assert watched.others == 50_257 - len(watched.bars) and np.isclose(
        watched.others_p, rest + probs[best[5:]].sum()
    )


async def test_the_woodland_logit_pane_shows_its_top_tokens_and_the_others_line():
    app = make_app("--model", "woodland")
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "G", "p", "p")  # step 14
        trace = app.session.trace
        probs, vocab = trace["probs"], trace.cfg.vocab
        lines = logits(app).splitlines()
        best = np.argsort(-probs, kind="stable")[:TOP]
        assert [line.split()[0] for line in lines[1 : TOP + 1]] == [vocab[i] for i in best]
        first = lines[1].split()
        assert first[:3] == [vocab[best[0]], f"{trace['logits'][best[0]]:.4f}", f"{probs[best[0]]:.4f}"]
        shown = len(lines) - 2
        assert lines[-1] == f"⋯ {len(vocab) - shown} other tokens, together p = {1 - probs[best].sum():.4f}"
        assert "◀ target" in "".join(lines)  # the target (chuck) is the prediction here, so among the top
        least = vocab[int(np.argmin(probs))]
        app.apply(lambda s: s.set_target(least), "target")
        await pilot.pause()
        lines = logits(app).splitlines()
        assert lines[-2].split()[0] == least and lines[-2].endswith("◀ target")
        assert len(lines) == 1 + TOP + 1 + 1


def test_step_15s_gradient_table_has_the_same_rows_and_one_for_the_rest():
    from tinytui.present.gradient_grids import logits_gradient_grid

    app = make_app("--model", "woodland")
    view = app.view()
    spec = logits_gradient_grid(view)
    probs, grad = view.trace["probs"], view.gradients["grad.logits"]
    ids = [int(i) for i in np.argsort(-probs, kind="stable")[:TOP]]
    assert spec.rows[0] == "chuck (target)" and len(spec.rows) == TOP + 1
    rest = [i for i in range(len(probs)) if i not in ids]
    assert spec.rows[-1] == f"⋯ {len(rest)} others"
    assert spec.cells[-1] == (f"{probs[rest].sum():.4f}", f"{grad[rest].sum():.4f}")
    assert spec.sources[-1] == (None, None)  # a sum is no cell of the run: nothing to explain or follow


async def test_the_app_at_a_50257_token_vocabulary_shows_the_top_tokens_everywhere():
    from tests.tui.helpers import grid
    from tinytui.tui.app import TinyTuiApp
    from tinytui.tui.widgets.watch_pane import WatchPane

    app = TinyTuiApp(gpt2_sized_session())
    async with app.run_test(size=(120, 40)) as pilot:
        app.steps.goto(14)
        await pilot.pause()
        lines = logits(app).splitlines()
        assert len(lines) == 1 + TOP + 1 + 1 and lines[-2].startswith("t50000") and "◀ target" in lines[-2]
        assert lines[-1].startswith(f"⋯ {50_257 - TOP - 1:,} other tokens, together p = ")
        await press(pilot, "W")
        watched = app.query_one(WatchPane).text()
        assert "t50000" in watched and f"{50_257 - 6:,} more" in watched
        app.steps.goto(15)
        await pilot.pause()
        await press(pilot, "b")
        walk = grid(app, "grad:grad.logits").spec
        assert walk.rows[-2:] == ("t50000 (target)", f"⋯ {50_257 - TOP - 1:,} others")


async def test_the_bars_and_their_tags_fit_beside_the_watch_pane():
    from tests.tui.helpers import logits_box

    app = make_app("--model", "woodland")
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "G", "p", "p", "W")
        await pilot.pause()
        await pilot.pause()  # the bars are laid out again for the narrower pane
        bars, main = logits_box(app), app.query_one("#main")
        lines = logits(app).splitlines()
        assert lines[0].endswith("◀ target ★ predicted") and lines[1].endswith("◀ ★")  # chuck: both
        assert bars.x + bars.width <= main.scrollable_content_region.width, "nothing cut at the view's edge"
        await press(pilot, "W")  # the pane hidden: room for the long tags again
        await pilot.pause()
        await pilot.pause()
        lines = logits(app).splitlines()
        assert lines[0].endswith("p as a bar") and lines[1].rstrip().endswith("◀ target ★ predicted")


def test_the_logit_pane_names_the_matrix_the_model_unembeds_with():
    """A model with its own unembedding computes ℓ = z W_U; the chapter's ties it to E (ℓ = z Eᵀ)."""
    for tied, formula in ((True, "ℓ = z Eᵀ and p = softmax(ℓ)"), (False, "ℓ = z W_U and p = softmax(ℓ)")):
        cfg = config(4, 2, 2, 4, 5, tied=tied)
        params = weights(np.random.default_rng(2), cfg, 0.5)
        model = ModelFile("tied" if tied else "untied", "", params, ("t1", "t2"), "t3")
        session = Session(model, State(model.params, model.prompt, model.target, Switches(), DEFAULT_LR))
        assert logits_spec(View.of(session)).title.startswith(formula)


def test_a_tie_at_the_edge_of_the_top_keeps_the_lower_ids():
    """argpartition splits a tie across the k-th place anyhow: 40 equal tokens and one likelier keep ids
    0 and 1 after it, as the tables promise (equal probabilities: the lower id first)."""
    p = np.full(40, 0.024)
    p[7] = 0.04
    assert list(most_likely(p, 3)) == [7, 0, 1]
