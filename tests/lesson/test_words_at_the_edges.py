"""Sentences checked against the numbers printed beside them where a run sits at an edge the chapter's
own run never reaches: every ReLU unit silent, a one-token prompt, a prompt that repeats a token, two
tokens tied for the prediction, a target with all the probability, several blocks, a single head.

Each case is one the audit found saying something the tables did not show; each asserts the sentence
as printed and the number it rests on.
"""

from __future__ import annotations

import re

import numpy as np

from tests.random_models import random_params
from tinytui.lesson.stages import STAGE_BY_NUMBER
from tinytui.model.switches import Switches
from tinytui.model.trace import run
from tinytui.report.step_report import stage_report


def _words(trace, number: int) -> str:
    return STAGE_BY_NUMBER[number].explain(trace)


def _facts(trace, number: int) -> list[str]:
    return STAGE_BY_NUMBER[number].facts(trace)


def _cells(trace, params, number: int, title_start: str) -> list[tuple[str, ...]]:
    tables = stage_report(trace, STAGE_BY_NUMBER[number], params).tables
    (table,) = [t for t in tables if t.title.startswith(title_start)]
    return [tuple(row) for row in table.cells]


def test_every_unit_silent_is_said_as_all_not_most(chapter):
    params = chapter.params
    for unit in range(8):  # a bias low enough that no detector fires anywhere
        params = params.with_edit("blocks.0.b_1", (unit,), -10.0)
    trace = run(params, chapter.prompt, chapter.target)
    hidden = _cells(trace, params, 11, "hidden")
    assert {v for row in hidden for v in row} == {"0.0000"}  # the table: 32 zeros
    ffn_words = _words(trace, 11)
    assert "Count the zeros: all 32 hidden values are zero, so no detector fired anywhere." in ffn_words
    assert "most of the hidden layer" not in ffn_words
    out_words = _words(trace, 12)
    assert "Every one of the 8 units is zero at every position" in out_words
    assert "the feed-forward adds only its bias b_2" in out_words
    assert "8 of the 8 units" not in out_words
    ffn = _cells(trace, params, 12, "FFN")  # every row is b_2 = (0, 0, 0, 1)
    assert set(ffn) == {("0.0000", "0.0000", "0.0000", "1.0000")}


def test_a_silent_feed_forward_with_no_bias_adds_nothing_at_all():
    params = random_params(seed=1, d=3, heads=1, d_head=3, d_ff=2, vocab=6, blocks=1)
    params = params.with_arrays({"blocks.0.b_1": np.full(2, -50.0), "blocks.0.b_2": np.zeros(3)})
    trace = run(params, ("t1", "t2", "t3"), "t4")
    assert not trace["blocks.0.ffn"].any()
    assert "the feed-forward adds nothing at all" in _words(trace, 12)


def test_one_position_is_one_position(chapter):
    trace = run(chapter.params, ("a",), chapter.target)
    assert "These 4 numbers (1 position × 4) are all that the block is given" in _words(trace, 4)


def test_a_repeated_token_is_named_with_its_position(chapter):
    trace = run(chapter.params, ("a", "a", "a", "a"), chapter.target)
    a1, a2 = trace["blocks.0.attn.1"], trace["blocks.0.attn.2"]
    assert int(np.argmax(a1[1])) == 0 and int(np.argmax(a2[1])) == 1  # the tables' row 1:a
    words = _words(trace, 8)
    assert (
        f"Looking from 'a' at position 1, the heads spread their weight differently: head 1 puts "
        f"{a1[1, 0]:.4f} on 'a' at position 0 and head 2 keeps {a2[1, 1]:.4f} on 'a' at position 1 itself."
    ) in words
    head2 = _facts(trace, 8)[2]
    said = re.findall(r"'a' at (\d)", head2.split("strongest key per row: ")[1])
    assert [int(j) for j in said] == [int(np.argmax(row)) for row in a2]
    # a token that appears once keeps its plain name
    once = run(chapter.params, ("a", "woodchuck", "a", "chuck"), chapter.target)
    assert "keeps 0.8618 on 'woodchuck' itself" in _words(once, 8)


