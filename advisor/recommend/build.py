"""Exact settings for the user's engine and version (reference/engines.md §1.6, §2.3, §3, §4).

For llama.cpp only flags the probed dialect has are emitted; anything uncertain becomes a note.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from advisor.recommend.alternatives import alternatives
from advisor.recommend.dialect import unknown_flags
from advisor.recommend.tgi_trtllm import tgi, trtllm
from advisor.recommend.types import Recommendation
from probes.engines.llamacpp.binary import draft_length_args

__all__ = ["Recommendation", "alternatives", "recommend"]

DEFAULT_DRAFT_MAX = 3  # llama.cpp --spec-draft-n-max default (engines.md §1.6)
DRAFT_PLACEHOLDER = "DRAFT_MODEL.gguf"
# --spec-type values per flag generation (engines.md §1.6): a name outside these is never emitted
SPEC_TYPES_OLD = frozenset({"ngram-cache", "ngram-simple", "ngram-map-k", "ngram-map-k4v", "ngram-mod"})
SPEC_TYPES_NEW = SPEC_TYPES_OLD | {"draft-simple", "draft-eagle3", "draft-mtp", "draft-dflash", "draft-dspark"}


def _s(facts: Mapping[str, object], name: str) -> str:
    v = facts.get(name)
    return v if isinstance(v, str) else ""


def _family(method: str) -> str:
    m = method.lower()
    if m.startswith("ngram"):
        return "ngram"
    if m in ("eagle", "eagle3", "draft-eagle3"):
        return "eagle3"
    if m in ("mtp", "draft-mtp", "nextn"):
        return "mtp"
    return "draft"


def _llamacpp(facts: Mapping[str, object], method: str, n: int, notes: list[str]) -> tuple[str, ...]:
    gen = _s(facts, "engine.flag_generation") or "unknown"
    types = {t.strip() for t in _s(facts, "engine.spec_types").split(",") if t.strip()}
    family = _family(method)
    spec_type = {"ngram": method, "eagle3": "draft-eagle3", "mtp": "draft-mtp", "draft": "draft-simple"}[family]
    if (block := method.lower().removeprefix("draft-")) in ("dflash", "dspark"):
        spec_type = f"draft-{block}"  # DFlash/DSpark drafters have their own --spec-type, not draft-simple
    if gen == "unknown":
        notes.append("the llama-server flag dialect is unknown; run spec-advisor against it to get exact flags")
        return ()
    if gen == "old" and (family in ("eagle3", "mtp") or spec_type in ("draft-dflash", "draft-dspark")):
        notes.append(f"this llama.cpp build predates {spec_type}; update llama.cpp to use it")
        return ()
    wanted = spec_type if gen == "new" or family == "ngram" else ""
    if wanted and wanted not in (SPEC_TYPES_NEW if gen == "new" else SPEC_TYPES_OLD):
        notes.append(f"{wanted} is not a llama.cpp --spec-type; measure one of its n-gram types (e.g. ngram-mod)")
        return ()
    if wanted and types and wanted not in types:
        notes.append(f"this build's --spec-type does not accept {wanted}")
        return ()
    if wanted and gen == "old" and not types:
        # pre-refactor builds only gained --spec-type late; without it listed in --help it may be unknown
        notes.append("this build's --help lists no --spec-type values; check `llama-server --help` or update")
        return ()
    argv: list[str] = ["--spec-type", wanted] if wanted else []
    model = _s(facts, "spec.draft_model")
    if family in ("draft", "eagle3"):
        if not model:
            notes.append(f"replace {DRAFT_PLACEHOLDER} with the draft model you measured")
        argv += [_s(facts, "engine.draft_model_flag") or "-md", model or DRAFT_PLACEHOLDER]
    stated = _s(facts, "engine.draft_max_flag")
    if gen == "new" and stated and stated != "--spec-draft-n-max":
        argv += [stated, str(n)]  # a fact that contradicts the dialect: refused by unknown_flags below
    elif gen == "new":
        # Each n-gram type has its own length flag in new builds (ngram-mod ignores --spec-draft-n-max).
        argv += draft_length_args(wanted or "draft-simple", "new", n)
    elif family != "ngram":
        argv += [_s(facts, "engine.draft_max_flag") or "--draft-max", str(n)]
    p_min = facts.get("spec.draft_p_min")
    if family == "draft" and isinstance(p_min, float):
        argv += [_s(facts, "engine.p_min_flag") or ("--spec-draft-p-min" if gen == "new" else "--draft-p-min"),
                 f"{p_min:g}"]
    if bad := unknown_flags(argv, gen):
        # a flag fact that contradicts the dialect (e.g. --draft-max on a new build) would crash the server
        notes.append(f"not emitted: this llama.cpp build ({gen} flags) does not accept {', '.join(bad)}")
        return ()
    if gen == "new" and family == "draft":
        notes.append("in current llama.cpp -md alone does not turn speculation on; keep --spec-type draft-simple")
    return tuple(argv)


def _vllm(facts: Mapping[str, object], method: str, n: int) -> tuple[str, ...]:
    family, model = _family(method), _s(facts, "spec.draft_model") or DRAFT_PLACEHOLDER
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
    family, model = _family(method), _s(facts, "spec.draft_model") or DRAFT_PLACEHOLDER
    if family == "ngram":
        return ("--speculative-algorithm", "NGRAM", "--speculative-num-draft-tokens", str(n + 1))
    algo = {"mtp": "NEXTN", "eagle3": "EAGLE3", "draft": "STANDALONE"}[family]
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
        argv = _llamacpp(facts, method, n, notes)
    elif engine == "vllm":
        argv = _vllm(facts, method, n)
    elif engine == "sglang":
        argv = _sglang(facts, method, n)
    elif engine in ("tgi", "tensorrt-llm"):
        argv, steps, extra = (tgi if engine == "tgi" else trtllm)(facts, method, n)
        notes += extra
    elif engine in ("lmstudio", "ollama"):
        if _family(method) == "ngram":
            notes.append(f"{engine} offers draft-model speculation only; n-gram lookup is not available there")
        else:
            steps = _gui_steps(engine, facts, method, n)
    crossover = facts.get("batch.crossover_concurrency")
    if isinstance(crossover, int) and crossover > 1:
        notes.append(f"on for up to {crossover - 1} simultaneous request(s), off at {crossover} or more")
    return Recommendation(engine, argv, steps, tuple(notes))
