"""Shared inputs for the tests/advisor/deploy/test_deploy_*.py files: one ENABLE recommendation per llama.cpp
dialect."""

from __future__ import annotations

from pathlib import Path

from advisor.recommend.build import recommend
from advisor.recommend.types import Recommendation

FIXTURES = Path(__file__).parent / "fixtures"
GOLDEN = FIXTURES / "deploy"
MANIFEST = FIXTURES / "manifests" / "inferenceservice.yaml"

NEW = {"engine.kind": "llama.cpp", "engine.flag_generation": "new",
       "engine.spec_types": "none,draft-simple,draft-eagle3,draft-mtp,ngram-simple,ngram-mod,ngram-cache",
       "engine.draft_max_flag": "--spec-draft-n-max", "engine.draft_model_flag": "-md",
       "engine.p_min_flag": "--spec-draft-p-min"}
OLD = {"engine.kind": "llama.cpp", "engine.flag_generation": "old",
       "engine.spec_types": "none,ngram-cache,ngram-simple,ngram-map-k,ngram-map-k4v,ngram-mod",
       "engine.draft_max_flag": "--draft-max", "engine.draft_model_flag": "-md",
       "engine.p_min_flag": "--draft-p-min"}
DIALECTS = {"new": NEW, "old": OLD}
# a draft model whose folder differs from the model's: exercises the second container mount
DRAFT = "/srv/llm/drafts/Qwen3-0.6B-Q8_0.gguf"
MODEL = "/srv/llm/models/Qwen3-8B-Q4_K_M.gguf"


def enable(dialect: str) -> Recommendation:
    """A draft-model recommendation in the given dialect (the case with the most flags)."""
    rec = recommend(DIALECTS[dialect] | {"spec.method": "draft", "spec.draft_model": DRAFT, "spec.draft_max": 8,
                                         "spec.draft_p_min": 0.75})
    assert rec is not None and rec.argv
    return rec