def test_a_prediction_tied_at_the_top_names_the_other_token(chapter):
    params = chapter.params.with_edit("E", (5, 3), 1.0)  # woodchuck's row becomes wood's
    trace = run(params, chapter.prompt, chapter.target)
    p = trace["probs"]
    assert p[4] == p[5]  # wood and woodchuck, shown as the same probability
    fact = _facts(trace, 14)[0]
    assert fact.startswith(
        f"prediction: 'wood' at {p[4]:.4f} (tied exactly with 'woodchuck': the first in the vocabulary is "
        "taken)"
    )


def test_a_certain_target_is_quoted_as_the_tables_show_it(chapter):
    certain = run(chapter.params.with_edit("E", (4, 3), 40.0), chapter.prompt, chapter.target)
    assert certain.loss == 0.0  # −log 1.0: a negative zero, printed 0.0000 in the table
    assert _cells(certain, None, 15, "loss") == [("0.0000", "0.0000")]
    facts = [f for n in STAGE_BY_NUMBER for f in _facts(certain, n)]
    assert not [f for f in facts if "-0.0000" in f]
    assert "loss = −log 1.0000 = 0.0000 nats" in _facts(certain, 15)
    near = run(chapter.params.with_edit("E", (4, 3), 8.0), chapter.prompt, chapter.target)
    (shown,) = _cells(near, None, 15, "∂L/∂ℓ")
    assert set(shown) == {"0.0000"}  # every entry of the gradient prints as zero
    assert (
        "∂L/∂ℓ has 1 negative and 7 positive entries (all 8 too small to show at four decimals: each "
        "reads 0.0000)"
    ) in _facts(near, 15)


def test_several_blocks_say_the_stream_enters_the_first():
    params = random_params(seed=3)
    trace = run(params, ("t1", "t2", "t3"), "t4")
    (fact,) = _facts(trace, 4)
    assert fact.startswith("last position ('t3') enters the first block as (")


def test_a_single_head_is_the_head_not_each_head():
    params = random_params(seed=1, d=3, heads=1, d_head=3, d_ff=2, vocab=6, blocks=1)
    trace = run(params, ("t1", "t2", "t3"), "t4")
    said = _words(trace, 6) + _words(trace, 9)
    assert "What the head asks is decided by its matrices; step 8 shows where it looks." in said
    assert "The head returns a weighted average of its value vectors." in said
    assert "each head" not in said.lower()


def test_residual_off_names_x_prime_as_the_table_does(chapter):
    trace = run(chapter.params, chapter.prompt, chapter.target, Switches(residual=False))
    (table,) = stage_report(trace, STAGE_BY_NUMBER[10], chapter.params).tables
    assert table.title.startswith("x′")
    assert "x′ is attention's output alone" in _words(trace, 10)
    assert "x'" not in _words(trace, 10)


def test_a_switch_notice_quotes_a_loss_change_a_reader_can_check(chapter):
    from tinytui.lesson.texts.change_note import change_note

    before = run(chapter.params, chapter.prompt, chapter.target)
    after = run(chapter.params, chapter.prompt, chapter.target, Switches(ablated_heads=frozenset({1})))
    shown = round(after.loss, 4) - round(before.loss, 4)  # 1.0665 − 1.1690, as a reader subtracts them
    assert f"{shown:.4f}" == "-0.1025" and f"{after.loss - before.loss:.4f}" == "-0.1024"
    note = change_note(before, after, "ablated h1")
    assert "loss 1.1690 → 1.0665 (-0.1024 before rounding)" in note
    residual = run(chapter.params, chapter.prompt, chapter.target, Switches(residual=False))
    assert "loss 1.1690 → 1.0928 (-0.0762)." in change_note(before, residual, "residual off")


