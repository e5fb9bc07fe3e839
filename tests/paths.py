"""Where the tests find things, from any folder under tests/: the tests' own root, the repository, the fixtures."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
FIXTURES = TESTS / "fixtures"
