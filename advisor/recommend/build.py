"""Exact settings for the user's engine and version (engine-facts.md §1.6, §2.3, §3, §4).

For llama.cpp only flags the probed dialect has are emitted; anything uncertain becomes a note.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from advisor import methods
from advisor.recommend.alternatives import alternatives
from advisor.recommend.engine_schedule import (
    EngineForm,
    llamacpp_form,
    sglang_form,
    trtllm_form,
    unclear_note,
    vllm_form,
)
from advisor.recommend.llamacpp import DRAFT_PLACEHOLDER, parallel_notes, recommended_args
from advisor.recommend.schedule import Schedule, cutoff_schedule
from advisor.recommend.tgi_trtllm import tgi, trtllm
from advisor.recommend.types import Recommendation

__all__ = ["Recommendation", "alternatives", "recommend"]

DEFAULT_DRAFT_MAX = 3  # llama.cpp --spec-draft-n-max default (engine-facts.md §1.6)
SGLANG_SCHEDULE_FILE = "spec-schedule.json"


def _s(facts: Mapping[str, object], name: str) -> str:
    v = facts.get(name)
    return v if isinstance(v, str) else ""


def _vllm(facts: Mapping[str, object], method: str, n: int, form: EngineForm) -> tuple[str, ...]:
    family, model = methods.family(method), _s(facts, "spec.draft_model") or DRAFT_PLACEHOLDER
    config: dict[str, object]
    if family == "ngram":
        config = {"method": "ngram", "num_speculative_tokens": n, "prompt_lookup_max": 4}
    elif family == "mtp":
        config = {"method": "mtp", "num_speculative_tokens": n}
    elif family == "eagle3":
        config = {"method": "eagle3", "model": model, "num_speculative_tokens": n}
    else:
        config = {"method": "draft_model", "model": model, "num_speculative_tokens": n}
    return ("--speculative-config", json.dumps({**config, **form.config}, separators=(",", ":")))


def _sglang(facts: Mapping[str, object], method: str, n: int,
            form: EngineForm) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(argv, steps): the steps save the per-batch-size schedule when there is one (EAGLE/EAGLE-3 only)."""
    family, model = methods.family(method), _s(facts, "spec.draft_model") or DRAFT_PLACEHOLDER
    if family == "ngram":
        return ("--speculative-algorithm", "NGRAM", "--speculative-num-draft-tokens", str(n + 1)), ()
    algo = {"mtp": "NEXTN", "eagle3": "EAGLE3"}.get(family, "STANDALONE")
    argv = ["--speculative-algorithm", algo, "--speculative-num-steps", str(n)]
    if family != "mtp":
        argv += ["--speculative-draft-model-path", model]
    if not form.config:
        return tuple(argv), ()
    argv += ["--speculative-eagle-topk", "1", "--speculative-adaptive", "--speculative-adaptive-config",
             SGLANG_SCHEDULE_FILE]
    return tuple(argv), (f"Save this as {SGLANG_SCHEDULE_FILE}:\n{json.dumps(form.config)}",)


def _gui_steps(engine: str, facts: Mapping[str, object], method: str, n: int) -> tuple[str, ...]:
    model = _s(facts, "spec.draft_model") or "the draft model you measured"
    if engine == "lmstudio":
        return (f"In LM Studio, open the loaded model's settings and choose {model} under "
                "Speculative Decoding → Draft Model.",
                "Keep the same draft model for chats where you want the speedup; remove it to turn it off.")
    return (f"Add `DRAFT {model}` to the model's Modelfile and re-create it with `ollama create`.",
            f"Set the option draft_num_predict to {n} (0 turns speculation off).")


def _schedule(facts: Mapping[str, object], n: int) -> Schedule | None:
    """The measured cutoff as a schedule: the paired sweep's clear slowdown, else an old sweep's crossover."""
    paired = "batch.rounds" in facts
    stops = facts.get("batch.stops_paying_at" if paired else "batch.crossover_concurrency")
    if not isinstance(stops, int) or isinstance(stops, bool):
        return None
    tested = facts.get("batch.max_concurrency_tested")
    return cutoff_schedule(n, stops, tested if isinstance(tested, int) and not isinstance(tested, bool) else None)


def recommend(facts: Mapping[str, object], schedule: Schedule | None = None) -> Recommendation | None:
    """Settings that turn on the measured speculative method; None when no method is known.

    `schedule` (per batch-size band, from advisor/recommend/schedule.py) replaces the cutoff that the flat
    batch facts give; each engine gets it in its own form (advisor/recommend/engine_schedule.py)."""
    method, engine = _s(facts, "spec.method"), _s(facts, "engine.kind") or "llama.cpp"
    if not method or method == "none":
        return None
    draft_max = facts.get("spec.draft_max")
    n = draft_max if isinstance(draft_max, int) and draft_max > 0 else DEFAULT_DRAFT_MAX
    sched = schedule if schedule is not None else _schedule(facts, n)
    version = _s(facts, "engine.version") or None
    notes: list[str] = []
    argv: tuple[str, ...] = ()
    steps: tuple[str, ...] = ()
    if engine == "llama.cpp":
        argv = recommended_args(facts, n, notes)
        if sched is not None:
            concurrency = facts.get("workload.concurrency")
            notes += parallel_notes(llamacpp_form(sched, concurrency if isinstance(concurrency, int) else 1), n)
    elif engine == "vllm":
        form = vllm_form(sched, version) if sched is not None else EngineForm(draft_len=n)
        argv, notes = _vllm(facts, method, form.draft_len or n, form), [*notes, *form.notes]
    elif engine == "sglang":
        form = sglang_form(sched, methods.family(method)) if sched is not None else EngineForm(draft_len=n)
        argv, steps = _sglang(facts, method, form.draft_len or n, form)
        notes += form.notes
    elif engine in ("tgi", "tensorrt-llm"):
        if engine == "tgi":
            argv, steps, extra = tgi(facts, method, n)
            if sched is not None and sched.off_from is not None:
                extra.append(f"TGI has no batch-size setting for speculation; keep fewer than {sched.off_from} "
                             "simultaneous requests on it")
        else:
            form = trtllm_form(sched, version) if sched is not None else EngineForm(draft_len=n)
            argv, steps, extra = trtllm(facts, method, form.draft_len or n, form.config)
            extra += form.notes
        notes += extra
    elif engine in ("lmstudio", "ollama"):
        if methods.family(method) == "ngram":
            notes.append(f"{engine} offers draft-model speculation only; n-gram lookup is not available there")
        else:
            steps = _gui_steps(engine, facts, method, n)
        if sched is not None and sched.off_from is not None:
            notes.append(f"on for up to {sched.off_from - 1} simultaneous request(s), off at {sched.off_from} or more")
    if sched is not None:
        notes += unclear_note(sched)
    return Recommendation(engine, argv, steps, tuple(notes))
