"""Flag-dialect parsing of `llama-server --help` (saved texts) and the flags we emit per dialect."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.arms.server import ServerConfig, build_argv, spec_args
from advisor.errors import UserError
from advisor.recommend.llamacpp import effective_params
from probes.engines.llamacpp.binary import FlagDialect, LlamaServerBinary, parse_help, parse_version
from tests.paths import FIXTURES

HELP = FIXTURES / "help"


def test_old_dialect_uses_draft_max_and_lists_only_ngram_types() -> None:
    d = parse_help((HELP / "llama-server-old.txt").read_text())
    assert d.generation == "old"
    assert d.draft_max_flag == "--draft-max"
    assert d.p_min_flag == "--draft-p-min"
    assert "ngram-mod" in d.spec_types and "draft-simple" not in d.spec_types
    assert not d.has_spec_synth and d.has_metrics_flag


def test_new_dialect_from_the_real_binary(llama_binary: LlamaServerBinary) -> None:
    d = llama_binary.dialect
    assert isinstance(d, FlagDialect)
    assert d.generation == "new"
    assert d.draft_max_flag == "--spec-draft-n-max"
    assert {"ngram-mod", "draft-simple"} <= set(d.spec_types)
    assert isinstance(llama_binary.version, str) and "(" in llama_binary.version


def test_parse_version() -> None:
    assert parse_version("version: 11434 (0c1e570)\nbuilt with gcc") == "11434 (0c1e570)"
    assert not isinstance(parse_version("garbage"), str)


def _binary(d: FlagDialect) -> LlamaServerBinary:
    return LlamaServerBinary(path="/bin/llama-server", source="explicit", version="1 (a)", dialect=d)


def test_flags_follow_the_dialect() -> None:
    old = parse_help((HELP / "llama-server-old.txt").read_text())
    new = FlagDialect("new", ("none", "ngram-mod", "draft-simple"), "--spec-draft-n-max", "-md",
                      "--spec-draft-p-min", True, True)
    cfg = ServerConfig(model=Path("m.gguf"), spec_type="ngram-mod", draft_max=6)
    assert spec_args(cfg, new) == ["--spec-type", "ngram-mod", "--spec-ngram-mod-n-max", "6",
                                   "--spec-ngram-mod-n-min", "6"]
    assert spec_args(cfg, old) == ["--spec-type", "ngram-mod", "--draft-max", "6"]
    draft = ServerConfig(model=Path("m.gguf"), spec_type="draft-simple", draft_model=Path("d.gguf"), draft_max=4)
    # New builds need --spec-type with -md; old builds enable drafting by -md alone and lack draft-* types.
    assert spec_args(draft, new) == ["--spec-type", "draft-simple", "-md", "d.gguf", "--spec-draft-n-max", "4"]
    assert spec_args(draft, old) == ["-md", "d.gguf", "--draft-max", "4"]
    assert spec_args(ServerConfig(model=Path("m.gguf")), new) == []


def test_unsupported_spec_type_is_a_user_error() -> None:
    old = parse_help((HELP / "llama-server-old.txt").read_text())
    with pytest.raises(UserError, match="does not support"):
        spec_args(ServerConfig(model=Path("m.gguf"), spec_type="draft-eagle3"), old)


def test_launched_servers_bind_loopback_only() -> None:
    new = FlagDialect("new", ("ngram-mod",), "--spec-draft-n-max", "-md", None, False, True)
    argv = build_argv(_binary(new), ServerConfig(model=Path("m.gguf")), 12345)
    assert argv[argv.index("--host") + 1] == "127.0.0.1"
    assert "--metrics" in argv


def test_measured_defaults_come_from_the_old_binarys_help_text() -> None:
    # an older build states other defaults: they are read from its --help, never assumed
    d = parse_help((HELP / "llama-server-old.txt").read_text())
    on = ServerConfig(model=Path("m.gguf"), spec_type="ngram-mod")  # no --draft-max: the engine's defaults
    argv = spec_args(on, d)
    assert "--draft-max" not in argv
    assert effective_params(argv, d) == {"--draft-max": "16", "--draft-min": "0", "--draft-p-min": "0.8"}


def test_measured_defaults_come_from_the_installed_binarys_help(llama_binary: LlamaServerBinary) -> None:
    d = llama_binary.dialect
    assert isinstance(d, FlagDialect)
    argv = spec_args(ServerConfig(model=Path("m.gguf"), spec_type="ngram-mod"), d)
    params = effective_params(argv, d)
    # every knob the ON arm runs with is the value this binary's --help states (not a number we wrote)
    assert params and all(value == d.default(flag) for flag, value in params.items())
    assert params["--spec-ngram-mod-n-max"] == d.default("--spec-ngram-mod-n-max")
    # an override is what runs instead
    tuned = effective_params(spec_args(ServerConfig(model=Path("m.gguf"), spec_type="ngram-mod", draft_max=8), d), d)
    assert tuned["--spec-ngram-mod-n-max"] == "8"
