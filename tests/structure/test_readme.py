"""The docs say what the code does: every action id is listed where keymaps are explained."""

import re
from pathlib import Path

from tinytui.tui.actions import ACTIONS

ROOT = Path(__file__).resolve().parents[2]
KEYMAPS = (ROOT / "docs" / "keymaps.md").read_text(encoding="utf-8")


def test_every_action_id_is_in_the_keymap_page():
    page = " ".join(KEYMAPS.split())
    missing = [a.id for a in ACTIONS if f"`{a.id}`" not in page and not a.id.startswith("goto-")]
    assert missing == []
    assert "`goto-1` … `goto-9`" in page


def test_every_page_the_readme_links_to_exists():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    linked = re.findall(r"\]\(((?:docs|benchmarks)/[^)#]+)\)", readme)
    assert len(linked) >= 10
    assert [p for p in linked if not (ROOT / p).exists()] == []
