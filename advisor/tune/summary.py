"""The `tuner` key: the tuner's choice and curve beside the A/B that measured the choice."""

from __future__ import annotations

from advisor.evidence.schema import Evidence
from advisor.evidence.tuner import TunerSummary


def tuner_summary(evidence: Evidence) -> TunerSummary | None:
    """The summary when the tuner chose something; the A/B figures only when it measured that choice."""
    tune = evidence.tune
    if tune is None or tune.choice is None:
        return None
    choice = tune.choice
    chosen = tune.chosen_probe()
    ab = evidence.ab
    measured_choice = ab is not None and choice.applied and tuple(ab.on_argv) == tuple(choice.argv)
    speedup = ab.speedup if ab is not None and measured_choice else None
    vs = ab.vs_default if ab is not None and measured_choice else None
    return TunerSummary(
        method=choice.method, k=choice.k, argv=choice.argv, predicted_speedup=choice.predicted_speedup,
        curve=chosen.curve if chosen is not None else (),
        measured_speedup=speedup,
        measured_ci_low=ab.ci_low if ab is not None and measured_choice else None,
        measured_ci_high=ab.ci_high if ab is not None and measured_choice else None,
        prediction_rel_err=(choice.predicted_speedup / speedup - 1.0) if speedup else None,
        methods={m.label: m.best_speedup for m in tune.methods if m.best_speedup is not None},
        n_match=choice.n_match, p_min=choice.p_min,
        vs_default_speedup=vs.speedup if vs else None, vs_default_ci_low=vs.ci_low if vs else None,
        vs_default_ci_high=vs.ci_high if vs else None, default_argv=vs.default_argv if vs else ())
