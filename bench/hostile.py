"""Hostile-input corpus: how many of its cases the CLI answers as it should (exit 2, one line, no traceback).

    .venv/bin/python -m bench.hostile

Runs tests/hostile_cases.py through tests/hostile_driver.py (the real CLI entry point, one forked process
per case, bounded in time and memory) and reports cases tried and passing, with the failures' ids.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.hostile_cases import corpus, judge, prepare
from tests.hostile_driver import run_corpus

TRIED, PASSING = "hostile_cases_tried", "hostile_cases_passing"
KEYS = (TRIED, PASSING)


def measure() -> dict[str, Any]:
    """Both figures, a note, and the failing cases with why."""
    cases = corpus()
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="spec-bench-hostile-") as tmp:
        results = run_corpus([prepare(c, Path(tmp)) for c in cases], timeout_s=1800)
    failing = {c.id: why for c, r in zip(cases, results, strict=True) if (why := judge(c, r))}
    note = (f"{len(cases)} cases in {time.monotonic() - t0:.0f} s (URLs, loopback tricks, facts, evidence, GGUF, "
            f"rule files and overrides, prompt files, Hugging Face folders, options, broken pipes; issue 25: option "
            f"spellings, one server twice, keys in URLs, --resume, the tool's own data as an output)"
            + (f"; failing: {', '.join(sorted(failing))}" if failing else ""))
    return {TRIED: len(cases), f"{TRIED}_note": note, PASSING: len(cases) - len(failing),
            f"{PASSING}_note": note, "hostile_failures": failing}


if __name__ == "__main__":
    print(json.dumps(measure(), indent=1))
