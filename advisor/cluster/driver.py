"""Run the arms of a cluster check on the cluster: create or patch, roll out, restart pods, and undo it all.

Every change goes into the ledger before it is made (advisor/cluster/ledger.py). A twin arm restarts by
deleting its pod (the ReplicaSet starts a new one: a fresh server); a window arm is made live by patching
the one service to its fields and waiting for the rollout. `restore()` undoes everything, newest first, and
waits until the user's service serves again.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from advisor.arms.arms import Arm, Arms
from advisor.cluster.api import Cluster, ClusterError, Obj
from advisor.cluster.ledger import Entry, Ledger
from advisor.cluster.plan import RESTORE_ANNOTATION, RUN_LABEL, ArmSpec, ClusterPlan, as_windows, fields_json
from advisor.cluster.rollout import ROLLOUT_TIMEOUT_S, Ready, Unschedulable, restarts_of, wait_ready
from advisor.config import CheckConfig
from advisor.deploy.llmkube_spec import fields_of, merge_diff
from advisor.evidence.arms import RestartReason
from advisor.evidence.cluster import ClusterArm, ClusterRecord, ClusterRollout
from advisor.text import text
from probes.engines.llamacpp.adapter import LlamaCppAdapter
from probes.engines.urls import is_loopback


def ref(ns: str, name: str) -> str:
    return f"{ns}/{name}"


@dataclass
class ClusterDriver:
    """One cluster check's arms on the cluster, and the undo of everything it changed."""

    cluster: Cluster
    plan: ClusterPlan
    ledger: Ledger
    run_id: str
    lang: str = "en"
    allow_remote: bool = False
    timeout_s: float = ROLLOUT_TIMEOUT_S
    progress: Callable[[str], None] | None = None
    rollouts: list[ClusterRollout] = field(default_factory=list)
    live_fields: dict[str, Any] | None = None   # windows: the fields the one service runs now
    serving: dict[str, Ready] = field(default_factory=dict)   # service name → the pod that serves it now

    @property
    def ns(self) -> str:
        return self.plan.namespace

    def say(self, line: str) -> None:
        if self.progress is not None:
            self.progress(line)

    # --- set-up ----------------------------------------------------------------------------------------------
    def setup(self, config: CheckConfig, log_dir: Path) -> Arms:
        """The session's arms (Session's arms_factory): twins created and Ready, or the windows ready to go."""
        if self.plan.mode == "twin":
            try:
                return self._twin_arms()
            except Unschedulable as exc:
                self.undo_all()  # the twin goes; the check carries on with windows
                self.plan = as_windows(self.plan, f"the twin could not be placed ({exc}): sequential windows")
                self.say(text(self.lang, "cluster.fallback_windows", reason=str(exc)))
        return self._window_arms()

    def _twin_arms(self) -> Arms:
        arms: dict[str, Arm] = {}
        for spec in self.plan.arms:
            ready = self._create(spec) if spec.ours else self._current(spec.service)
            self._rolled(spec, "start", ready, "create" if spec.ours else "existing")
            remote = TwinServer(self, spec) if spec.ours else None
            arms[spec.arm] = Arm(name=spec.arm, adapter=LlamaCppAdapter(self._checked(ready.url)),  # type: ignore[arg-type]
                                 remote=remote)
        return Arms(off=arms["off"], on=arms["on"], mode="dual", cluster=self.record)

    def _window_arms(self) -> Arms:
        self.live_fields = fields_of(self.plan.spec)
        ready = self._current(self.plan.name)
        live = next(a for a in self.plan.arms if a.fields == self.live_fields)
        self._rolled(live, "start", ready, "existing")
        arms = {a.arm: Arm(name=a.arm, adapter=LlamaCppAdapter(self._checked(ready.url)),  # type: ignore[arg-type]
                           remote=WindowServer(self, a)) for a in self.plan.arms}
        return Arms(off=arms["off"], on=arms["on"], mode="single", cluster=self.record)

    def _checked(self, url: str) -> str:
        """The Service address, refused when it is not on this machine unless the user allowed remote engines."""
        if not self.allow_remote and not is_loopback(url):
            raise ClusterError(text(self.lang, "cluster.remote_address", url=url),
                               hint="pass --allow-remote to measure through the cluster's address")
        return url

    def _current(self, name: str) -> Ready:
        obj = self.cluster.get_service(self.ns, name)
        return wait_ready(self.cluster, self.ns, name, generation=int(obj["metadata"].get("generation") or 1),
                          timeout_s=self.timeout_s, lang=self.lang, progress=self.progress)

    def _create(self, spec: ArmSpec) -> Ready:
        body = self.plan.twin_body(spec, self.run_id)
        entry = self.ledger.record(Entry("create", self.ns, spec.service))
        self.say(text(self.lang, "cluster.creating", service=ref(self.ns, spec.service)))
        created = self.cluster.create_service(self.ns, body)
        self.ledger.mark(entry, "done")
        return wait_ready(self.cluster, self.ns, spec.service, generation=int(created["metadata"]["generation"]),
                          timeout_s=self.timeout_s, lang=self.lang, progress=self.progress)

    def _rolled(self, spec: ArmSpec, phase: str, ready: Ready, reason: str) -> None:
        self.serving[spec.service] = ready
        self.rollouts.append(ClusterRollout(arm=spec.arm, before=phase, inference_service=ref(self.ns, spec.service),
                                            generation=ready.generation, pod=ready.pod, seconds=ready.seconds,
                                            reason=reason))

    # --- restarts ----------------------------------------------------------------------------------------------
    def fresh_pod(self, spec: ArmSpec, phase: str, reason: RestartReason) -> str:
        """Delete the service's pods and wait for the new one (a fresh llama-server: empty caches)."""
        old = [p.metadata.name for p in self.cluster.pods_of(self.ns, spec.service)]
        self.say(text(self.lang, "cluster.fresh_pod", service=ref(self.ns, spec.service), phase=phase))
        for pod in old:
            self.cluster.delete_pod(self.ns, pod)
        obj = self.cluster.get_service(self.ns, spec.service)
        ready = wait_ready(self.cluster, self.ns, spec.service, generation=int(obj["metadata"]["generation"]),
                           old_pods=old, timeout_s=self.timeout_s, lang=self.lang, progress=self.progress)
        self._rolled(spec, phase, ready, reason)
        return self._checked(ready.url)

    def make_live(self, spec: ArmSpec, phase: str) -> str:
        """Windows: patch the one service to `spec`'s fields (recorded first) and wait for the rollout."""
        obj = self.cluster.get_service(self.ns, self.plan.name)
        current = fields_of(obj.get("spec") or {})
        old = [p.metadata.name for p in self.cluster.pods_of(self.ns, self.plan.name)]
        original = fields_of(self.plan.spec)
        patch: Obj = {"spec": merge_diff(current, spec.fields)}
        entry: Entry | None = None
        if spec.fields != original and not self._patched():
            meta = self.plan.original.get("metadata") or {}
            before = {"fields": original, "labels": {RUN_LABEL: (meta.get("labels") or {}).get(RUN_LABEL)},
                      "annotations": {RESTORE_ANNOTATION: (meta.get("annotations") or {}).get(RESTORE_ANNOTATION)}}
            entry = self.ledger.record(Entry("patch", self.ns, self.plan.name, before=before))
            patch["metadata"] = {"labels": {RUN_LABEL: self.run_id},
                                 "annotations": {RESTORE_ANNOTATION: json.dumps(original, sort_keys=True)}}
        elif spec.fields == original:
            patch["metadata"] = {"labels": {RUN_LABEL: None}, "annotations": {RESTORE_ANNOTATION: None}}
        self.say(text(self.lang, "cluster.patching", service=ref(self.ns, self.plan.name), arm=spec.arm, phase=phase))
        patched = self.cluster.patch_service(self.ns, self.plan.name, patch)
        if entry is not None:
            self.ledger.mark(entry, "done")
        self.live_fields = spec.fields
        ready = wait_ready(self.cluster, self.ns, self.plan.name, generation=int(patched["metadata"]["generation"]),
                           old_pods=old, timeout_s=self.timeout_s, lang=self.lang, progress=self.progress)
        self._rolled(spec, phase, ready, "swap")
        if spec.fields == original:
            for e in self.ledger.entries:   # back to the user's own fields: nothing left to undo for this patch
                if e.action == "patch" and e.state == "done":
                    self.ledger.mark(e, "undone")
        return self._checked(ready.url)

    def lost(self, service: str) -> str | None:
        """Why `service`'s pod is not the one that became Ready for the last phase (None: it still is)."""
        known = self.serving.get(service)
        if known is None:
            return None
        try:
            pods = {p.metadata.name: p for p in self.cluster.pods_of(self.ns, service)}
        except ClusterError:
            return None  # the API did not answer: nothing is known to have changed
        pod = pods.get(known.pod)
        if pod is None:
            return f"pod {known.pod} of {ref(self.ns, service)} is gone"
        if (count := restarts_of(pod)) > known.restarts:
            return (f"the llama-server container of pod {known.pod} ({ref(self.ns, service)}) restarted: "
                    f"restartCount {count}")
        return None

    def _patched(self) -> bool:
        return any(e.action == "patch" and e.state != "undone" for e in self.ledger.entries)

    # --- evidence and undo ---------------------------------------------------------------------------------------
    def record(self) -> ClusterRecord:
        """The cluster side of the evidence so far."""
        arms = tuple(ClusterArm(arm=a.arm, inference_service=ref(self.ns, a.service), ours=a.ours,
                                speculative_decoding=fields_json(a.fields),
                                extra_args=tuple(a.fields.get("extraArgs") or ())) for a in self.plan.arms)
        return ClusterRecord(original=ref(self.ns, self.plan.name),
                             original_generation=int(self.plan.original["metadata"].get("generation") or 0),
                             mode=self.plan.mode, reason=self.plan.reason, spec_field=self.plan.spec_field,
                             arms=arms, rollouts=tuple(self.rollouts))

    def undo_all(self) -> list[str]:
        """Undo every change in the ledger (newest first); what was undone, in words."""
        return undo(self.cluster, self.ledger, lang=self.lang, timeout_s=self.timeout_s, progress=self.progress)


