"""Waiting for a rollout: the InferenceService's new pod Ready at the new generation, with a timeout and progress.

A pod counts when it is Ready, is not being deleted and is not one of the pods that served before the
change; the service counts when its Ready condition has observed the generation the change produced. The
address is then read from the Service (LoadBalancer ingress and port), where the pod can be reached.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from advisor.cluster.api import Cluster, ClusterError, Obj
from advisor.text import text

# A model load on a home GPU takes seconds to a few minutes (weights from the node's disk or cache); a pod
# that is not Ready in 5 minutes is stuck (image pull, crash loop, no room), and the check says so.
ROLLOUT_TIMEOUT_S = 300.0
POLL_S = 0.25
PROGRESS_EVERY_S = 5.0


class RolloutTimeout(ClusterError):
    """A rollout did not become Ready in time."""


class Unschedulable(ClusterError):
    """The new pod cannot be placed: the cluster has no room for it."""


@dataclass(frozen=True, slots=True)
class Ready:
    """A rolled-out service: its generation, its serving pod, where it answers."""

    generation: int
    pod: str
    url: str
    seconds: float
    restarts: int = 0          # the pod's container restarts when it became Ready


def restarts_of(pod: Any) -> int:
    """How often the kubelet restarted the pod's containers."""
    statuses = (pod.status.container_statuses or []) if pod.status is not None else []
    return sum(int(c.restart_count or 0) for c in statuses)


def _ready(pod: Any) -> bool:
    conditions = (pod.status.conditions or []) if pod.status is not None else []
    return any(c.type == "Ready" and c.status == "True" for c in conditions)


def _unschedulable(pod: Any) -> bool:
    conditions = (pod.status.conditions or []) if pod.status is not None else []
    return any(c.type == "PodScheduled" and c.status == "False" and c.reason == "Unschedulable" for c in conditions)


def _observed(obj: Obj) -> int:
    conditions = ((obj.get("status") or {}).get("conditions")) or []
    ready = [c for c in conditions if c.get("type") == "Ready" and c.get("status") == "True"]
    return max((int(c.get("observedGeneration") or 0) for c in ready), default=0)


def service_url(cluster: Cluster, ns: str, name: str) -> str:
    """The address the Service of `name` answers at: LoadBalancer ingress (ip or hostname) and its port."""
    svc = cluster.k8s_service(ns, name)
    ingress = (svc.status.load_balancer.ingress or []) if svc.status and svc.status.load_balancer else []
    host = next((i.ip or i.hostname for i in ingress if i.ip or i.hostname), None)
    ports = svc.spec.ports or [] if svc.spec else []
    if host is None or not ports:
        raise ClusterError(f"the Service {ns}/{name} has no external address (type {svc.spec.type})",
                           hint="spec-advisor reaches a service through its LoadBalancer address; give the "
                                "InferenceService spec.endpoint.type LoadBalancer (MetalLB on a home cluster)")
    return f"http://{host}:{ports[0].port}"


def wait_ready(cluster: Cluster, ns: str, name: str, *, generation: int, old_pods: Collection[str] = (),
               timeout_s: float = ROLLOUT_TIMEOUT_S, lang: str = "en",
               progress: Callable[[str], None] | None = None) -> Ready:
    """Block until `ns/name` serves `generation` from a Ready pod not in `old_pods`; RolloutTimeout after
    `timeout_s` (with the last events), Unschedulable as soon as the scheduler says the pod does not fit."""
    t0 = time.monotonic()
    last_note = t0
    while True:
        obj = cluster.get_service(ns, name)
        pods = [p for p in cluster.pods_of(ns, name) if p.metadata.deletion_timestamp is None]
        new = [p for p in pods if p.metadata.name not in old_pods]
        stale = [p for p in pods if p.metadata.name in old_pods]
        ready = [p for p in new if _ready(p)]
        if ready and not stale and _observed(obj) >= generation:
            url = service_url(cluster, ns, name)
            return Ready(generation=int(obj["metadata"]["generation"]), pod=ready[0].metadata.name, url=url,
                         seconds=round(time.monotonic() - t0, 3), restarts=restarts_of(ready[0]))
        if any(_unschedulable(p) for p in new):
            raise Unschedulable(text(lang, "cluster.unschedulable", service=f"{ns}/{name}",
                                     events=_events(cluster, ns, name)))
        now = time.monotonic()
        if now - t0 > timeout_s:
            raise RolloutTimeout(text(lang, "cluster.rollout_timeout", service=f"{ns}/{name}",
                                      seconds=f"{timeout_s:.0f}", events=_events(cluster, ns, name)))
        if progress is not None and now - last_note >= PROGRESS_EVERY_S:
            last_note = now
            phase = (obj.get("status") or {}).get("phase") or "?"
            progress(text(lang, "cluster.waiting", service=f"{ns}/{name}", phase=phase,
                          pods=", ".join(f"{p.metadata.name} {p.status.phase if p.status else '?'}" for p in pods)
                          or "-", seconds=f"{now - t0:.0f}", limit=f"{timeout_s:.0f}"))
        time.sleep(POLL_S)


def _events(cluster: Cluster, ns: str, name: str, last: int = 4) -> str:
    try:
        events = cluster.events_for(ns, name)[-last:]
    except ClusterError:
        return "-"
    return "; ".join(f"{e.reason}: {e.message}" for e in events) or "-"
