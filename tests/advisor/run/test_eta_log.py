"""The clock's history (advisor/run/eta_log.py) and how its accuracy is judged (bench/eta_accuracy.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.events import Progress, RunPlanned, StepDone, StepStarted, UnitWork
from advisor.run.done import SessionDone
from advisor.run.eta_log import EtaLog
from bench.eta_accuracy import accuracy, read_log, replay


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _steady_check(path: Path, unit_s: float, units: int = 10) -> Clock:
    """A check of `units` equal units of `unit_s` seconds, logged as the session would."""
    clock = Clock()
    eta = EtaLog(path, clock=clock)
    eta(RunPlanned({"baseline": units}))
    eta(StepStarted("baseline", "Baseline", 1, 1))
    eta(Progress.unit("baseline", 0, units, "warmup", n=1))  # a warm-up: not logged
    for done in range(1, units + 1):
        clock.now += unit_s
        eta(Progress.unit("baseline", done, units, "request", n=done))
    eta(StepDone("baseline", "done"))
    eta(SessionDone(status="complete", run_dir=str(path.parent)))
    return clock


def test_every_estimate_is_one_line_and_the_end_is_marked(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "eta.jsonl"
    _steady_check(log, 2.0)
    lines = read_log(log)
    assert [line["event"] for line in lines][:2] == ["RunPlanned", "StepStarted"]
    assert sum(1 for line in lines if line["event"] == "Progress") == 10  # the warm-up is not a unit
    assert lines[-1]["end"] is True and lines[-1]["status"] == "complete" and lines[-1]["t_s"] == 20.0
    after_first = next(line for line in lines if line["event"] == "Progress")
    assert after_first["remaining_s"] == pytest.approx(18.0)  # 9 units left at 2 s each


def test_a_steady_check_has_a_right_clock(tmp_path: Path) -> None:
    log = tmp_path / "eta.jsonl"
    _steady_check(log, 3.0)
    acc = accuracy(read_log(log))
    assert acc is not None and acc.max_error == pytest.approx(0.0, abs=1e-9) and acc.blank == 0
    assert acc.total_s == 30.0 and acc.estimates >= 9


def test_a_clock_that_promised_too_little_is_caught(tmp_path: Path) -> None:
    log = tmp_path / "eta.jsonl"
    lines = [{"t_s": 0.0, "remaining_s": None}, {"t_s": 20.0, "remaining_s": 10.0},
             {"t_s": 50.0, "remaining_s": 40.0}, {"t_s": 100.0, "remaining_s": 0.0, "end": True}]
    log.write_text("\n".join(json.dumps(line) for line in lines) + "\n{half a line")
    acc = accuracy(read_log(log))
    assert acc is not None
    # at 20 s, 80 s were left and it said 10: off by 70 of 80
    assert acc.max_error == pytest.approx(70 / 80) and acc.at_s == 20.0 and acc.estimates == 2


def test_a_blank_clock_after_the_first_tenth_is_a_miss_and_no_end_means_unknown(tmp_path: Path) -> None:
    blank = [{"t_s": 30.0, "remaining_s": None}, {"t_s": 60.0, "remaining_s": 0.0, "end": True}]
    acc = accuracy(blank)
    assert acc is not None and acc.max_error == 1.0 and acc.blank == 1
    assert accuracy([{"t_s": 30.0, "remaining_s": 5.0}]) is None


def test_an_unwritable_log_never_stops_the_check(tmp_path: Path) -> None:
    blocker = tmp_path / "logs"
    blocker.write_text("a file where the folder should be")
    eta = EtaLog(blocker / "eta.jsonl", clock=Clock())
    eta(RunPlanned({"baseline": 2}))
    assert eta.broken
    eta(StepStarted("baseline", "Baseline", 1, 1))  # no second attempt, no exception


def test_a_log_replays_through_the_estimator_to_the_same_clock(tmp_path: Path) -> None:
    """What each event told the clock is in the log, so a finished check's log can be re-read by another
    estimator (how a change to the ETA is judged against real checks, bench/eta_accuracy.py)."""
    log = tmp_path / "eta.jsonl"
    clock = Clock()
    eta = EtaLog(log, clock=clock)
    eta(RunPlanned({"baseline": 2, "batch": 2},
                   work={"baseline": (UnitWork(1.0),) * 2, "batch": (UnitWork(6.0), UnitWork(12.0))}))
    for step, units, seconds in (("baseline", 2, (1.0, 1.5)), ("batch", 2, (7.0, 12.5))):
        eta(StepStarted(step, step, 1, 2))
        for done in range(1, units + 1):
            clock.now += seconds[done - 1]
            eta(Progress(step, done, units))
        eta(StepDone(step, "done"))
    eta(SessionDone(status="complete", run_dir=str(tmp_path)))
    lines = read_log(log)
    again = replay(lines)
    assert [line["remaining_s"] for line in again] == pytest.approx([line["remaining_s"] for line in lines], abs=1e-3)
    assert lines[2]["of"] == {"step": "baseline", "done": 1, "total": 2, "detail": ""}
    flat = replay(lines, work={})  # the same log paced per unit: the sweep looks like two more prompts
    assert flat[4]["remaining_s"] == pytest.approx(2 * 1.25) != again[4]["remaining_s"]


def test_the_pair_speedups_and_the_kinds_of_units_replay_as_they_were_told(tmp_path: Path) -> None:
    """What prices a both-on pair (its kind in the plan, the A/B's pair speedups) is in the log, so a replay
    gives the estimates the clock showed; other samples are left out."""
    from advisor.events import Sample
    from advisor.run.eta import BOTH_ON

    path = tmp_path / "eta.jsonl"
    clock = Clock()
    eta = EtaLog(path, clock=clock)
    eta(RunPlanned({"ab": 3}, work={"ab": (UnitWork(2.0), UnitWork(2.0), UnitWork(2.0, kind=BOTH_ON))}))
    eta(StepStarted("ab", "A/B", 1, 1))
    for i in range(2):
        clock.now += 1.5
        eta(Progress("ab", i + 1, 3))
        eta(Sample("ab", "pair_speedup", float(i + 1), 3.0))
        eta(Sample("ab", "off_tok_s", float(i + 1), 50.0))
    lines = read_log(path)
    samples = [line for line in lines if line["event"] == "Sample"]
    assert len(samples) == 2 and all(s["input"] and "remaining_s" not in s for s in samples)  # read, not shown
    assert lines[0]["of"]["work"]["ab"][2] == [2.0, 0.0, BOTH_ON]
    again = replay(lines)
    shown = [line.get("remaining_s") for line in lines]
    assert [line.get("remaining_s") for line in again] == pytest.approx(shown)
    eta(StepDone("ab", "done"))
    eta(SessionDone(status="complete", run_dir=str(tmp_path)))
    judged = accuracy(read_log(path))
    assert judged is not None and judged.blank == 0  # an input line is neither an estimate nor a blank one
