"""Type-check model/, lesson/, tinytui/session, tinytui/recording, tinytui/report and tinytui/present with
mypy (config: [tool.mypy] in pyproject.toml).

The folders model/, lesson/ and themes/ install inside the package (tinytui.model, ...; pyproject's
package-dir) and the editable install finds them through an import hook mypy cannot follow. So mypy reads
a temporary tree that lays the package out as installed: tinytui/<each entry> and tinytui/model, lesson,
themes, all symlinks to the checkout's own files. Its report names them by their paths in the checkout.
Exit status: mypy's (non-zero on any error).
"""

import subprocess
import sys
import tempfile
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
PACKAGES = (
    "tinytui.model",
    "tinytui.lesson",
    "tinytui.session",
    "tinytui.recording",
    "tinytui.report",
    "tinytui.present",
)
# folder in the checkout -> where it sits inside the import package
INSTALLED_AS = {"model": "model", "lesson": "lesson", "themes": "themes"}


def build_tree(root: Path) -> None:
    package = root / "tinytui"
    package.mkdir()
    for entry in (CHECKOUT / "tinytui").iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    for folder, name in INSTALLED_AS.items():
        (package / name).symlink_to(CHECKOUT / folder)


def checkout_path(line: str) -> str:
    """The report's line with the tree's path (tinytui/model/x.py) put back as the checkout's (model/x.py)."""
    for folder, name in INSTALLED_AS.items():
        prefix = f"tinytui/{name}/"
        if line.startswith(prefix):
            return folder + "/" + line[len(prefix) :]
    return line


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="tinytui-typecheck-") as tmp:
        root = Path(tmp)
        build_tree(root)
        command = [sys.executable, "-m", "mypy", "--config-file", str(CHECKOUT / "pyproject.toml")]
        command += ["--cache-dir", str(root / ".mypy_cache")]
        for package in PACKAGES:
            command += ["-p", package]
        result = subprocess.run(command, cwd=root, capture_output=True, text=True)
        for line in result.stdout.splitlines():
            print(checkout_path(line))
        sys.stderr.write(result.stderr)
        return result.returncode


if __name__ == "__main__":
    sys.exit(main())
