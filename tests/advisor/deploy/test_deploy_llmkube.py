"""LLMKube with the user's manifest: only spec.extraArgs changes; every other field, comment and order stays."""

from __future__ import annotations

import difflib
import importlib.util
from pathlib import Path
from typing import Any

import pytest

from advisor.deploy.base import DeployError
from advisor.deploy.render import render_deploy
from advisor.deploy.yaml_load import ManifestYamlError, load_all
from advisor.recommend.dialect import is_spec_flag
from tests.deploy_cases import MANIFEST, enable
from tests.paths import FIXTURES

HAVE_PYYAML = importlib.util.find_spec("yaml") is not None
ORIGINAL = MANIFEST.read_text(encoding="utf-8")
NON_SPEC_ARGS = ["--metrics", "--seed", "42"]
# the spec's own extraArgs block (the annotation's block scalar also has a line starting "extraArgs:")
ARGS_BLOCK = ORIGINAL[ORIGINAL.index("\n  extraArgs:\n") + 1:ORIGINAL.index("\n  env:\n") + 1]


def _loaders() -> list[Any]:
    loaders: list[Any] = [load_all]
    if HAVE_PYYAML:  # cross-check with an independent parser when the venv has one
        import yaml

        loaders.append(lambda text: list(yaml.safe_load_all(text)))
    return loaders


def _service(docs: list[Any]) -> dict[str, Any]:
    (svc,) = [d for d in docs if d.get("kind") == "InferenceService"]
    return svc  # type: ignore[no-any-return]


def _assert_only_extra_args_changed(before: str, after: str) -> list[str]:
    for load in _loaders():
        old, new = load(before), load(after)
        assert len(old) == len(new)
        for a, b in zip(old, new, strict=True):
            if a.get("kind") != "InferenceService":
                assert a == b
                continue
            b["spec"].pop("extraArgs", None)
            a["spec"].pop("extraArgs", None)
            assert a == b
            assert list(a) == list(b) and list(a["spec"]) == list(b["spec"])  # key order kept
            assert list(a["metadata"]["annotations"]) == list(b["metadata"]["annotations"])
    return list(_service(load_all(after))["spec"].get("extraArgs") or [])


def _changed_lines(before: str, after: str) -> list[str]:
    return [line for line in difflib.ndiff(before.splitlines(), after.splitlines())
            if line[:1] in "+-" and not line[2:].startswith("# spec-advisor")]


@pytest.mark.parametrize("dialect", ["new", "old"])
def test_enable_rewrites_only_extra_args(dialect: str) -> None:
    rec = enable(dialect)
    out = render_deploy(rec, "llmkube", manifest_text=ORIGINAL)
    args = _assert_only_extra_args_changed(ORIGINAL, out)
    assert args == [*NON_SPEC_ARGS, *rec.argv]  # the stale --draft-max 16 went, the user's own flags stayed
    assert "removed from spec.extraArgs: --draft-max 16" in out
    # every changed line is inside the extraArgs list
    assert all(line[2:].startswith("    - ") for line in _changed_lines(ORIGINAL, out))


def test_skip_removes_spec_flags_and_never_adds() -> None:
    enabled = render_deploy(enable("new"), "llmkube", manifest_text=ORIGINAL)
    out = render_deploy(None, "llmkube", manifest_text=enabled, verdict="SKIP")
    args = _assert_only_extra_args_changed(ORIGINAL, out)
    assert args == NON_SPEC_ARGS and not any(is_spec_flag(a) for a in args)
    assert "leave speculative decoding off" in out
    again = render_deploy(None, "llmkube", manifest_text=out, verdict="SKIP")
    assert "already matches; nothing changed" in again
    assert again.count("# spec-advisor: leave") == 1  # its own old header is replaced, not stacked


def test_skip_with_only_spec_flags_leaves_an_empty_list() -> None:
    text = ORIGINAL.replace('    - "--metrics"\n', "").replace('    - "--seed"\n    - "42"\n', "")
    out = render_deploy(None, "llmkube", manifest_text=text, verdict="SKIP")
    assert _assert_only_extra_args_changed(text, out) == []
    assert "  extraArgs: []" in out


