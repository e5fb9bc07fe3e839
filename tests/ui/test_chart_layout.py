"""The measurements view fits a 1440 × 900 window: four columns of charts, nothing scrolled sideways, and
each chart's axes inside the chart (a long legend label or title no longer widens the plot)."""

from __future__ import annotations

from ui import theme
from ui.charts.base import LiveChart


def test_the_run_view_fits_1440_by_900(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window.show()
    window.show_view("run")
    qtbot.waitUntil(lambda: not window.run_view.charts.settling, timeout=10_000)
    assert window.minimumSizeHint().width() <= 1440
    panel = window.run_view.charts
    assert not panel.horizontalScrollBar().isVisible() and not panel.verticalScrollBar().isVisible()
    for chart in panel.charts:
        plot = chart.getPlotItem()
        assert plot.sceneBoundingRect().width() <= chart.width() + 2, type(chart).__name__  # sub-pixel


def test_long_legend_labels_go_one_a_line(qtbot) -> None:  # type: ignore[no-untyped-def]
    short, long = LiveChart("chart.ab", "axis.pair", "axis.speedup"), LiveChart("chart.ab", "axis.pair", "")
    for chart in (short, long):
        qtbot.addWidget(chart)
    short.add_series("a", "series.pair", theme.BLUE)
    short.add_series("b", "series.ci", theme.SKY)
    long.add_series("a", "series.pair", theme.BLUE)
    long.add_series("b", "series.roofline", theme.GREY)  # "roofline (bandwidth limit)"
    assert short.legend.columnCount == 2
    assert long.legend.columnCount == 1


def test_run_warnings_follow_a_language_switch(window) -> None:  # type: ignore[no-untyped-def]
    from advisor.events import QualityWarning
    from advisor.evidence.warnings import WarningCode
    from advisor.text.message import msg
    from ui.strings import set_language

    message = msg("warn.noisy_repeats", cv=43.0)
    window.run_view.handle(QualityWarning(step="baseline", code=WarningCode.NOISY, message=message))
    assert window.run_view.warnings.item(0).text() == "⚠ decode speed of the same prompt varied by 43% between repeats"
    set_language("zh")
    window.run_view.retranslate()
    assert window.run_view.warnings.item(0).text() == "⚠ 同一提示词重复运行之间的解码速度波动了 43%"


def test_chart_results_with_words_follow_a_language_switch(qtbot) -> None:  # type: ignore[no-untyped-def]
    from advisor.evidence.steps import BaselineEvidence
    from advisor.evidence.tuner import TuneEvidence, TunerChoice
    from ui.charts.decode import DecodeChart
    from ui.charts.tuner import TunerChart
    from ui.strings import set_language

    decode, curve = DecodeChart(), TunerChart()
    for chart in (decode, curve):
        qtbot.addWidget(chart)
    decode.on_done("baseline", BaselineEvidence(mbu=0.09, bottleneck="overhead"))
    curve.on_done("tune", TuneEvidence(choice=TunerChoice(method="ngram-mod", k=2, argv=(), predicted_speedup=1.05)))
    assert decode._suffix == "MBU 9% · overhead-bound" and curve._suffix == "ngram-mod, k = 2: 1.05× predicted"
    set_language("zh")
    for chart in (decode, curve):
        chart.retranslate()
    assert decode._suffix == "MBU 9% · 受限于固定开销" and curve._suffix == "ngram-mod，k = 2：预测 1.05×"
