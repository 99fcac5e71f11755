"""The docs name only what exists: every file path, `FLAGS_` name, `fluid-compat` subcommand and
relative link (with its anchor) cited in README.md and docs/*.md is checked against the tree.

Paths with placeholders (``<op>``, ``*``, ``{a,b}``, ``$VAR``, ``~``) and paths outside the
repository (``../shared/...``, URLs) are not checked.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
PACKAGES = ("phi", "fluid_compat", "argmap", "opmakers", "benchmarks", "tools")

_TICKED = re.compile(r"`([^`\n]+)`")
_PATH = re.compile(r"^[A-Za-z0-9_.][A-Za-z0-9_./-]*$")
_SUFFIXES = (".py", ".md", ".json", ".yaml", ".yml", ".npz", ".npy", ".sh", ".txt", ".toml",
             ".proto", ".pdmodel")
_FLAG = re.compile(r"\bFLAGS_[a-z0-9_]*[a-z0-9]\b")
_COMMAND = re.compile(r"\bfluid-compat ([a-z][a-z-]*)")
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _doc_id(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _paths(text: str) -> set[str]:
    found = set()
    for tick in _TICKED.findall(text):
        for word in tick.split():
            word = word.lstrip("(").rstrip(".,;:)")
            if not _PATH.match(word) or word.startswith(("..", "/", ".venv")) or "://" in word:
                continue
            if any(part.isupper() for part in re.split(r"[/.]", word)):
                continue  # a placeholder: MODEL, CASE.json
            if word.endswith("/") and word.count("/") == 1:
                continue  # a sub-package named inside its package's description
            if "/" in word and (word.endswith("/") or word.endswith(_SUFFIXES)):
                found.add(word)
            elif word.endswith(".md") and "/" not in word:
                found.add(f"docs/{word}")
    return found


def _slug(heading: str) -> str:
    text = heading.strip().lower()
    text = re.sub(r"[`*]", "", text)
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    return {_slug(line.lstrip("#")) for line in path.read_text(encoding="utf-8").splitlines()
            if line.startswith("#")}


def _code_text() -> str:
    parts = []
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts.append(path.read_text(encoding="utf-8"))
    return "\n".join(parts)


@pytest.mark.parametrize("doc", DOCS, ids=_doc_id)
def test_cited_paths_exist(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    missing = sorted(p for p in _paths(text) if not (ROOT / p).exists())
    assert not missing, f"{_doc_id(doc)} cites paths that do not exist: {missing}"


def test_cited_flags_exist() -> None:
    code = _code_text()
    missing = {}
    for doc in DOCS:
        for flag in set(_FLAG.findall(doc.read_text(encoding="utf-8"))):
            if flag not in code:
                missing.setdefault(flag, []).append(_doc_id(doc))
    assert not missing, f"flags named in the docs but defined nowhere: {missing}"


def test_cited_commands_exist() -> None:
    from fluid_compat.cli import _COMMANDS

    missing = {}
    for doc in DOCS:
        for command in set(_COMMAND.findall(doc.read_text(encoding="utf-8"))):
            if command not in _COMMANDS:
                missing.setdefault(command, []).append(_doc_id(doc))
    assert not missing, f"fluid-compat subcommands named in the docs that do not exist: {missing}"


@pytest.mark.parametrize("doc", DOCS, ids=_doc_id)
def test_relative_links_resolve(doc: Path) -> None:
    bad = []
    for target in _LINK.findall(doc.read_text(encoding="utf-8")):
        if "://" in target or target.startswith("mailto:"):
            continue
        file, _, anchor = target.partition("#")
        path = (doc.parent / file) if file else doc
        if not path.exists() or (anchor and path.suffix == ".md"
                                 and anchor not in _anchors(path)):
            bad.append(target)
    assert not bad, f"{_doc_id(doc)} links to missing files or anchors: {bad}"


def test_no_development_log() -> None:
    assert not (ROOT / "docs" / "design.md").exists()
    words = re.compile(r"(helper `[a-z0-9_]+`|\bhelper [a-z]+[0-9]+\b|\bbranch [a-z]+[0-9]+\b|"
                       r"\bissue \d+|\b[a-z]+th session\b)")
    found = {_doc_id(d): words.findall(d.read_text(encoding="utf-8")) for d in DOCS}
    assert not {k: v for k, v in found.items() if v}, found
