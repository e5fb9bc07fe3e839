"""No English left in Chinese: the CLI, the report and every string table, read in zh, hold no ASCII words but
the names tests/zh_words.py allows (units, products, formats, the engine's method names). The run is the saved
demo check (tests/fixtures/runs/demo-quick), decided afresh by this version. Data the report lists by its key
(the evidence's `key | value` rows, the environment the probes read, the facts) is shown as it was measured and
is not scanned; a probe's or an engine's own message is not spec-advisor's to translate."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
from pathlib import Path
from typing import get_args

import pytest

from advisor.cli.main import main
from advisor.cli.progress import ProgressPrinter
from advisor.cli.summary import print_summary
from advisor.config import ALL_STEPS
from advisor.decide.rules import OPS, load_rules
from advisor.events import Progress, QualityWarning, StepDone, StepStarted
from advisor.evidence.warnings import WarningCode
from advisor.history.folders import load_run
from advisor.report.strings import TABLES
from advisor.run.done import SessionDone
from advisor.text.message import msg
from probes.gpu.probe import GpuStatus
from tests.paths import FIXTURES
from tests.said_as_now import said_as_now
from tests.zh_words import english_words

FIXTURE = FIXTURES / "runs" / "demo-quick"
# Names the decision trace shows as the rule files spell them (`spec-advisor rules` lists each), the operators
# of their conditions, and the GPU probe's status codes beside its reason: looked up, not read as words.
_RULES = load_rules()
_VALUES = [c.value for f in _RULES.files.values() for b in f.branches for c in b.conditions]
NAMES = frozenset({*_RULES.files, *(b.id for f in _RULES.files.values() for b in f.branches), *OPS,
                   *get_args(GpuStatus), *(v for v in _VALUES if isinstance(v, str)),  # e.g. a guard a rule names
                   *(x for v in _VALUES if isinstance(v, list) for x in v if isinstance(x, str))})


@pytest.fixture
def run(tmp_path: Path) -> Path:
    """The saved demo run, its findings said as this version says them, with a verdict decided by this version
    (the saved one predates the Chinese texts)."""
    folder = tmp_path / "run"
    shutil.copytree(FIXTURE, folder)
    said_as_now(folder, _RULES)
    return folder


def _out(argv: list[str]) -> str:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        main(argv)
    return out.getvalue() + err.getvalue()


def _left(text: str) -> list[str]:
    return [f"{w!r} in: {line.strip()[:140]}" for line in text.splitlines() for w in english_words(line, NAMES)]


def test_every_chinese_string_is_chinese() -> None:
    left = [f"{key}: {words}" for key, value in TABLES["zh"].items() if (words := english_words(value))]
    assert not left, "\n".join(left)
    assert not [k for k in TABLES["en"] if k not in TABLES["zh"]]  # no string falls back to English


def test_the_markdown_report_reads_in_chinese(run: Path) -> None:
    report = _out(["report", str(run), "--format", "md", "--lang", "zh"])
    read = report.split("\n## 运行环境")[0]  # the probes' environment and the facts are data, by key
    lines = [line for line in read.splitlines() if not line.startswith("| `")]  # evidence rows: `key` | value
    assert len(lines) > 50 and "## 测量" in read
    assert not _left("\n".join(lines)), "\n".join(_left("\n".join(lines)))


def test_the_html_report_reads_in_chinese(run: Path) -> None:
    page = _out(["report", str(run), "--format", "html", "--lang", "zh"])
    page = page.split("<h2>运行环境")[0]
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    page = re.sub(r'<tr><td class="k">[a-z][a-z0-9_.]*</td>.*?</tr>', " ", page, flags=re.S)  # key | value rows
    words = re.sub(r"<[^>]+>", "\n", page)
    assert not _left(words), "\n".join(_left(words))


def test_the_cli_reads_in_chinese(run: Path) -> None:
    decided = _out(["decide", str(run), "--lang", "zh"])
    assert not _left(decided), "\n".join(_left(decided))
    data = load_run(run)
    out = io.StringIO()
    print_summary(data.evidence, SessionDone(status=data.evidence.status, run_dir=str(run), verdict=data.verdict,
                                             message="interrupted"), out, "zh")
    assert "已被中断" in out.getvalue() and not _left(out.getvalue()), "\n".join(_left(out.getvalue()))
    progress = io.StringIO()
    printer = ProgressPrinter(progress, lang="zh")
    for i, step in enumerate(("preflight", *ALL_STEPS), start=1):
        printer(StepStarted(step, step.title(), i, 7))  # the title the step gives is English: the table's is shown
        printer(Progress(step, 1, 2))
        printer(StepDone(step, "aborted", reason=msg("stop.cancelled"), elapsed_s=1.0))
    printer(QualityWarning("ab", WarningCode.CONTENDED, msg("warn.contended", tok=1.0, n=3, fraction=0.5, base=80.0)))
    assert not _left(progress.getvalue()), "\n".join(_left(progress.getvalue()))


def test_history_reads_in_chinese(run: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    shutil.copytree(run, other)
    evidence = json.loads((other / "evidence.json").read_text(encoding="utf-8"))
    evidence["status"] = "complete"
    (other / "evidence.json").write_text(json.dumps(evidence), encoding="utf-8")
    compared = _out(["history", "--compare", str(run), str(other), "--lang", "zh"])
    assert "已中止" in compared and not _left(compared), "\n".join(_left(compared))
