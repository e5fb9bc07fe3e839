"""`check --llmkube` end to end against the contract Kubernetes API (tests/kube_contract_server.py), whose pods
are real llama-servers with the demo model: the A/B on a twin, --plan, and `cluster cleanup`.

Time on the 2-core test machine: the A/B test ≈ 60–90 s, the others a few seconds each.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from advisor.cli.main import main
from tests.cluster_fixtures import demo_cluster, small_budget

pytestmark = pytest.mark.engine


def test_cluster_ab_on_a_twin_ends_with_a_verdict_and_leaves_nothing(
        llama_binary: Any, demo_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    small_budget(monkeypatch)
    with demo_cluster(llama_binary, demo_model, tmp_path) as (cluster, kubeconfig):
        before = cluster.snapshot()
        out = tmp_path / "run"
        code = main(["check", "--quick", "--llmkube", "default/demo", "--kubeconfig", str(kubeconfig),
                     "--steps", "ab", "--no-history", "--out", str(out), "--json"])
        printed = json.loads(capsys.readouterr().out)
        assert code == 0, printed
        assert printed["verdict"]["verdict"] in ("ENABLE", "SKIP", "INCONCLUSIVE")
        evidence = json.loads((out / "evidence.json").read_text())
        ab = evidence["steps"]["ab"]
        assert ab["status"] == "done" and len(ab["evidence"]["pairs"]) >= 10
        # the A/B started on a fresh pod of the twin, so the n-gram pool was clean: the canary does not withhold it
        assert ab["evidence"]["pool"]["fresh"] is True
        record = evidence["cluster"]
        assert record["mode"] == "twin" and record["original"] == "default/demo"
        assert {(a["arm"], a["inference_service"], a["ours"]) for a in record["arms"]} == {
            ("off", "default/demo", False), ("on", "default/demo-sa-on", True)}
        on = next(a for a in record["arms"] if a["arm"] == "on")
        assert json.loads(on["speculative_decoding"]) == {"type": "ngram-mod"} and on["extra_args"] == ["--poll", "0"]
        rollouts = record["rollouts"]
        # the twin's first pod is new and nothing measured had reached it, so the A/B takes it as it is
        assert [(r["arm"], r["before"], r["reason"]) for r in rollouts] == [
            ("off", "start", "existing"), ("on", "start", "create")]
        assert all(r["generation"] == 1 and r["pod"] for r in rollouts)
        assert ab["evidence"]["pool"]["generation"] == 1
        # the user's service was only read; the twin is gone; nothing is left to clean up
        assert cluster.snapshot() == before
        ledger = json.loads((out / "cluster-ledger.json").read_text())
        assert ledger["closed"] and [e["state"] for e in ledger["entries"]] == ["undone"]
        assert main(["cluster", "cleanup", "--kubeconfig", str(kubeconfig)]) == 0
        assert "no leftovers" in capsys.readouterr().out


def test_plan_prints_the_twin_and_rbac_and_changes_nothing(
        llama_binary: Any, demo_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with demo_cluster(llama_binary, demo_model, tmp_path) as (cluster, kubeconfig):
        versions = cluster.resource_versions()
        assert main(["check", "--llmkube", "default/demo", "--kubeconfig", str(kubeconfig), "--plan",
                     "--draft-max", "8"]) == 0
        out = capsys.readouterr().out
        assert cluster.resource_versions() == versions
        assert "would create (and delete at the end) default/demo-sa-on" in out
        # ngram-mod's draft length has its own flag, which nDraftMax (--spec-draft-n-max) does not set: extraArgs
        assert ('{"extraArgs": ["--poll", "0", "--spec-ngram-mod-n-max", "8", "--spec-ngram-mod-n-min", "8"], '
                '"speculativeDecoding": {"type": "ngram-mod"}}') in out
        assert '"spec-advisor.dev/twin-of": "demo"' in out and "kind: \"Role\"" in out
        assert "nothing was changed" in out


def test_plan_without_room_for_a_twin_says_windows(
        llama_binary: Any, demo_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with demo_cluster(llama_binary, demo_model, tmp_path, node_memory="1536Mi") as (cluster, kubeconfig):
        versions = cluster.resource_versions()
        assert main(["check", "--llmkube", "default/demo", "--kubeconfig", str(kubeconfig), "--plan",
                     "--lang", "zh"]) == 0
        out = capsys.readouterr().out
        assert cluster.resource_versions() == versions
        assert "windows" in out and "将为 on 组修改 default/demo" in out and "没有做任何改动" in out


def test_old_crd_plans_extra_args(llama_binary: Any, demo_model: Path, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    with demo_cluster(llama_binary, demo_model, tmp_path, with_spec_field=False) as (_cluster, kubeconfig):
        assert main(["check", "--llmkube", "default/demo", "--kubeconfig", str(kubeconfig), "--plan"]) == 0
        out = capsys.readouterr().out
        assert "through spec.extraArgs" in out
        assert '"extraArgs": ["--poll", "0", "--spec-type", "ngram-mod"]' in out
        assert "speculativeDecoding" not in out
