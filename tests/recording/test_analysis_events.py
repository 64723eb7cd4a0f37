"""Activation patching and a two-run compare are recorded and replayed: a replay sets the same corrupted
prompt and foil, compares with the same A, and a bad line is refused naming its field."""

import inspect

import numpy as np
import pytest

from tinytui.recording.event_kinds import KINDS, decode_event
from tinytui.recording.event_log import event_json
from tinytui.recording.log_values import BadLine
from tinytui.recording.replay import replay_event
from tinytui.session.session import Session
from tinytui.session.state import Kind, Refused


def _json(seq, event, session):
    if len(inspect.signature(event_json).parameters) == 4:  # the log keeps hashes of the weights it saw
        from tinytui.recording.state_digest import Digests

        return event_json(seq, event, session, Digests())
    return event_json(seq, event, session)


def _record_and_replay(chapter, act):
    live, replayed = Session(chapter), Session(chapter)
    seen = []

    def hear(event):
        rec = decode_event(_json(len(seen) + 1, event, live), len(seen) + 2, len(seen) + 1, chapter)
        replay_event(replayed, rec)
        seen.append(rec)

    live.listeners.append(hear)
    act(live)
    return live, replayed, seen


def test_patching_replays_to_the_same_heatmap(chapter):
    def act(s):
        s.goto(14)
        s.set_patching("a much would chuck", "chuck")

    live, replayed, seen = _record_and_replay(chapter, act)
    assert seen[-1].kind is Kind.PATCH
    assert seen[-1].data == {"corrupt": ["a", "much", "would", "chuck"], "foil": "chuck"}
    assert replayed.patch_setting == live.patch_setting
    assert np.array_equal(replayed.patching().resid_pre, live.patching().resid_pre)
    assert replayed.patching().clean == pytest.approx(0.71204127, abs=1e-8)


def test_patching_off_is_recorded_too(chapter):
    def act(s):
        s.set_patching("a much would chuck", "chuck")
        s.set_patching(None)

    live, replayed, seen = _record_and_replay(chapter, act)
    assert seen[-1].data == {"corrupt": None, "foil": None}
    assert replayed.patch_setting is None and live.patch_setting is None


def test_a_compare_with_another_prompt_replays_with_the_same_a(chapter):
    def act(s):
        s.compare_with("prompt", "a woodchuck would wood")

    live, replayed, seen = _record_and_replay(chapter, act)
    assert seen[-1].data == {"with": "prompt", "prompt": ["a", "woodchuck", "would", "wood"]}
    assert replayed.comparison.state.prompt == ("a", "woodchuck", "would", "wood")
    assert np.array_equal(replayed.compare_trace()["logits"], live.compare_trace()["logits"])


def test_a_compare_with_a_model_file_replays_from_its_path(chapter, tmp_path):
    from tinytui.model.io.model_file import save  # a model file written as the app writes one

    other = tmp_path / "other.json"
    save(chapter, other)

    def act(s):
        s.compare_with("model", path=str(other))
        s.compare_with("off")

    _, replayed, seen = _record_and_replay(chapter, act)
    assert [r.data["with"] for r in seen] == ["model", "off"]
    assert seen[0].data["path"] == str(other) and replayed.comparison is None


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"corrupt": ["a", "nope"], "foil": "chuck"}, "patch: corrupt"),
        ({"corrupt": ["a"], "foil": "nope"}, "patch: foil"),
    ],
)
def test_a_bad_patch_line_names_its_field(chapter, data, field):
    doc = {"seq": 1, "kind": "patch", "data": data, "check": {}}
    with pytest.raises(BadLine, match=field):
        decode_event(doc, 2, 1, chapter)


def test_a_bad_compare_line_names_its_field(chapter):
    doc = {"seq": 1, "kind": "compare", "data": {"with": "yesterday"}, "check": {}}
    with pytest.raises(BadLine, match="compare: with"):
        decode_event(doc, 2, 1, chapter)


def test_refusals_are_one_line_and_change_nothing(chapter):
    s = Session(chapter)
    for call in (
        lambda: s.set_patching("a woodchuck would", "chuck"),  # 3 tokens, the prompt has 4
        lambda: s.set_patching("a much would chuck", "zzz"),  # not in the vocabulary
        lambda: s.set_patching("a much would chuck", "wood"),  # the target itself
        lambda: s.compare_with("prompt", "a woodchuck"),
        lambda: s.compare_with("before"),  # nothing changed yet
    ):
        with pytest.raises(Refused) as refused:
            call()
        assert "\n" not in str(refused.value)
    assert s.patch_setting is None and s.comparison is None
    assert set(KINDS) >= {Kind.PATCH, Kind.COMPARE}
