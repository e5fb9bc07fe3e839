"""Engine threads on a busy machine: one fewer per core that other work holds when the servers start, unless the
user chose them; said as a preflight warning (en + zh) and recorded in the arms plan; real servers get `-t`."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest

from advisor.arms.threads import asked_threads, choose_threads
from advisor.config import QUICK, CheckConfig
from advisor.evidence.warnings import WarningCode
from advisor.report.strings import step_warning
from advisor.run import launch
from advisor.run.session import Session
from probes.base import Unavailable
from probes.host import busy_cores, cores
from tests.zh_words import english_words

NA = Unavailable("not-supported")


@pytest.mark.parametrize(("n_cores", "busy", "threads", "held"), [
    (2, 0.0, None, 0), (2, 0.4, None, 0),      # idle, or less than half a core: the engine's default
    (2, 1.0, 1, 1), (2, 1.9, 1, 1),            # at least one thread stays
    (8, 2.6, 5, 3), (8, 0.5, 7, 1),            # rounded at the policy's half core
])
def test_threads_follow_the_cores_other_work_holds(n_cores: int, busy: float, threads: int | None,
                                                   held: int) -> None:
    choice = choose_threads(n_cores, busy, 0.5)
    assert (choice.threads, choice.held_cores, choice.cores, choice.busy_cores) == (threads, held, n_cores, busy)
    assert choice.reduced is (threads is not None)


def test_unknown_cores_or_load_keep_the_engine_default() -> None:
    assert choose_threads(NA, 1.0, 0.5).threads is None and choose_threads(NA, 1.0, 0.5).busy_cores == 1.0
    assert choose_threads(4, NA, 0.5).threads is None and choose_threads(4, NA, 0.5).busy_cores is None


@pytest.mark.parametrize(("threads", "args", "asked"), [
    (4, (), True), (None, ("--threads", "4"), True), (None, ("-t", "3"), True), (None, ("--threads=2",), True),
    (None, ("-ngl", "99"), False), (None, (), False),
])
def test_the_users_thread_count_wins(threads: int | None, args: tuple[str, ...], asked: bool) -> None:
    assert asked_threads(threads, args) is asked


def test_busy_cores_reads_this_machine() -> None:
    busy = busy_cores(0.1)
    assert isinstance(busy, float) and 0.0 <= busy <= 1024


@pytest.mark.engine
def test_a_busy_machine_starts_the_servers_with_fewer_threads_and_says_so(
        demo_model: Path, llama_binary: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    physical = cores()[1]
    if isinstance(physical, Unavailable) or physical < 2:
        pytest.skip("needs two physical cores to take one away")
    monkeypatch.setattr(launch, "busy_cores", lambda: 1.0)  # one core's worth of other work
    budget = dataclasses.replace(QUICK, max_tokens=16, warmup_requests=1)
    config = CheckConfig(quick=True, steps=("preflight",), out_dir=tmp_path / "run", budget_override=budget)
    session = Session(config)
    done = session.run()
    assert done.status in ("complete", "partial"), done.message
    plan = session.evidence.arms
    assert plan is not None and plan.threads is not None and plan.threads.threads == physical - 1
    logs = "".join(p.read_text(errors="replace") for p in (tmp_path / "run" / "logs").glob("llama-server-*.log"))
    assert re.search(rf"n_threads = {physical - 1}\b", logs), "the servers did not get -t"
    warning = next(w for w in session.evidence.steps["preflight"].warnings if w.code == WarningCode.ENGINE_THREADS)
    english = str(warning.message)
    assert f"-t {physical - 1}" in english and "--threads" in english
    zh = step_warning("zh", warning.message)
    assert zh != english and not english_words(zh)
