"""Each deploy format for an ENABLE and a SKIP case: quoting, placeholders, and SKIP never adds spec flags."""

from __future__ import annotations

import shlex

import pytest

from advisor.deploy.base import DeployError
from advisor.deploy.render import FORMATS, render_deploy
from advisor.deploy.yaml_load import load_all
from advisor.recommend.build import recommend
from advisor.recommend.dialect import is_spec_flag
from advisor.recommend.types import Recommendation
from tests.deploy_cases import MODEL, NEW, OLD, enable


def _words(text: str) -> list[str]:
    """The shell words of the non-comment lines (docker: continuation lines joined)."""
    body = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    return shlex.split(body)


def _spec_words(words: list[str]) -> list[str]:
    return [w for w in words if w.startswith("-") and is_spec_flag(w)]


@pytest.mark.parametrize("fmt", FORMATS)
def test_skip_says_off_and_adds_no_spec_flag(fmt: str) -> None:
    text = render_deploy(None, fmt, model_path=MODEL, verdict="SKIP")
    assert "leave speculative decoding off (verdict: SKIP)" in text
    body = [line for line in text.splitlines() if not line.startswith("#")]
    assert not any(is_spec_flag(tok) for line in body for tok in line.replace('"', " ").split())


@pytest.mark.parametrize("fmt", FORMATS)
def test_enable_carries_the_recommended_flags_in_order(fmt: str) -> None:
    rec = enable("new")
    text = render_deploy(rec, fmt, model_path=MODEL)
    assert "turn speculative decoding on" in text
    if fmt in ("llmkube", "compose"):
        (doc,) = load_all(text)
        assert isinstance(doc, dict)
        words = doc["spec"]["extraArgs"] if fmt == "llmkube" else doc["services"]["llama-server"]["command"]
    else:
        words = _words(text.replace("ExecStart=", ""))
    flags = [a for a in rec.argv if a.startswith("-")]
    assert _spec_words(words) == flags
    assert [words.index(f) for f in flags] == sorted(words.index(f) for f in flags)


def test_docker_round_trips_through_the_shell() -> None:
    rec = Recommendation("llama.cpp", ("--spec-type", "draft-simple", "-md", "/m/my draft's $HOME.gguf"), (), ())
    words = _words(render_deploy(rec, "docker", model_path="/m/target model.gguf", port=9000))
    assert words[:2] == ["docker", "run"] and "ghcr.io/ggml-org/llama.cpp:server-cuda" in words
    assert words[words.index("-md") + 1] == "/models/my draft's $HOME.gguf"  # same folder → /models
    assert words[words.index("-m") + 1] == "/models/target model.gguf"
    assert "/m:/models:ro" in words and "127.0.0.1:9000:9000" in words


def test_docker_cpu_image_and_placeholders() -> None:
    import advisor.deploy.docker as docker
    from advisor.deploy.base import request_for

    req = request_for(recommend(NEW | {"spec.method": "draft", "spec.draft_max": 4}), verdict="ENABLE",
                      model_path=None, host="0.0.0.0", port=None, manifest_text=None)
    text = docker.render(req, cuda=False)
    words = _words(text)
    assert "ghcr.io/ggml-org/llama.cpp:server" in words and "--gpus" not in words
    assert "8080:8080" in words  # host 0.0.0.0: published on every interface, as asked
    assert "/models/MODEL.gguf" in words and "/models/DRAFT_MODEL.gguf" in words
    assert "replace the placeholders /path/to/models" in text and "DRAFT_MODEL.gguf (" in text


def test_compose_is_yaml_with_an_exec_form_command() -> None:
    rec = Recommendation("llama.cpp", ("--spec-type", "ngram-mod", "--lookup-cache-static", "/c/$X%.bin"), (), ())
    text = render_deploy(rec, "compose", model_path=MODEL)
    (doc,) = load_all(text)
    assert isinstance(doc, dict)
    service = doc["services"]["llama-server"]
    assert service["image"] == "ghcr.io/ggml-org/llama.cpp:server-cuda"
    assert service["command"][-4:] == ["--spec-type", "ngram-mod", "--lookup-cache-static", "/c/$$X%.bin"]
    assert service["deploy"]["resources"]["reservations"]["devices"][0]["capabilities"] == ["gpu"]


def test_systemd_quotes_for_systemd_not_the_shell() -> None:
    from advisor.deploy.systemd import quote

    assert quote("--port") == "--port"
    assert quote("/m/a b.gguf") == '"/m/a b.gguf"'
    assert quote('{"method":"mtp"}') == '"{\\"method\\":\\"mtp\\"}"'
    assert quote("50%") == "50%%" and quote("$HOME") == '"$$HOME"'
    text = render_deploy(enable("old"), "systemd", model_path=MODEL)
    exec_lines = [line for line in text.splitlines() if line.startswith("ExecStart=")]
    assert exec_lines[0] == "ExecStart=" and "--draft-max 8" in exec_lines[1]


def test_llmkube_patch_without_manifest_is_a_merge_patch() -> None:
    (doc,) = load_all(render_deploy(enable("new"), "llmkube"))
    assert doc == {"spec": {"extraArgs": list(enable("new").argv)}}
    skip = render_deploy(None, "llmkube", verdict="SKIP")
    assert load_all(skip) == [] and "remove them" in skip


def test_enable_without_flags_says_so() -> None:
    # an old build without EAGLE-3 (a build of unknown dialect gets the current flags instead, noted)
    rec = recommend({**OLD, "spec.method": "eagle3"})
    assert rec is not None and rec.argv == ()
    for fmt in FORMATS:
        text = render_deploy(rec, fmt, model_path=MODEL)
        commands = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
        assert "no flags can be written" in text and not any("--spec-type" in line for line in commands)


def test_gui_engine_steps_in_plain() -> None:
    rec = recommend({"engine.kind": "ollama", "spec.method": "draft", "spec.draft_max": 4})
    text = render_deploy(rec, "plain")
    assert "draft_num_predict to 4" in text
    with pytest.raises(DeployError, match=r"llama\.cpp server command"):
        render_deploy(rec, "docker")
    with pytest.raises(DeployError, match="LLMKube"):
        render_deploy(rec, "llmkube")


def test_bad_arguments_are_user_errors() -> None:
    with pytest.raises(DeployError, match="unknown deploy format"):
        render_deploy(None, "helm")
    with pytest.raises(DeployError, match="only be used with the llmkube"):
        render_deploy(None, "docker", manifest_text="a: 1\n")
    with pytest.raises(DeployError, match="out of range"):
        render_deploy(None, "docker", port=70000)


def test_vllm_goes_to_llmkube_extra_args() -> None:
    rec = recommend({"engine.kind": "vllm", "spec.method": "ngram", "spec.draft_max": 5})
    (doc,) = load_all(render_deploy(rec, "llmkube"))
    assert isinstance(doc, dict) and doc["spec"]["extraArgs"][0] == "--speculative-config"