def undo(cluster: Cluster, ledger: Ledger, *, lang: str = "en", timeout_s: float = ROLLOUT_TIMEOUT_S,
         progress: Callable[[str], None] | None = None, close: bool = False) -> list[str]:
    """Undo the open entries of `ledger`: delete created twins, patch changed services back and wait for
    them to serve again. Errors of one entry do not stop the others; the first is raised at the end."""
    done: list[str] = []
    first_error: ClusterError | None = None
    for entry in ledger.open_entries():
        try:
            if entry.action == "create":
                cluster.delete_service(entry.namespace, entry.name)
                done.append(text(lang, "cluster.undo_deleted", service=ref(entry.namespace, entry.name)))
            else:
                _patch_back(cluster, entry, lang=lang, timeout_s=timeout_s, progress=progress)
                done.append(text(lang, "cluster.undo_restored", service=ref(entry.namespace, entry.name)))
            ledger.mark(entry, "undone")
        except ClusterError as exc:
            first_error = first_error or exc
    if first_error is not None:
        raise first_error
    if close:
        ledger.close()
    return done


def _patch_back(cluster: Cluster, entry: Entry, *, lang: str, timeout_s: float,
                progress: Callable[[str], None] | None) -> None:
    obj = cluster.find_service(entry.namespace, entry.name)
    if obj is None:
        return  # the user deleted it meanwhile: nothing to give back
    before = entry.before or {}
    patch: Obj = {"spec": merge_diff(fields_of(obj.get("spec") or {}), before.get("fields") or {}),
                  "metadata": {"labels": before.get("labels") or {RUN_LABEL: None},
                               "annotations": before.get("annotations") or {RESTORE_ANNOTATION: None}}}
    old = [p.metadata.name for p in cluster.pods_of(entry.namespace, entry.name)]
    patched = cluster.patch_service(entry.namespace, entry.name, patch)
    if int(patched["metadata"]["generation"]) != int(obj["metadata"]["generation"]):
        with contextlib.suppress(ClusterError):  # the spec is back either way; say so if it does not serve
            wait_ready(cluster, entry.namespace, entry.name, generation=int(patched["metadata"]["generation"]),
                       old_pods=old, timeout_s=timeout_s, lang=lang, progress=progress)


@dataclass
class TwinServer:
    """A twin arm: always live; a restart is a new pod."""

    driver: ClusterDriver
    spec: ArmSpec
    live: bool = True

    def restart(self, phase: str, reason: RestartReason) -> str:
        return self.driver.fresh_pod(self.spec, phase, reason)

    def lost(self) -> str | None:
        return self.driver.lost(self.spec.service)


@dataclass
class WindowServer:
    """A window arm: live while the one service runs its fields; a restart makes it live, or a new pod."""

    driver: ClusterDriver
    spec: ArmSpec

    @property
    def live(self) -> bool:
        return self.driver.live_fields == self.spec.fields

    def restart(self, phase: str, reason: RestartReason) -> str:
        if not self.live:
            return self.driver.make_live(self.spec, phase)
        return self.driver.fresh_pod(self.spec, phase, reason)

    def lost(self) -> str | None:
        return self.driver.lost(self.spec.service) if self.live else None
