"""Nothing clipped or overlapping at 1440 × 900, in English and in Chinese, with a saved real run open (the demo
quick check on a 2-core machine without a GPU): the measurement view's charts and labels fit their parents,
every chart draws something or says in one line why it has nothing, and the verdict view's table headers show
their whole words. Geometry checks, not pixels."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QRect, QRectF
from PySide6.QtWidgets import QGraphicsTextItem, QHeaderView, QLabel, QTableWidget, QTreeWidget, QWidget

from tests.ui.conftest import FIXTURE_RUNS
from ui.charts.base import LiveChart

SLACK = 2  # px: sub-pixel rounding of scene items


def _in(parent: QWidget, widget: QWidget) -> QRect:
    """`widget`'s rectangle in `parent`'s coordinates."""
    return QRect(widget.mapTo(parent, widget.rect().topLeft()), widget.size())


def _label_problems(root: QWidget) -> list[str]:
    """Visible labels whose text does not fit them, or that stick out of their parent."""
    out = []
    for label in root.findChildren(QLabel):
        if not label.isVisibleTo(root) or not label.text():
            continue
        name = f"{type(label.parentWidget()).__name__}: {label.text()[:60]!r}"
        if label.wordWrap():
            needed = label.heightForWidth(label.width())
            if needed > label.height() + SLACK:
                out.append(f"{name} needs {needed} px high, has {label.height()}")
        elif label.minimumSizeHint().width() > label.width() + SLACK:
            out.append(f"{name} needs {label.minimumSizeHint().width()} px wide, has {label.width()}")
        parent = label.parentWidget()
        if parent is not None and not parent.rect().adjusted(-SLACK, -SLACK, SLACK, SLACK).contains(label.geometry()):
            out.append(f"{name} sticks out of its parent ({label.geometry()} in {parent.rect()})")
    return out


def _ink(item: QGraphicsTextItem) -> QRectF:
    """Where a text item's letters are drawn, in scene coordinates: its bounding rectangle less the document's
    blank margin (4 px around the text by default)."""
    m = item.document().documentMargin()
    return item.sceneBoundingRect().adjusted(m, m, -m, -m)


def _chart_problems(chart: LiveChart) -> list[str]:
    """A chart's plot, title, legend and axes inside the chart; an empty chart's card covering it."""
    name = type(chart).__name__
    bounds = QRectF(chart.rect()).adjusted(-SLACK, -SLACK, SLACK, SLACK)
    if chart.reason:
        card = chart.empty
        problems = [] if card.geometry() == chart.rect() else [f"{name}: the empty card does not cover the chart"]
        return problems + _label_problems(card)
    plot = chart.getPlotItem()
    parts = {"plot": plot.sceneBoundingRect(), "title": _ink(plot.titleLabel.item),
             **{f"{side} axis": plot.getAxis(side).sceneBoundingRect() for side in ("left", "bottom")},
             **{f"{side} axis label": _ink(plot.getAxis(side).label) for side in ("left", "bottom")
                if plot.getAxis(side).labelText}}
    if chart.legend.isVisible():
        parts["legend"] = chart.legend.sceneBoundingRect()
        parts.update({f"legend entry {label.text!r}": _ink(label.item) for _, label in chart.legend.items})
    return [f"{name}: {part} {rect} outside {bounds}" for part, rect in parts.items()
            if rect.width() and not bounds.contains(rect)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_measurement_view_fits_1440_by_900(window, qtbot, saved_run: Path, lang: str) -> None:  # type: ignore[no-untyped-def]
    window.set_language(lang)
    window.show()
    assert window.open_path(str(saved_run))
    window.show_view("run")
    panel = window.run_view.charts
    qtbot.waitUntil(lambda: not panel.settling, timeout=10_000)
    qtbot.wait(50)  # the layout's last pass after the charts were revealed
    assert (window.width(), window.height()) == (1440, 900)
    assert not panel.horizontalScrollBar().isVisible() and not panel.verticalScrollBar().isVisible()
    body = panel.widget()
    rects = [_in(body, chart) for chart in panel.charts]
    for i, rect in enumerate(rects):
        assert body.rect().contains(rect), type(panel.charts[i]).__name__
        for j in range(i):
            assert not rect.intersects(rects[j]), (type(panel.charts[i]).__name__, type(panel.charts[j]).__name__)
    problems = [p for chart in panel.charts for p in _chart_problems(chart)]
    problems += _label_problems(window.run_view)
    assert not problems, "\n".join(problems)
    # no empty 0–1 chart: each chart draws its step or says why it has nothing
    silent = [type(c).__name__ for c in panel.charts if not c.has_data() and not c.reason]
    assert not silent
    from ui.strings import tr

    assert panel.telemetry.reason == tr("chart.empty.no_gpu_saved")  # this run's machine had no GPU
    assert panel.tuner.reason == panel.surface.reason == tr("chart.empty.not_chosen")
    # every kind of task the acceptance step drew prompts for has its row, a bar or not (one had drafts)
    from ui.run_folder import load_run

    acceptance = load_run(saved_run).evidence.acceptance
    assert acceptance is not None and panel.categories.categories == list(acceptance.per_category)
    low, high = panel.categories.getPlotItem().getViewBox().viewRange()[1]
    assert low <= 0 and high >= len(acceptance.per_category) - 1  # all rows in view, not only the one with a bar
    assert panel.positions.reason == tr("chart.empty.none_accepted")  # 0 at every position: said, not blank axes
    assert panel.ab.has_data() and not panel.ab.reason


def test_the_tuner_axis_shows_the_chosen_k(qtbot) -> None:  # type: ignore[no-untyped-def]
    from advisor.evidence.steps import ABEvidence
    from advisor.evidence.tuner import KSpeedup, MethodProbe, TuneEvidence, TunerChoice
    from ui.charts.tuner import TunerChart

    chart = TunerChart()
    qtbot.addWidget(chart)
    chart.resize(270, 230)
    chart.show()
    curve = tuple(KSpeedup(k, 1.0 + k / 10) for k in (1, 2, 3, 4))
    probe = MethodProbe(method="ngram-map-k", k_max=4, curve=curve, n_match=12, p_min=0.75)
    argv = ("--spec-type", "ngram-map-k", "--draft-max", "8")
    choice = TunerChoice(method="ngram-map-k", k=8, argv=argv, predicted_speedup=2.51, applied=True, n_match=12,
                         p_min=0.75)
    chart.on_done("tune", TuneEvidence(methods=(probe,), choice=choice))
    chart.on_done("ab", ABEvidence(decision="INCONCLUSIVE", speedup=1.53, on_argv=argv))
    chart.refresh()
    chart.fit_x()
    low, high = chart.getPlotItem().getViewBox().viewRange()[0]
    assert low <= 1 - 0.4 and high >= 8 + 0.4  # the curve and the chosen k, with room for their markers
    assert chart.has_data() and not chart.reason
    assert not _chart_problems(chart)  # the title's result line is shortened to the chart, not cut
    assert chart._suffix.startswith("ngram-map-k") and chart._suffix in chart.toolTip()  # and said whole there


def test_batch_and_decode_say_their_terms_in_plain_words(qtbot) -> None:  # type: ignore[no-untyped-def]
    from advisor.evidence.steps import BatchEvidence
    from ui.charts.batch import BatchChart
    from ui.charts.decode import DecodeChart
    from ui.charts.tuner import SurfaceChart
    from ui.strings import set_language

    batch, decode, surface = BatchChart(), DecodeChart(), SurfaceChart()
    for chart in (batch, decode, surface):
        qtbot.addWidget(chart)
    batch.on_done("batch", BatchEvidence(levels=(), crossover_concurrency=4))
    assert batch._suffix == "slower from 4 requests at once"
    assert "c*" in batch.toolTip() and "MBU" in decode.toolTip() and "synthetic" in surface.toolTip()
    set_language("zh")
    for chart in (batch, decode, surface):
        chart.retranslate()
    assert batch._suffix == "同时 4 个请求起反而更慢" and "显存带宽利用率" in decode.toolTip()


def test_an_empty_chart_says_why(qtbot) -> None:  # type: ignore[no-untyped-def]
    from advisor.core.policy import default_policy
    from advisor.events import StepDone
    from advisor.evidence.steps import AcceptanceEvidence, CategoryAcceptance
    from ui.charts.panel import ChartPanel
    from ui.strings import tr

    panel = ChartPanel()
    qtbot.addWidget(panel)
    panel.start(default_policy(), [10, 20], steps=("baseline", "acceptance", "verify", "batch", "ab"))
    assert panel.tuner.reason == tr("chart.empty.not_chosen")  # said at the start
    if not panel.telemetry.available:  # this machine has no NVIDIA GPU: the live chart says so, no 0–1 axes
        assert panel.telemetry.reason == tr("chart.empty.no_gpu")
    nothing = CategoryAcceptance(rate=None, ci_low=None, ci_high=None, n_prompts=2, drafted=0, accepted=0)
    panel.handle(StepDone("acceptance", "done", AcceptanceEvidence(per_category={"chat": nothing, "code": nothing})))
    panel.handle(StepDone("verify", "failed", None, reason="engine error: boom"))
    panel.handle(StepDone("batch", "skipped", None, reason="the engine reports no parallel slots"))
    qtbot.waitUntil(lambda: not panel.settling, timeout=5_000)
    assert panel.verify.reason == tr("chart.empty.failed", reason="engine error: boom")
    assert panel.batch.reason == tr("chart.empty.skipped", reason="the engine reports no parallel slots")
    assert panel.decode.reason == ""  # the baseline may still come
    assert panel.categories.reason == tr("chart.empty.no_drafts") and panel.categories.categories == ["chat", "code"]
    panel.stop()
    qtbot.waitUntil(lambda: not panel.settling, timeout=5_000)
    assert panel.decode.reason == tr("chart.empty.not_run")
    assert panel.surface.reason == tr("chart.empty.not_chosen")


def _header_problems(table: QTableWidget | QTreeWidget) -> list[str]:
    """Headers cut short: a section narrower than its words and the style's margins either side, or a section
    that runs past the table's visible width (the last column of a table wider than its place)."""
    header: QHeaderView = table.horizontalHeader() if isinstance(table, QTableWidget) else table.header()
    out = []
    model = header.model()
    scrolls = table.horizontalScrollBar().isVisible()
    for col in range(header.count()):
        if header.isSectionHidden(col):
            continue
        words = str(model.headerData(col, header.orientation()) or "")
        name = f"{type(table.parentWidget()).__name__}: header {words!r}"
        # the style's own size for the words: the style sheet's bold face and padding (ui/theme.py) included
        needed = header.sectionSizeHint(col)
        if words and header.sectionSize(col) < needed:
            out.append(f"{name} cut ({header.sectionSize(col)} px < {needed} px)")
        end = header.sectionViewportPosition(col) + header.sectionSize(col)
        if words and not scrolls and end > header.viewport().width() + SLACK:
            out.append(f"{name} runs past the table ({end} px > {header.viewport().width()} px)")
    return out


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("run", ["demo-quick", "demo-quick-ab"])
def test_the_verdict_view_tables_show_whole_headers(window, qtbot, lang: str, run: str) -> None:  # type: ignore[no-untyped-def]
    """On the saved demo run and on a quick check whose A/B ran its 20 pairs (tests/fixtures/runs/demo-quick-ab:
    kinds with and without drafts, bands beside them)."""
    window.show()
    assert window.open_path(str(FIXTURE_RUNS / run))
    window.show_view("verdict")
    qtbot.wait(20)
    window.set_language(lang)  # switched with the run open, as a reader does (the shots take en, then zh)
    view = window.verdict_view
    view.results.per_category.setChecked(True)
    qtbot.wait(50)
    tables = [t for t in (*view.findChildren(QTableWidget), *view.findChildren(QTreeWidget)) if t.isVisibleTo(view)]
    assert tables
    problems = [p for t in tables for p in _header_problems(t)]
    # every row shown whole: a table sized to its rows has room for all of them (no rows hidden behind a scroll)
    for t in tables:
        if isinstance(t, QTableWidget) and t.rowCount():
            rows = sum(t.rowHeight(i) for i in range(t.rowCount()))
            if t.viewport().height() + SLACK < rows or t.verticalScrollBar().isVisible():
                problems.append(f"{type(t.parentWidget()).__name__}: rows need {rows} px, the table shows "
                                f"{t.viewport().height()}")
    assert not problems, "\n".join(problems)


