"""Run-level faults that need a whole process: two checks at once, and SIGKILL of a check then the real
`spec-advisor check --resume`, which must reach the same evidence for every unit it reuses.

Waits are on observable state (the check lock naming the first check's pid, units committed to the history),
never on sleeps alone."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from advisor.cli.main import main
from advisor.evidence.codec import decode, encode
from advisor.evidence.units import AcceptanceUnit
from advisor.paths import DATA_DIR_ENV
from advisor.run.lock import LOCK_FILE
from advisor.steps.acceptance import summarise
from tests.paths import REPO
from tests.run_faults import COPY_BUDGET, run_status, stored_units, write_copy_prompts

pytestmark = pytest.mark.engine

CHILD = textwrap.dedent('''
    import sys
    from pathlib import Path
    from advisor.history.store import RunStore
    from advisor.run.session import Session
    from tests.run_faults import COPY_BUDGET, tiny_config
    config = tiny_config(Path(sys.argv[1]), "acceptance", budget=COPY_BUDGET, prompts_file=Path(sys.argv[2]))
    with RunStore() as store:
        Session(config, store=store).run()
''')


def _env(data: Path) -> dict[str, str]:
    return {**os.environ, DATA_DIR_ENV: str(data), "PYTHONPATH": str(REPO)}


def _wait_for(what: str, ready: Callable[[], bool], proc: subprocess.Popen[Any], timeout_s: float = 240) -> None:
    deadline = time.monotonic() + timeout_s
    while not ready():
        assert proc.poll() is None, f"the check ended before {what}: {proc.communicate()[1][-2000:]}"
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def test_second_check_is_refused_while_one_runs(demo_model: Path, llama_binary: Any, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    data = Path(os.environ[DATA_DIR_ENV])  # the isolated data folder conftest gives this test
    first = subprocess.Popen([sys.executable, "-m", "advisor", "check", "--quick", "--steps", "acceptance",
                              "--no-history", "--out", str(tmp_path / "first")], env=_env(data), cwd=REPO,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lock = data / LOCK_FILE
    try:
        _wait_for("the first check took the lock",
                  lambda: lock.is_file() and f"pid {first.pid}," in lock.read_text(), first)
        code = main(["check", "--quick", "--steps", "acceptance", "--no-history", "--json",
                     "--out", str(tmp_path / "second")])
        printed = json.loads(capsys.readouterr().out)
        assert code == 1 and printed["status"] == "failed"
        assert "another check is already running on this machine" in printed["message"]
        assert f"pid {first.pid}" in printed["message"]
        assert not (tmp_path / "second").exists()  # refused before anything started or was written
    finally:
        first.send_signal(signal.SIGINT)  # the first Ctrl-C stops it, keeping what it measured
        _, err = first.communicate(timeout=300)
    assert first.returncode == 130, err[-2000:]
    # the lock went with it: a check can start again
    assert "pid" not in lock.read_text()


def test_sigkill_then_real_resume_reuses_units_unchanged(demo_model: Path, llama_binary: Any,
                                                          tmp_path: Path) -> None:
    data = tmp_path / "data"
    db = data / "history.sqlite3"
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    out = tmp_path / "run"
    prompts = write_copy_prompts(tmp_path / "prompts.txt")
    victim = subprocess.Popen([sys.executable, str(script), str(out), str(prompts)], env=_env(data), cwd=REPO,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for("two acceptance units", lambda: len(stored_units(db, "acceptance")) >= 2, victim)
    finally:
        os.kill(victim.pid, signal.SIGKILL)
        victim.communicate(timeout=30)
    before = stored_units(db, "acceptance")
    (run_id, status), = run_status(db)
    assert status == "running" and 2 <= len(before) < COPY_BUDGET.acceptance_per_category

    resumed = subprocess.run([sys.executable, "-m", "advisor", "check", "--resume", run_id, "--json"],
                             env=_env(data), cwd=REPO, capture_output=True, text=True, timeout=1500)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    evidence = json.loads((out / "evidence.json").read_text())
    assert evidence["config"]["budget"]["max_tokens"] == COPY_BUDGET.max_tokens  # resumed with the run's own sizes
    acceptance = evidence["steps"]["acceptance"]["evidence"]
    samples = {s["prompt_id"]: s for s in acceptance["samples"]}
    # every reused unit reaches the evidence exactly as it was measured before the kill
    for key, payload in before.items():
        unit = decode(AcceptanceUnit, json.loads(payload), key)
        assert samples[key] == encode(unit.record), key
    # and the step's figures are those of its units (their /metrics counters, never the timings estimate)
    after = stored_units(db, "acceptance")
    assert set(before) <= set(after) and stored_units(db, "acceptance").items() >= before.items()
    units = [decode(AcceptanceUnit, json.loads(after[p]), p) for p in samples]
    expected = encode(summarise(units, evidence["config"]["seed"], method=acceptance["method"],
                                draft_max=acceptance["draft_max"]))
    if any(u.counters is not None and u.counters.drafts > 0 for u in units):
        assert acceptance["mean_length_source"] == "metrics"
    for field in ("mean_length", "per_position", "rate", "draft_coverage", "per_category"):
        assert acceptance[field] == expected[field], field
    assert [s for _, s in run_status(db)] == ["complete"]
