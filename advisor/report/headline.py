"""The one headline speedup every reader sees (the CLI's decide and check summary, the window, the report):
the measured A/B when there is one, else the perf model's prediction, always named as which
(`advisor.report.strings.speedup_line` words it). Where the verdict recommends the engine's defaults instead of
the tuner's choice (the choice measured slower than them), the A/B's figure is the choice's, so the headline is
the defaults' speedup chained from the two measured ratios, named as chained. Light on imports: `decide --facts`
uses it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from advisor.numbers import finite
from advisor.report.tree import Headline

if TYPE_CHECKING:  # light on imports: the verdict module is the caller's
    from advisor.decide.verdict import Verdict


def headline(verdict: Verdict | None, facts: Mapping[str, object]) -> Headline:
    """The expected speedup to show under the verdict: measured A/B when there is one (chained to the defaults
    when the verdict recommends them instead of the choice), else the prediction."""
    instead = verdict.defaults_instead if verdict is not None else None
    if instead is not None and (chained := finite(instead.speedup)) is not None:
        # a chained estimate (the A/B ÷ the choice against the defaults), not a measurement: named so
        return Headline(source="chained", speedup=chained, ci_low=finite(instead.low), ci_high=finite(instead.high),
                        level=finite(instead.level))
    speedup = finite(facts.get("ab.speedup"))
    if speedup is not None:
        return Headline(source="measured", speedup=speedup, ci_low=finite(facts.get("ab.ci_low")),
                        ci_high=finite(facts.get("ab.ci_high")), n_prompts=finite(facts.get("ab.n_prompts")),
                        level=finite(facts.get("ab.ci_level")))
    band = verdict.prediction_interval if verdict is not None else None
    if verdict is not None and (predicted := finite(verdict.predicted_speedup)) is not None:
        # a prediction's interval is a predictive one (how far a measurement may fall), at the policy's level
        return Headline(source="prior" if verdict.prediction_is_prior else "predicted", speedup=predicted,
                        ci_low=finite(band.low) if band else None, ci_high=finite(band.high) if band else None,
                        level=finite(band.level) if band else None, claim=band.claim if band else None)
    return Headline()