def test_inserts_extra_args_when_absent() -> None:
    text = ORIGINAL.replace(ARGS_BLOCK, "")
    rec = enable("new")
    out = render_deploy(rec, "llmkube", manifest_text=text)
    assert _assert_only_extra_args_changed(text, out) == list(rec.argv)
    assert out.rstrip().endswith('- "0.75"')  # appended after the last line of spec
    unchanged = render_deploy(None, "llmkube", manifest_text=text, verdict="SKIP")
    assert unchanged.endswith(text) and "extraArgs" not in _service(load_all(unchanged))["spec"]


def test_crlf_and_flow_style_extra_args() -> None:
    text = ORIGINAL.replace(ARGS_BLOCK, '  extraArgs: ["--metrics", "--spec-type", ngram-simple]\n')
    text = text.replace("\n", "\r\n")
    out = render_deploy(enable("old"), "llmkube", manifest_text=text)
    assert "\r\n" in out and "\n" not in out.replace("\r\n", "")
    assert _assert_only_extra_args_changed(text, out) == ["--metrics", *enable("old").argv]


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda t: t.replace("  replicas: 1", "  replicas: &r 1"), "anchors"),
    (lambda t: t.replace("kind: Model\n", "kind: InferenceService\n"), "2 InferenceService"),
    (lambda t: t.replace("kind: InferenceService\n", "kind: Deployment\n"), "0 InferenceService"),
    (lambda t: t.replace('    - "16"', "    - 16"), "list of strings"),
    (lambda t: t.replace("  replicas: 1", "\treplicas: 1"), "tab"),
    (lambda t: t.replace("    memory: \"8Gi\"", '    memory: "8Gi\n      more"'), "quoted string"),
    (lambda t: t.replace("  modelRef: qwen3-8b", "  modelRef: !!str qwen3-8b"), "tags"),
])
def test_unsupported_or_ambiguous_manifests_raise_clear_errors(mutate: Any, message: str) -> None:
    with pytest.raises(DeployError, match=message) as info:
        render_deploy(enable("new"), "llmkube", manifest_text=mutate(ORIGINAL))
    assert info.value.hint


def test_yaml_errors_name_the_line() -> None:
    with pytest.raises(ManifestYamlError, match="line 3"):
        load_all("a: 1\nb: 2\nc: &x 3\n")


def test_flow_spec_is_refused() -> None:
    text = "apiVersion: v1\nkind: InferenceService\nspec: {modelRef: m, extraArgs: []}\n"
    with pytest.raises(DeployError, match="flow style"):
        render_deploy(enable("new"), "llmkube", manifest_text=text)


def test_bytes_outside_extra_args_are_kept_even_with_mixed_line_ends() -> None:
    head, tail = ORIGINAL.split(ARGS_BLOCK)
    head = head.replace("\n", "\r\n", 3)  # a file edited on two systems: the untouched lines keep their ends
    out = render_deploy(enable("new"), "llmkube", manifest_text=head + ARGS_BLOCK + tail)
    body = out[out.index(head[:40]):]
    assert body.startswith(head) and body.endswith(tail)
    assert _assert_only_extra_args_changed(head + ARGS_BLOCK + tail, out) == [*NON_SPEC_ARGS, *enable("new").argv]


def test_insert_after_a_kept_block_scalar_keeps_its_blank_lines() -> None:
    text = ORIGINAL.replace(ARGS_BLOCK, "") + "  script: |+\n    echo hi\n\n\n# the end\n"
    out = render_deploy(enable("new"), "llmkube", manifest_text=text)
    assert _assert_only_extra_args_changed(text, out) == list(enable("new").argv)
    assert "    echo hi\n\n\n  extraArgs:\n" in out and out.endswith('- "0.75"\n# the end\n')


def test_cli_refuses_a_huge_manifest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from advisor.cli.main import main

    facts = FIXTURES / "facts" / "dense_enable.json"
    huge = tmp_path / "huge.yaml"
    huge.write_text(ORIGINAL + "# padding\n" * 2_000_000, encoding="utf-8")  # 20 MB
    assert main(["decide", "--facts", str(facts), "--format-flags", "llmkube", "--manifest", str(huge)]) == 2
    assert "spec-advisor reads at most 256 KiB" in capsys.readouterr().err
