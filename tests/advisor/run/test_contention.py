"""Contention noticed live: speculation-off decode far below the baseline is said as a warning (progress line,
window, the step's evidence) once, with its threshold from rules/policy.toml, in English and Chinese."""

from __future__ import annotations

import io
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

from advisor.cli.progress import ProgressPrinter
from advisor.config import CheckConfig
from advisor.core.policy import default_policy
from advisor.events import Event, QualityWarning, Sample, StepDone
from advisor.evidence.warnings import WarningCode
from advisor.report.strings import step_warning
from advisor.run.contention import ContentionWatch
from advisor.run.session import Session

POLICY = default_policy().contention


def _off(tok_s: float, i: int = 1) -> Sample:
    return Sample("ab", "off_tok_s", float(i), tok_s)


def test_the_threshold_and_run_length_come_from_the_policy() -> None:
    assert 0 < POLICY.slow_fraction < 1 and POLICY.consecutive >= 2
    assert "contention.slow_fraction" in default_policy().notes  # with its reason in the file


def test_a_slow_run_of_requests_is_contention_and_one_slow_request_is_not() -> None:
    watch = ContentionWatch(POLICY, baseline_tok_s=100.0)
    slow = 100.0 * POLICY.slow_fraction * 0.5
    assert watch.observe(_off(slow)) is None and watch.observe(_off(90.0)) is None  # a run broken by a fast one
    found = [watch.observe(_off(slow, i)) for i in range(POLICY.consecutive)]
    assert found[:-1] == [None] * (POLICY.consecutive - 1)
    warning = found[-1]
    assert isinstance(warning, QualityWarning) and warning.code is WarningCode.CONTENDED
    english = str(warning.message)
    assert f"{slow:.1f} tok/s" in english and "100.0 tok/s" in english
    assert "check --resume" in english
    assert watch.observe(_off(slow)) is None  # said once per step
    zh = step_warning("zh", warning.message)
    assert "机器正忙" in zh and "100.0" in zh and "the machine" not in zh
    # other series (the ON arm, the speedup) and a run without a baseline are never judged
    assert ContentionWatch(POLICY, None).observe(_off(0.1)) is None
    assert ContentionWatch(POLICY, 100.0).observe(Sample("ab", "pair_speedup", 1.0, 0.1)) is None


class _SlowAB:
    id, title = "ab", "A/B"

    def run(self, ctx: Any) -> Iterator[Event]:
        for i in range(POLICY.consecutive + 2):
            yield _off(5.0, i + 1)
        yield StepDone("ab", "done")


def test_the_session_says_it_and_keeps_it_in_the_steps_evidence() -> None:
    seen: list[Event] = []
    session = Session(CheckConfig(quick=True), subscribers=[seen.append])
    ctx: Any = SimpleNamespace(prior={"baseline": SimpleNamespace(decode_tok_s=80.0)}, policy=default_policy())
    done = session._run_one(_SlowAB(), ctx)
    warnings = [e for e in seen if isinstance(e, QualityWarning)]
    assert len(warnings) == 1 and warnings[0].code is WarningCode.CONTENDED
    assert done.warnings == (warnings[0],)  # the step's record in evidence.json carries it
    out = io.StringIO()
    printer = ProgressPrinter(out, lang="en")
    printer(warnings[0])
    assert "! the machine is busy" in out.getvalue()
