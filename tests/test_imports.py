"""Import direction (architecture.md): phi <- argmap <- fluid_compat; opmakers is plain data.

Walks every module's imports with ``ast`` — including imports inside functions — so that a lazy
import cannot hide an upward dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OURS = ("phi", "argmap", "opmakers", "fluid_compat")
ALLOWED = {
    "phi": {"phi"},
    # opmakers may raise the shared typed errors and define records (leaf modules importing
    # nothing of ours); nothing else of ours
    "opmakers": {"opmakers", "phi.core.errors", "phi.core.records"},
    # argmap reads phi's types and kernel table only (never the API, kernels or transforms)
    "argmap": {"argmap", "phi.common", "phi.core", "opmakers"},
    "fluid_compat": {"fluid_compat", "phi", "argmap", "opmakers"},
}


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def _allowed(package: str, module: str) -> bool:
    return any(module == a or module.startswith(a + ".") for a in ALLOWED[package])


@pytest.mark.parametrize("package", OURS)
def test_imports_point_one_way(package):
    bad = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for line, module in _imports(path):
            top = module.split(".")[0]
            if top in OURS and not _allowed(package, module):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert not bad, "upward or sideways imports:\n" + "\n".join(bad)


def test_nothing_reads_shared_at_run_time():
    bad = []
    for package in OURS:
        for path in (ROOT / package).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            if "shared/corpus" in text or "../shared" in text:
                bad.append(str(path.relative_to(ROOT)))
    assert not bad, f"package files referring to ../shared: {bad}"


@pytest.mark.parametrize("leaf", ["phi/core/errors.py", "phi/core/records.py"])
def test_the_leaf_modules_opmakers_imports_import_nothing_of_ours(leaf):
    assert [m for _, m in _imports(ROOT / leaf) if m.split(".")[0] in OURS] == []
