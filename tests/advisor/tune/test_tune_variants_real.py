"""The tuner's knob variants on the real engine: ngram-mod with a shorter --spec-ngram-mod-n-match and a draft
model with another --spec-draft-p-min are probed at the longest draft and predicted like other methods; once
chosen, the restarted ON server, the A/B and the recommendation all carry the variant's flag.

Which settings win depends on this machine's timings, so each test makes the tuner take the variant (the last
candidate, where the tuner lists variants) after the real choice was computed: the plumbing is then exercised
every run. The choice itself is unit-tested in tests/advisor/tune/test_tune_variants.py.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from advisor.config import QUICK, CheckConfig
from advisor.evidence.io import evidence_from_json
from advisor.facts.from_evidence import facts_from_evidence
from advisor.recommend.build import recommend
from advisor.run.session import Session
from advisor.steps import tune as tune_step
from advisor.tune.choose import MethodPrediction, best_method
from advisor.workloads import load_library

pytestmark = pytest.mark.engine


def _prompts_file(tmp_path: Path) -> Path:
    """The library's code and refactor prompts as the user's file: two categories (not nine) keep each probe
    to two requests, and both categories copy from the prompt, so the n-gram drafter has something to draft."""
    path = tmp_path / "prompts.jsonl"
    rows = [json.dumps({"id": p.id, "category": p.category, "prompt": p.text})
            for p in load_library(categories=("code", "refactor"))]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def _config(tmp_path: Path, steps: tuple[str, ...], **budget: Any) -> dict[str, Any]:
    sized = dataclasses.replace(QUICK, max_tokens=48, baseline_prompts=3, acceptance_per_category=1,
                                canary_repeats=2, canary_reruns=1, verify_repeats=2, verify_depth_tokens=128,
                                warmup_requests=1, surface_points=(), ab_max_pairs=3, tune_probe_per_category=1,
                                **budget)
    return {"quick": True, "steps": steps, "out_dir": tmp_path / "run", "budget_override": sized, "threads": 2,
            "prompts_file": _prompts_file(tmp_path)}


def _take_the_variant(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make the tuner choose its last candidate (the variant); returns the real choice's method, once made."""
    real: list[str] = []

    def choose(candidates: Sequence[MethodPrediction], margin: float) -> MethodPrediction | None:
        best = best_method(candidates, margin)
        real.append("variant" if best is candidates[-1] else "default knobs" if best is not None else "none")
        return candidates[-1] if candidates else None

    monkeypatch.setattr(tune_step, "best_method", choose)
    return real


def _run(config: dict[str, Any]) -> tuple[Session, dict[str, Any]]:
    session = Session(CheckConfig(**config))
    done = session.run()
    assert done.status == "complete", done.message
    return session, json.loads((config["out_dir"] / "evidence.json").read_text())


def _flag(argv: Sequence[str], flag: str) -> str | None:
    return argv[argv.index(flag) + 1] if flag in argv else None


def test_a_shorter_n_match_is_probed_predicted_and_carried_when_chosen(
        llama_binary: Any, demo_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = _take_the_variant(monkeypatch)
    config = _config(tmp_path, ("baseline", "acceptance", "verify", "tune", "ab"), tune_n_match=(12,),
                     ab_vs_default_pairs=2)
    session, evidence = _run(config)
    ev = evidence["steps"]["tune"]["evidence"]
    primary, variant = ev["methods"][0], ev["methods"][-1]
    assert primary["method"] == variant["method"] == "ngram-mod"
    assert primary["n_match"] is None and variant["n_match"] == 12 and variant["source"] == "probe"
    assert _flag(variant["argv"], "--spec-ngram-mod-n-match") == "12"      # the probe's server ran it
    assert _flag(primary["argv"], "--spec-ngram-mod-n-match") is None      # step 2 ran the engine's default
    assert [p["k"] for p in variant["curve"]] == ev["ks"] and variant["best_speedup"] > 0
    assert ev["default_n_match"] == 24                                     # read from this binary's --help
    # two categories: the cost fit takes one row per prompt, each with its own counters and depth
    acceptance = evidence["steps"]["acceptance"]["evidence"]
    assert set(acceptance["per_prompt"]) == {r["prompt_id"] for r in acceptance["samples"]}
    assert all(r["decode_ms"] and r["depth_tokens"] and r["drafts"] is not None
               for r in acceptance["per_prompt"].values())
    print(f"\nbest predicted: default n-match {primary['best_speedup']:.3f}× at k={primary['best_k']}, "
          f"n-match 12 {variant['best_speedup']:.3f}× at k={variant['best_k']}; the tuner's own pick: {real[0]}")
    choice = ev["choice"]
    assert choice["n_match"] == 12 and choice["applied"] and choice["k"] == variant["best_k"]
    arms = session.arms
    assert arms is not None and arms.on is not None and arms.on.config is not None
    assert arms.on.config.n_match == 12 and tuple(arms.on.spec_argv) == tuple(choice["argv"])
    assert _flag(choice["argv"], "--spec-ngram-mod-n-match") == "12"
    ab = evidence["steps"]["ab"]["evidence"]
    assert ab["on_argv"] == choice["argv"]                                 # the A/B measured the variant
    assert _flag(ab["vs_default"]["default_argv"], "--spec-ngram-mod-n-match") is None  # defaults are defaults
    rec = recommend(facts_from_evidence(evidence_from_json(evidence)))
    assert rec is not None and tuple(rec.argv[-len(choice["argv"]):]) == tuple(choice["argv"])
    assert evidence["tuner"]["n_match"] == 12


def test_a_draft_models_p_min_is_probed_and_carried_when_chosen(
        llama_binary: Any, demo_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = _take_the_variant(monkeypatch)
    # the demo has one model: it drafts for itself, which is enough to exercise the flags end to end
    config = _config(tmp_path, ("baseline", "acceptance", "verify", "tune", "ab"), tune_p_min=(0.75,))
    config |= {"spec_type": "draft-simple", "draft_model": demo_model}
    session, evidence = _run(config)
    ev = evidence["steps"]["tune"]["evidence"]
    primary, variant = ev["methods"][0], ev["methods"][-1]
    assert primary["method"] == variant["method"] == "draft-simple"
    assert primary["p_min"] is None and variant["p_min"] == 0.75
    assert _flag(variant["argv"], "--spec-draft-p-min") == "0.75"
    assert _flag(primary["argv"], "--spec-draft-p-min") is None
    assert variant["draft_cost_ratio"] == primary["draft_cost_ratio"] and variant["curve"]
    assert ev["default_p_min"] == 0.0
    print(f"\nbest predicted: default p-min {primary['best_speedup']:.3f}×, p-min 0.75 "
          f"{variant['best_speedup']:.3f}×; the tuner's own pick: {real[0]}")
    choice = ev["choice"]
    assert choice["p_min"] == 0.75 and choice["applied"]
    arms = session.arms
    assert arms is not None and arms.on is not None
    assert tuple(arms.on.spec_argv) == tuple(choice["argv"]) and _flag(choice["argv"], "--spec-draft-p-min") == "0.75"
    assert evidence["steps"]["ab"]["evidence"]["on_argv"] == choice["argv"]
    facts = facts_from_evidence(evidence_from_json(evidence))
    assert facts["spec.draft_p_min"] == 0.75
    rec = recommend(facts)
    assert rec is not None and tuple(rec.argv[-len(choice["argv"]):]) == tuple(choice["argv"])
