"""'Compare with: another model file' given a checkpoint whose weights file lies in its header: one
line saying what is wrong with which tensor, and the session exactly as it was (no comparison, the
same state and history)."""

import json
import shutil

from tests.apps import make_app
from tests.gpt2.checkpoints import TINY
from tests.tui.helpers import press
from tinytui.tui.widgets.notice_line import NoticeLine

TITLE = "Compare with: another model file"


def lying_copy(tmp_path):
    """The tiny GPT-2 folder with its first tensor said to be 2**40 × 2**40 floats."""
    folder = tmp_path / "liar"
    shutil.copytree(TINY, folder, ignore=shutil.ignore_patterns("reference.*"))
    raw = (folder / "model.safetensors").read_bytes()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8 : 8 + n])
    first = min((k for k in header if k != "__metadata__"), key=lambda k: header[k]["data_offsets"][0])
    header[first]["shape"] = [2**40, 2**40]
    text = json.dumps(header).encode()
    (folder / "model.safetensors").write_bytes(len(text).to_bytes(8, "little") + text + raw[8 + n :])
    return folder, first


async def test_a_lying_checkpoint_is_one_notice_and_changes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    folder, first = lying_copy(tmp_path)
    app = make_app()  # the weights are refused before their shapes are compared with the chapter's
    async with app.run_test(size=(120, 40)) as pilot:
        session = app.session
        before = (session.state, session.cursor, len(session.history), session.comparison)
        next(c for c in app.palette_commands() if c.title.startswith(TITLE)).run()
        await pilot.pause()
        await press(pilot, "ctrl+u")
        await pilot.press(*folder.name)
        await press(pilot, "enter")
        assert (session.state, session.cursor, len(session.history), session.comparison) == before
        line = app.screen.query_one(NoticeLine)
        shown = " ".join(" ".join(line.render_line(y).text for y in range(line.size.height)).split())
        assert "▌ Not done: compare liar/model.safetensors: " in shown, shown
        assert f"{first}: shape [1099511627776, 1099511627776] of" in shown, shown
        assert "F32 is 4835703278458516698824704 bytes, but data_offsets [0, 192] hold 192" in shown, shown
