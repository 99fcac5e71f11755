"""Helpers of the fluid_compat.framework tests: where the corpus and the local copies are.

The corpus (``<repo>/../shared/corpus``) holds files written by Paddle 2.6.2; tests that need it
skip when it is absent.  ``data/`` holds copies of the smallest model (``mlp``) and of two
single-op ``program_desc`` byte strings, so that the core round trips run anywhere.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tests.corpus_paths import CORPUS

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
DATA = HERE / "data"
HAVE_CORPUS = (CORPUS / "models").is_dir() and (CORPUS / "single_ops").is_dir()

needs_corpus = pytest.mark.skipif(not HAVE_CORPUS, reason=f"corpus not found at {CORPUS}")

LOCAL_MODEL = DATA / "mlp"


def corpus_models() -> list[Path]:
    """Model directories of the corpus (empty when it is absent)."""
    if not HAVE_CORPUS:
        return []
    return sorted(p for p in (CORPUS / "models").iterdir() if (p / "inference.pdmodel").is_file())


def corpus_cases() -> list[Path]:
    """``.npz`` files of the single-op cases (empty when the corpus is absent)."""
    if not HAVE_CORPUS:
        return []
    return sorted((CORPUS / "single_ops").glob("*.npz"))


def case_program_bytes(npz: Path) -> bytes:
    """The serialized one-op ProgramDesc a single-op case carries."""
    with np.load(npz) as z:
        return z["program_desc"].tobytes()


def ids(paths: list[Path]) -> list[str]:
    return [p.stem if p.suffix else p.name for p in paths]
