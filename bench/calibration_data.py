"""Published speculative-decoding measurements as calibration cases, and the scores the perf model gets on them.

The data is read, never copied: `$SPEC_ADVISOR_CALIBRATION` (a JSON file or a folder of them), else
`<repo>/../shared/calibration/published_train.json`. Each record holds the raw source row (`case`), the
`facts` exactly as `spec-advisor decide --facts` takes them, and the measured `speedup`/`outcome`.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import REPO

DATA_ENV = "SPEC_ADVISOR_CALIBRATION"
DEFAULT_PATH = REPO.parent / "shared" / "calibration" / "published_train.json"
CLEAR_FASTER, CLEAR_SLOWER = 1.05, 0.97  # outcomes in between are too close to 1 to score a direction


@dataclass(frozen=True, slots=True)
class Case:
    """One published measurement."""

    id: str
    source: str
    facts: dict[str, object]
    speedup: float | None
    record: dict[str, Any]

    @property
    def has_acceptance(self) -> bool:
        """The facts carry an acceptance rate or mean length (without one the model does not predict)."""
        return "acceptance.rate" in self.facts or "acceptance.mean_length" in self.facts

    @property
    def clear(self) -> bool:
        """Measured clearly faster (≥ 1.05×) or clearly slower (≤ 0.97×)."""
        return self.speedup is not None and (self.speedup >= CLEAR_FASTER or self.speedup <= CLEAR_SLOWER)


def data_paths() -> list[Path]:
    """The calibration files to read: the env override (file or folder), else the shared training file."""
    override = os.environ.get(DATA_ENV)
    base = Path(override) if override else DEFAULT_PATH
    if base.is_dir():
        return sorted(base.glob("*.json"))
    return [base] if base.is_file() else []


def load(paths: Sequence[Path]) -> list[Case]:
    """Every record of every file, in order."""
    cases: list[Case] = []
    for path in paths:
        for row in json.loads(path.read_text(encoding="utf-8")):
            rec = row.get("case") or {}
            speed = row.get("speedup")
            cases.append(Case(str(rec.get("id", f"{path.stem}#{len(cases)}")), str(rec.get("source", "")),
                              dict(row.get("facts") or {}),
                              float(speed) if isinstance(speed, int | float) else None, rec))
    return cases


@dataclass(slots=True)
class Scored:
    """A case with the model's prediction and verdict (None when the model could not predict)."""

    case: Case
    predicted: float | None
    verdict: str
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def rel_err(self) -> float | None:
        """|predicted / measured − 1|, when both exist."""
        if self.predicted is None or self.case.speedup is None or self.case.speedup <= 0:
            return None
        return abs(self.predicted / self.case.speedup - 1.0)


def nearest_rank(values: Sequence[float], q: float) -> float:
    """The q-quantile by nearest rank (no interpolation), so it is always one of the values."""
    ordered = sorted(values)
    return ordered[max(math.ceil(q * len(ordered)) - 1, 0)]


def summary(scored: Sequence[Scored]) -> dict[str, Any]:
    """Direction accuracy (clear outcome, acceptance known), median/p90 relative error, false SKIPs."""
    direction = [s for s in scored if s.case.clear and s.case.has_acceptance and s.predicted is not None]
    right = [s for s in direction if ((s.predicted or 0.0) > 1.0) == ((s.case.speedup or 0.0) > 1.0)]
    errs = [e for s in scored if (e := s.rel_err) is not None]
    false_skip = [s for s in scored if s.verdict == "SKIP" and (s.case.speedup or 0.0) > 1.0]
    true_skip = [s for s in scored if s.verdict == "SKIP" and s.case.speedup is not None and s.case.speedup < 1.0]
    # how far the model under-predicts a gain: the margin prediction.toml's prior-based SKIP must keep
    under = [(s.case.speedup or 0.0) / s.predicted for s in scored
             if s.predicted and s.case.speedup is not None and s.case.speedup > 1.0]
    return {
        "cases": len(scored),
        "with_speedup": sum(1 for s in scored if s.case.speedup is not None),
        "predicted": sum(1 for s in scored if s.predicted is not None),
        "no_prediction_no_acceptance": sum(1 for s in scored if not s.case.has_acceptance),
        "direction_cases": len(direction),
        "direction_right": len(right),
        "direction_accuracy": len(right) / len(direction) if direction else None,
        "direction_wrong": [s.case.id for s in direction if s not in right],
        "error_cases": len(errs),
        "median_rel_err": nearest_rank(errs, 0.5) if errs else None,
        "p90_rel_err": nearest_rank(errs, 0.9) if errs else None,
        "false_skip": len(false_skip),
        "false_skip_ids": [s.case.id for s in false_skip],
        "true_skip": len(true_skip),
        "max_underprediction_of_a_gain": max(under, default=None),
        "verdicts": {v: sum(1 for s in scored if s.verdict == v) for v in ("ENABLE", "SKIP", "INCONCLUSIVE")},
    }


def worst(scored: Sequence[Scored], n: int = 10) -> list[Scored]:
    """The n cases with the largest |log(predicted/measured)|."""
    rated = [s for s in scored if s.rel_err is not None]
    return sorted(rated, key=lambda s: -abs(math.log((s.predicted or 1.0) / (s.case.speedup or 1.0))))[:n]


# A source's plain step this many times the one the model derives from the facts means most of the step is
# engine time (host overhead, eager kernels) that no fact carries; only a measured baseline can tell the model.
STEP_GAP_FACTOR = 2.0


def outside_facts(case: Case, tau: float | None,
                  with_baseline: Callable[[dict[str, object]], float | None],
                  plain_step_ms: float | None = None) -> list[str]:
    """Why a case may be outside what its facts can describe, from the record alone (no per-case lists).

    `plain_step_ms` is the model's plain step for the batch from the facts as published (ms)."""
    notes: list[str] = []
    est = set(case.record.get("estimated_fields") or [])
    if "speedup" in est:
        notes.append("the source's speedup is itself an estimate (midpoint or placeholder)")
    if est & {"tau", "alpha", "gamma"}:
        notes.append(f"the acceptance inputs ({', '.join(sorted(est & {'tau', 'alpha', 'gamma'}))}) are estimates")
    if tau is not None and case.speedup is not None and case.speedup > tau * 1.02:
        notes.append(f"measured {case.speedup:.2f}× exceeds the {tau:.2f} tokens per step: no step-cost model can "
                     "reach it (the gain comes from outside decode, e.g. a warm cache or a changed baseline)")
    base = case.record.get("base_tps")
    single = case.facts.get("workload.concurrency", 1) == 1 and case.record.get("concurrency_n") == 1
    if isinstance(base, int | float) and base > 0 and single and "baseline.decode_tok_s" not in case.facts:
        p = with_baseline({**case.facts, "baseline.decode_tok_s": float(base)})
        if p is not None:
            notes.append(f"the facts lack the source's baseline {base:g} tok/s; with it the model predicts {p:.2f}×")
    batch = case.record.get("concurrency_n")
    if isinstance(base, int | float) and base > 0 and isinstance(batch, int) and batch >= 1 and plain_step_ms:
        # a serving benchmark's tok/s is the batch's total; one stream's step takes batch ÷ that
        step = 1000.0 * batch / base
        if step > STEP_GAP_FACTOR * plain_step_ms:
            notes.append(f"the source's baseline ({base:g} tok/s over {batch} stream{'s' if batch > 1 else ''}: a "
                         f"{step:.0f} ms step) is {step / plain_step_ms:.1f}× the {plain_step_ms:.0f} ms step the "
                         "facts give: the engine's own per-step time dominates, and no fact carries it")
    return notes
