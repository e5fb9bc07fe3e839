"""How long a check will take, said before it starts: the ETA's own plan (advisor/run/eta.py) at a known pace.

The units and model loads are the ones the live clock counts (`planned_units`, `planned_restarts`, the tuner's
from steps/tune_plan.py), drawn from the budget and the bundled prompts before any engine runs. What a unit
costs is only known from a run on this machine, so the pace is, in order:
- the last complete check of the same model and engine in the history: its wall time ÷ its own planned units
  (models and machines differ by 100×; only a run of this model here says how fast it is);
- for the demo model, `policy.eta.demo_unit_s` (rules/policy.toml, from the benchmark's quick checks);
- otherwise none: the plan's size is said, and the clock starts after the first request.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from advisor.config import CheckConfig, config_from_dict
from advisor.core.policy import Policy
from advisor.errors import UserError
from advisor.history.schema import StoreError, default_db_path
from advisor.history.store import RunStore
from advisor.run.budget import sizable
from advisor.run.eta import clock_text, planned_restarts, planned_units
from advisor.steps.plan import plan_workload
from advisor.steps.tune_plan import plan_tune
from probes.engines.llamacpp.binary import FlagDialect

Basis = Literal["history", "demo", "none"]
HISTORY_RUNS = 50  # the newest runs looked at for one of the same model


@dataclass(frozen=True, slots=True)
class PlannedDuration:
    """The plan's size (units as the ETA counts them, model loads) and its seconds at the pace of `basis`."""

    units: int
    loads: int
    seconds: float | None  # None: no pace known for this model on this machine
    basis: Basis
    reference: str | None = None  # the run whose pace was used (basis "history")


def plan_size(config: CheckConfig, dialect: FlagDialect | None, block_pairs: int) -> tuple[int, int]:
    """(units, model loads) of `config` as the ETA will plan them; loads count the servers' first starts."""
    plan = plan_workload(config)
    managed = config.mode == "managed"
    tune = plan_tune(config, plan, dialect, managed=managed, k_max=None)
    units = sum(planned_units(config, plan, tune).values())
    if not managed:
        return units, 0
    restarts = planned_restarts(config, plan, single=False, block_pairs=block_pairs, tune=tune)
    return units, 2 + sum(restarts.values())  # the OFF and ON servers' first starts, then every restart


def _same_setup(stored: dict[str, Any], config: CheckConfig) -> bool:
    """The stored run measured the same model with the same engine (what sets the pace)."""
    mine = config.to_dict()
    return all(stored.get(k) == mine.get(k) for k in ("mode", "model", "llama_server", "engine_url", "draft_model",
                                                       "spec_type"))


def _seconds(start: str, end: str) -> float | None:
    try:
        return (datetime.fromisoformat(end.replace("Z", "+00:00"))
                - datetime.fromisoformat(start.replace("Z", "+00:00"))).total_seconds()
    except ValueError:
        return None


def history_pace(config: CheckConfig, dialect: FlagDialect | None, block_pairs: int,
                 db: Path | None = None) -> tuple[float, str] | None:
    """(seconds per unit, run id) of the newest complete run of the same setup in the history, else None."""
    path = db or default_db_path()
    if not path.is_file():
        return None
    try:
        with RunStore(path) as store:
            for summary in store.list_runs(HISTORY_RUNS):
                if summary.status != "complete" or not summary.finished_utc:
                    continue
                record = store.get_run(summary.run_id)
                if record is None or not _same_setup(dict(record.config), config):
                    continue
                wall = _seconds(summary.created_utc, summary.finished_utc)
                units, _ = plan_size(config_from_dict(dict(record.config)), dialect, block_pairs)
                if wall and wall > 0 and units:
                    return wall / units, summary.run_id
    except (UserError, StoreError, OSError, ValueError, KeyError, TypeError):
        return None  # an unreadable history or a stored config this version cannot plan: no pace from it
    return None


def plan_duration(config: CheckConfig, policy: Policy, dialect: FlagDialect | None = None,
                  db: Path | None = None) -> PlannedDuration:
    """How long `config` will take at the best pace known (see the module notes)."""
    block = policy.arms.single_block_pairs
    units, loads = plan_size(config, dialect, block)
    if (pace := history_pace(config, dialect, block, db)) is not None:
        return PlannedDuration(units, loads, units * pace[0], "history", pace[1])
    demo = config.mode == "managed" and config.model is None and config.llama_server is None
    if demo:
        seconds = units * policy.eta.demo_unit_s
        if sizable(config):  # a full check sizes its steps to the budget once the baseline has timed the machine
            seconds = min(seconds, policy.budget.full_check_s)
        return PlannedDuration(units, loads, seconds, "demo")
    return PlannedDuration(units, loads, None, "none")


def duration_text(d: PlannedDuration, text: Callable[..., str]) -> str:
    """`about 2:10 (64 units, 7 model loads; as your last check of this model took)` through `text(key, …)`
    (the CLI's and the window's tables both have the `plan.*` keys)."""
    size = text("plan.size", units=d.units, loads=d.loads)
    if d.seconds is None:
        return text("plan.unknown", size=size)
    return text(f"plan.{d.basis}", clock=clock_text(d.seconds), size=size)
