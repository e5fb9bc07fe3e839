"""Nothing spec-advisor keeps is written over (issue 25 class 5): a run's evidence, verdict and logs, the
history, the report's own source; `check --out` never replaces an earlier run; `-o DIR/` writes inside DIR.
Through the real CLI entry point, and the window's export through the same decision (advisor/owned.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from advisor.cli.main import main
from advisor.errors import UserError
from advisor.history.schema import default_db_path
from advisor.owned import output_file, refuse_earlier_run, refuse_owned
from advisor.report.model import load_report
from tests.paths import FIXTURES

FIXTURE = FIXTURES / "runs" / "demo-quick"


@pytest.fixture()
def run_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "run"
    shutil.copytree(FIXTURE, folder)
    (folder / "logs").mkdir()
    (folder / "logs" / "off.log").write_text("server log\n")
    return folder


def _contents(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("target", ["evidence.json", "verdict.json", "logs/off.log", "logs/new.md"])
def test_report_never_writes_over_the_run(run_dir: Path, target: str, capsys: pytest.CaptureFixture[str]) -> None:
    before = _contents(run_dir)
    assert main(["report", str(run_dir), "-o", str(run_dir / target)]) == 2
    err = capsys.readouterr().err
    assert "will not write" in err and "Traceback" not in err
    assert _contents(run_dir) == before


def test_another_runs_files_and_links_are_refused(run_dir: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "other"
    shutil.copytree(FIXTURE, other)
    before = _contents(other)
    assert main(["report", str(run_dir), "-o", str(other / "verdict.json")]) == 2
    link = tmp_path / "link.json"
    link.symlink_to(other / "evidence.json")
    assert main(["report", str(run_dir), "-o", str(link), "--lang", "zh"]) == 2
    assert "不会写入" in capsys.readouterr().err
    assert _contents(other) == before


def test_the_history_and_the_facts_source_are_refused(tmp_path: Path) -> None:
    facts = tmp_path / "facts.json"
    shutil.copy(FIXTURES / "facts" / "dense_enable.json", facts)
    before = facts.read_bytes()
    assert main(["report", "--facts", str(facts), "-o", str(facts)]) == 2
    assert facts.read_bytes() == before
    db = default_db_path()
    db.parent.mkdir(parents=True, exist_ok=True)
    with pytest.raises(UserError, match="own data"):
        refuse_owned(db)


def test_a_folder_gets_the_report_inside(run_dir: Path, tmp_path: Path) -> None:
    assert main(["report", str(run_dir), "-o", f"{tmp_path / 'newdir'}/"]) == 0
    assert (tmp_path / "newdir").is_dir() and (tmp_path / "newdir" / "report.html").read_text().startswith("<!")
    assert main(["report", str(run_dir), "-o", str(tmp_path / "newdir"), "--format", "json"]) == 0
    assert load_report(tmp_path / "newdir" / "report.json").verdict.verdict
    # a report in the run folder itself is the window's default place: written, and written again
    assert main(["report", str(run_dir), "-o", str(run_dir)]) == 0
    assert main(["report", str(run_dir), "-o", str(run_dir / "report.html")]) == 0
    assert json.loads((run_dir / "evidence.json").read_text())["status"]


def test_check_out_never_replaces_an_earlier_run(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = _contents(run_dir)
    assert main(["check", "--no-history", "--out", str(run_dir)]) == 2
    err = capsys.readouterr().err
    assert "already holds a run" in err and "--resume" in err
    assert _contents(run_dir) == before
    with pytest.raises(UserError):
        refuse_earlier_run(run_dir)
    with pytest.raises(UserError):  # inside a run's folder: its logs would hold a second run
        refuse_earlier_run(run_dir / "logs" / "new")
    refuse_earlier_run(run_dir.parent / "fresh")  # a new folder beside it is fine


def test_the_session_refuses_an_earlier_run_folder(run_dir: Path) -> None:
    from advisor.config import CheckConfig
    from advisor.run.session import Session

    before = _contents(run_dir)
    done = Session(CheckConfig(out_dir=run_dir)).run()  # the window's path: no CLI in front of it
    assert done.status == "failed" and done.user_error and "already holds a run" in done.message
    assert _contents(run_dir) == before


def test_screenshot_over_evidence_is_refused(run_dir: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    before = _contents(run_dir)
    assert main(["gui", "--open", str(run_dir), "--screenshot", str(run_dir / "evidence.json")]) == 2
    assert "will not write" in capsys.readouterr().err
    assert _contents(run_dir) == before


def test_output_file_unit(tmp_path: Path) -> None:
    assert output_file(str(tmp_path / "a.md"), "report.md") == tmp_path / "a.md"
    assert output_file(f"{tmp_path / 'd'}/", "report.md") == tmp_path / "d" / "report.md"
    assert (tmp_path / "d").is_dir()
