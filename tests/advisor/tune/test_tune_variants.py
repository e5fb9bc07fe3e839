"""The tuner's knob variants (ngram-mod's n-match, a draft model's p-min): which are probed on which binary,
when one is chosen (only when predicted faster by the method tie margin), and how the choice reaches the facts,
the `tuner` key, the report (en + zh) and the CLI summary."""

from __future__ import annotations

import dataclasses
import io

import pytest

from advisor.cli.summary import print_summary
from advisor.config import FULL, QUICK
from advisor.evidence.schema import Evidence, StepRecord
from advisor.evidence.tuner import KSpeedup, MethodProbe, TuneEvidence, TunerChoice
from advisor.facts.from_evidence import facts_from_evidence
from advisor.recommend.build import recommend
from advisor.report.model import build_report
from advisor.report.render_markdown import render_markdown
from advisor.report.tree import TunerSection
from advisor.report.tuner_text import tuner_sentences
from advisor.run.done import SessionDone
from advisor.tune.choose import KPrediction, MethodPrediction, best_method
from advisor.tune.summary import tuner_summary
from advisor.tune.variants import Variant, knob_defaults, variants
from probes.engines.llamacpp.binary import FlagDialect
from tests.report_sample import sample_decision, sample_run

FLAGS = ("--spec-type", "--spec-ngram-mod-n-max", "--spec-ngram-mod-n-min", "--spec-ngram-mod-n-match",
         "--spec-draft-n-max", "--spec-draft-p-min", "-md")
NEW = FlagDialect("new", ("none", "draft-simple", "ngram-simple", "ngram-mod"), "--spec-draft-n-max", "-md",
                  "--spec-draft-p-min", True, True, flags=FLAGS,
                  defaults={"--spec-ngram-mod-n-match": "24", "--spec-draft-p-min": "0.00"})


def test_the_engine_defaults_come_from_help() -> None:
    defaults = knob_defaults(NEW)
    assert defaults.n_match == 24 and defaults.p_min == 0.0
    assert knob_defaults(None).n_match is None


def test_full_probes_a_shorter_n_match_for_ngram_mod_and_quick_probes_none() -> None:
    assert variants("ngram-mod", False, NEW, FULL) == [Variant(n_match=12)]
    assert variants("ngram-mod", False, NEW, QUICK) == []
    assert variants("ngram-simple", False, NEW, FULL) == []         # the knob is ngram-mod's own


def test_the_engines_own_default_and_unknown_flags_are_not_probed_again() -> None:
    same = dataclasses.replace(FULL, tune_n_match=(24, 12, 12))
    assert variants("ngram-mod", False, NEW, same) == [Variant(n_match=12)]
    no_flag = dataclasses.replace(NEW, flags=tuple(f for f in FLAGS if f != "--spec-ngram-mod-n-match"))
    assert variants("ngram-mod", False, no_flag, FULL) == []
    old = dataclasses.replace(NEW, generation="old")
    assert variants("ngram-mod", False, old, FULL) == [] and variants("draft-simple", True, old, FULL) == []


def test_a_draft_model_gets_the_old_p_min_default_as_its_alternative() -> None:
    assert variants("draft-simple", True, NEW, FULL) == [Variant(p_min=0.75)]
    already = dataclasses.replace(NEW, defaults={"--spec-draft-p-min": "0.75"})
    assert variants("draft-simple", True, already, FULL) == []
    assert variants("draft-simple", False, NEW, FULL) == []         # no draft model, no p-min


def _pred(name: str, speedup: float) -> MethodPrediction:
    row = KPrediction(k=4, speedup=speedup, per_category={"code": speedup}, tokens_per_step=1.5)
    return MethodPrediction(method=name, k_max=16, predictions=(row,), best_k=4, best_speedup=speedup)


