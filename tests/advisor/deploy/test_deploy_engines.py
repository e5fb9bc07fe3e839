"""Flags only the probed dialect knows; TGI / TensorRT-LLM settings; the CLI (`decide --format-flags`, `probe`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.cli.main import main
from advisor.deploy.yaml_load import load_all
from advisor.recommend.build import recommend
from advisor.recommend.dialect import REMOVED_IN_NEW, strip_spec_args, unknown_flags
from advisor.recommend.llamacpp import CURRENT_DIALECT_NOTE
from tests.contract_servers import serve, tgi_routes
from tests.deploy_cases import MANIFEST, NEW, OLD
from tests.paths import FIXTURES

FACTS = FIXTURES / "facts" / "dense_enable.json"
METHODS = ["ngram-mod", "ngram-simple", "ngram-cache", "ngram", "draft", "draft-simple", "eagle3", "mtp",
           "dflash"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dialect", [NEW, OLD, {"engine.kind": "llama.cpp"},
                                     {"engine.kind": "llama.cpp", "engine.flag_generation": "old"}])
def test_recommend_never_emits_a_flag_the_dialect_lacks(dialect: dict[str, str], method: str) -> None:
    rec = recommend(dialect | {"spec.method": method, "spec.draft_max": 6, "spec.draft_p_min": 0.5})
    assert rec is not None
    gen = dialect.get("engine.flag_generation", "unknown")
    if gen == "unknown":  # written in the current dialect, and said so (issue 27 item 3)
        assert CURRENT_DIALECT_NOTE in rec.notes
        gen = "new"
    assert unknown_flags(rec.argv, gen) == []
    if gen == "new":
        assert not REMOVED_IN_NEW & set(rec.argv)
    if gen == "old":
        assert not any(a.startswith("--spec-") and a != "--spec-type" for a in rec.argv)
    if rec.argv and "--spec-type" in rec.argv:
        assert rec.argv[rec.argv.index("--spec-type") + 1] != "ngram"  # not a llama.cpp type
    if not rec.argv:
        assert rec.notes  # every refusal says why


def test_contradicting_flag_facts_are_not_trusted() -> None:
    rec = recommend(NEW | {"engine.draft_max_flag": "--draft-max", "spec.method": "ngram-mod"})
    assert rec is not None and rec.argv == () and any("--draft-max" in n for n in rec.notes)
    old = recommend(OLD | {"engine.spec_types": "", "spec.method": "ngram-mod"})
    assert old is not None and old.argv == () and any("--spec-type" in n for n in old.notes)


def test_strip_spec_args_takes_values_with_flags() -> None:
    args = ["--metrics", "--draft-max", "16", "-md", "d.gguf", "--spec-default", "--port", "8080",
            "--spec-replace", "a", "b", "--spec-type=ngram-mod", "-ngld", "-1", "--speculative-config", "{}"]
    kept, removed = strip_spec_args(args)
    assert kept == ["--metrics", "--port", "8080"]
    assert removed == [a for a in args if a not in kept]


def test_tgi_settings_and_what_cannot_be_measured() -> None:
    rec = recommend({"engine.kind": "tgi", "spec.method": "ngram", "spec.draft_max": 3, "ab.speedup": 1.2,
                     "ab.ci_low": 1.1, "ab.ci_high": 1.3})
    assert rec is not None and rec.argv == ("--speculate", "3")
    text = " ".join(rec.notes)
    assert "1.20×" in text and "cannot be measured" in text and "n-gram" in text
    assert any("SPECULATE=3" in s for s in rec.steps)
    medusa = recommend({"engine.kind": "tgi", "spec.method": "medusa", "spec.draft_max": 2})
    assert medusa is not None and medusa.argv == ("--speculate", "2") and "Medusa" in medusa.notes[0]
    eagle = recommend({"engine.kind": "tgi", "spec.method": "eagle3"})
    assert eagle is not None and eagle.argv == () and "no eagle3 option" in eagle.notes[0]


@pytest.mark.parametrize(("method", "decoding_type"), [
    ("ngram", "NGram"), ("mtp", "MTP"), ("eagle3", "Eagle3"), ("draft", "DraftTarget")])
def test_tensorrt_llm_speculative_config(method: str, decoding_type: str) -> None:
    rec = recommend({"engine.kind": "tensorrt-llm", "spec.method": method, "spec.draft_max": 4,
                     "spec.draft_model": "/ckpt/draft"})
    assert rec is not None and rec.argv == ("--extra_llm_api_options", "spec-decoding.yaml")
    config_text = rec.steps[0].split("\n", 1)[1]
    (doc,) = load_all(config_text)
    assert isinstance(doc, dict) and doc["speculative_config"]["decoding_type"] == decoding_type
    assert any("no TensorRT-LLM probe" in n for n in rec.notes)
    if method in ("eagle3", "draft"):
        assert doc["speculative_config"]["speculative_model_dir"] == "/ckpt/draft"
        assert any("check your version's docs" in n for n in rec.notes)


def _skip_facts(tmp_path: Path) -> Path:
    facts = json.loads(FACTS.read_text(encoding="utf-8"))
    facts |= {"ab.speedup": 0.93, "ab.ci_low": 0.88, "ab.ci_high": 0.97, "ab.decision": "SKIP"}
    path = tmp_path / "skip.json"
    path.write_text(json.dumps(facts), encoding="utf-8")
    return path


@pytest.mark.parametrize("fmt", ["llmkube", "docker", "compose", "systemd"])
def test_cli_decide_format_flags(fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decide", "--facts", str(FACTS), "--format-flags", fmt, "--port", "8099"]) == 0
    out, err = capsys.readouterr()
    assert "Verdict: ENABLE" in err and "turn speculative decoding on" in out and "ngram-mod" in out
    assert main(["decide", "--facts", str(_skip_facts(tmp_path)), "--format-flags", fmt]) == 0
    out, err = capsys.readouterr()
    assert "Verdict: SKIP" in err and "leave speculative decoding off (verdict: SKIP)" in out
    assert "ngram-mod" not in out


def test_cli_decide_llmkube_manifest_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["decide", "--facts", str(FACTS), "--format-flags", "llmkube", "--manifest", str(MANIFEST), "--json"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "ENABLE" and data["deploy"]["format"] == "llmkube"
    (_, svc) = load_all(data["deploy"]["text"])
    assert isinstance(svc, dict)
    assert svc["spec"]["extraArgs"] == ["--metrics", "--seed", "42", "--spec-type", "ngram-mod",
                                        "--spec-ngram-mod-n-max", "8", "--spec-ngram-mod-n-min", "8"]
    assert main(["decide", "--facts", str(FACTS), "--format-flags", "docker", "--manifest", str(MANIFEST)]) == 2
    assert "--manifest goes with --format-flags llmkube" in capsys.readouterr().err
    assert main(["decide", "--facts", str(FACTS), "--format-flags", "llmkube", "--manifest",
                 str(tmp_path / "missing.yaml")]) == 2
    assert "cannot read manifest" in capsys.readouterr().err


def test_cli_probe_identifies_tgi(capsys: pytest.CaptureFixture[str]) -> None:
    with serve(tgi_routes()) as server:
        assert main(["probe", "--engine-url", server.url, "--json", "--no-scan"]) == 0
    report = json.loads(capsys.readouterr().out)
    engine = report["engine"]
    assert engine["kind"] == "tgi" and engine["version"] == "3.2.1"
    assert engine["model"] == "mistralai/Ministral-8B-Instruct-2410"
    assert "--speculate" in json.dumps(engine["extra"])
