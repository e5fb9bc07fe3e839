"""Leftovers of cluster checks: open ledgers on this machine, and labelled objects in the cluster.

A check undoes its own changes on the way out; this finds what a killed process or a lost connection left:
every open ledger is undone, then every InferenceService labelled with a run is either deleted (a twin) or
given back the fields kept in its restore annotation (a service patched for a window).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from advisor.cluster.api import Cluster
from advisor.cluster.plan import RESTORE_ANNOTATION, RUN_LABEL, TWIN_OF
from advisor.deploy.llmkube_spec import fields_of, merge_diff


@dataclass(frozen=True, slots=True)
class Leftover:
    """One object a check left behind."""

    namespace: str
    name: str
    twin: bool                  # True: delete it; False: patch its fields back from the annotation


def find_leftovers(cluster: Cluster, namespace: str | None = None) -> list[Leftover]:
    """Every InferenceService carrying a spec-advisor run label (in `namespace`, or every namespace)."""
    out = []
    for obj in cluster.list_services(RUN_LABEL, namespace):
        meta = obj.get("metadata") or {}
        out.append(Leftover(meta.get("namespace", ""), meta.get("name", ""), TWIN_OF in (meta.get("labels") or {})))
    return out


def remove(cluster: Cluster, item: Leftover) -> None:
    """Delete a twin, or restore a patched service from its annotation (and drop our label and annotation)."""
    if item.twin:
        cluster.delete_service(item.namespace, item.name)
        return
    obj = cluster.get_service(item.namespace, item.name)
    raw = ((obj.get("metadata") or {}).get("annotations") or {}).get(RESTORE_ANNOTATION)
    patch: dict[str, object] = {"metadata": {"labels": {RUN_LABEL: None}, "annotations": {RESTORE_ANNOTATION: None}}}
    if raw:
        before = json.loads(raw)
        patch["spec"] = merge_diff(fields_of(obj.get("spec") or {}), before)
    cluster.patch_service(item.namespace, item.name, patch)

