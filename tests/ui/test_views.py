"""Views from a saved run (no engine): verdict, charts replay, export, history compare, language switch."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from ui.history_view import HistoryView
from ui.run_folder import load_run


def test_verdict_view_renders_a_saved_run(window, saved_run: Path) -> None:  # type: ignore[no-untyped-def]
    verdict = json.loads((saved_run / "verdict.json").read_text())
    assert window.open_path(str(saved_run))
    view = window.verdict_view
    assert window.current_view() == "verdict"
    assert view.word.text() == verdict["verdict"]
    assert view.glyph.text() in ("✔", "✖", "?")  # colour is never the only signal
    assert view.notes.isVisibleTo(view) and "Demo" in view.notes.text()
    assert view.because.labels and view.because.labels[0].text().endswith(verdict["because"][0])
    assert view.trace.topLevelItemCount() == len({row["rule"] for row in verdict["trace"]})
    first = view.trace.topLevelItem(0)
    assert first is not None and first.childCount() > 0
    # the perf model's prediction for the measured setup, beside the A/B (none finished in this run)
    evidence = json.loads((saved_run / "evidence.json").read_text())
    predicted = f"{evidence['reconciliation']['predicted_speedup']:.2f}×"
    assert view.model.isVisibleTo(view) and predicted in view.model.labels[0].text()


def test_saved_run_replays_into_the_charts(window, saved_run: Path) -> None:  # type: ignore[no-untyped-def]
    window.open_path(str(saved_run))
    charts = window.run_view.charts
    assert len(charts.decode.rings["decode"]) > 0
    assert charts.categories.categories
    assert window.run_view.steps.states()["ab"] in ("done", "aborted")


def test_flags_copy_to_clipboard(window, saved_run: Path) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtGui import QGuiApplication

    window.open_path(str(saved_run))
    flags = window.verdict_view.flags
    if flags.command:
        flags.copy.click()
        assert QGuiApplication.clipboard().text() == flags.command


def test_export_writes_all_three_formats(window, saved_run: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window.open_path(str(saved_run))
    bar = window.verdict_view.exports
    for fmt in ("html", "md", "json"):
        target = tmp_path / f"report.{fmt}"
        assert bar.save(fmt, target)  # type: ignore[arg-type]
        assert target.stat().st_size > 200
    assert json.loads((tmp_path / "report.json").read_text())["verdict"]["verdict"] in (
        "ENABLE", "SKIP", "INCONCLUSIVE")
    assert not bar.save("md", tmp_path / "no-such-dir" / "x" / "r.md") or True  # errors become text
    assert bar.result.text()
    # the run's own evidence is never the export's target (advisor/owned.py): refused as text, file untouched
    before = (saved_run / "evidence.json").read_bytes()
    assert not bar.save("json", saved_run / "evidence.json")  # type: ignore[arg-type]
    assert "will not write" in bar.result.text() or "不会写入" in bar.result.text()
    assert (saved_run / "evidence.json").read_bytes() == before


def test_chinese_verdict(window, saved_run: Path) -> None:  # type: ignore[no-untyped-def]
    window.open_path(str(saved_run))
    window.set_language("zh")
    assert window.nav["history"].text() == "历史"
    assert window.verdict_view.word.text() in ("建议开启", "保持关闭", "暂无定论")
    window.set_language("en")
    assert window.nav["history"].text() == "History"


def test_prompt_picker_names_the_number_of_bundled_categories(window) -> None:  # type: ignore[no-untyped-def]
    from advisor.workloads import CATEGORIES

    prompts = window.start_view.form.prompts
    assert prompts.itemText(0) == f"Bundled library ({len(CATEGORIES)} task categories)"
    window.set_language("zh")
    assert prompts.itemText(0) == f"内置提示词库（{len(CATEGORIES)} 类任务）"
    window.set_language("en")


def test_history_lists_and_compares_two_runs(qtbot, saved_run: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    for name, created in (("run-a", "2026-01-01T10:00:00+00:00"), ("run-b", "2026-01-02T10:00:00+00:00")):
        shutil.copytree(saved_run, tmp_path / name)
        evidence = json.loads((tmp_path / name / "evidence.json").read_text())
        evidence["created_utc"] = created
        if name == "run-b":  # a slower baseline the comparison must flag
            evidence["steps"]["baseline"]["evidence"]["decode_tok_s"] *= 0.5
            verdict = json.loads((tmp_path / name / "verdict.json").read_text())
            verdict["facts"]["baseline.decode_tok_s"] *= 0.5
            (tmp_path / name / "verdict.json").write_text(json.dumps(verdict))
        (tmp_path / name / "evidence.json").write_text(json.dumps(evidence))
    view = HistoryView(root=tmp_path)
    qtbot.addWidget(view)
    view.refresh()
    assert view.table.rowCount() == 2
    assert view.table.item(0, 0).text().startswith("2026-01-02")
    view.table.selectRow(0)
    view.table.selectRow(1)
    text = view.compare_selected()
    assert "run-a" in text and "run-b" in text and "tok/s" in text
    opened = []
    view.open_run.connect(opened.append)
    view.table.clearSelection()
    view.table.selectRow(1)
    view.open_button.click()
    assert opened and opened[0].run_dir.name == "run-a"
    assert load_run(tmp_path / "run-a").is_demo


def test_verdict_view_lists_every_withholding_reason(window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from advisor.decide.verdict import verdict_to_json
    from advisor.evidence.codec import encode
    from tests.advisor.decide.test_decide_blocking import _failing_run, _verdict_of

    run = _failing_run(gpu=False)
    verdict = _verdict_of(run)
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "evidence.json").write_text(json.dumps(encode(run)), encoding="utf-8")
    (folder / "verdict.json").write_text(json.dumps(encode(verdict_to_json(verdict))), encoding="utf-8")
    assert window.open_path(str(folder))
    view = window.verdict_view
    shown = [label.text() for label in view.blocking.labels]
    assert len(shown) == 3 and view.blocking.isVisibleTo(view)
    for line, item in zip(shown, verdict.blocking, strict=True):
        assert item.reason in line and item.remedy in line
    # the one headline the CLI and the report show: the measured A/B, named so
    assert view.speedup.text().startswith("Measured speedup 1.53×")
    # nothing confirmed: the measured settings to try, copyable, under that label
    assert view.flags.title.text() == "Measured, not confirmed — try" and view.flags.copy.isEnabled()
    assert verdict.try_flags is not None and view.flags.command == verdict.try_flags.command
    window.set_language("zh")
    assert verdict.blocking[0].remedy_zh in view.blocking.labels[0].text()
    assert view.flags.title.text() == "已测量、未确认——可以试试"
    window.set_language("en")
