"""The speculation fields of an LLMKube InferenceService: flags ↔ spec.speculativeDecoding, merge patches."""

from __future__ import annotations

import pytest

from advisor.deploy.llmkube_spec import merge_diff, spec_is_on, speculation_fields, speculative_block, with_fields
from tests.kube_contract_server import merge_patch


def test_block_from_flags_keeps_what_it_cannot_hold_aside() -> None:
    parsed = speculative_block(["--spec-type", "draft-simple", "-md", "/m/d.gguf", "--spec-draft-n-max", "6",
                                "--spec-draft-p-min", "0.5", "-ngld", "99"])
    assert parsed.block == {"type": "draft-simple", "draftModelRef": "DRAFT-MODEL", "nDraftMax": 6, "pMin": 0.5}
    assert parsed.leftover == ("-ngld", "99") and parsed.draft_model == "/m/d.gguf"
    assert speculative_block([]).block is None
    assert speculative_block(["--spec-type", "none"]).block is None


@pytest.mark.parametrize("spec_field", [True, False])
def test_fields_keep_the_users_other_extra_args(spec_field: bool) -> None:
    fields = speculation_fields(("--spec-type", "ngram-mod"), ["--poll", "0", "--spec-type", "ngram-cache"],
                                spec_field=spec_field)
    if spec_field:
        assert fields == {"speculativeDecoding": {"type": "ngram-mod"}, "extraArgs": ["--poll", "0"]}
    else:
        assert fields == {"speculativeDecoding": None, "extraArgs": ["--poll", "0", "--spec-type", "ngram-mod"]}
    off = speculation_fields((), None, spec_field=spec_field)
    assert off == {"speculativeDecoding": None, "extraArgs": None}


def test_spec_is_on_reads_the_block_and_extra_args() -> None:
    assert spec_is_on({"speculativeDecoding": {"type": "ngram-mod"}})
    assert not spec_is_on({"speculativeDecoding": {"type": "disabled"}})
    assert spec_is_on({"extraArgs": ["--spec-type", "ngram-mod"]})
    assert not spec_is_on({"extraArgs": ["--poll", "0"]})


@pytest.mark.parametrize(("before", "after"), [
    ({"modelRef": "m", "extraArgs": ["--poll", "0"]},
     {"modelRef": "m", "extraArgs": ["--poll", "0"], "speculativeDecoding": {"type": "ngram-mod", "nDraftMax": 8}}),
    ({"modelRef": "m", "speculativeDecoding": {"type": "ngram-mod", "nDraftMax": 8}},
     {"modelRef": "m", "speculativeDecoding": {"type": "ngram-mod"}}),
    ({"modelRef": "m", "speculativeDecoding": {"type": "ngram-mod"}, "extraArgs": ["-t", "4"]}, {"modelRef": "m"}),
])
def test_merge_diff_round_trips_through_a_merge_patch(before: dict[str, object], after: dict[str, object]) -> None:
    # the patch there and the patch back leave the spec exactly as it was (keys the target lacks become null)
    assert merge_patch(before, merge_diff(before, after)) == after
    assert merge_patch(after, merge_diff(after, before)) == before


def test_with_fields_replaces_only_the_speculation_fields() -> None:
    spec = {"modelRef": "m", "replicas": 1, "extraArgs": ["--poll", "0"]}
    out = with_fields(spec, {"speculativeDecoding": {"type": "ngram-mod"}, "extraArgs": None})
    assert out == {"modelRef": "m", "replicas": 1, "speculativeDecoding": {"type": "ngram-mod"}}


@pytest.mark.parametrize("argv", [
    ["check", "--kubeconfig", "kc.yaml"], ["check", "--plan"], ["check", "--apply", "--yes"],
    ["check", "--llmkube", "Default/demo", "--plan"], ["check", "--llmkube", "a/b/c", "--plan"],
    ["check", "--llmkube", "default/demo", "--engine-url", "http://127.0.0.1:1"],
    ["check", "--llmkube", "default/demo", "--plan", "--apply"],
])
def test_cluster_options_refuse_bad_combinations_before_reaching_a_cluster(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from advisor.cli.main import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "spec-advisor:" in err and "Traceback" not in err


def test_an_unreadable_kubeconfig_is_a_clear_error(tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    from pathlib import Path

    from advisor.cli.main import main

    missing = Path(str(tmp_path)) / "nope.yaml"
    assert main(["check", "--llmkube", "default/demo", "--kubeconfig", str(missing), "--plan"]) == 2
    err = capsys.readouterr().err
    assert "cannot load" in err and "--kubeconfig" in err and "Traceback" not in err


def test_a_cluster_that_does_not_answer_is_a_clear_error(tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    from pathlib import Path

    from advisor.cli.main import main
    from tests.kube_contract_server import _free_port

    kubeconfig = Path(str(tmp_path)) / "kc.yaml"
    kubeconfig.write_text(f"apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: "
                          f"http://127.0.0.1:{_free_port()}\nusers:\n- name: u\n  user:\n    token: t\ncontexts:\n"
                          "- name: c\n  context:\n    cluster: c\n    user: u\ncurrent-context: c\n")
    assert main(["check", "--llmkube", "default/demo", "--kubeconfig", str(kubeconfig), "--plan"]) == 2
    err = capsys.readouterr().err
    assert "cannot reach the cluster API" in err and "Traceback" not in err
