"""The declared floor of every runtime dependency (and the gpt2 extra), as pip requirements: name==floor.

python .ci/floors.py     prints one requirement a line, read from pyproject.toml
"""

import re
import sys
import tomllib
from pathlib import Path


def floors(pyproject: Path) -> list[str]:
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    wanted = [*project["dependencies"], *project["optional-dependencies"]["gpt2"]]
    out = []
    for requirement in wanted:
        found = re.match(r"^([A-Za-z0-9_.-]+)\s*>=\s*([0-9][0-9.]*)", requirement)
        if not found:
            sys.exit(f"floors: {requirement!r} declares no floor (>=)")
        out.append(f"{found[1]}=={found[2]}")
    return out


if __name__ == "__main__":
    print("\n".join(floors(Path(__file__).resolve().parents[1] / "pyproject.toml")))
