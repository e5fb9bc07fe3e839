"""The start view says how long each choice takes, from the plan the live clock counts, in both languages."""

from __future__ import annotations

from advisor.run.duration import duration_text
from ui.strings import tr


def test_the_start_view_shows_both_choices_lengths(window) -> None:  # type: ignore[no-untyped-def]
    form = window.start_view.form
    quick, full = form.planned(True), form.planned(False)
    assert quick is not None and full is not None and quick.basis == full.basis == "demo"
    assert quick.seconds is not None and full.seconds is not None and full.seconds > quick.seconds
    assert form.duration.text() == f"Quick: {duration_text(quick, tr)} · Full: {duration_text(full, tr)}"
    assert form.duration.isVisibleTo(window.start_view)
    window.set_language("zh")
    assert form.duration.text().startswith("快速：约 ") and "完整：约 " in form.duration.text()
