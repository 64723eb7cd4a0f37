"""A list of the k likeliest tokens says so when its cut leaves out a token that reads as likely as its
last one, and a pick decided by a tie says what decided it: the chapter's 'how' and 'much' share one
row of E, so they tie at every point (0.0742 before block 1: 'how' is listed fifth, 'much' is not), and
a model whose 'woodchuck' row is made 'wood''s ties for first place.

Every surface that cuts such a list is read here with real numbers: the shared rule (print_window), the
lens and generate commands, the watch pane, the lens table, the logits pane of a long vocabulary, the
next-token table at step 14 and a printed report's window."""

import json
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import tinytui.model
from tinytui.cli.main import main
from tinytui.model.analysis.lens import logit_lens
from tinytui.model.generation import sampling
from tinytui.model.generation.sampling import Sampling
from tinytui.model.io.document import ModelFile
from tinytui.present.lens_tables import lens_grid, lens_lines
from tinytui.present.next_token_grids import next_token_grid
from tinytui.present.top_tokens import shown_tokens
from tinytui.present.view import View
from tinytui.present.watch_data import Piece, watch_lines, watch_spec
from tinytui.report.print_window import cut, picks_of, ranked
from tinytui.session.session import Session

VOCAB = ("a", "chuck", "how", "much", "wood", "woodchuck", "would", ".")


def plain(line: tuple[Piece, ...]) -> str:
    return "".join(piece.text for piece in line)


def with_row_copied(model: ModelFile, to: str, source: str) -> ModelFile:
    """The model with E's row of token `to` made the same as `source`'s: the two always tie."""
    cfg = model.cfg
    e = np.array(model.params["E"])
    e[cfg.token_id(to)] = e[cfg.token_id(source)]
    return replace(model, params=model.params.with_arrays({"E": e}))


@pytest.fixture(scope="module")
def wood_tie(chapter):
    return with_row_copied(chapter, "woodchuck", "wood")


def test_the_chapters_fifth_place_is_a_tie_and_the_list_says_so(chapter, trace):
    before = logit_lens(trace, chapter.params)[0].probs
    assert before[2] == before[3] and f"{before[2]:.4f}" == "0.0742"  # 'how' and 'much', exactly
    listed = ranked(before, 5)
    assert [VOCAB[i] for i in listed.ids] == ["wood", "woodchuck", "chuck", ".", "how"]
    assert listed.tied == (3,) and listed.alike == ()
    assert listed.note(VOCAB) == "how ties much"
    assert listed.sentence(VOCAB, before) == (
        "'how' ties 'much' at 0.0742, left out: of equal ones a list keeps the lower id"
    )
    assert not ranked(before, 4).cut_a_tie and not ranked(before, 6).cut_a_tie  # 'much' is in, or both out


def test_equal_as_printed_is_said_apart_from_equal():
    p = np.array([0.5, 0.2, 0.07421024, 0.07421019, 0.07410])
    names = tuple("abcde")
    listed = ranked(p, 3)  # 'c' and 'd' print 0.0742 and differ in the 8th decimal: not a tie for the model
    assert listed.tied == () and listed.alike == (3,)
    assert listed.note(names) == "d prints the same as c"
    said = listed.sentence(names, p)
    assert said == "'d', left out, also prints as 0.0742 but is a little less likely than 'c'"
    assert ranked(p, 4).alike == ()  # 'e' at 0.0741 prints otherwise
    halves = np.array([0.9, 0.07425, 0.07424999999])  # 0.07425 prints 0.0742 (binary below the half)
    assert f"{halves[1]:.4f}" == f"{halves[2]:.4f}" and ranked(halves, 2).alike == (2,)


