"""The calibration benchmark: reads data only from the env/shared path, skips clearly without it, and scores
synthetic cases whose answers are known (the published figures are measured by the benchmark, not here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import calibration, report
from bench.calibration_data import DATA_ENV, nearest_rank


def test_without_data_every_figure_is_null_with_the_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "absent.json"))
    out = calibration.measure()
    for key in calibration.KEYS:
        assert out[key] is None and DATA_ENV in out[f"{key}_note"]


def _row(case_id: str, facts: dict[str, object], speedup: float | None) -> dict[str, object]:
    outcome = None if speedup is None else "faster" if speedup >= 1.05 else "slower" if speedup <= 0.97 else None
    return {"case": {"id": case_id, "source": f"src-{case_id}", "notes": "synthetic", "estimated_fields": []},
            "facts": facts, "speedup": speedup, "outcome": outcome}


def test_scores_through_decide_facts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gain = {"acceptance.rate": 0.8, "spec.draft_max": 4, "spec.method": "eagle3", "gpu.name": "RTX 4090",
            "model.active_params_b": 8.0, "model.total_params_b": 8.0, "model.moe": False}
    loss = {"acceptance.mean_length": 1.05, "spec.draft_max": 8, "spec.method": "draft"}
    rows = [_row("gain", gain, 2.0), _row("loss", loss, 0.5), _row("no-acc", {"spec.method": "mtp"}, 1.5),
            _row("close", gain, 1.0)]
    path = tmp_path / "cal.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    monkeypatch.setenv(DATA_ENV, str(path))
    out = calibration.measure()
    summ = out["calibration_summary"]
    assert summ["cases"] == 4 and summ["predicted"] == 3 and summ["no_prediction_no_acceptance"] == 1
    assert summ["direction_cases"] == 2  # "close" (1.0×) is not a clear outcome
    assert out["calibration_direction_accuracy"] == 1.0
    assert out["calibration_false_skip"] == 0 and summ["true_skip"] == 1  # the far-below-1 loss is a SKIP
    assert out["calibration_median_rel_err"] is not None and out["calibration_p90_rel_err"] is not None
    worst_ids = [w["id"] for w in out["calibration_worst"]]
    assert set(worst_ids) == {"gain", "loss", "close"} and all(w["reasons"] for w in out["calibration_worst"])
    loso = out["calibration_leave_one_source_out"]  # each source predicted by constants fitted without it
    assert loso["cases"] == 3 and loso["direction_cases"] == 2 and "left one source out" in \
        out["calibration_median_rel_err_note"]
    goals = {g.key for g in report.GOALS}
    assert set(calibration.KEYS) <= goals


def test_nearest_rank_is_one_of_the_values() -> None:
    assert nearest_rank([0.3, 0.1, 0.2], 0.5) == 0.2
    assert nearest_rank(list(range(1, 11)), 0.9) == 9
