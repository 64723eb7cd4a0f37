"""The gallery and the parameter browser draw what present/ lays out: the import contract keeps numpy, the
model, the lesson and the session out of them (and the project keeps to it)."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DRAWN = (
    "tinytui/tui/widgets/gallery/canvas.py",
    "tinytui/tui/widgets/gallery/drawing.py",
    "tinytui/tui/screens/gallery_screen.py",
    "tinytui/tui/screens/param_browser.py",
)


def _contract():
    spec = importlib.util.spec_from_file_location("import_contract", ROOT / ".ci" / "import_contract.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_gallery_and_the_browser_import_no_numbers_of_their_own():
    contract = _contract()
    known = set(contract.modules(ROOT))
    banned = ("numpy", "tinytui.model", "tinytui.lesson", "tinytui.session")
    for path in DRAWN:
        name = "tinytui." + path.removeprefix("tinytui/").removesuffix(".py").replace("/", ".")
        imported = contract.imports_of(name, ROOT / path, known)
        assert any(i.startswith("tinytui.present.") for i in imported), path  # what it draws comes from there
        assert not [i for i in imported if any(i == b or i.startswith(b + ".") for b in banned)], path


def test_the_contract_catches_numbers_computed_in_the_gallery_or_the_browser(tmp_path):
    files = {
        "tinytui/__init__.py": "",
        "model/__init__.py": "",
        "tinytui/tui/widgets/gallery/day.py": "import numpy\nfrom tinytui.model.names import part_label\n",
        "tinytui/tui/screens/param_browser.py": "from tinytui.lesson import gallery_reading\n",
        "tinytui/tui/screens/gallery_screen.py": "from tinytui.session.session import Session\n",
        "tinytui/tui/screens/help.py": "import numpy\n",  # another screen: not this rule's
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    found = _contract().problems(tmp_path)
    assert sorted(found) == [
        "tinytui.tui.screens.gallery_screen imports tinytui.session.session, which "
        "tinytui.tui.screens.gallery_screen must not import",
        "tinytui.tui.screens.param_browser imports tinytui.lesson, which tinytui.tui.screens.param_browser "
        "must not import",
        "tinytui.tui.widgets.gallery.day imports numpy, which tinytui.tui.widgets.gallery must not import",
        "tinytui.tui.widgets.gallery.day imports tinytui.model.names, which tinytui.tui.widgets.gallery "
        "must not import",
    ]
