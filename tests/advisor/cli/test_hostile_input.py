"""The hostile-input corpus (tests/hostile_cases.py) through the real CLI: every case exits 2 with one message
line on stderr and no traceback (broken pipes: a quiet exit), inside the driver's time and memory limits.

All cases run once, in one driver process that forks a child per case (tests/hostile_driver.py), so the
~220 cases cost a few minutes of CPU at most instead of an interpreter start each.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.hostile_cases import Case, corpus, judge, prepare
from tests.hostile_driver import run_corpus

CASES = corpus()


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    root: Path = tmp_path_factory.mktemp("hostile")
    jobs = [prepare(case, root) for case in CASES]
    return {r["id"]: r for r in run_corpus(jobs, timeout_s=1200)}


def test_corpus_covers_every_issue_item() -> None:
    origins = {c.origin.split()[0] for c in CASES}
    assert {"6", "7", "9", "10"} <= origins
    assert {"25.1", "25.2", "25.3", "25.4", "25.5"} <= origins  # issue 25's classes (tests/hostile_cases25.py)
    assert len(CASES) >= 200


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_hostile_input(case: Case, results: dict[str, dict[str, Any]]) -> None:
    result = results[case.id]
    assert judge(case, result) == "", result["stderr"][-1500:]