def test_a_handouts_equations_are_the_models_own():
    from tests.gpt2.checkpoints import TINY
    from tinytui.model.io.checkpoint import load_checkpoint

    gpt2 = load_checkpoint(TINY)
    trace = run(gpt2.params, gpt2.prompt, gpt2.target)
    latex = {}
    for n in (3, 4, 5, 6, 9, 11, 13, 16):
        report = stage_report(trace, STAGE_BY_NUMBER[n], gpt2.params)
        assert report.latex_holds  # the handout prints the LaTeX, not the text formula
        latex[n] = report.latex
    assert latex[3] == "PE_p = P[p]" and latex[4].endswith("+ P[p]")  # a learned table, no sinusoids
    assert latex[5].startswith(r"x_n = g_1 \odot \mathrm{LN}(x) + b_1")
    assert "b^Q" in latex[6] and "b^V" in latex[6] and "+ b^O" in latex[9]
    assert latex[11].startswith(r"\mathrm{FFN}(z) = \mathrm{GELU}(") and r"\max" not in latex[11]
    assert latex[13] == r"z = g_f \odot \mathrm{LN}(y_{T}) + b_f"
    assert r"n_{ctx} \cdot d" in latex[16] and "4d" in latex[16]
    four = random_params(seed=5, d=6, heads=4, d_head=2, d_ff=5, vocab=7, blocks=1)
    report = stage_report(run(four, ("t1", "t2"), "t3"), STAGE_BY_NUMBER[9], four)
    assert r"\mathrm{head}_1 ; \dots ; \mathrm{head}_H" in report.latex  # four heads, not the chapter's two


def test_a_gelu_models_feed_forward_is_not_called_rectified(chapter):
    from tests.gpt2.checkpoints import TINY
    from tinytui.lesson.stages import title_for
    from tinytui.model.io.checkpoint import load_checkpoint

    gpt2 = load_checkpoint(TINY)
    assert gpt2.params.cfg.activation == "gelu"
    assert title_for(STAGE_BY_NUMBER[11], gpt2.params.cfg) == "Feed-forward: widen and activate"
    assert title_for(STAGE_BY_NUMBER[11], chapter.params.cfg) == "Feed-forward: widen and rectify"


def test_the_chapter_switched_to_gelu_names_its_feed_forward_as_run(chapter):
    from tinytui.lesson.step_path import Step
    from tinytui.present.step_list_lines import StepTitles

    gelu = run(chapter.params, chapter.prompt, chapter.target, Switches(activation="gelu"))
    stage = STAGE_BY_NUMBER[11]
    assert stage_report(gelu, stage, chapter.params).title == "Feed-forward: widen and activate"
    assert (
        StepTitles(chapter.params.cfg, Switches(activation="gelu")).title(Step(11, 0))
        == "Feed-forward: widen and activate"
    )
    relu = run(chapter.params, chapter.prompt, chapter.target)
    assert stage_report(relu, stage, chapter.params).title == "Feed-forward: widen and rectify"


async def test_the_palettes_steps_are_named_as_the_model_runs_them():
    from tests.apps import make_app

    app = make_app("--model", "chapter17-llama")
    async with app.run_test(size=(120, 40)):
        commands = {c.title: c for c in app.palette_commands()}
        norm = commands["Go to block 1 · step 5: RMSNorm"]  # not the chapter's "Layer norm"
        assert "RMS" in norm.help and "μ" not in norm.help
        assert "Go to block 2 · step 11: Feed-forward: map and gate" in commands  # d 4 to d_ff 4
        assert "Go to block 1 · step 5: Layer norm" not in commands


