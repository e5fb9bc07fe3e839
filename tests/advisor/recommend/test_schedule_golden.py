"""Per-batch-size speculation schedules: hand-built sweeps → bands → each engine's exact emitted settings.

Four sweeps: every level pays; clearly slower from c = 4; unclear everywhere; and predictions at other draft
lengths that change the best k per band. The bands are checked as literals here; the emitted command, steps and
notes for vLLM (three release lines), TensorRT-LLM (both draft_len_schedule forms), SGLang and llama.cpp are in
tests/fixtures/schedule/. Regenerate those after an intended change with SPEC_ADVISOR_UPDATE_GOLDEN=1 and review
the diff.
"""

from __future__ import annotations

import itertools
import json
import os
import shlex
from typing import Any

import pytest

from advisor.core.policy import default_policy
from advisor.deploy.yaml_load import load_all
from advisor.recommend.build import recommend
from advisor.recommend.engine_schedule import release
from advisor.recommend.schedule import Band, LevelResult, Predictions, Schedule, build_schedule, cutoffs
from advisor.recommend.types import Recommendation
from tests.paths import FIXTURES

GOLDEN = FIXTURES / "schedule"
BREAK_EVEN = default_policy().batch.break_even
K_STAR = 3


def _lv(c: int, speedup: float, low: float, high: float) -> LevelResult:
    return LevelResult(c, speedup, low, high)


SWEEPS: dict[str, tuple[tuple[LevelResult, ...], Predictions | None]] = {
    "all-paying": ((_lv(1, 1.6, 1.4, 1.8), _lv(2, 1.4, 1.2, 1.6), _lv(4, 1.2, 1.05, 1.35)), None),
    "stops-at-4": ((_lv(1, 1.5, 1.3, 1.7), _lv(2, 1.05, 0.9, 1.2), _lv(4, 0.8, 0.7, 0.9), _lv(8, 0.7, 0.6, 0.8)),
                   None),
    "unclear": ((_lv(1, 1.1, 0.8, 1.4), _lv(2, 1.0, 0.7, 1.3), _lv(4, 0.95, 0.6, 1.3)), None),
    "predicted-k": ((_lv(1, 1.6, 1.4, 1.8), _lv(2, 1.4, 1.2, 1.6), _lv(4, 1.2, 1.05, 1.35), _lv(8, 1.1, 1.02, 1.2)),
                    {1: {3: 1.5, 5: 1.7}, 2: {3: 1.4, 4: 1.45, 5: 1.3}, 4: {1: 1.2, 3: 1.1}, 8: {1: 1.05, 3: 0.98}}),
}
BANDS = {
    "all-paying": (Band(1, None, 3),),
    "stops-at-4": (Band(1, 3, 3), Band(4, None, 0)),
    "unclear": (Band(1, None, 3),),
    "predicted-k": (Band(1, 1, 5), Band(2, 3, 4), Band(4, None, 1)),
}
# (engine label, facts) for every engine form; the method is EAGLE-3 wherever the engine can schedule it.
EAGLE = {"spec.method": "eagle3", "spec.draft_model": "repo/eagle3-draft", "spec.draft_max": K_STAR}
ENGINES: dict[str, dict[str, object]] = {
    "vllm-0.24": {"engine.kind": "vllm", "engine.version": "0.24.1", **EAGLE},
    "vllm-0.15": {"engine.kind": "vllm", "engine.version": "0.15.0", **EAGLE},
    "vllm-0.9": {"engine.kind": "vllm", "engine.version": "0.9.2", **EAGLE},
    "trtllm-1.3": {"engine.kind": "tensorrt-llm", "engine.version": "1.3.0rc2", **EAGLE},
    "trtllm-1.2": {"engine.kind": "tensorrt-llm", "engine.version": "1.2.1", **EAGLE},
    "sglang": {"engine.kind": "sglang", **EAGLE},
    "sglang-ngram": {"engine.kind": "sglang", "spec.method": "ngram", "spec.draft_max": K_STAR},
    "llamacpp": {"engine.kind": "llama.cpp", "spec.method": "ngram-mod", "spec.draft_max": K_STAR,
                 "spec.argv": f"--spec-type ngram-mod --spec-ngram-mod-n-max {K_STAR}", "workload.concurrency": 1},
}


def _schedule(name: str) -> Schedule:
    levels, predicted = SWEEPS[name]
    return build_schedule(levels, K_STAR, BREAK_EVEN, predicted)