@pytest.mark.parametrize(("variant_speedup", "chosen"), [(1.20, "primary"), (1.22, "primary"), (1.30, "variant")])
def test_a_variant_listed_last_wins_only_beyond_the_method_tie_margin(variant_speedup: float, chosen: str) -> None:
    # margin 5 %: 1.22 is within 5 % of 1.20 (1.20 ≥ 1.22 × 0.95) so the default knobs stay; 1.30 is not
    primary, other, variant = _pred("primary", 1.20), _pred("other", 1.0), _pred("variant", variant_speedup)
    best = best_method([primary, other, variant], 0.05)
    assert best is not None and best.method == chosen


VARIANT_ARGV = ("--spec-type", "ngram-mod", "--spec-ngram-mod-n-max", "8", "--spec-ngram-mod-n-min", "8",
                "--spec-ngram-mod-n-match", "12")


def _with_variant_chosen() -> Evidence:
    run = sample_run()
    curve = (KSpeedup(4, 1.10), KSpeedup(8, 1.12))
    better = (KSpeedup(4, 1.25), KSpeedup(8, 1.31))
    probes = (MethodProbe("ngram-mod", 16, curve=curve, best_k=8, best_speedup=1.12),
              MethodProbe("ngram-mod", 16, argv=VARIANT_ARGV, source="probe", curve=better, best_k=8,
                          best_speedup=1.31, n_match=12))
    choice = TunerChoice("ngram-mod", 8, VARIANT_ARGV, 1.31, applied=True, n_match=12)
    tune = TuneEvidence(ks=(4, 8), t1_ms=8.0, methods=probes, choice=choice, default_n_match=24)
    ab = dataclasses.replace(run.steps["ab"].evidence, on_argv=VARIANT_ARGV)  # type: ignore[type-var]
    steps = {**run.steps, "tune": StepRecord("done", evidence=tune), "ab": dataclasses.replace(run.steps["ab"],
                                                                                             evidence=ab)}
    ev = dataclasses.replace(run, steps=steps)
    return dataclasses.replace(ev, tuner=tuner_summary(ev))


def test_the_chosen_variant_is_told_apart_from_the_default_knobs() -> None:
    ev = _with_variant_chosen()
    assert ev.tune is not None and ev.tune.chosen_probe() is ev.tune.methods[1]
    assert ev.tuner is not None and ev.tuner.n_match == 12 and ev.tuner.curve == ev.tune.methods[1].curve
    assert set(ev.tuner.methods) == {"ngram-mod", "ngram-mod n-match=12"}
    facts = facts_from_evidence(ev)
    assert facts["spec.ngram_mod_n_match"] == 12
    rec = recommend(facts)
    assert rec is not None and tuple(rec.argv[-len(VARIANT_ARGV):]) == VARIANT_ARGV


@pytest.mark.parametrize(("lang", "words"), [("en", "engine's default is 24"), ("zh", "引擎默认 24")])
def test_the_report_and_the_cli_name_the_knob(lang: str, words: str) -> None:
    ev = _with_variant_chosen()
    md = render_markdown(build_report(ev, facts_from_evidence(ev), sample_decision()), lang)
    assert "--spec-ngram-mod-n-match 12" in md and words in md and "ngram-mod n-match=12" in md
    out = io.StringIO()
    print_summary(ev, SessionDone(status="complete", run_dir="", verdict=sample_decision()), out, lang=lang)
    assert "--spec-ngram-mod-n-match 12" in out.getvalue()


@pytest.mark.parametrize(("lang", "words"), [("en", "less than 75% sure"), ("zh", "把握低于 75%")])
def test_a_chosen_p_min_is_named_with_the_engines_default(lang: str, words: str) -> None:
    section = TunerSection(method="draft-simple", k=4, applied=True, p_min=0.75, default_p_min=0.0)
    lines = tuner_sentences(section, lang)
    assert any(words in line and "--spec-draft-p-min 0.75" in line and " 0" in line for line in lines)
