"""The flags spec-advisor recommends are the flags the managed ON arm ran with, token for token.

One builder (advisor/recommend/llamacpp.py) writes both. From a run, the recommendation repeats the
recorded ON-arm flags (`spec.argv`); from `decide --facts` without them it rebuilds them from the dialect
facts, and the result must still be the same tokens the runner would launch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from advisor.arms.server import ServerConfig, build_argv, spec_args
from advisor.errors import UserError
from advisor.evidence.schema import Environment, Evidence
from advisor.facts.from_evidence import facts_from_evidence
from advisor.recommend.build import recommend
from probes.engines.llamacpp.binary import FlagDialect, LlamaServerBinary, parse_help
from tests.paths import FIXTURES

HELP = FIXTURES / "help"
NEW = FlagDialect("new", ("none", "draft-simple", "draft-eagle3", "draft-mtp", "ngram-simple", "ngram-mod",
                          "ngram-map-k"), "--spec-draft-n-max", "-md", "--spec-draft-p-min", True, True)
OLD = parse_help((HELP / "llama-server-old.txt").read_text())
# (dialect, spec type, draft model, draft length) for every method the tests cover
CASES = [
    (NEW, "ngram-mod", None, 8), (NEW, "ngram-mod", None, 64), (NEW, "ngram-simple", None, 6),
    (NEW, "ngram-map-k", None, 4), (NEW, "draft-simple", "/m/draft.gguf", 8), (NEW, "draft-eagle3", "/m/e3.gguf", 3),
    (NEW, "draft-mtp", None, 1), (OLD, "ngram-mod", None, 8), (OLD, "ngram-simple", None, 5),
    (OLD, "draft-simple", "/m/draft.gguf", 16),
]


def _facts_from_dialect(d: FlagDialect) -> dict[str, Any]:
    return {"engine.kind": "llama.cpp", "engine.flag_generation": d.generation,
            "engine.spec_types": ",".join(d.spec_types), "engine.draft_max_flag": d.draft_max_flag,
            "engine.draft_model_flag": d.draft_model_flag, "engine.p_min_flag": d.p_min_flag}


def _method(spec_type: str) -> str:
    return "draft" if spec_type == "draft-simple" else spec_type


@pytest.mark.parametrize(("dialect", "spec_type", "draft", "n"), CASES,
                         ids=[f"{d.generation}-{t}-{n}" for d, t, _, n in CASES])
def test_recommended_flags_equal_the_measured_arm(dialect: FlagDialect, spec_type: str, draft: str | None,
                                                 n: int) -> None:
    config = ServerConfig(model=Path("m.gguf"), spec_type=spec_type,
                          draft_model=Path(draft) if draft else None, draft_max=n, label="on")
    measured = spec_args(config, dialect)
    binary = LlamaServerBinary(path="/bin/llama-server", source="explicit", version="1", dialect=dialect)
    argv = build_argv(binary, config, 8080, measured)
    assert argv[-len(measured):] == measured  # the launched command line ends with exactly these flags
    evidence = Evidence(environment=Environment(binary=binary, spec_args={"on": tuple(measured)}))
    facts = facts_from_evidence(evidence) | {"spec.method": _method(spec_type), "spec.draft_max": n}
    from_run = recommend(facts)
    assert from_run is not None and list(from_run.argv) == measured
    # decide --facts with only the dialect facts rebuilds the same tokens with the same builder
    described = _facts_from_dialect(dialect) | {"spec.method": _method(spec_type), "spec.draft_max": n}
    if draft:
        described["spec.draft_model"] = draft
    from_facts = recommend(described)
    assert from_facts is not None and list(from_facts.argv) == measured


def test_the_real_binarys_flags_are_repeated(llama_binary: LlamaServerBinary) -> None:
    dialect = llama_binary.dialect
    assert isinstance(dialect, FlagDialect)
    config = ServerConfig(model=Path("m.gguf"), spec_type="ngram-mod", draft_max=8, label="on")
    measured = spec_args(config, dialect)
    evidence = Evidence(environment=Environment(binary=llama_binary, spec_args={"on": tuple(measured)}))
    rec = recommend(facts_from_evidence(evidence) | {"spec.method": "ngram-mod"})
    assert rec is not None and list(rec.argv) == measured and measured[:2] == ["--spec-type", "ngram-mod"]


# The tuner's knob variants (ngram-mod's lookup length, a draft model's p-min): the launched flags, the
# recommendation from the run and the one `decide --facts` rebuilds are the same tokens.
KNOB_CASES = [("ngram-mod", None, 16, {"n_match": 12}), ("draft-simple", "/m/draft.gguf", 8, {"p_min": 0.75})]


@pytest.mark.parametrize(("spec_type", "draft", "n", "knobs"), KNOB_CASES, ids=["n-match", "p-min"])
def test_tuner_knobs_are_in_the_launched_and_the_recommended_flags(spec_type: str, draft: str | None, n: int,
                                                                  knobs: dict[str, Any]) -> None:
    config = ServerConfig(model=Path("m.gguf"), spec_type=spec_type, draft_model=Path(draft) if draft else None,
                          draft_max=n, label="on", **knobs)
    measured = spec_args(config, NEW)
    flag, value = ("--spec-ngram-mod-n-match", "12") if "n_match" in knobs else ("--spec-draft-p-min", "0.75")
    assert measured[measured.index(flag) + 1] == value
    binary = LlamaServerBinary(path="/bin/llama-server", source="explicit", version="1", dialect=NEW)
    assert build_argv(binary, config, 8080, measured)[-len(measured):] == measured
    evidence = Evidence(environment=Environment(binary=binary, spec_args={"on": tuple(measured)}))
    from_run = recommend(facts_from_evidence(evidence) | {"spec.method": _method(spec_type), "spec.draft_max": n})
    assert from_run is not None and list(from_run.argv) == measured
    described = _facts_from_dialect(NEW) | {"spec.method": _method(spec_type), "spec.draft_max": n}
    described |= {"spec.draft_model": draft} if draft else {}
    described |= ({"spec.ngram_mod_n_match": 12} if "n_match" in knobs else {"spec.draft_p_min": 0.75})
    from_facts = recommend(described)
    assert from_facts is not None and list(from_facts.argv) == measured


def test_an_old_build_is_never_given_a_per_type_n_match() -> None:
    config = ServerConfig(model=Path("m.gguf"), spec_type="ngram-mod", draft_max=8, n_match=12, label="on")
    with pytest.raises(UserError, match="spec-ngram-mod-n-match"):
        spec_args(config, OLD)
