"""The benchmark table writer turns a fake result dict into valid markdown and strict JSON (no timings)."""

from __future__ import annotations

import json
from pathlib import Path

from bench import report
from bench.peer import server_eval_lines


def _fake() -> tuple[dict[str, object], dict[str, object]]:
    results: dict[str, object] = {g.key: 0.5 for g in report.GOALS}
    results["gui_max_stall_ms"] = None
    results["gui_max_stall_ms_note"] = "not measured: a | pipe\nand a newline"
    results["power_at_1_10x"] = float("nan")
    results["extra_detail"] = {"nested": [1.0, float("inf")]}
    meta: dict[str, object] = {"date": "2026-01-01 00:00", "machine": {"cpu_model": "Test CPU", "cores_logical": 2},
                               "command": ".venv/bin/python -m bench.run_all", "skip_slow": False,
                               "gpu_section": "No GPU.", "seconds": 1.0}
    return results, meta


def test_writes_one_table_row_per_goal_with_status(tmp_path: Path) -> None:
    results, meta = _fake()
    md_path, _ = report.write(results, meta, tmp_path)
    md = md_path.read_text()
    rows = [line for line in md.splitlines() if line.startswith("| `")]
    assert len(rows) == len(report.GOALS)
    header_cols = md.splitlines()[md.splitlines().index("|---|---|---|---|---|---|---|") - 1].count("|")
    assert all(r.count("|") - r.count("\\|") == header_cols for r in rows)  # escaped pipes keep the columns
    assert "| 0.5 | met |" in md and "| 0.5 | missed |" in md and "not measured" in md
    assert "Test CPU" in md and "No GPU." in md


def test_json_is_strict_and_has_every_key_or_a_note(tmp_path: Path) -> None:
    results, meta = _fake()
    _, js_path = report.write(results, meta, tmp_path)
    data = json.loads(js_path.read_text(), parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
    for g in report.GOALS:
        assert g.key in data
        assert data[g.key] is not None or data[f"{g.key}_note"]
    assert data["power_at_1_10x"] is None and data["gui_max_stall_ms_status"] == "not measured"
    assert data["details"]["extra_detail"]["nested"] == [1.0, None]


def test_goal_status_follows_the_direction() -> None:
    goals = {g.key: g for g in report.GOALS}
    assert goals["power_at_1_10x"].status(0.95) == "met"
    assert goals["power_at_1_10x"].status(0.80) == "missed"
    assert goals["probe_cold_s"].status(2.5) == "missed"
    assert goals["mbu_demo_engine"].status(0.3) == "reported"


def test_server_log_parser_reads_decode_lines_only() -> None:
    log = ("prompt eval time =      10.00 ms /     5 tokens (    2.00 ms per token,   500.00 tokens per second)\n"
           "       eval time =    1000.00 ms /   100 tokens (   10.00 ms per token,   100.00 tokens per second)\n")
    assert server_eval_lines(log) == [(100, 100.0)]


def test_reliability_section_lists_the_hostile_corpus_figures(tmp_path: Path) -> None:
    results, meta = _fake()
    results.update(hostile_cases_tried=221, hostile_cases_passing=220, hostile_cases_passing_note="failing: x")
    md_path, js_path = report.write(results, meta, tmp_path)
    md = md_path.read_text()
    section = md[md.index("## Reliability"):]
    assert "`hostile_cases_tried` = 221" in section and "`hostile_cases_passing` = 220" in section
    assert "failing: x" in section
    data = json.loads(js_path.read_text())
    assert data["hostile_cases_tried"] == 221 and "hostile_cases_tried" not in data["details"]
    del results["hostile_cases_tried"]
    assert "`hostile_cases_tried` = null" in report.render_markdown(results, meta)


def test_the_arms_figures_are_goals_and_a_missing_toggle_is_null_with_its_counts() -> None:
    from bench import arms

    goals = {g.key: g for g in report.GOALS}
    assert set(arms.KEYS) <= set(goals)
    assert goals[arms.DIFF].status(0.02) == "met" and goals[arms.DIFF].status(0.05) == "missed"
    assert goals[arms.LOAD].status(0.4) == "reported"
    still_drafting = {"http_status": 200, "draft_n": 35, "draft_n_accepted": 35, "predicted_n": 48}
    figures = arms._idle_figures({"toggle_works": False, "requests": {"speculative.n_max=0": still_drafting}})
    assert figures[arms.IDLE] is None and "draft_n 35" in figures[f"{arms.IDLE}_note"]
    assert "zero by construction" in figures[f"{arms.IDLE}_note"]


def test_the_ram_bandwidth_stage_runs_fresh_probes_and_reports_their_spread() -> None:
    from bench import ram_bandwidth, run_all

    out = ram_bandwidth.measure(probes=2)  # a smoke test: the figure itself comes from 10 probes on a quiet machine
    cv, probes = out[ram_bandwidth.KEY], out["ram_bandwidth_probes"]
    assert len(probes) == 2 and all(p["gbs"] > 0 and p["repeats"] >= 5 and p["cv"] is not None for p in probes)
    figures = [p["gbs"] for p in probes]
    assert cv == round(abs(figures[0] - figures[1]) / 2 ** 0.5 / (sum(figures) / 2), 4)
    assert "2 fresh probes" in out[f"{ram_bandwidth.KEY}_note"]
    goals = {g.key: g for g in report.GOALS}
    assert goals[ram_bandwidth.KEY].status(0.05) == "met" and goals[ram_bandwidth.KEY].status(0.2) == "missed"
    assert "ram_bandwidth" in run_all.STAGES
    assert ram_bandwidth.summarise([probes[0]])[ram_bandwidth.KEY] is None  # one probe has no spread
