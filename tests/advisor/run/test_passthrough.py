"""The user's own llama-server options and API keys on the command line: what is refused, what is kept where."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from advisor.cli import check
from advisor.config import CheckConfig
from advisor.errors import UserError
from advisor.evidence.schema import ConfigRecord, Evidence
from advisor.facts.from_evidence import facts_from_evidence
from advisor.recommend.build import recommend
from advisor.run.passthrough import check_server_args


def _args(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    check.configure(p)
    return p.parse_args(list(argv))


def test_user_options_after_the_double_dash_reach_the_config() -> None:
    cfg = check.config_from_args(_args("--quick", "--", "-ngl", "99", "-fa", "on", "-c", "8192"))
    assert cfg.server_args == ("-ngl", "99", "-fa", "on", "-c", "8192")


@pytest.mark.parametrize("arg", ["--port", "--host", "-m", "--api-key", "--cache-ram", "--spec-type", "-md",
                                 "--draft-max", "--spec-ngram-mod-n-max=8"])
def test_options_spec_advisor_sets_itself_are_refused_by_name(arg: str) -> None:
    with pytest.raises(UserError) as err:
        check_server_args([arg, "1"])
    assert arg.split("=")[0] in str(err.value)


def test_options_are_refused_for_an_attached_server() -> None:
    with pytest.raises(UserError, match="attached"):
        check.config_from_args(_args("--engine-url", "http://127.0.0.1:8080", "--", "-ngl", "99"))


def test_a_key_in_the_url_moves_out_of_every_stored_field() -> None:
    cfg = check.config_from_args(_args("--engine-url", "http://SECRET-CANARY-1@127.0.0.1:8080"))
    assert cfg.engine_url == "http://127.0.0.1:8080" and cfg.api_key == "SECRET-CANARY-1"
    stored = json.dumps(cfg.to_dict()) + repr(cfg) + json.dumps(ConfigRecord.of(cfg).__repr__())
    assert "SECRET-CANARY-1" not in stored


def test_the_key_file_and_the_environment_are_read_and_never_stored(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    key_file = tmp_path / "key"
    key_file.write_text("SECRET-CANARY-2\n", encoding="utf-8")
    cfg = check.config_from_args(_args("--engine-url", "127.0.0.1:8080", "--api-key-file", str(key_file)))
    assert cfg.api_key == "SECRET-CANARY-2" and "SECRET-CANARY-2" not in json.dumps(cfg.to_dict())
    monkeypatch.setenv("SPEC_ADVISOR_API_KEY", "SECRET-CANARY-3")
    assert check.config_from_args(_args("--engine-url", "127.0.0.1:8080")).api_key == "SECRET-CANARY-3"
    with pytest.raises(UserError, match="cannot read"):
        check.config_from_args(_args("--engine-url", "127.0.0.1:8080", "--api-key-file", str(tmp_path / "none")))


def test_the_recommended_command_keeps_the_users_options_before_the_measured_flags() -> None:
    ev = Evidence(config=ConfigRecord.of(CheckConfig(server_args=("-ngl", "99", "-fa", "on"))))
    facts = facts_from_evidence(ev)
    facts.update({"spec.method": "ngram-mod", "spec.argv": "--spec-type ngram-mod --spec-ngram-mod-n-max 4",
                  "engine.kind": "llama.cpp"})
    rec = recommend(facts)
    assert rec is not None
    assert rec.argv == ("-ngl", "99", "-fa", "on", "--spec-type", "ngram-mod", "--spec-ngram-mod-n-max", "4")


@pytest.mark.parametrize("arg", ["--spec_type", "--api_key", "--cache_ram", "--model_draft", "--hf_repo",
                                 "--model_url", "--draft_max", "--spec_ngram_mod_n_max=8", "--log_prompts_dir",
                                 "--n_predict", "--no_slots"])
def test_underscore_spellings_the_engine_reads_as_dashes_are_refused_too(arg: str) -> None:
    with pytest.raises(UserError) as err:
        check_server_args([arg, "1"])
    assert arg.split("=")[0] in str(err.value)


@pytest.mark.parametrize("args", [("-mmu", "http://x/p.gguf"), ("--hf-token", "t"), ("--path", "/"),
                                  ("--log-prompts-dir", "/tmp/p"), ("--log-file", "/tmp/l"), ("-lv", "0"),
                                  ("--log-colors", "on"), ("-n", "5"), ("-np", "64"), ("--parallel", "1"),
                                  ("--embedding",), ("--api-prefix", "/x"), ("--slot-save-path", "/tmp"),
                                  ("-c", "1"), ("--ctx-size", "400")])
def test_network_files_prompts_and_measurement_options_are_refused(args: tuple[str, ...]) -> None:
    with pytest.raises(UserError):
        check_server_args(args, max_tokens=192)


@pytest.mark.parametrize("args", [("--rpc", "127.0.0.1:50052"), ("-c", "0"), ("-c", "8192"), ("-ngl", "99"),
                                  ("-fa", "on"), ("--no-mmap",), ("-ot", "blk_.*=CPU"), ("--no_mmap",)])
def test_deployment_options_pass(args: tuple[str, ...]) -> None:
    assert check_server_args(args, max_tokens=192) == args


def test_the_refusal_reads_in_chinese() -> None:
    with pytest.raises(UserError) as err:
        check_server_args(["--spec_type", "ngram-mod"], lang="zh")
    assert "不能传给" in str(err.value) and "--spec-type" in err.value.hint


def test_engine_options_in_the_environment_stop_a_managed_check(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLAMA_ARG_CACHE_RAM", "8192")
    with pytest.raises(UserError, match="LLAMA_ARG_CACHE_RAM"):
        check.config_from_args(_args("--quick"))
    assert check.config_from_args(_args("--engine-url", "127.0.0.1:8080")).engine_url  # attached: not ours
