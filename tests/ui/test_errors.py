"""User errors reach the window as readable text, never as a traceback."""

from __future__ import annotations

from pathlib import Path

from advisor.config import CheckConfig


def test_missing_engine_binary_is_a_message(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    config = CheckConfig(quick=True, steps=("baseline",), llama_server=str(tmp_path / "no-such-llama-server"),
                         out_dir=tmp_path / "run")
    with qtbot.waitSignal(window.controller.finished, timeout=60_000) as blocker:
        window.start_check(config)
    done = blocker.args[0]
    assert done.status == "failed"
    text = window.start_view.error.text()
    assert window.start_view.error.isVisibleTo(window.start_view) and "no-such-llama-server" in text
    assert "Traceback" not in text and "Traceback" not in window.run_view.status.text()
    assert window.start_view.button.isEnabled()
    assert window.run_view.steps.states()["preflight"] == "notrun"


def test_bad_model_file_is_shown_on_the_model_card(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"not a gguf at all")
    window.start_view.form.set_model(bad)
    qtbot.waitUntil(lambda: window.start_view.model_info is not None, timeout=10_000)
    assert "Cannot read this model" in window.start_view.model.headline.text()


def test_opening_a_folder_without_evidence_is_a_message(window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert window.open_path(str(tmp_path)) is False
    assert "evidence.json" in window.start_view.error.text()
