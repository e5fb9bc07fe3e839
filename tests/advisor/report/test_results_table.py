"""The per-arm results table: what each arm measured, computed from the request records (no Qt)."""

from __future__ import annotations

import statistics

import numpy as np

from advisor.evidence.schema import Evidence, StepRecord
from advisor.evidence.steps import ABEvidence, BaselineEvidence, RequestRecord
from advisor.report.results import localized, results_table


def _rec(arm: str, category: str, tok_s: float, ttft: float, drafted: int | None = None,
         accepted: int | None = None) -> RequestRecord:
    return RequestRecord(prompt_id=f"{arm}-{category}-{tok_s}", category=category, arm=arm, completion_tokens=64,
                         decode_ms=63 * 1000 / tok_s, ms_per_token=1000 / tok_s, tok_s=tok_s, prompt_tokens=20,
                         cached_tokens=0, prompt_ms=5.0, ttft_ms=ttft, total_ms=ttft + 63 * 1000 / tok_s,
                         draft_tokens=drafted, draft_accepted=accepted, stop_reason="length", output_digest="x",
                         repetition_loop=False)


def _evidence(ab: ABEvidence | None, base: BaselineEvidence | None = None) -> Evidence:
    steps = {}
    if base is not None:
        steps["baseline"] = StepRecord("done", evidence=base)
    if ab is not None:
        steps["ab"] = StepRecord("done", evidence=ab)
    return Evidence(steps=steps)


def test_ab_records_make_the_table() -> None:
    off = [_rec("off", "code", v, t) for v, t in ((10.0, 100.0), (12.0, 120.0), (14.0, 140.0))]
    on = [_rec("on", "code", 20.0, 90.0, 30, 15), _rec("on", "chat", 30.0, 80.0, 10, 9)]
    table = results_table(_evidence(ABEvidence(decision="ENABLE", samples=(*off, *on))))
    assert table is not None and table.source == "ab"
    rows = {(r.arm, r.category): r for r in table.rows}
    pooled_off = rows[("off", "")]
    assert pooled_off.n == 3 and pooled_off.tok_s_mean == 12.0
    assert pooled_off.tok_s_sd is not None and abs(pooled_off.tok_s_sd - statistics.stdev([10.0, 12.0, 14.0])) < 1e-12
    assert pooled_off.ttft_p50_ms == 120.0 and pooled_off.ttft_p99_ms == float(np.percentile([100, 120, 140], 99))
    assert pooled_off.acceptance is None and ("off", "code") not in rows  # one category: no breakdown
    assert rows[("on", "")].acceptance == 24 / 40 and rows[("on", "chat")].acceptance == 0.9
    assert rows[("on", "chat")].tok_s_sd is None  # one request has no spread
    header, cells, note = localized(table, "en")
    assert header[3] == "Decode tok/s (mean ± sd)" and cells[0][:4] == ["speculation off", "all", "3", "12.0 ± 2.0"]
    assert "paired A/B" in note


def test_without_an_ab_the_steps_stand_in() -> None:
    base = BaselineEvidence(samples=(_rec("off", "code", 8.0, 200.0),))
    table = results_table(_evidence(None, base))
    assert table is not None and table.source == "steps" and [r.arm for r in table.rows] == ["off"]
    assert results_table(_evidence(None)) is None and results_table(None) is None
    assert localized(None, "zh") == ([], [], "")
