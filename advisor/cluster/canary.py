"""The cautious way to roll out a measured ENABLE: a spec-on copy and a ModelRouter that sends it a share.

Two documents the user applies (nothing here touches the cluster): an InferenceService `NAME-spec-on` (the
user's spec with the measured speculation fields) and a ModelRouter whose one rule routes between the two
with LLMKube's `weighted` strategy. Raising the copy's weight to 100 and then applying the fields to the
original (or `check --llmkube … --apply`) finishes the rollout; deleting both documents undoes it.
"""

from __future__ import annotations

import copy
from pathlib import Path

from advisor.atomic import write_atomic
from advisor.cluster.api import GROUP, VERSION
from advisor.cluster.plan import ClusterPlan
from advisor.deploy.llmkube_spec import with_fields
from advisor.recommend import yaml_emit

CANARY_FILE = "llmkube-canary.yaml"
# A tenth of the requests to the spec-on copy at first: enough to see it serve, little to lose if it misbehaves.
CANARY_WEIGHT = 10


def canary_manifests(plan: ClusterPlan, weight: int = CANARY_WEIGHT) -> str:
    """The spec-on copy and the weighted ModelRouter, as one YAML stream."""
    on = next(a for a in plan.arms if a.arm == "on")
    name, ns = plan.name, plan.namespace
    copy_name = f"{name}-spec-on"
    labels = dict((plan.original.get("metadata") or {}).get("labels") or {})
    service = {"apiVersion": f"{GROUP}/{VERSION}", "kind": "InferenceService",
               "metadata": {"name": copy_name, "namespace": ns, **({"labels": labels} if labels else {})},
               "spec": with_fields(copy.deepcopy(plan.spec), on.fields)}
    router = {"apiVersion": f"{GROUP}/{VERSION}", "kind": "ModelRouter",
              "metadata": {"name": f"{name}-canary", "namespace": ns},
              "spec": {"backends": [{"name": "current", "inferenceServiceRef": {"name": name}, "weight": 100 - weight},
                                    {"name": "speculative", "inferenceServiceRef": {"name": copy_name},
                                     "weight": weight}],
                       "rules": [{"name": "speculation-canary",
                                  "route": {"backends": ["current", "speculative"], "strategy": "weighted"}}],
                       "defaultRoute": "current"}}
    head = [f"# spec-advisor: a weighted canary for {ns}/{name}: {weight}% of requests to {copy_name}",
            "# spec-advisor: kubectl apply -f THIS_FILE; raise the weight as it serves well; kubectl delete -f "
            "THIS_FILE undoes it"]
    return "\n".join([*head, *yaml_emit.emit(service), "---", *yaml_emit.emit(router)]) + "\n"


def write_canary(plan: ClusterPlan, run_dir: Path) -> Path:
    """Write the canary manifests into the run folder; their path."""
    return write_atomic(run_dir / CANARY_FILE, canary_manifests(plan))
