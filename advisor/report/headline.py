"""The one headline speedup every reader sees (the CLI's decide and check summary, the window, the report):
the measured A/B when there is one, else the perf model's prediction, always named as which
(`advisor.report.strings.speedup_line` words it). Light on imports: `decide --facts` uses it."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def headline(verdict: Mapping[str, Any], facts: Mapping[str, Any]) -> dict[str, Any]:
    """The expected speedup to show under the verdict: measured A/B when there is one, else the prediction."""
    speedup = _num(facts.get("ab.speedup"))
    if speedup is not None:
        return {"source": "measured", "speedup": speedup, "ci_low": _num(facts.get("ab.ci_low")),
                "ci_high": _num(facts.get("ab.ci_high")), "n_prompts": _num(facts.get("ab.n_prompts")),
                "level": _num(facts.get("ab.ci_level"))}
    predicted = _num(verdict.get("predicted_speedup"))
    if predicted is not None:
        # a prediction's interval is a predictive one (how far a measurement may fall), at the policy's level
        source = "prior" if verdict.get("prediction_is_prior") else "predicted"
        return {"source": source, "speedup": predicted, "ci_low": _num(verdict.get("predicted_speedup_low")),
                "ci_high": _num(verdict.get("predicted_speedup_high")), "n_prompts": None,
                "level": _num(verdict.get("prediction_level")), "claim": verdict.get("prediction_claim")}
    return {"source": None, "speedup": None, "ci_low": None, "ci_high": None, "n_prompts": None}