def test_the_per_kind_acceptance_is_the_ab_requests(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    """A quick check's per-kind table: each kind's acceptance counts its A/B requests with speculation on (a kind
    whose requests drafted nothing says so, not "—"), a band row has none of its own, and the line under the
    table says which requests the column counts."""
    from ui.run_folder import load_run

    run = FIXTURE_RUNS / "demo-quick-ab"
    assert window.open_path(str(run))
    tasks = window.verdict_view.tasks
    cells = {tasks.table.item(i, 0).text(): tasks.table.item(i, 5).text() for i in range(tasks.table.rowCount())}
    samples = load_run(run).evidence.ab.samples  # type: ignore[union-attr]
    chat = [s for s in samples if s.arm == "on" and s.category == "chat"]
    assert chat and all(not s.draft_tokens for s in chat) and cells["chat and explanation"] == "no drafts"
    assert cells["reply of 0–255 tokens"] == ""
    assert "A/B requests with speculation on" in tasks.hint.text()
def test_kinds_with_too_few_pairs_fold_into_one_line(qtbot) -> None:  # type: ignore[no-untyped-def]
    from advisor.ab.categories import MIN_PAIRS_FOR_INTERVAL
    from advisor.report.tree import ByTask, TaskRow
    from ui.strings import set_language
    from ui.task_table import TaskTable

    def row(cat: str, n: int, label: str) -> TaskRow:
        return TaskRow(category=cat, n_pairs=n, speedup=1.2 if n else None, ci_low=1.1 if n > 2 else None,
                       ci_high=1.4 if n > 2 else None, label=label, acceptance_rate=0.5)

    table = TaskTable()
    qtbot.addWidget(table)
    table.set_task(ByTask(rows=(row("code", 6, "gain"), row("chat", 2, "too-few"), row("math", 1, "too-few"),
                                row("json", 0, "too-few"))))
    assert not table.isHidden()
    first = table.table.item(0, 0)
    assert table.table.rowCount() == 1 and first is not None and first.text() == "writing code"
    line = table.too_few.text()
    assert f"at least {MIN_PAIRS_FOR_INTERVAL}" in line
    for kind in ("chat and explanation (2)", "maths (1)", "structured JSON (0)"):  # none missing, 0 pairs too
        assert kind in line
    set_language("zh")
    table.retranslate()
    line = table.too_few.text()
    assert "结构化 JSON（0 对）" in line and f"至少需要 {MIN_PAIRS_FOR_INTERVAL} 对" in line
    # only kinds with too few pairs: no empty table, the line alone
    table.set_task(ByTask(rows=(row("chat", 2, "too-few"), row("json", 0, "too-few"))))
    assert table.table.isHidden() and not table.too_few.isHidden() and not table.isHidden()


def test_a_long_command_is_shown_whole_in_the_flags_box(qtbot) -> None:  # type: ignore[no-untyped-def]
    """The verdict's flags wrap to the box's width: sized by newlines alone, a one-line command of 120
    characters showed its first line and half of the second (the screenshot of an INCONCLUSIVE run)."""
    from ui.widgets import MonospaceBox

    command = "--spec-type ngram-mod --spec-ngram-mod-n-max 6 --spec-ngram-mod-n-min 6 --spec-ngram-mod-n-match 24"
    box = MonospaceBox(command)
    qtbot.addWidget(box)
    box.resize(300, 40)
    box.show()
    qtbot.waitExposed(box)
    box.fit()
    per_line = max((box.viewport().width() - 8) // box.fontMetrics().horizontalAdvance("M"), 1)
    wrapped = -(-len(command) // per_line)
    assert wrapped >= 2 and box.height() >= 22 + box.fontMetrics().lineSpacing() * min(wrapped, 6) - 1
    assert box.document().size().height() * box.fontMetrics().lineSpacing() <= box.height() + 4  # nothing hidden


def test_a_step_that_failed_with_a_message_says_it_in_its_chart(qtbot) -> None:  # type: ignore[no-untyped-def]
    """A StepDone's reason may be a Message (rendered in the reader's language): it reached `str.strip` and the
    chart stayed blank, the error only in the log."""
    from advisor.core.policy import default_policy
    from advisor.events import StepDone
    from advisor.text.message import msg, render
    from ui.charts.panel import ChartPanel
    from ui.strings import set_language, tr

    panel = ChartPanel()
    qtbot.addWidget(panel)
    panel.start(default_policy(), [10, 20], steps=("baseline", "verify"))
    why = msg("warn.cache_miss", n=27)
    panel.handle(StepDone("verify", "failed", None, reason=why))
    qtbot.waitUntil(lambda: not panel.settling, timeout=5_000)
    assert panel.verify.reason == tr("chart.empty.failed", reason=render(why, "en"))
    set_language("zh")
    panel.verify.retranslate()
    assert render(why, "zh") in panel.verify.reason
