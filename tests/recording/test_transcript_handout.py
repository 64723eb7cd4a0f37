"""The transcript reads as a handout: every machine line is gathered in an appendix after the last
event, lesson.txt alone still replays, and a change prints the tables of the step on screen as they
now are."""

from tinytui.recording.recorder import Recorder
from tinytui.recording.replay import Replayer, load_recording
from tinytui.report.tables import fmt
from tinytui.session.session import Session


def lesson(chapter, path):
    session = Session(chapter)
    rec = Recorder(path, clock=lambda: "2024-05-01 09:00")
    rec.attach(session)
    for step in range(2, 17):
        session.goto(step)
    session.goto(14)
    session.edit("W_O", (2, 0), "2")
    seen = {"after edit": session.trace}
    session.toggle("causal_mask")
    seen["after toggle"] = session.trace
    session.learn_step()
    session.undo()
    rec.stop()
    return session, seen


def test_machine_lines_are_only_in_the_appendix_and_the_file_alone_replays(chapter, tmp_path):
    path = tmp_path / "lesson.txt"
    live, _ = lesson(chapter, path)
    lines = path.read_text(encoding="utf-8").splitlines()
    stopped = lines.index(next(x for x in lines if x.startswith("=== recording stopped after 20 events")))
    appendix = next(i for i, x in enumerate(lines) if x.startswith("=== event data for tinytui replay"))
    data = [i for i, x in enumerate(lines) if x.startswith("#|")]
    assert not any(x.startswith("#|") for x in lines[:stopped])  # the lesson itself: no machine line
    assert stopped < appendix < data[0] and data[-1] == len(lines) - 1
    assert sum(x.startswith("#| ") for x in lines) == 21  # the start and 20 events
    assert "(21 records: the start, then each event)" in lines[appendix]
    assert all(len(x) <= 100 for x in lines)
    path.with_suffix(".jsonl").unlink()
    replayer = Replayer(load_recording(path))
    session = replayer.new_session()
    replayer.apply_all(session)
    assert replayer.done and replayer.diverged is None and session.trace.loss == live.trace.loss


def test_an_edit_and_a_toggle_print_the_step_on_screen_as_it_now_is(chapter, tmp_path):
    path = tmp_path / "lesson.txt"
    _, seen = lesson(chapter, path)
    text = path.read_text(encoding="utf-8")
    edit = text.split("=== 17 · edit: W_O[h2.k0, thing] set from 0.0000 to 2.0000")[1].split("\n=== ")[0]
    toggle = text.split("=== 18 · toggle the causal mask: now mask off")[1].split("\n=== ")[0]
    for block, trace in ((edit, seen["after edit"]), (toggle, seen["after toggle"])):
        now = block.split("After this change the step on screen reads:")[1]
        assert "Step 14/16 · Tied unembedding" in now
        logits = "  ".join(fmt(float(v)) for v in trace["logits"])
        assert " ".join(now.split("\nℓ  ")[1].split("\n")[0].split()) == " ".join(logits.split())
    assert fmt(float(seen["after edit"]["probs"].max())) == "0.2115"  # chuck, as the headline's loss says
    assert "p  0.0959  0.2115" in edit
