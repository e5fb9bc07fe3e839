"""Plan a cluster check before anything changes: the arms, the objects to create or patch, the RBAC needed.

A spec-on **twin** (a copy of the InferenceService that differs only in its speculation fields, labelled as
ours) when the nodes have room for a second pod beside the first; otherwise **sequential windows** on the one
service (patch → rollout → Ready → measure → patch back). The OFF arm is the user's service whenever its own
spec has no speculation: then it is only read, never restarted, and the twin is the only thing created.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any, Literal

from advisor.cluster.api import GROUP, Cluster, ClusterError, Obj, Permission
from advisor.deploy.llmkube_spec import fields_of, spec_is_on, speculation_fields, with_fields
from advisor.evidence.cluster import ClusterMode

MANAGED_BY = "app.kubernetes.io/managed-by"
OURS = "spec-advisor"
RUN_LABEL = "spec-advisor.dev/run"           # on every object a check created or patched
TWIN_OF = "spec-advisor.dev/twin-of"         # on a twin: the service it copies
RESTORE_ANNOTATION = "spec-advisor.dev/restore"   # on a patched service: its fields before (JSON)
TWIN_SUFFIX = {"on": "-sa-on", "off": "-sa-off"}
ArmsChoice = Literal["auto", "single", "dual"]

READ_PERMISSIONS = (Permission("get", "inferenceservices", GROUP), Permission("list", "inferenceservices", GROUP),
                    Permission("get", "models", GROUP), Permission("list", "pods"), Permission("get", "services"),
                    Permission("list", "events"))
TWIN_PERMISSIONS = (Permission("create", "inferenceservices", GROUP),
                    Permission("delete", "inferenceservices", GROUP), Permission("delete", "pods"))
WINDOW_PERMISSIONS = (Permission("patch", "inferenceservices", GROUP),)


@dataclass(frozen=True, slots=True)
class ArmSpec:
    """One arm of a cluster check: which service serves it and with which speculation fields."""

    arm: str                   # off | on
    service: str               # the InferenceService's name
    fields: dict[str, Any]     # its speculativeDecoding and extraArgs
    ours: bool                 # a twin we create


@dataclass(frozen=True, slots=True)
class ClusterPlan:
    """What a cluster check will do, decided before any change."""

    namespace: str
    name: str
    original: Obj
    spec_field: bool           # the CRD has spec.speculativeDecoding
    mode: ClusterMode
    reason: str
    arms: tuple[ArmSpec, ArmSpec]    # off, on

    @property
    def creates(self) -> list[ArmSpec]:
        """The twins this plan creates."""
        return [a for a in self.arms if a.ours] if self.mode == "twin" else []

    @property
    def patches(self) -> list[ArmSpec]:
        """The arms served by patching the user's service (windows; each is patched back)."""
        return [a for a in self.arms if a.fields != fields_of(self.spec)] if self.mode == "windows" else []

    @property
    def spec(self) -> dict[str, Any]:
        return dict(self.original.get("spec") or {})

    def permissions(self) -> tuple[Permission, ...]:
        """What this plan needs to be allowed (a twin may still fall back to windows: both are asked)."""
        if self.mode == "twin":
            return READ_PERMISSIONS + TWIN_PERMISSIONS + WINDOW_PERMISSIONS
        return READ_PERMISSIONS + WINDOW_PERMISSIONS + (Permission("delete", "pods"),)

    def twin_body(self, arm: ArmSpec, run_id: str) -> Obj:
        """The manifest of a twin: the user's spec with this arm's speculation fields, our labels."""
        meta = self.original.get("metadata") or {}
        labels = {**(meta.get("labels") or {}), MANAGED_BY: OURS, RUN_LABEL: run_id, TWIN_OF: self.name}
        return {"apiVersion": f"{GROUP}/v1alpha1", "kind": "InferenceService",
                "metadata": {"name": arm.service, "namespace": self.namespace, "labels": labels},
                "spec": with_fields(copy.deepcopy(self.spec), arm.fields)}


def _memory(text: str | None) -> float:
    """A memory quantity in bytes (0 when absent or unreadable)."""
    if not text:
        return 0.0
    units = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "k": 1e3, "M": 1e6, "G": 1e9}
    for suffix, factor in units.items():
        if text.endswith(suffix):
            try:
                return float(text[: -len(suffix)]) * factor
            except ValueError:
                return 0.0
    try:
        return float(text)
    except ValueError:
        return 0.0


