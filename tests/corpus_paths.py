"""Where the test data lives: one place for every test package.

``CORPUS`` is ``../shared/corpus`` beside the checkout (files written by Paddle 2.6.2); it may be
absent, and tests that need it skip then.  ``FIXTURES`` (tests/fixtures) ships with the repo.
"""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"
SINGLE_OPS = CORPUS / "single_ops"
MODELS = CORPUS / "models"
FIXTURES = REPO / "tests" / "fixtures"
HAVE_CORPUS = SINGLE_OPS.is_dir() and MODELS.is_dir()

needs_corpus = pytest.mark.skipif(not HAVE_CORPUS, reason=f"corpus not found at {CORPUS}")
