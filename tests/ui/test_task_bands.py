"""The window's by-task table shows the output-length and depth bands beside the kinds of task (issue 24)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(("lang", "band"), [("en", "reply of 1024+ tokens"), ("zh", "回复 1024+ 个 token")])
def test_the_table_shows_the_bands(qtbot, lang: str, band: str) -> None:  # type: ignore[no-untyped-def]
    from advisor.report.tree import ByTask, TaskRow
    from ui.strings import set_language
    from ui.task_table import TaskTable

    set_language(lang)
    table = TaskTable()
    qtbot.addWidget(table)
    rows = (TaskRow(category="code", n_pairs=8, speedup=1.2, ci_low=1.05, ci_high=1.4, label="gain",
                    acceptance_rate=0.7),
            TaskRow(group="output", category="1024+", n_pairs=6, speedup=1.5, ci_low=1.1, ci_high=2.0, label="gain"),
            TaskRow(group="depth", category="0–1023", n_pairs=14, speedup=1.1, ci_low=0.9, ci_high=1.3,
                    label="unclear"))
    table.set_task(ByTask(rows=rows))
    names = [table.table.item(i, 0).text() for i in range(table.table.rowCount())]
    assert band in names and len(names) == 3 and table.isVisibleTo(table.parentWidget() or table)
