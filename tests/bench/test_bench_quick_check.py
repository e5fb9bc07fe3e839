"""bench/quick_check.py's figures from its runs (the checks themselves are real; here their results are given):
decided by the A/B alone and under a CPU hog, and the near-tie share of the divergences (issue 24)."""

from __future__ import annotations

from typing import Any

import pytest

from bench import quick_check


def _run(decided_by: str, counts: dict[str, int]) -> dict[str, Any]:
    return {"check_verdict": "INCONCLUSIVE", "decided_by": decided_by, "check_status": "complete",
            quick_check.WALL: 100.0, f"{quick_check.WALL}_note": "exit 0", "divergence_counts": counts}


def test_figures_alone_and_under_load(monkeypatch: pytest.MonkeyPatch) -> None:
    runs = iter([_run("ab-outcome/inconclusive", {"numerics": 3}), _run("ab-outcome/skip", {}),
                 _run("ab-outcome/inconclusive", {"numerics": 1, "unknown": 1}),
                 _run("ab-outcome/inconclusive", {}), _run("measurement-validity/drift", {"numerics": 2}),
                 _run("ab-outcome/skip", {"lossy": 1})])
    hog: list[float] = []

    class _Hog:
        def __init__(self, limit_s: float) -> None:
            hog.append(limit_s)

        def __enter__(self) -> None:
            return None

        def __exit__(self, *exc: object) -> None:
            hog.append(-1.0)

    monkeypatch.setattr(quick_check, "measure_once", lambda timeout_s, keep: next(runs))
    monkeypatch.setattr(quick_check, "cpu_hog", _Hog)
    out = quick_check.measure(300.0, runs=3, load="both")
    assert out[quick_check.FROM_AB] == 3 and out[quick_check.FROM_AB_LOADED] == 2
    assert hog[0] >= 900.0 and hog[-1] == -1.0  # bounded by the runs' time, and stopped after them
    assert out[quick_check.NEAR_TIE] == pytest.approx(6 / 8)
    assert "measurement-validity/drift" in out[f"{quick_check.FROM_AB_LOADED}_note"]
