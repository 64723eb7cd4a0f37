"""Every kind of event is defined once (tinytui.recording.event_kinds), and nothing else branches on a
kind's name: each kind a session emits encodes, decodes back to the same data and replays."""

import re
from pathlib import Path

import tinytui.recording
from tinytui.model.generation.sampling import Sampling
from tinytui.recording.event_kinds import KINDS, EventKind, decode_event
from tinytui.recording.event_log import event_json
from tinytui.recording.replay import replay_event
from tinytui.recording.state_digest import Digests
from tinytui.session.session import Session
from tinytui.session.state import Kind


def test_every_kind_a_session_emits_has_exactly_one_definition():
    assert list(KINDS) == list(Kind)
    assert all(isinstance(spec, EventKind) and spec.kind is kind for kind, spec in KINDS.items())
    assert len({type(spec) for spec in KINDS.values()}) == len(Kind)


def test_no_module_of_the_recording_package_branches_on_a_kinds_name():
    folder = Path(tinytui.recording.__file__).parent
    pattern = re.compile(r"""kind\s*(==|!=|in)\s*[("']""")
    hits = [
        f"{p.name}: {line.strip()}"
        for p in folder.glob("*.py")
        for line in p.read_text().splitlines()
        if pattern.search(line)
    ]
    assert hits == []


def each_kind(session):
    """One event of every kind, in an order the session accepts."""
    session.goto(9)
    session.set_mode(gradients=True)
    session.edit("W_O", (2, 0), "2")
    session.toggle("causal_mask")
    session.set_prompt(("a", "woodchuck", "would", "chuck", "much"))
    session.set_target("chuck")
    session.set_lr("0.25")
    session.undo()
    session.redo()
    session.learn_step()
    session.reset()
    session.set_practice(True)
    session.set_sampling(Sampling(0.8, 3, 1.0, 7))
    session.add_note("Look at row 3: the mask is why it ignores later words.")
    session.set_patching("a much would chuck", "chuck")
    session.compare_with("pinned")


def test_each_kind_encodes_decodes_to_its_data_and_replays_to_the_same_state(chapter):
    live, replayed = Session(chapter), Session(chapter)
    seen = []

    def hear(event):
        doc = event_json(len(seen) + 1, event, live, Digests())
        rec = decode_event(doc, len(seen) + 2, len(seen) + 1, chapter)
        assert rec.kind is event.kind and set(rec.data) <= set(KINDS[rec.kind].fields)
        again = replay_event(replayed, rec)
        assert again.kind == event.kind and again.after.loss == event.after.loss
        assert replayed.state.prompt == live.state.prompt and replayed.state.switches == live.state.switches
        assert replayed.sampling == live.sampling
        seen.append(event.kind)

    live.listeners.append(hear)
    each_kind(live)
    assert sorted(seen) == sorted(Kind) and len(seen) == len(Kind)
