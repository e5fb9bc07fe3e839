"""`--apply` on the contract cluster: a diff, only the speculation fields changed, and a printed rollback that
restores the spec byte for byte. A few seconds (one rollout of the demo model)."""

from __future__ import annotations

import io
import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from advisor.cluster.api import Cluster
from advisor.cluster.apply import apply_after_check, apply_fields
from advisor.cluster.plan import make_plan
from advisor.errors import UserError
from tests.cluster_fixtures import demo_cluster

pytestmark = pytest.mark.engine


def _rollback_patch(printed: str) -> dict[str, Any]:
    line = next(line for line in printed.splitlines() if line.strip().startswith("kubectl patch"))
    words = shlex.split(line)
    assert words[:6] == ["kubectl", "patch", "inferenceservice", "demo", "-n", "default"]
    return dict(json.loads(words[words.index("-p") + 1]))


@pytest.mark.parametrize("spec_field", [True, False])
def test_apply_changes_only_the_speculation_fields_and_rolls_back_exactly(
        llama_binary: Any, demo_model: Path, tmp_path: Path, spec_field: bool) -> None:
    with demo_cluster(llama_binary, demo_model, tmp_path, with_spec_field=spec_field) as (cluster, kubeconfig):
        api = Cluster(kubeconfig)
        plan = make_plan(api, "default", "demo", spec_argv=("--spec-type", "ngram-mod"), arms="auto",
                         spec_field=api.crd_has_spec_field())
        before = cluster.get("inferenceservices", "default", "demo")
        assert before is not None
        out = io.StringIO()
        with pytest.raises(UserError, match="confirm with --yes"):
            apply_fields(api, "default", "demo", plan.arms[1].fields, lang="en", yes=False, out=out,
                         ask=lambda _: "y", interactive=False)
        assert cluster.get("inferenceservices", "default", "demo") == before   # refused: nothing changed
        declined = io.StringIO()
        assert apply_fields(api, "default", "demo", plan.arms[1].fields, lang="en", yes=False, out=declined,
                            ask=lambda _: "n", interactive=True) is None
        assert "nothing was changed" in declined.getvalue()
        rollback = apply_fields(api, "default", "demo", plan.arms[1].fields, lang="en", yes=True, out=out,
                                ask=lambda _: "y")
        printed = out.getvalue()
        assert "+" in printed and "(after)" in printed   # the diff came first
        after = cluster.get("inferenceservices", "default", "demo")
        assert after is not None
        changed = {k for k in set(before["spec"]) | set(after["spec"]) if before["spec"].get(k) != after["spec"].get(k)}
        assert changed == ({"speculativeDecoding"} if spec_field else {"extraArgs"})
        if spec_field:
            assert after["spec"]["speculativeDecoding"] == {"type": "ngram-mod"}
        else:
            assert after["spec"]["extraArgs"] == ["--poll", "0", "--spec-type", "ngram-mod"]
        assert _rollback_patch(printed) == rollback
        api.patch_service("default", "demo", rollback)   # what `kubectl patch … -p` sends
        restored = cluster.get("inferenceservices", "default", "demo")
        assert restored is not None
        assert json.dumps(restored["spec"]) == json.dumps(before["spec"])   # byte for byte, key order included


def test_apply_after_a_verdict_other_than_enable_changes_nothing(
        llama_binary: Any, demo_model: Path, tmp_path: Path) -> None:
    with demo_cluster(llama_binary, demo_model, tmp_path) as (cluster, kubeconfig):
        api = Cluster(kubeconfig)
        plan = make_plan(api, "default", "demo", spec_argv=("--spec-type", "ngram-mod"), arms="auto",
                         spec_field=True)
        run = tmp_path / "run"
        run.mkdir()
        (run / "verdict.json").write_text(json.dumps({"verdict": "SKIP"}))
        versions = cluster.resource_versions()
        out = io.StringIO()
        assert apply_after_check(api, plan, run, lang="zh", yes=True, out=out, ask=lambda _: "y") == 0
        assert "未应用任何改动，结论是 SKIP" in out.getvalue()
        assert cluster.resource_versions() == versions


def test_the_canary_is_a_weighted_model_router_beside_a_spec_on_copy(
        llama_binary: Any, demo_model: Path, tmp_path: Path) -> None:
    import yaml

    from advisor.cluster.canary import canary_manifests

    with demo_cluster(llama_binary, demo_model, tmp_path) as (cluster, kubeconfig):
        api = Cluster(kubeconfig)
        plan = make_plan(api, "default", "demo", spec_argv=("--spec-type", "ngram-mod"), arms="auto",
                         spec_field=True)
        docs = list(yaml.safe_load_all(canary_manifests(plan)))
        copy_, router = docs
        original = cluster.get("inferenceservices", "default", "demo")
        assert original is not None
        assert copy_["kind"] == "InferenceService" and copy_["metadata"]["name"] == "demo-spec-on"
        assert copy_["spec"] == {**original["spec"], "speculativeDecoding": {"type": "ngram-mod"}}
        assert router["kind"] == "ModelRouter" and router["spec"]["rules"][0]["route"]["strategy"] == "weighted"
        weights = {b["inferenceServiceRef"]["name"]: b["weight"] for b in router["spec"]["backends"]}
        assert weights == {"demo": 90, "demo-spec-on": 10}
