"""Recommendations: exact flags per engine and dialect, never a flag the dialect lacks."""

from __future__ import annotations

import json

from advisor.recommend.build import alternatives, recommend
from advisor.recommend.dialect import unknown_flags
from advisor.recommend.llamacpp import CURRENT_DIALECT_NOTE

NEW = {"engine.kind": "llama.cpp", "engine.flag_generation": "new",
       "engine.spec_types": "none,draft-simple,draft-eagle3,draft-mtp,ngram-mod,ngram-simple",
       "engine.draft_max_flag": "--spec-draft-n-max", "engine.draft_model_flag": "-md",
       "engine.p_min_flag": "--spec-draft-p-min"}
OLD = {"engine.kind": "llama.cpp", "engine.flag_generation": "old",
       "engine.spec_types": "none,ngram-cache,ngram-simple,ngram-mod",
       "engine.draft_max_flag": "--draft-max", "engine.draft_model_flag": "-md", "engine.p_min_flag": "--draft-p-min"}


def test_llamacpp_new_ngram() -> None:
    r = recommend(NEW | {"spec.method": "ngram-mod", "spec.draft_max": 12})
    # ngram-mod's draft length has its own flag; --spec-draft-n-max does not limit it (seen on a real server).
    assert r is not None and r.argv == ("--spec-type", "ngram-mod", "--spec-ngram-mod-n-max", "12",
                                        "--spec-ngram-mod-n-min", "12")


def test_llamacpp_new_draft_model_needs_spec_type() -> None:
    r = recommend(NEW | {"spec.method": "draft", "spec.draft_model": "/m/d.gguf", "spec.draft_max": 8,
                         "spec.draft_p_min": 0.75})
    assert r is not None
    assert r.argv == ("--spec-type", "draft-simple", "-md", "/m/d.gguf", "--spec-draft-n-max", "8",
                      "--spec-draft-p-min", "0.75")
    assert any("-md alone" in n for n in r.notes)


def test_llamacpp_old_dialect() -> None:
    ngram = recommend(OLD | {"spec.method": "ngram-mod", "spec.draft_max": 8})
    # old builds limit every drafter with --draft-max, exactly as the managed ON arm is launched (one builder)
    assert ngram is not None and ngram.argv == ("--spec-type", "ngram-mod", "--draft-max", "8")
    draft = recommend(OLD | {"spec.method": "draft", "spec.draft_model": "d.gguf", "spec.draft_max": 16,
                             "spec.draft_p_min": 0.75})
    assert draft is not None
    assert draft.argv == ("-md", "d.gguf", "--draft-max", "16", "--draft-p-min", "0.75")
    assert "--spec-draft-n-max" not in draft.argv


def test_llamacpp_never_emits_what_the_build_lacks() -> None:
    r = recommend(OLD | {"spec.method": "eagle3"})
    assert r is not None and r.argv == () and r.notes
    missing = recommend(NEW | {"engine.spec_types": "none,ngram-simple", "spec.method": "ngram-mod"})
    assert missing is not None and missing.argv == ()
    # the build's flags unknown (decide --facts without them): the current dialect, and a note that says so
    unknown = recommend({"engine.kind": "llama.cpp", "spec.method": "ngram-mod"})
    assert unknown is not None and unknown.argv[:2] == ("--spec-type", "ngram-mod")
    assert unknown_flags(unknown.argv, "new") == [] and CURRENT_DIALECT_NOTE in unknown.notes


def test_vllm_speculative_config() -> None:
    r = recommend({"engine.kind": "vllm", "spec.method": "ngram", "spec.draft_max": 5})
    assert r is not None and r.argv[0] == "--speculative-config"
    assert json.loads(r.argv[1]) == {"method": "ngram", "num_speculative_tokens": 5, "prompt_lookup_max": 4}
    mtp = recommend({"engine.kind": "vllm", "spec.method": "mtp", "spec.draft_max": 1})
    assert mtp is not None and json.loads(mtp.argv[1]) == {"method": "mtp", "num_speculative_tokens": 1}


def test_sglang_algorithm() -> None:
    r = recommend({"engine.kind": "sglang", "spec.method": "eagle3", "spec.draft_model": "repo/eagle3",
                   "spec.draft_max": 3})
    assert r is not None
    assert r.argv[:2] == ("--speculative-algorithm", "EAGLE3") and "repo/eagle3" in r.argv


def test_gui_engines_get_steps() -> None:
    lm = recommend({"engine.kind": "lmstudio", "spec.method": "draft", "spec.draft_model": "qwen-0.5b"})
    assert lm is not None and lm.argv == () and "qwen-0.5b" in lm.steps[0]
    ollama = recommend({"engine.kind": "ollama", "spec.method": "draft", "spec.draft_max": 4})
    assert ollama is not None and any("draft_num_predict" in s for s in ollama.steps)


def test_per_concurrency_note() -> None:
    r = recommend(NEW | {"spec.method": "ngram-mod", "batch.crossover_concurrency": 4})
    assert r is not None and any("off at 4" in n for n in r.notes)


def test_alternatives_fit_the_facts() -> None:
    alts = alternatives({"engine.kind": "llama.cpp", "model.moe": False, "model.total_params_b": 32.0,
                         "model.quant": "Q8_0", "gpu.count": 2})
    text = " ".join(alts)
    assert "mixture-of-experts" in text and "4–5-bit" in text and "2 GPUs" in text and "-fa on" in text
    small = alternatives({"engine.kind": "vllm", "model.moe": True, "model.quant": "Q4_K_M"})
    assert not any("mixture" in a or "4–5-bit" in a or "-fa" in a for a in small)
