"""Exact settings for the user's engine and version (reference/engines.md §1.6, §2.3, §3, §4).

For llama.cpp only flags the probed dialect has are emitted; anything uncertain becomes a note.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from advisor import methods
from advisor.recommend.alternatives import alternatives
from advisor.recommend.llamacpp import DRAFT_PLACEHOLDER, recommended_args
from advisor.recommend.tgi_trtllm import tgi, trtllm
from advisor.recommend.types import Recommendation

__all__ = ["Recommendation", "alternatives", "recommend"]

DEFAULT_DRAFT_MAX = 3  # llama.cpp --spec-draft-n-max default (engines.md §1.6)


def _s(facts: Mapping[str, object], name: str) -> str:
    v = facts.get(name)
    return v if isinstance(v, str) else ""


def _vllm(facts: Mapping[str, object], method: str, n: int) -> tuple[str, ...]:
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
    return ("--speculative-config", json.dumps(config, separators=(",", ":")))


def _sglang(facts: Mapping[str, object], method: str, n: int) -> tuple[str, ...]:
    family, model = methods.family(method), _s(facts, "spec.draft_model") or DRAFT_PLACEHOLDER
    if family == "ngram":
        return ("--speculative-algorithm", "NGRAM", "--speculative-num-draft-tokens", str(n + 1))
    algo = {"mtp": "NEXTN", "eagle3": "EAGLE3"}.get(family, "STANDALONE")
    argv = ["--speculative-algorithm", algo, "--speculative-num-steps", str(n)]
    if family != "mtp":
        argv += ["--speculative-draft-model-path", model]
    return tuple(argv)


def _gui_steps(engine: str, facts: Mapping[str, object], method: str, n: int) -> tuple[str, ...]:
    model = _s(facts, "spec.draft_model") or "the draft model you measured"
    if engine == "lmstudio":
        return (f"In LM Studio, open the loaded model's settings and choose {model} under "
                "Speculative Decoding → Draft Model.",
                "Keep the same draft model for chats where you want the speedup; remove it to turn it off.")
    return (f"Add `DRAFT {model}` to the model's Modelfile and re-create it with `ollama create`.",
            f"Set the option draft_num_predict to {n} (0 turns speculation off).")


def recommend(facts: Mapping[str, object]) -> Recommendation | None:
    """Settings that turn on the measured speculative method; None when no method is known."""
    method, engine = _s(facts, "spec.method"), _s(facts, "engine.kind") or "llama.cpp"
    if not method or method == "none":
        return None
    draft_max = facts.get("spec.draft_max")
    n = draft_max if isinstance(draft_max, int) and draft_max > 0 else DEFAULT_DRAFT_MAX
    notes: list[str] = []
    argv: tuple[str, ...] = ()
    steps: tuple[str, ...] = ()
    if engine == "llama.cpp":
        argv = recommended_args(facts, n, notes)
    elif engine == "vllm":
        argv = _vllm(facts, method, n)
    elif engine == "sglang":
        argv = _sglang(facts, method, n)
    elif engine in ("tgi", "tensorrt-llm"):
        argv, steps, extra = (tgi if engine == "tgi" else trtllm)(facts, method, n)
        notes += extra
    elif engine in ("lmstudio", "ollama"):
        if methods.family(method) == "ngram":
            notes.append(f"{engine} offers draft-model speculation only; n-gram lookup is not available there")
        else:
            steps = _gui_steps(engine, facts, method, n)
    crossover = facts.get("batch.crossover_concurrency")
    if isinstance(crossover, int) and crossover > 1:
        notes.append(f"on for up to {crossover - 1} simultaneous request(s), off at {crossover} or more")
    return Recommendation(engine, argv, steps, tuple(notes))
