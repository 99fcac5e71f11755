"""argmap imports only phi.common, phi.core, opmakers and itself, and reads nothing outside."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ARGMAP = Path(__file__).resolve().parents[2] / "argmap"
ALLOWED_OURS = ("argmap", "opmakers", "phi.common", "phi.core")
OURS = ("argmap", "opmakers", "phi", "fluid_compat")
SOURCES = sorted(ARGMAP.rglob("*.py"))


def _imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ARGMAP)))
def test_imports_follow_the_architecture(path: Path) -> None:
    for name in _imports(path):
        if name.split(".")[0] in OURS:
            assert name == "phi.core" or name.startswith(ALLOWED_OURS), (path, name)
            assert not name.startswith("fluid_compat"), (path, name)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ARGMAP)))
def test_nothing_reads_the_shared_folder(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    code = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    assert not any("../shared" in line or "'shared'" in line or '"shared"' in line
                   for line in code), path


def test_the_compat_table_is_package_data() -> None:
    assert (ARGMAP / "op_compat.yaml").is_file()
