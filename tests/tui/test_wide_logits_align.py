"""Step 14's bars keep their columns when a logit is wider than −1.2345 (a model whose logits reach
−16.0692): the header, every row and the frame line up, the numbers right-aligned under their words."""

import json
from pathlib import Path

from tests.apps import make_app
from tests.tui.helpers import press
from tinytui.tui.widgets.step_view import StepView

CHAPTER = Path(__file__).parents[2] / "model" / "presets" / "chapter17.json"


async def test_logits_of_eight_characters_keep_the_bars_columns(tmp_path):
    model = json.loads(CHAPTER.read_text())
    model["weights"]["E"] = [[15 * x for x in row] for row in model["weights"]["E"]]
    path = tmp_path / "wide.json"
    path.write_text(json.dumps(model))
    app = make_app("--model", str(path))
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "G", "p", "p")  # step 14
        lines = app.screen.query_one(StepView).text().split("\n")
    top = next(i for i, line in enumerate(lines) if "one bar per token" in line)
    header, rows = lines[top + 1], lines[top + 2 : top + 10]
    assert any("−16.0692" in row for row in rows)  # wider than the 7 columns a logit had
    logit_end, prob_end = header.index("logit") + len("logit"), header.index("prob") + len("prob")
    for row in rows:
        logit, prob = row.split("│")[1].split()[1:3]
        assert row.index(logit) + len(logit) == logit_end - 1, row  # each number ends under its word
        assert row.index(prob, row.index(logit) + len(logit)) + len(prob) == prob_end, row
    assert len({line.rstrip().index("│", 2) for line in [header, *rows]}) == 1  # one right border
