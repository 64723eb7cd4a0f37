"""The README says what the code does: every action id is listed where keymaps are explained."""

from pathlib import Path

from tinytui.tui.actions import ACTIONS

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def test_every_action_id_is_in_the_readme():
    section = " ".join(README.split("## Changing keys")[1].split("## ")[0].split())
    missing = [a.id for a in ACTIONS if f"`{a.id}`" not in section and not a.id.startswith("goto-")]
    assert missing == []
    assert "`goto-1` … `goto-9`" in section