def room_for_twin(cluster: Cluster, spec: dict[str, Any]) -> tuple[bool | None, str]:
    """Whether the nodes' allocatable memory (and GPUs) left by the pods already scheduled hold one more pod
    of `spec`; None when the cluster does not let us read nodes or pods. The reason, in words."""
    resources = spec.get("resources") or {}
    need_mem = _memory(resources.get("hostMemory") or resources.get("memory"))
    need_gpu = int(resources.get("gpu") or 0)
    try:
        nodes, pods = cluster.nodes(), cluster.all_pods()
    except ClusterError as exc:
        return None, f"the room on the nodes is unknown ({exc})"
    mem = sum(_memory((n.status.allocatable or {}).get("memory")) for n in nodes if n.status)
    gpus = sum(int((n.status.allocatable or {}).get("nvidia.com/gpu") or 0) for n in nodes if n.status)
    used_mem = used_gpu = 0.0
    for pod in pods:
        if not (pod.spec and pod.spec.node_name) or (pod.status and pod.status.phase in ("Succeeded", "Failed")):
            continue
        for c in pod.spec.containers or []:
            req = (c.resources.requests or {}) if c.resources else {}
            used_mem += _memory(req.get("memory"))
            used_gpu += float(req.get("nvidia.com/gpu") or 0)
    free_mem, free_gpu = mem - used_mem, gpus - used_gpu
    fits = need_mem <= free_mem and need_gpu <= free_gpu
    gib = 2**30
    reason = (f"a second pod needs {need_mem / gib:.1f} GiB and {need_gpu} GPU; the nodes have "
              f"{free_mem / gib:.1f} GiB and {free_gpu:g} GPU left")
    return fits, reason


def make_plan(cluster: Cluster, ns: str, name: str, *, spec_argv: tuple[str, ...], arms: ArmsChoice,
              spec_field: bool | None) -> ClusterPlan:
    """Read the service and decide the arms (reads only)."""
    original = cluster.get_service(ns, name)
    spec = dict(original.get("spec") or {})
    cluster.get_model(ns, str(spec.get("modelRef") or ""))   # a missing Model stops here, before any change
    if spec_field is None:  # the CRD could not be read: the object itself shows a recent operator if it has it
        spec_field = "speculativeDecoding" in spec
    current = fields_of(spec)
    extra = spec.get("extraArgs")
    if spec_is_on(spec):
        off = ArmSpec("off", f"{name}{TWIN_SUFFIX['off']}", speculation_fields((), extra, spec_field=spec_field),
                      ours=True)
        on = ArmSpec("on", name, current, ours=False)
    else:
        off = ArmSpec("off", name, current, ours=False)
        on = ArmSpec("on", f"{name}{TWIN_SUFFIX['on']}",
                     speculation_fields(spec_argv, extra, spec_field=spec_field), ours=True)
    if arms == "single":
        mode, reason = "windows", "asked for one copy at a time (--arms single)"
    elif arms == "dual":
        mode, reason = "twin", "asked for two copies side by side (--arms dual)"
    else:
        fits, why = room_for_twin(cluster, spec)
        mode = "windows" if fits is False else "twin"
        reason = why if fits is not None else f"{why}: a twin is tried, and windows follow if it cannot be placed"
    if mode == "windows":  # one service: both arms are the user's, patched in turns
        off, on = (ArmSpec(a.arm, name, a.fields, ours=False) for a in (off, on))
    return ClusterPlan(namespace=ns, name=name, original=original, spec_field=spec_field, mode=mode,  # type: ignore[arg-type]
                       reason=reason, arms=(off, on))


def as_windows(plan: ClusterPlan, reason: str) -> ClusterPlan:
    """The same check in sequential windows (a twin that could not be placed)."""
    off, on = (ArmSpec(a.arm, plan.name, a.fields, ours=False) for a in plan.arms)
    return ClusterPlan(namespace=plan.namespace, name=plan.name, original=plan.original, spec_field=plan.spec_field,
                       mode="windows", reason=reason, arms=(off, on))


def fields_json(fields: dict[str, Any]) -> str:
    """The speculativeDecoding block as one line of JSON ("" when none)."""
    block = fields.get("speculativeDecoding")
    return json.dumps(block, sort_keys=True) if block else ""
