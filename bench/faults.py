"""Reliability: inject every run-level fault on the real demo engine and count the ones survived.

    .venv/bin/python -m bench.faults

A fault is *tried* when its test ran (a fault that cannot be staged here, e.g. a tmpfs where mount is not
allowed, is skipped with its reason and not counted) and *survived* when every property its test asserts
held: the right status and exit code, the reason in the verdict, one clear message and no traceback, no
evidence lost. The faults are the tests themselves (tests/advisor/run/test_run_faults*.py,
tests/probes/test_faults.py), so the figure and the test suite can never disagree.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from bench.common import REPO

TRIED, SURVIVED = "faults_tried", "faults_survived"
KEYS = (TRIED, SURVIVED)
_ATOMIC = ("test_failed_replace_keeps_old_file", "test_fifo_is_written_through_not_replaced",
           "test_symlink_is_kept_and_its_file_written", "test_device_node_is_never_replaced",
           "test_dev_stdout_reaches_the_reader")
FAULT_TESTS = ("tests/advisor/run/test_run_faults.py", "tests/advisor/run/test_run_faults_process.py",
               "tests/probes/test_faults.py",
               "tests/advisor/run/test_run_faults_units.py::test_history_command_on_an_immutable_database",
               *(f"tests/advisor/test_atomic.py::{name}" for name in _ATOMIC))


def _cases(junit: Path) -> list[dict[str, str]]:
    cases = []
    for case in ET.parse(junit).getroot().iter("testcase"):
        outcome, detail = "survived", ""
        for child in case:
            if child.tag in ("failure", "error"):
                outcome, detail = "failed", (child.get("message") or "")[:300]
            elif child.tag == "skipped":
                outcome, detail = "skipped", (child.get("message") or "")[:300]
        cases.append({"fault": f"{case.get('classname', '').rsplit('.', 1)[-1]}::{case.get('name')}",
                      "outcome": outcome, "detail": detail, "seconds": case.get("time", "")})
    return cases


def measure(timeout_s: float = 1800.0) -> dict[str, Any]:
    """Run the fault tests once; `faults_tried` / `faults_survived` and one row per fault."""
    with tempfile.TemporaryDirectory(prefix="spec-faults-") as tmp:
        junit = Path(tmp) / "faults.xml"
        env = {**os.environ, "SPEC_ADVISOR_REQUIRE_ENGINE": "1", "QT_QPA_PLATFORM": "offscreen",
               "PYTHONPATH": str(REPO)}
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               f"--junitxml={junit}", *FAULT_TESTS], cwd=REPO, env=env, capture_output=True,
                              text=True, timeout=timeout_s)
        if not junit.is_file():
            raise RuntimeError(f"pytest wrote no results (exit {done.returncode}): {done.stderr[-500:]}")
        cases = _cases(junit)
    tried = [c for c in cases if c["outcome"] != "skipped"]
    survived = [c for c in tried if c["outcome"] == "survived"]
    skipped = [c for c in cases if c["outcome"] == "skipped"]
    note = f"{len(survived)} of {len(tried)} faults survived"
    if skipped:
        note += "; not staged here: " + "; ".join(f"{c['fault']} ({c['detail']})" for c in skipped)
    failed = [c["fault"] for c in tried if c["outcome"] == "failed"]
    if failed:
        note += "; NOT survived: " + ", ".join(failed)
    return {TRIED: len(tried), SURVIVED: len(survived), f"{TRIED}_note": note, f"{SURVIVED}_note": note,
            "faults": cases}


def main() -> int:
    out = measure()
    print(json.dumps(out, indent=1))
    return 0 if out[TRIED] == out[SURVIVED] else 1


if __name__ == "__main__":
    raise SystemExit(main())
