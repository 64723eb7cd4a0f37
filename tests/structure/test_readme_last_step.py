"""The README's row for n says what n does at step 16: the notice the app shows, word for word."""

from __future__ import annotations

from pathlib import Path

from tests.apps import make_app
from tests.tui.helpers import press

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


async def test_next_at_the_last_step_is_the_notice_the_readme_names():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "9", *["n"] * 7)
        assert app.session.step == 16
        await press(pilot, "n")
        assert app.session.step == 16
        said = [n.message for n in app.toasts.notes()]
    assert said[-1] == "Step 16 is the last step."
    row = next(line for line in README.splitlines() if line.startswith("| `n` `→` `space`"))
    assert f'a notice says "{said[-1]}"' in row, row
    assert "quiet bell" not in row