async def test_the_watch_keys_help_names_the_block_it_shows():
    from tests.apps import make_app
    from tinytui.tui.actions import ACTIONS

    (watch,) = [a for a in ACTIONS if a.id == "watch-pane"]
    assert "block 0" not in watch.help and "the block the step shows" in watch.help
    app = make_app("--model", "woodland")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("W", "G", "p", "p", "p", "p")  # block 2's step 12
        await pilot.pause()
        assert app.session.here.block == 1
        from tinytui.tui.widgets.watch_pane import WatchPane

        assert "Attention, block 2 of 2" in app.query_one(WatchPane).text()


def test_positions_off_in_a_model_of_several_blocks_names_the_blocks():
    from tinytui.model.io.model_file import load
    from tinytui.model.io.presets import resolve

    llama = load(resolve("chapter17-llama"))
    assert llama.cfg.n_blocks == 2
    off = Switches(positional_encoding=False, activation="silu")
    trace = run(llama.params, llama.prompt, llama.target, off)
    assert "word order reaches the blocks only through the causal mask" in _words(trace, 3)


def test_attribution_says_when_its_printed_parts_do_not_add_to_its_sum(chapter, capsys):
    from tinytui.cli.main import main

    assert main(["attribution"]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = lines.index("logit of 'wood' (the prediction and the target): 1.0480")
    parts = [float(line.split()[-1]) for line in lines[start + 1 : start + 7]]
    assert lines[start + 7].split() == ["sum", "1.0480"]
    assert f"{sum(parts):.4f}" == "1.0482"  # what a reader gets adding the printed parts
    assert lines[start + 8] == "  (the parts as printed add to 1.0482: each is rounded to four decimals)"


def test_a_norms_gain_is_labelled_by_dims_when_d_ff_equals_d(capsys):
    from tinytui.cli.main import main

    assert main(["print", "--plain", "--model", "chapter17-llama", "--step", "5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = lines[lines.index("ln1_g (block 1)") + 1]
    assert header.split() == ["d0", "d1", "d2", "d3"]  # d_ff is 4 too: still the dims, not units


def test_exactly_half_silent_is_not_fewer_than_half(chapter):
    params = chapter.params.with_edit("blocks.0.b_1", (1,), 10.0).with_edit("blocks.0.b_1", (5,), 10.0)
    trace = run(params, chapter.prompt, chapter.target)
    assert int((trace["blocks.0.hidden"] == 0).sum()) == 16  # of 32
    words = _words(trace, 11)
    assert "Count the zeros: 16 of 32 hidden values are zero, exactly half." in words
    assert "fewer than half" not in words


def test_a_change_too_small_for_two_decimals_is_quoted_at_four(chapter):
    params = chapter.params.with_edit("blocks.0.W_O", (1, 3), 0.0).with_edit("blocks.0.W_O", (3, 3), 0.0042)
    trace = run(params, chapter.prompt, chapter.target)
    before, after = trace["x"][-1, 3], trace["blocks.0.x_mid"][-1, 3]
    assert round(before, 2) == round(after, 2) == 1.5 and after - before > 0.005
    words = _words(trace, 10)
    assert "the wood column goes from 1.4996 to 1.5048, because attention brought wood in" in words
    assert "from about 1.5 to 1.5" not in words


def test_a_target_shown_as_0_0000_is_quoted_with_its_figures():
    from tests.llama.checkpoints import QWEN2
    from tinytui.model.io.checkpoint import load_model

    qwen = load_model(QWEN2)
    trace = run(qwen.params, qwen.prompt, qwen.target)
    p = trace["probs"][trace.cfg.token_id(trace.target)]
    assert f"{p:.4f}" == "0.0000"  # as step 14's table shows the target
    said = _facts(trace, 15)[0]
    assert said == f"loss = −log {p:.3g} ≈ {trace.loss:.4f} nats" and "−log 0.0000" not in said
    words = _words(trace, 16)
    assert "V·d = 300·16 = 4,800 parameters" in words  # as the fact beside it writes 4,800


def test_the_glossary_quotes_the_models_own_sizes(chapter):
    from tinytui.lesson.texts.glossary import for_model
    from tinytui.model.io.model_file import load
    from tinytui.model.io.presets import resolve
    from tinytui.present.grid_labels import COLUMN, Label, label_line
    from tinytui.tui.controllers.why_controller import GLOSSARY

    assert for_model(GLOSSARY, chapter.params.cfg) == GLOSSARY  # the chapter's words as written
    woodland = load(resolve("woodland")).cfg
    said = dict(for_model(GLOSSARY, woodland))
    assert (woodland.d_model, woodland.n_heads, woodland.d_head, woodland.d_ff) == (16, 4, 4, 64)
    assert "thing action quantifier wood" not in said
    assert said["d0 … d15"].startswith("the 16 numbered dimensions of every vector (d_model = 16)")
    assert said["h1, h2, head 1"].startswith("the four attention heads")
    assert "d_head = 4" in said["k0, k1"] and "d_ff = 64" in said["unit 3"]
    dim = label_line(Label(COLUMN, "d3", 3, "x"), for_model(GLOSSARY, woodland), woodland.dims)
    assert dim.endswith(said["d0 … d15"])
    llama = dict(for_model(GLOSSARY, load(resolve("chapter17-llama")).cfg))
    assert "RMSNorm" in llama["x_n, x′_n"] and "mean 0" not in llama["x_n, x′_n"]
    assert "RoPE" in llama["E[id], PE, x"] and "W_gate" in llama["unit 3"]


async def test_the_help_screens_glossary_is_the_models():
    from tests.apps import make_app

    app = make_app("--model", "woodland")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        glossary = dict(app.screen.glossary)
        assert "d0 … d15" in glossary and "d_ff = 64" in glossary["unit 3"]


def test_a_vocabulary_in_the_thousands_is_written_as_the_counts_write_it():
    from tinytui.lesson.texts.wording import in_words

    assert in_words(50257) == "50,257" and in_words(300) == "300" and in_words(8) == "eight"


def test_why_of_a_block_the_model_lacks_says_so(capsys):
    from tinytui.cli.main import main

    assert main(["why", "x′[3,3] (block 2)"]) == 2
    said = capsys.readouterr().err
    assert "this model has 1 block, so there is no block 2" in said and "no tensor named" not in said
    assert main(["why", "A_1[1,0] (block 0)"]) == 2
    assert "so there is no block 0" in capsys.readouterr().err
    assert main(["why", "x′[3,3] (block 2)", "--model", "woodland"]) == 0


def test_practice_shows_no_attention_weight_with_the_mask_off(chapter):
    from tinytui.present.step_words import first_sentence

    trace = run(chapter.params, chapter.prompt, chapter.target, Switches(causal_mask=False))
    words = _words(trace, 8)
    shown = first_sentence(words)  # all of the explanation that practice shows
    assert not re.search(r"\d\.\d{4}", shown), shown
    a1, a2 = trace["blocks.0.attn.1"][0, 0], trace["blocks.0.attn.2"][0, 0]
    assert f"The first row's weight on itself is {a1:.4f} in head 1 and {a2:.4f} in head 2." in words


def test_rows_that_do_not_add_to_one_as_printed_say_so(chapter):
    trace = run(chapter.params, chapter.prompt, chapter.target, Switches(causal_mask=False))
    (table,) = [
        t for t in stage_report(trace, STAGE_BY_NUMBER[8], chapter.params).tables if "head 1" in t.title
    ]
    printed = [f"{sum(float(v) for v in row):.4f}" for row in table.cells]
    assert printed[:2] == ["1.0001", "0.9999"] and set(printed[2:]) == {"1.0000"}
    head1 = _facts(trace, 8)[1]
    assert head1.startswith(
        "head 1: each row sums to 1 (as printed, rows 0 and 1 add to 1.0001 and 0.9999: rounding);"
    )
    default = run(chapter.params, chapter.prompt, chapter.target)  # every printed row adds to 1.0000
    assert _facts(default, 8)[1].startswith("head 1: each row sums to 1; strongest key per row:")
