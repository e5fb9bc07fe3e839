"""What a person reads about a cluster plan: the objects to create or patch, the RBAC it needs, diffs."""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from typing import Any, TextIO

from advisor.cluster.api import Permission
from advisor.cluster.plan import ClusterPlan
from advisor.deploy.llmkube_spec import fields_of, merge_diff
from advisor.recommend import yaml_emit
from advisor.text import text


def role_manifest(namespace: str, permissions: Sequence[Permission]) -> str:
    """A Role granting `permissions` in `namespace` (cluster-scoped ones need a ClusterRole: noted)."""
    rules: dict[tuple[str, str], list[str]] = {}
    for p in permissions:
        rules.setdefault((p.group, p.resource), [])
        if p.verb not in rules[(p.group, p.resource)]:
            rules[(p.group, p.resource)].append(p.verb)
    doc = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
           "metadata": {"name": "spec-advisor", "namespace": namespace},
           "rules": [{"apiGroups": [g], "resources": [r], "verbs": v} for (g, r), v in rules.items()]}
    return "\n".join(yaml_emit.emit(doc)) + "\n"


def fields_yaml(fields: dict[str, Any]) -> list[str]:
    """The speculation fields as YAML lines (absent fields left out)."""
    present = {k: v for k, v in fields.items() if v is not None}
    return yaml_emit.emit({"spec": present}) if present else ["spec: {}"]


def fields_diff(before: dict[str, Any], after: dict[str, Any], name: str) -> str:
    """A unified diff of the speculation fields."""
    return "\n".join(difflib.unified_diff(fields_yaml(before), fields_yaml(after), f"{name} (now)",
                                          f"{name} (after)", lineterm=""))


def print_plan(plan: ClusterPlan, lang: str, out: TextIO) -> None:
    """`--plan`: the arms, what would be created or patched (and patched back), and the RBAC needed."""
    ns = plan.namespace
    out.write(text(lang, "cluster.plan_head", service=f"{ns}/{plan.name}", mode=plan.mode, reason=plan.reason) + "\n")
    field_name = "spec.speculativeDecoding" if plan.spec_field else "spec.extraArgs"
    out.write(text(lang, "cluster.plan_field", field=field_name) + "\n")
    for arm in plan.arms:
        out.write(text(lang, "cluster.plan_arm", arm=arm.arm, service=f"{ns}/{arm.service}",
                       fields=json.dumps({k: v for k, v in arm.fields.items() if v is not None}, sort_keys=True))
                  + "\n")
    for arm in plan.creates:
        out.write(text(lang, "cluster.plan_create", service=f"{ns}/{arm.service}") + "\n")
        for line in yaml_emit.emit(plan.twin_body(arm, "RUN-ID")):
            out.write(f"    {line}\n")
    current = fields_of(plan.spec)
    for arm in plan.patches:
        out.write(text(lang, "cluster.plan_patch", service=f"{ns}/{plan.name}", arm=arm.arm) + "\n")
        out.write(f"    {json.dumps({'spec': merge_diff(current, arm.fields)}, sort_keys=True)}\n")
    out.write(text(lang, "cluster.plan_rbac") + "\n")
    for line in role_manifest(ns, plan.permissions()).splitlines():
        out.write(f"    {line}\n")
    out.write(text(lang, "cluster.plan_nothing_changed") + "\n")