def _text(r: Recommendation) -> str:
    lines = [f"$ {shlex.join(r.argv)}"] if r.argv else []
    lines += [f"step: {s}" for s in r.steps]
    lines += [f"note: {n}" for n in r.notes]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", SWEEPS)
def test_bands(name: str) -> None:
    s = _schedule(name)
    assert s.bands == BANDS[name]
    assert s.bands[0].low == 1 and all(b.high is not None and b.high + 1 == n.low
                                       for b, n in itertools.pairwise(s.bands))


def test_cutoffs_and_unclear_levels() -> None:
    stops = _schedule("stops-at-4")
    assert (stops.stops_paying_at, stops.off_from, stops.unclear) == (4, 4, (2,))
    assert cutoffs(SWEEPS["stops-at-4"][0], BREAK_EVEN).pays_up_to == 1
    assert cutoffs(SWEEPS["all-paying"][0], BREAK_EVEN).pays_up_to == 4
    unclear = _schedule("unclear")
    assert (unclear.stops_paying_at, unclear.unclear) == (None, (1, 2, 4))
    assert cutoffs(SWEEPS["unclear"][0], BREAK_EVEN).pays_up_to is None


def test_a_prediction_never_overrules_a_clear_slowdown() -> None:
    levels, _ = SWEEPS["stops-at-4"]
    s = build_schedule(levels, K_STAR, BREAK_EVEN, {4: {1: 1.4}, 8: {1: 1.3}, 2: {3: 0.9, 2: 0.95}})
    # c = 2 was unclear and no k is predicted to beat break-even there: off from 2; 4 and up stay off
    assert s.bands == (Band(1, 1, 3), Band(2, None, 0))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", SWEEPS)
def test_golden(name: str, engine: str) -> None:
    r = recommend(ENGINES[engine], schedule=_schedule(name))
    assert r is not None
    text = _text(r)
    path = GOLDEN / f"{name}.{engine}.txt"
    if os.environ.get("SPEC_ADVISOR_UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{path.name} differs; regenerate if intended"


def _vllm_config(r: Recommendation | None) -> dict[str, Any]:
    assert r is not None
    config: dict[str, Any] = json.loads(r.argv[r.argv.index("--speculative-config") + 1])
    return config


def test_vllm_schedule_keeps_its_own_rules() -> None:
    # vLLM's validator: ranges start at 1, do not overlap, and no k exceeds num_speculative_tokens
    for name in SWEEPS:
        config = _vllm_config(recommend(ENGINES["vllm-0.24"], schedule=_schedule(name)))
        ranges = config.get("num_speculative_tokens_per_batch_size")
        if ranges is None:
            continue
        assert isinstance(ranges, list) and ranges[0][0] == 1
        assert all(a[1] < b[0] for a, b in itertools.pairwise(ranges))
        assert all(k <= config["num_speculative_tokens"] for _, _, k in ranges)


def test_trtllm_yaml_keeps_whole_number_keys() -> None:
    r = recommend(ENGINES["trtllm-1.3"], schedule=_schedule("predicted-k"))
    assert r is not None
    body = r.steps[0].split("\n", 1)[1]
    spec: dict[str, Any] = load_all(body)[0]["speculative_config"]  # type: ignore[index]
    assert spec["draft_len_schedule"] == {1: 5, 3: 4, 8: 1}
    assert spec["max_draft_len"] == 5 == spec["draft_len_schedule"][min(spec["draft_len_schedule"])]


def test_from_flat_facts_the_cutoff_reaches_every_engine() -> None:
    facts = {"batch.rounds": 3, "batch.stops_paying_at": 4, "batch.max_concurrency_tested": 8}
    vllm = recommend(ENGINES["vllm-0.24"] | facts)
    assert _vllm_config(vllm)["num_speculative_tokens_per_batch_size"] == [[1, 3, 3], [4, 8, 0]]
    trt = recommend(ENGINES["trtllm-1.2"] | facts)
    assert trt is not None and "max_concurrency: 3" in trt.steps[0]
    llama = recommend(ENGINES["llamacpp"] | facts)
    assert llama is not None and any("-np 3" in n for n in llama.notes)


def test_release_reads_engine_versions() -> None:
    assert release("v0.24.1rc2") == (0, 24) and release("1.3.0rc2") == (1, 3) and release("b9012") is None
