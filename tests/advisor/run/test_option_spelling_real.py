"""The option filter reads names as the real llama-server does: `--spec_type` is `--spec-type` to the engine
(an OFF arm given it speculates), so the filter refuses it; `LLAMA_ARG_*` variables are options too, and managed
servers start without them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from advisor.arms.server import ManagedServer, ServerConfig
from advisor.errors import UserError
from advisor.recommend.dialect import flag_name
from advisor.run.passthrough import check_engine_environment, check_server_args
from probes.engines.llamacpp.adapter import LlamaCppAdapter
from probes.engines.llamacpp.binary import LlamaServerBinary


def _engine_error(binary: LlamaServerBinary, *argv: str) -> str:
    """What llama-server says about `argv` (it stops at the bad value, before loading any model)."""
    done = subprocess.run([binary.path, *argv, "-m", "/nonexistent.gguf"], capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    return done.stdout + done.stderr


@pytest.mark.parametrize(("spelling", "bad_value"), [("--spec_type", "bogus"), ("--cache_ram", "x"),
                                                      ("--spec_ngram_mod_n_max", "x")])
def test_the_engine_reads_underscores_in_long_options_as_dashes(llama_binary: LlamaServerBinary, spelling: str,
                                                                bad_value: str) -> None:
    said = _engine_error(llama_binary, spelling, bad_value)
    assert f'handling argument "{flag_name(spelling)}"' in said, said[-500:]
    with pytest.raises(UserError):
        check_server_args([spelling, "1"])


def test_short_options_keep_their_underscore_in_the_engine_and_the_filter(llama_binary: LlamaServerBinary) -> None:
    said = _engine_error(llama_binary, "-no_kvu")
    assert "invalid argument: -no_kvu" in said, said[-500:]
    assert flag_name("-no_kvu") == "-no_kvu"


def _speculating(binary: LlamaServerBinary, model: Path, tmp: Path, extra: tuple[str, ...]) -> bool | None:
    config = ServerConfig(model=model, ctx_size=1024, parallel=1, threads=2, label="off", extra_args=extra)
    with ManagedServer(binary, config, tmp) as server:
        adapter = LlamaCppAdapter(server.base_url)
        try:
            spec = adapter.spec_state()
        finally:
            adapter.close()
    assert not isinstance(spec, Exception) and hasattr(spec, "active"), spec
    return spec.active  # type: ignore[union-attr]


def test_an_off_arm_given_the_underscore_spelling_speculates_so_it_is_refused(
        llama_binary: LlamaServerBinary, demo_model: Path, tmp_path: Path) -> None:
    argv = ("--spec_type", "ngram-mod")
    assert _speculating(llama_binary, demo_model, tmp_path, argv) is True  # what would happen unfiltered
    with pytest.raises(UserError, match="--spec_type"):
        check_server_args(argv)


def test_managed_servers_start_without_llama_arg_variables(llama_binary: LlamaServerBinary, demo_model: Path,
                                                           tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLAMA_ARG_SPEC_TYPE", "ngram-mod")
    with pytest.raises(UserError, match="LLAMA_ARG_SPEC_TYPE"):
        check_engine_environment({"LLAMA_ARG_SPEC_TYPE": "ngram-mod", "PATH": "/bin"})
    assert _speculating(llama_binary, demo_model, tmp_path, ()) is False