def test_lens_text_and_json_say_how_ties_much(capsys):
    assert main(["lens"]) == 0
    lines = capsys.readouterr().out.splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith("before block 1"))
    assert lines[row].endswith("how 0.0742") and lines[row + 1].strip() == "how ties much"
    assert "'A ties B': B is exactly as likely as A, the last one listed, and is left out" in " ".join(lines)
    assert main(["lens", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [(p["top"][-1]["token"], p["tied_with_last"]) for p in doc["points"]] == [("how", ["much"])] * 3


def write(model: ModelFile, tmp_path: Path) -> str:
    doc = json.loads((Path(tinytui.model.__file__).parent / "presets" / "chapter17.json").read_text())
    doc["weights"]["E"] = np.asarray(model.params["E"]).tolist()
    path = tmp_path / "tie.json"
    path.write_text(json.dumps(doc))
    return str(path)


def test_generate_says_when_a_tie_decided_the_pick_or_a_top_k_cut(capsys, wood_tie, tmp_path):
    assert main(["generate", "--tokens", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-4].strip() == "how ties much" and lines[-5].endswith("how 0.0840")
    assert main(["generate", "--tokens", "1", "--model", write(wood_tie, tmp_path)]) == 0
    said = capsys.readouterr().out
    assert (
        "pos 4: 'wood' and 'woodchuck' share the largest logit, 1.0648; greedy takes the lowest id, 'wood'"
    ) in said
    assert main(["generate", "--tokens", "1", "--temperature", "1", "--top-k", "5", "--json"]) == 0
    step = json.loads(capsys.readouterr().out)["steps"][0]
    assert step["logits"][2] == step["logits"][3] and step["probs"][3] == 0.0 < step["probs"][2]
    assert step["tie"] == (
        "top-k 5 splits a tie at logit -0.2599: it keeps 'how' and drops 'much' (of equal logits, the "
        "lower id is kept)"
    )


def test_the_greedy_pick_over_a_runner_up_that_prints_the_same_says_its_logit_decided():
    logits = np.log(np.array([0.3, 0.3 + 1e-9, 0.4 - 1e-9]))
    chosen = sampling.pick(logits, Sampling(), 4)
    from tinytui.report.pick_ties import pick_tie

    assert sampling.tied_for_first(logits) == (2,) and pick_tie(chosen, ("x", "y", "z")) is None
    close = np.log(np.array([0.35, 0.325 + 1e-9, 0.325]))
    tie = pick_tie(sampling.pick(close, Sampling(), 4), ("x", "y", "z"))
    assert tie is None  # 0.35 and 0.3250 print apart
    near = np.array([1.0, 1.0 - 1e-7, 0.0])
    tie = pick_tie(sampling.pick(near, Sampling(), 4), ("x", "y", "z"))
    assert tie is not None and tie.said.startswith(
        "'x' and 'y' both print p = 0.4223, but 'x''s logit is larger"
    )


def test_the_watch_pane_names_the_tie_under_the_last_bar(chapter):
    view = View.of(Session(chapter))
    spec = watch_spec(view)
    assert [b.token for b in spec.bars] == [
        "wood",
        "chuck",
        "woodchuck",
        ".",
        "how",
    ] and spec.tie == "ties much"
    said = [plain(line) for line in watch_lines(spec, (), "wood", width=32)]
    how = next(line for line in said if line.startswith("how "))
    assert how.rstrip() == "how       ▉ = much    0.0840"  # 'much' has the same bar: it is named in it
    narrow = [plain(line) for line in watch_lines(spec, (), "wood", bar=6, width=26)]
    how = next(i for i, line in enumerate(narrow) if line.startswith("how "))
    assert narrow[how].rstrip().endswith("0.0840") and narrow[how + 1].strip() == "ties much (no bar)"
    s = Session(chapter)
    s.set_target("much")  # 'much' gets a bar as the target: nothing as likely is left out
    assert watch_spec(View.of(s)).tie == ""


def test_the_watch_lens_marks_a_first_place_tie(wood_tie):
    lens = lens_lines(View.of(Session(wood_tie)))
    assert [(line.top, line.tie) for line in lens] == [("wood", "ties woodchuck")] * 3
    spec = watch_spec(View.of(Session(wood_tie)))
    said = [plain(line) for line in watch_lines(spec, lens, "wood", width=32)]
    assert all(line.endswith(" wood=") for line in said if line.startswith(("before", "attn", "after")))
    assert "= wood ties woodchuck" in said


def test_the_lens_table_says_its_third_ties_one_left_out(chapter):
    model = with_row_copied(chapter, ".", "chuck")  # '.' as likely as 'chuck', third before block 1
    s = Session(model)
    s.goto(13)
    spec = lens_grid(View.of(s))
    before = logit_lens(s.trace, s.params)[0].probs
    assert before[1] == before[7]
    assert spec.cells[0][4] == f"chuck {before[1]:.4f} (ties .)"
    assert spec.details[0][4].endswith(
        f"'chuck' ties '.' at {before[1]:.4f}, left out: of equal ones a list keeps the lower id"
    )


def test_a_long_vocabularys_pane_line_names_a_tie_among_the_left_out():
    p = np.full(40, 0.02)
    p[:10] = np.linspace(0.1, 0.03, 10)
    p[25] = p[9]  # exactly the 10th's probability
    p /= p.sum()
    vocab = tuple(f"t{i}" for i in range(40))
    shown = shown_tokens(p, None, vocab=vocab)
    assert shown.ids == tuple(range(10)) and p[25] == p[9]
    assert shown.line().endswith("· among them 't25' ties 't9' exactly")
    assert shown_tokens(p, 25, vocab=vocab).tie == ""  # the target is shown below the ten: not left out


def test_the_next_token_table_titles_a_pick_a_tie_decided(chapter, wood_tie):
    grid = next_token_grid(View.of(Session(wood_tie)))
    assert grid.title == "Position 4 · greedy → 'wood' (tie: lower id)"
    wood = grid.rows.index("→ wood")
    assert "'wood' and 'woodchuck' share the largest logit, 1.0648" in grid.details[wood][2]
    s = Session(chapter)
    s.set_sampling(Sampling(1.0, 5))
    titled = next_token_grid(View.of(s)).title
    assert titled.endswith("(top-k 5 split a tie)") and "top-k 5" in titled


class TraceLike:
    """What picks_of reads of a run: its vocabulary, prompt ids, probabilities and target (t0)."""

    def __init__(self, vocab: tuple[str, ...], tensors: dict):
        self.cfg = SimpleNamespace(vocab=vocab, token_id=vocab.index)
        self.target, self.prompt, self.tensors = "t0", ("t3",), tensors

    def __getitem__(self, name: str) -> np.ndarray:
        return self.tensors[name]


def test_a_printed_windows_caption_says_its_tenth_ties_a_token_left_out():
    p = np.full(300, 0.001)
    p[:10] = np.linspace(0.2, 0.05, 10)
    p[200] = p[9]
    vocab = tuple(f"t{i}" for i in range(300))
    trace = TraceLike(vocab, {"ids": np.array([3]), "probs": p})
    picks = picks_of(trace)
    assert picks.tie == "the 10th ties t200"
    window = cut(1, 300, "", "vocab", picks)
    assert window is not None and window.caption() == (
        "10 of 300 columns (the 10 most likely (the 10th ties t200, left out), the target among them)"
    )


def test_a_top_k_cut_through_equal_logits(trace):
    logits = trace["logits"]
    assert sampling.cut_tie(logits, 5) == ((2,), (3,))  # 'how' kept, 'much' dropped
    assert sampling.cut_tie(logits, 4) == ((), ()) and sampling.cut_tie(logits, 6) == ((), ())


def test_the_gallerys_five_likeliest_say_how_ties_much(chapter):
    from tinytui.present.gallery_lines import plain as gallery_plain
    from tinytui.present.gallery_pages import gallery_page

    lines = gallery_page(View.of(Session(chapter)), lambda v: None, "day", 5, 120)
    text = "\n".join(gallery_plain(line) for line in lines)
    listed = text[text.index("(the five likeliest):") :].splitlines()
    assert listed[5].split()[:2] == ["how", "8.4%"] and listed[6].strip() == "how ties much, left out"
