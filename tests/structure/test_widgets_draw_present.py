"""Present describes, widgets draw: no widget imports a model, lesson or session module (the status
line's, the step list's and the step's words come from present/), and the View they draw from is a
snapshot that holds no session."""

import dataclasses
import importlib.util
from pathlib import Path

from tinytui.present.view import OtherRuns, View
from tinytui.session.session import Session

ROOT = Path(__file__).resolve().parents[2]
BANNED = ("tinytui.model", "tinytui.lesson", "tinytui.session")
WORDS_FROM_PRESENT = {  # a widget, and the present module its words come from
    "tinytui.tui.widgets.status_bar": "tinytui.present.status_words",
    "tinytui.tui.widgets.step_list": "tinytui.present.step_list_lines",
}


def _contract():
    spec = importlib.util.spec_from_file_location("import_contract", ROOT / ".ci" / "import_contract.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _banned(imported: set[str]) -> list[str]:
    return sorted(i for i in imported if any(i == b or i.startswith(b + ".") for b in BANNED))


def test_no_widget_imports_the_model_the_lesson_or_the_session():
    contract = _contract()
    found = contract.modules(ROOT)
    known = set(found)
    widgets = [name for name in found if name.startswith("tinytui.tui.widgets.")]
    assert set(WORDS_FROM_PRESENT) <= set(widgets)
    for name in widgets:
        assert _banned(contract.imports_of(name, found[name], known)) == [], name
    for widget, words in WORDS_FROM_PRESENT.items():
        assert words in contract.imports_of(widget, found[widget], known), widget


def test_the_contract_catches_a_widget_that_words_a_step_itself(tmp_path):
    files = {
        "tinytui/__init__.py": "",
        "model/__init__.py": "",
        "lesson/__init__.py": "",
        "tinytui/tui/widgets/status_bar.py": "from tinytui.lesson.stages import title_for\n",
        "tinytui/tui/widgets/step_list.py": "from tinytui.model.config import ModelConfig\n",
        "tinytui/tui/widgets/prose.py": "def words():\n    from tinytui.session.session import Session\n",
        "tinytui/present/status_words.py": "from tinytui.lesson.stages import title_for\n",  # present may
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    found = _contract().problems(tmp_path)
    rule = "which tinytui.tui.widgets must not import"
    assert sorted(found) == [
        f"tinytui.tui.widgets.prose imports tinytui.session.session, {rule}",
        f"tinytui.tui.widgets.status_bar imports tinytui.lesson.stages, {rule}",
        f"tinytui.tui.widgets.step_list imports tinytui.model.config, {rule}",
    ]


def test_a_view_is_a_snapshot_without_the_session(chapter):
    session = Session(chapter)
    assert "session" not in {f.name for f in dataclasses.fields(View)}
    view = View.of(session)
    values = [getattr(view, f.name) for f in dataclasses.fields(View)]
    values += [getattr(view.other, name) for name in OtherRuns._fields]
    assert not [v for v in values if isinstance(v, Session)]
    # what it read stays as it was when the session moves on
    lr = session.state.lr
    session.set_lr(lr / 2)
    session.goto(7)
    assert (view.step, view.undo.back, view.lr) == (1, 0, lr)
    now = View.of(session)
    assert (now.step, now.undo.back, now.lr) == (7, 1, lr / 2)
