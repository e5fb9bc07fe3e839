"""The tuner on the real engine: the gain model against a real run at a shorter draft, the synthetic surface,
and a check whose ON server ends up running exactly the chosen flags (with the user's own options)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from advisor.arms.server import ManagedServer, ServerConfig
from advisor.config import QUICK, CheckConfig
from advisor.events import Event, Progress, RunPlanned
from advisor.run.session import Session
from advisor.tune.gain import RunShape, steps_at
from probes.engines.base import SpecCounters
from probes.engines.llamacpp.adapter import LlamaCppAdapter

pytestmark = pytest.mark.engine

# Copy-heavy: the answer repeats most of the prompt, so an n-gram drafter has long runs to copy.
COPY_PROMPT = ("Rewrite this code with the variable total renamed to acc:\n\ndef sum_list(xs):\n    total = 0\n"
               "    for x in xs:\n        total += x\n    return total\n\ndef mean(xs):\n    total = sum_list(xs)\n"
               "    return total / len(xs)\n")


def _counted_run(binary: Any, model: Path, tmp: Path, k: int) -> tuple[SpecCounters, int]:
    config = ServerConfig(model=model, spec_type="ngram-mod", draft_max=k, ctx_size=2048, threads=2, label=f"k{k}")
    with ManagedServer(binary, config, tmp).start() as server:
        adapter = LlamaCppAdapter(server.base_url)
        result = adapter.complete(COPY_PROMPT, max_tokens=160, temperature=0.0, seed=1)
        counters = adapter.spec_counters()
        adapter.close()
    assert isinstance(counters, SpecCounters), counters
    return counters, result.completion_tokens


def test_a_run_at_the_longest_draft_predicts_the_run_at_a_shorter_one(llama_binary: Any, demo_model: Path,
                                                                       tmp_path: Path) -> None:
    long_run, n = _counted_run(llama_binary, demo_model, tmp_path, 16)
    short_run, n_short = _counted_run(llama_binary, demo_model, tmp_path, 4)
    assert n == n_short  # greedy decoding: the same text whatever the drafts
    assert long_run.drafts > 0, "the copy prompt should give ngram-mod something to draft"
    shape = RunShape(k_max=16, generated=n - 1, drafts=long_run.drafts, draft_tokens=long_run.draft_tokens,
                     accepted_per_position=tuple(long_run.accepted_per_position))
    replay = steps_at(shape, 4)
    print(f"\nk=4: predicted {replay.drafting_steps:.1f} drafting steps, {replay.accepted:.0f} accepted; "
          f"measured {short_run.drafts:.0f}, {short_run.accepted_tokens:.0f}")
    assert replay.drafting_steps == pytest.approx(short_run.drafts, rel=0.2, abs=2)
    assert replay.accepted == pytest.approx(short_run.accepted_tokens, rel=0.1, abs=3)


def _tune_config(tmp_path: Path, **changes: Any) -> CheckConfig:
    budget = dataclasses.replace(QUICK, max_tokens=48, baseline_prompts=3, acceptance_per_category=1,
                                 canary_repeats=2, canary_reruns=1, verify_repeats=2, verify_depth_tokens=128,
                                 warmup_requests=1, surface_points=((4, 2.5),), surface_requests=1,
                                 ab_max_pairs=3, ab_vs_default_pairs=2)
    return CheckConfig(quick=True, steps=("baseline", "acceptance", "verify", "tune", "ab"), out_dir=tmp_path / "run",
                       budget_override=budget, threads=2, **changes)


def test_the_tuner_chooses_restarts_the_on_server_with_the_choice_and_keeps_the_users_options(
        llama_binary: Any, demo_model: Path, tmp_path: Path) -> None:
    events: list[Event] = []
    session = Session(_tune_config(tmp_path, server_args=("-b", "256")), subscribers=[events.append])
    done = session.run()
    assert done.status == "complete", done.message
    evidence = json.loads((tmp_path / "run" / "evidence.json").read_text())
    tune = evidence["steps"]["tune"]
    assert tune["status"] == "done", tune.get("reason")
    ev = tune["evidence"]
    assert ev["ks"] == [1, 2, 3, 4, 6, 8, 12, 16]
    primary = ev["methods"][0]
    assert primary["method"] == "ngram-mod" and primary["k_max"] == 16
    assert [p["k"] for p in primary["curve"]] == ev["ks"]
    choice = ev["choice"]
    assert choice["applied"] and choice["k"] in ev["ks"]
    # the ON server now runs the chosen flags, exactly, and the user's own options on both arms
    arms = session.arms
    assert arms is not None and arms.on is not None and arms.off is not None
    assert tuple(arms.on.spec_argv) == tuple(choice["argv"])
    assert choice["argv"][choice["argv"].index("--spec-ngram-mod-n-max") + 1] == str(choice["k"])
    for command in evidence["environment"]["command_lines"].values():
        assert command[command.index("-b") + 1] == "256"
    # the synthetic surface, where this build has it: a measured point beside the model's
    if evidence["environment"]["binary"]["dialect"]["has_spec_synth"]:
        (point,) = ev["surface"]
        assert point["k"] == 4 and point["speedup"] > 0
        assert point["predicted_speedup"] is not None and point["tau_measured"] is not None
    assert evidence["tuner"]["k"] == choice["k"]
    # the A/B measured the choice, then the choice against the engine's defaults (k ≤ 16 is never the default
    # n-max), both on fresh servers; the OFF server is back to no speculation afterwards
    ab = evidence["steps"]["ab"]["evidence"]
    assert ab["on_argv"] == choice["argv"]
    vs = ab["vs_default"]
    assert vs["chosen_argv"] == choice["argv"] and vs["default_argv"] != choice["argv"]
    assert "--spec-ngram-mod-n-max" not in vs["default_argv"] and vs["n_pairs"] == 2 and vs["speedup"] > 0
    assert evidence["tuner"]["vs_default_speedup"] == vs["speedup"]
    assert arms.off.spec_argv == ()
    phases = [(r["arm"], r["before"]) for r in evidence["restarts"]]
    assert ("off", "ab:vs-default") in phases and ("off", "ab:restore") in phases
    # the A/B measured the server the choice started and warmed (nothing measured it in between): no second
    # restart of the same settings
    choice_generation = next(r["generation"] for r in evidence["restarts"] if r["before"] == "tune:choice")
    assert ("on", "ab") not in phases and ab["pool"] == {"fresh": True, "generation": choice_generation}
    # the ON server the session started had only answered zero-token probes: acceptance took it as it was
    assert ("on", "acceptance") not in phases
    assert evidence["steps"]["acceptance"]["evidence"]["pool"]["fresh"] is True
    assert evidence["steps"]["acceptance"]["evidence"]["pool"]["generation"] < choice_generation
    # the ETA knew the tuner's work before it started: its units as the step reported them, its model loads;
    # told again after the verify step (the synthetic points priced by the curve), with the same units
    first, planned = [e for e in events if isinstance(e, RunPlanned)]
    assert {s: n for s, n in first.units.items() if s != "ab"} == {s: n for s, n in planned.units.items() if s != "ab"}
    assert first.restarts == planned.restarts
    # the A/B's pairs with those that the loops the baseline and acceptance step met will lose (none fewer)
    assert planned.units["ab"] >= first.units["ab"]
    reported = [e for e in events if isinstance(e, Progress) and e.step == "tune" and e.done >= 1]
    assert planned.units["tune"] == len(reported) > 0
    assert planned.restarts["tune"] == sum(r["before"].startswith("tune:") for r in evidence["restarts"])
