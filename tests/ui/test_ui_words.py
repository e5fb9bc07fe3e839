"""The window speaks the reader's language: the system locale picks it when nothing was chosen, every rule
text a verdict can show reads in Chinese, the per-arm results table and the prior-only line are shown, and
Chinese has a font to be drawn in."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from advisor.decide.verdict import decide
from advisor.decide.verdict_json import verdict_from_json
from advisor.evidence.schema import Evidence
from advisor.report.model import build_report
from tests.advisor.decide.test_rules_cases import ALL_CASES, _flatten

CJK = re.compile(r"[\u4e00-\u9fff]")


class _Locale:
    def __init__(self, names: list[str]) -> None:
        self.names = names

    def uiLanguages(self) -> list[str]:
        return self.names


@pytest.mark.parametrize(("names", "lang"), [(["zh-Hans-CN", "en-US"], "zh"), (["de-DE"], "en"),
                                             (["zh-TW"], "zh"), ([], "en")])
def test_the_system_locale_is_the_default(qtbot, monkeypatch, names, lang) -> None:  # type: ignore[no-untyped-def]
    import ui.app
    from ui.strings import ZH, language

    monkeypatch.delenv("SPEC_ADVISOR_LANG")
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(ui.app.QLocale, "system", staticmethod(lambda: _Locale(names)))
    win = ui.app.build_window()
    qtbot.addWidget(win)
    assert language() == lang
    assert (win.nav["verdict"].text() == ZH["nav.verdict"]) == (lang == "zh")
    win.start_view.jobs.wait(20_000)


def test_a_saved_choice_beats_the_locale(qtbot, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import ui.app
    from ui import settings
    from ui.strings import language

    monkeypatch.delenv("SPEC_ADVISOR_LANG")
    monkeypatch.setattr(ui.app.QLocale, "system", staticmethod(lambda: _Locale(["zh-CN"])))
    settings.save_language("en")
    win = ui.app.build_window()
    qtbot.addWidget(win)
    assert language() == "en"
    monkeypatch.setenv("SPEC_ADVISOR_LANG", "zh")
    assert ui.app.system_language() == "zh"
    win.start_view.jobs.wait(20_000)


@pytest.mark.parametrize(("rule_id", "case"), ALL_CASES, ids=[f"{r}:{c['name']}" for r, c in ALL_CASES])
def test_every_rule_text_reads_in_chinese_in_the_window(qtbot, rule_id, case) -> None:  # type: ignore[no-untyped-def]
    from advisor.report.blocking_text import blocking_items, other_because
    from ui.run_folder import RunData
    from ui.strings import set_language
    from ui.verdict_view import VerdictView

    facts = _flatten(case.get("facts", {}))
    decided = decide(facts)
    report = build_report(None, facts, decided, run_id="case")
    verdict = report.verdict
    view = VerdictView()
    qtbot.addWidget(view)
    set_language("zh")
    view.show_run(RunData(Path("."), Evidence(), decided, facts), report)
    sections = (view.because, view.blocking, view.warnings, view.caveats, view.alternatives)
    shown = [label.text() for section in sections for label in section.labels]
    # the reasons the blocking list states (with their remedies) are not repeated under "why"
    expected = len(other_because(verdict, "zh")) + len(blocking_items(verdict, "zh")) + bool(verdict.assumptions)
    assert len(shown) == expected + len(verdict.warnings) + len(verdict.caveats) + len(verdict.alternatives)
    for line in shown:
        assert CJK.search(line), f"English left in the Chinese window: {line}"
    set_language("en")
    view.retranslate()
    assert [label.text() for label in view.because.labels] == [f"•  {b}" for b in other_because(verdict, "en")]


def test_results_table_and_prior_line(window, saved_run: Path) -> None:  # type: ignore[no-untyped-def]
    from ui.strings import set_language

    assert window.open_path(str(saved_run))
    view = window.verdict_view
    rows = view.results.cells()
    assert view.results.isVisibleTo(view) and rows, "no per-arm results table"
    assert [r[1] for r in rows] == ["all"] * len(rows)  # pooled rows first; kinds of task on request
    view.results.per_category.setChecked(True)
    rows = view.results.cells()
    assert {r[1] for r in rows} > {"all"}
    arms = {r[0] for r in rows}
    assert arms <= {"speculation off", "speculation on"} and "speculation off" in arms
    assert all(re.fullmatch(r"[\d.]+( ± [\d.]+)?|—", r[3]) for r in rows)
    set_language("zh")
    view.retranslate()
    assert {r[0] for r in view.results.cells()} <= {"关闭推测", "开启推测"}
    evidence = json.loads((saved_run / "evidence.json").read_text())
    assert evidence["steps"]["baseline"]["status"] == "done"

    prior = build_report(None, {"acceptance.rate": 0.4}, verdict_from_json(
        {"verdict": "INCONCLUSIVE", "predicted_speedup": 0.29, "prediction_is_prior": True}))
    view.report = prior
    view.retranslate()
    assert "0.29" not in view.speedup.text() and "0.29×" in view.typical.text() and view.typical.isVisibleTo(view)


def test_chinese_has_a_font(qtbot) -> None:  # type: ignore[no-untyped-def]
    from ui import fonts
    from ui.app import application

    families = fonts.ensure_cjk(application())
    if not families:
        pytest.skip("no font with Chinese glyphs here and none shipped (install fonts-noto-cjk)")
    system = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
    if system.is_file():  # the loader the frozen app uses reads the same file
        assert any("CJK" in f for f in fonts.load([system]))


def test_chart_legends_sit_outside_the_plot_area(window, saved_run: Path) -> None:  # type: ignore[no-untyped-def]
    from ui.charts.base import LiveChart

    window.open_path(str(saved_run))
    window.show_view("run")
    window.show()
    charts = [c for c in window.run_view.findChildren(LiveChart) if c.legend.isVisible() and c.legend.items]
    assert charts, "no chart with a legend"
    for chart in charts:
        chart.resize(320, 240)
        chart.getPlotItem().layout.activate()
        plot = chart.getPlotItem().getViewBox().sceneBoundingRect()
        legend = chart.legend.sceneBoundingRect()
        assert legend.height() > 0 and legend.top() >= plot.bottom(), type(chart).__name__
