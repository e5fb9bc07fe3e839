"""A contract Kubernetes API server for the LLMKube subset spec-advisor uses, with real llama-servers behind it.

What it serves (HTTP on 127.0.0.1, JSON, the paths and shapes of the Kubernetes API that the official
`kubernetes` Python client calls):

- the LLMKube CRDs as published (`inference.llmkube.dev/v1alpha1`): `InferenceService` (with
  `spec.speculativeDecoding {type, draftModelRef, nDraftMax, pMin}` and `spec.extraArgs`; `--no-spec-field`
  serves an older CRD without `speculativeDecoding`) and `Model`: get, list (label selectors), create,
  merge-patch, delete; `metadata.resourceVersion` (one counter for the whole store, as etcd's) and
  `metadata.generation` (bumped when `spec` changes);
- the same listed across every namespace;
- core `v1` Pods (get, list, delete, and list across namespaces), Services (get, list), Events (list,
  create) and Nodes (list);
- `apiextensions.k8s.io/v1` CustomResourceDefinitions (get) and `authorization.k8s.io/v1`
  SelfSubjectAccessReviews (create), so a client can read the CRD and its own permissions; `--deny
  VERB:RESOURCE` refuses a permission (403, and the review says so).

Clients poll (list with a resourceVersion); there is no watch stream and no port-forward: each Service is of
type LoadBalancer with ingress 127.0.0.1 and a stable port that forwards each connection to the Ready pod of
the moment (the address a home cluster with MetalLB gives).

A small reconciler plays LLMKube's controller and the kubelet: for each InferenceService it renders the
llama-server arguments the operator renders for the llamacpp runtime (model, port, host, `--n-gpu-layers`
when GPUs are asked for, `--ctx-size`, `--parallel`, `--spec-type`, `-md`, `--spec-draft-n-max`,
`--spec-draft-p-min`, then `spec.extraArgs`, then `--metrics` unless extraArgs has it) and runs one real
`llama-server` per pod on loopback. A pod whose arguments no longer match its service is replaced (the
rollout); a deleted pod is recreated (the ReplicaSet); a pod whose process dies is restarted with
`restartCount` + 1 (the kubelet); a pod that does not fit the node's allocatable memory stays Pending with a
FailedScheduling event. Model `spec.source` is a local path or a `file://` URL.

Run it alone:

    .venv/bin/python -m tests.kube_contract_server --port 8001 --kubeconfig-out /tmp/kc.yaml --seed-demo

`--seed-demo` creates Model `default/demo` (the bundled SmolLM2-135M) and InferenceService `default/demo`
serving it. Tests use `ContractCluster` in-process (tests/advisor/cluster/test_cluster_*.py).
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import hashlib
import itertools
import json
import os
import re
import signal
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import httpx

from advisor.arms.server import _launch

GROUP = "inference.llmkube.dev"
VERSION = "v1alpha1"
SPEC_TYPES = ("none", "disabled", "mtp", "draft", "draft-simple", "draft-eagle3", "draft-mtp", "draft-dflash",
              "draft-dspark", "ngram-simple", "ngram-map-k", "ngram-map-k4v", "ngram-mod", "ngram-cache")
_ALIASES = {"mtp": "draft-mtp", "draft": "draft-simple", "disabled": "none"}  # LLMKube's own alias table
_DRAFT_TYPES = {"draft-simple", "draft-eagle3", "draft-dflash", "draft-dspark", "draft-mtp"}
CUSTOM = {"inferenceservices": "InferenceService", "models": "Model"}
CORE = {"pods": "Pod", "services": "Service", "events": "Event"}
Obj = dict[str, Any]


def _quantity(text: str | int | float | None) -> float:
    """A Kubernetes quantity ("1Gi", "512Mi", "2", "500m") as a plain number (bytes or cores)."""
    if text is None or text == "":
        return 0.0
    s = str(text)
    units = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "k": 1e3, "M": 1e6, "G": 1e9, "m": 1e-3}
    for suffix, factor in units.items():
        if s.endswith(suffix):
            return float(s[: -len(suffix)]) * factor
    return float(s)


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def crd(plural: str, with_spec_field: bool = True) -> Obj:
    """The CRD of `plural`, its schema reduced to the fields this server reads (spec.speculativeDecoding only
    where the release has it)."""
    kind = CUSTOM[plural]
    spec_props: Obj = {"modelRef": {"type": "string"}, "replicas": {"type": "integer"},
                       "contextSize": {"type": "integer"}, "parallelSlots": {"type": "integer"},
                       "extraArgs": {"type": "array", "items": {"type": "string"}},
                       "resources": {"type": "object", "properties": {
                           "gpu": {"type": "integer"}, "cpu": {"type": "string"}, "memory": {"type": "string"}}}}
    if plural == "models":
        spec_props = {"source": {"type": "string"}, "format": {"type": "string"}}
    elif with_spec_field:
        spec_props["speculativeDecoding"] = {"type": "object", "required": ["type"], "properties": {
            "type": {"type": "string", "enum": list(SPEC_TYPES)}, "draftModelRef": {"type": "string"},
            "draftModel": {"type": "string"}, "nDraftMax": {"type": "integer", "minimum": 1},
            "pMin": {"type": "number", "minimum": 0, "maximum": 1}}}
    status = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": spec_props},
                                               "status": status}}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.{GROUP}", "resourceVersion": "1", "generation": 1},
            "spec": {"group": GROUP, "scope": "Namespaced",
                     "names": {"plural": plural, "singular": kind.lower(), "kind": kind},
                     "versions": [{"name": VERSION, "served": True, "storage": True,
                                   "schema": {"openAPIV3Schema": schema}, "subresources": {"status": {}}}]}}


def render_args(isvc: Obj, model_path: str, draft_path: str | None, port: int) -> list[str]:
    """The llama-server arguments LLMKube's llamacpp runtime renders for `isvc` (facts from its controller),
    bound to loopback here instead of the pod's wildcard address."""
    spec = isvc.get("spec") or {}
    extra = list(spec.get("extraArgs") or [])
    args = ["--model", model_path, "--port", str(port)]
    if "--host" not in extra:
        args += ["--host", "127.0.0.1"]
    if int((spec.get("resources") or {}).get("gpu") or 0) > 0:
        args += ["--n-gpu-layers", "99"]
    if spec.get("contextSize"):
        args += ["--ctx-size", str(spec["contextSize"])]
    if spec.get("parallelSlots") and "--parallel" not in extra:
        args += ["--parallel", str(spec["parallelSlots"])]
    sd = spec.get("speculativeDecoding") or {}
    spec_type = _ALIASES.get(sd.get("type") or "", sd.get("type") or "")
    if spec_type and spec_type != "none":
        args += ["--spec-type", spec_type]
        if spec_type in _DRAFT_TYPES and draft_path:
            args += ["-md", draft_path]
        if sd.get("nDraftMax"):
            args += ["--spec-draft-n-max", str(sd["nDraftMax"])]
        if sd.get("pMin") is not None:
            args += ["--spec-draft-p-min", format(float(sd["pMin"]), "g")]
    args += extra
    if "--metrics" not in extra:
        args.append("--metrics")
    return args


class ApiError(Exception):
    """An API failure answered as a Kubernetes Status object."""

    def __init__(self, code: int, reason: str, message: str) -> None:
        super().__init__(message)
        self.code, self.reason, self.message = code, reason, message

    def status(self) -> Obj:
        return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": self.message, "reason": self.reason, "code": self.code}


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch (what `kubectl patch --type merge` sends)."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = merge_patch(out.get(key), value)
    return out


def _selected(obj: Obj, selector: str | None) -> bool:
    if not selector:
        return True
    labels = (obj.get("metadata") or {}).get("labels") or {}
    for term in selector.split(","):
        term = term.strip()
        if "!=" in term:
            k, v = term.split("!=", 1)
            if labels.get(k) == v:
                return False
        elif "=" in term:
            k, v = term.split("=", 1)
            if labels.get(k.rstrip("=")) != v.lstrip("="):
                return False
        elif term.startswith("!"):
            if term[1:] in labels:
                return False
        elif term not in labels:
            return False
    return True


@dataclass
class PodProcess:
    """The one container of a pod: a real llama-server."""

    proc: subprocess.Popen[bytes] | None
    port: int
    argv: list[str]
    log: Path
    ready: bool = False

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=5)


class ServiceProxy:
    """A Service's stable loopback address: each TCP connection goes to the Ready pod of the moment, as
    kube-proxy sends it (a connection open while its pod goes stays with that pod, and dies with it)."""

    def __init__(self, target: Callable[[], int | None]) -> None:
        self.target = target
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = int(self.sock.getsockname()[1])
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            port = self.target()
            if port is None:
                client.close()  # no Ready endpoint: the connection is refused, as with an empty Endpoints
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", port), timeout=5)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self.closed = True
        with contextlib.suppress(OSError):
            self.sock.close()


@dataclass
class ContractCluster:
    """The store, the API, the reconciler and the pods' processes (use as a context manager)."""

    llama_server: str
    port: int = 0
    with_spec_field: bool = True
    node_memory: str = "8Gi"
    node_cpu: str = "8"
    deny: frozenset[tuple[str, str]] = frozenset()       # (verb, resource) this user may not do
    # test hook: a pod of a service for which this returns True never becomes Ready (a rollout that hangs)
    hold_unready: Callable[[Obj], bool] | None = None
    threads: int | None = 1   # llama-server threads per pod (a pod's CPU limit, in effect; None: all cores)
    objects: dict[tuple[str, str, str], Obj] = field(default_factory=dict)
    processes: dict[str, PodProcess] = field(default_factory=dict)   # pod name → its container
    proxies: dict[tuple[str, str], ServiceProxy] = field(default_factory=dict)   # (ns, service) → its address
    _rv: Iterator[int] = field(default_factory=lambda: itertools.count(100))
    _lock: threading.RLock = field(default_factory=threading.RLock)
    _stop: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self.workdir = Path(tempfile.mkdtemp(prefix="kube-contract-"))
        self.rv = next(self._rv)
        for plural in CUSTOM:
            self.objects[("customresourcedefinitions", "", f"{plural}.{GROUP}")] = crd(plural, self.with_spec_field)
        self._put("nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1", "labels": {}},
                            "status": {"allocatable": {"cpu": self.node_cpu, "memory": self.node_memory,
                                                       "pods": "110"},
                                       "capacity": {"cpu": self.node_cpu, "memory": self.node_memory}}}, "")

    # --- the store -------------------------------------------------------------------------------------
    def _put(self, resource: str, obj: Obj, ns: str, *, bump_generation: bool = False) -> Obj:
        meta = obj.setdefault("metadata", {})
        meta.setdefault("uid", str(uuid.uuid4()))
        meta.setdefault("creationTimestamp", _now())
        if ns:
            meta["namespace"] = ns
        if resource in CUSTOM:
            meta["generation"] = int(meta.get("generation") or 0) + (1 if bump_generation else 0) or 1
        self.rv = next(self._rv)
        meta["resourceVersion"] = str(self.rv)
        self.objects[(resource, ns, meta["name"])] = obj
        return obj

    def get(self, resource: str, ns: str, name: str) -> Obj | None:
        """A deep copy of one stored object (None when there is none)."""
        with self._lock:
            obj = self.objects.get((resource, ns, name))
            return copy.deepcopy(obj) if obj is not None else None

    def items(self, resource: str, ns: str | None = None, selector: str | None = None) -> list[Obj]:
        """Deep copies of the stored objects of `resource` (in `ns` when given) that match `selector`."""
        with self._lock:
            return [copy.deepcopy(o) for (r, n, _), o in sorted(self.objects.items(), key=lambda kv: kv[0])
                    if r == resource and (ns is None or n == ns) and _selected(o, selector)]

    def snapshot(self) -> dict[tuple[str, str, str], Obj]:
        """Every user-visible object with its spec, labels and annotations (what "the same objects" means)."""
        with self._lock:
            out = {}
            for key, obj in self.objects.items():
                if key[0] in ("inferenceservices", "models", "services"):
                    meta = obj.get("metadata") or {}
                    out[key] = {"spec": copy.deepcopy(obj.get("spec")), "labels": meta.get("labels") or {},
                                "annotations": meta.get("annotations") or {}}
            return out

    def resource_versions(self) -> dict[tuple[str, str, str], str]:
        """Every object's resourceVersion."""
        with self._lock:
            return {k: str((o.get("metadata") or {}).get("resourceVersion")) for k, o in self.objects.items()}

    def event(self, ns: str, involved: Obj, reason: str, message: str, type_: str = "Normal") -> None:
        """Record an Event about `involved`, as the controller and kubelet do."""
        meta = involved.get("metadata") or {}
        name = f"{meta.get('name')}.{uuid.uuid4().hex[:10]}"
        with self._lock:
            self._put("events", {"apiVersion": "v1", "kind": "Event", "metadata": {"name": name},
                                 "involvedObject": {"kind": involved.get("kind"), "name": meta.get("name"),
                                                    "namespace": ns, "uid": meta.get("uid")},
                                 "reason": reason, "message": message, "type": type_, "count": 1,
                                 "firstTimestamp": _now(), "lastTimestamp": _now(),
                                 "source": {"component": "llmkube-contract"}}, ns)

    # --- the API -----------------------------------------------------------------------------------------
    def allowed(self, verb: str, resource: str) -> bool:
        """Whether this server's one user may `verb` `resource`."""
        return (verb, resource) not in self.deny and ("*", resource) not in self.deny

    def _check(self, verb: str, resource: str, group: str, ns: str, name: str | None) -> None:
        if not self.allowed(verb, resource):
            where = f' in the namespace "{ns}"' if ns else " at the cluster scope"
            full = f"{resource}.{group}" if group else resource
            raise ApiError(403, "Forbidden", f'{full} "{name or ""}" is forbidden: User "contract" cannot {verb} '
                                             f'resource "{resource}" in API group "{group}"{where}')

    def handle(self, method: str, path: str, query: dict[str, list[str]], body: Any) -> tuple[int, Obj]:
        """Answer one request: (status code, JSON body)."""
        parts = [p for p in path.split("/") if p]
        if parts[:2] == ["apis", "authorization.k8s.io"] and parts[-1] == "selfsubjectaccessreviews":
            attrs = (body or {}).get("spec", {}).get("resourceAttributes", {})
            ok = self.allowed(attrs.get("verb", ""), attrs.get("resource", ""))
            return 201, {**body, "status": {"allowed": ok, **({} if ok else {"reason": "denied by --deny"})}}
        if parts[:3] == ["apis", "apiextensions.k8s.io", "v1"] and len(parts) == 5:
            self._check("get", "customresourcedefinitions", "apiextensions.k8s.io", "", parts[4])
            return self._get("customresourcedefinitions", "", parts[4])
        if parts[:3] == ["apis", GROUP, VERSION] and len(parts) == 4 and parts[3] in CUSTOM and method == "GET":
            self._check("list", parts[3], GROUP, "", None)   # every namespace (list_cluster_custom_object)
            return 200, self._list(parts[3], None, query, CUSTOM[parts[3]] + "List")
        if parts == ["api", "v1", "pods"] and method == "GET":
            self._check("list", "pods", "", "", None)
            return 200, self._list("pods", None, query, "PodList")
        if parts[:2] == ["api", "v1"] and parts[2:3] == ["nodes"]:
            self._check("list", "nodes", "", "", None)
            return 200, self._list("nodes", None, query, "NodeList")
        if parts[:2] == ["api", "v1"] and parts[2] == "namespaces" and len(parts) >= 5:
            ns, resource, name = parts[3], parts[4], parts[5] if len(parts) > 5 else None
            group = ""
        elif parts[:3] == ["apis", GROUP, VERSION] and parts[3] == "namespaces" and len(parts) >= 6:
            ns, resource, name = parts[4], parts[5], parts[6] if len(parts) > 6 else None
            group = GROUP
        else:
            raise ApiError(404, "NotFound", f"the server could not find the requested resource ({path})")
        kinds = CUSTOM if group else CORE
        if resource not in kinds:
            raise ApiError(404, "NotFound", f"the server could not find the requested resource ({path})")
        verb = {"GET": "get" if name else "list", "POST": "create", "PATCH": "patch", "DELETE": "delete",
                "PUT": "update"}[method]
        self._check(verb, resource, group, ns, name)
        with self._lock:
            if method == "GET":
                return self._get(resource, ns, name) if name else (
                    200, self._list(resource, ns, query, kinds[resource] + "List"))
            if method == "POST":
                return self._create(resource, ns, body, group)
            if method == "PATCH" and name:
                return self._patch(resource, ns, name, body)
            if method == "DELETE" and name:
                return self._delete(resource, ns, name)
        raise ApiError(405, "MethodNotAllowed", f"{method} is not supported on {path}")

    def _get(self, resource: str, ns: str, name: str) -> tuple[int, Obj]:
        obj = self.get(resource, ns, name)
        if obj is None:
            group = f".{GROUP}" if resource in CUSTOM else ""
            raise ApiError(404, "NotFound", f'{resource}{group} "{name}" not found')
        return 200, obj

    def _list(self, resource: str, ns: str | None, query: dict[str, list[str]], kind: str) -> Obj:
        selectors = query.get("labelSelector") or []
        selector = selectors[0] if selectors else None
        return {"kind": kind, "apiVersion": "v1", "metadata": {"resourceVersion": str(self.rv)},
                "items": self.items(resource, ns, selector)}

    def _create(self, resource: str, ns: str, body: Obj, group: str) -> tuple[int, Obj]:
        name = (body.get("metadata") or {}).get("name")
        if not name or not re.fullmatch(r"[a-z0-9]([-a-z0-9.]*[a-z0-9])?", name) or len(name) > 253:
            raise ApiError(422, "Invalid", f"metadata.name: Invalid value: {name!r}")
        if (resource, ns, name) in self.objects:
            raise ApiError(409, "AlreadyExists", f'{resource}.{group} "{name}" already exists')
        if resource == "inferenceservices":
            self._validate(body)
        obj = copy.deepcopy(body)
        obj.pop("status", None)
        obj["metadata"] = {k: v for k, v in obj["metadata"].items() if k not in ("resourceVersion", "uid")}
        return 201, copy.deepcopy(self._put(resource, obj, ns))

    def _validate(self, obj: Obj) -> None:
        spec = obj.get("spec") or {}
        sd = spec.get("speculativeDecoding")
        if sd is not None and not self.with_spec_field:
            # a structural schema prunes unknown fields: an old CRD drops the block silently, as the API does
            spec.pop("speculativeDecoding")
        elif sd is not None:
            if sd.get("type") not in SPEC_TYPES:
                raise ApiError(422, "Invalid", f"spec.speculativeDecoding.type: Unsupported value: {sd.get('type')!r}")
            needs = _ALIASES.get(sd["type"], sd["type"]) in (_DRAFT_TYPES - {"draft-mtp"})
            if needs and not (sd.get("draftModelRef") or sd.get("draftModel")):
                raise ApiError(422, "Invalid", "spec.speculativeDecoding: this speculative decoding type needs "
                                               "draft weights")
        extra = spec.get("extraArgs")
        if extra is not None and not (isinstance(extra, list) and all(isinstance(a, str) for a in extra)):
            raise ApiError(422, "Invalid", "spec.extraArgs: must be a list of strings")

    def _patch(self, resource: str, ns: str, name: str, body: Any) -> tuple[int, Obj]:
        old = self.objects.get((resource, ns, name))
        if old is None:
            raise ApiError(404, "NotFound", f'{resource} "{name}" not found')
        if not isinstance(body, dict):
            raise ApiError(415, "UnsupportedMediaType", "only merge patches (a JSON object) are supported")
        body = {k: v for k, v in body.items() if k != "status"}
        new = merge_patch(old, body)
        if resource == "inferenceservices":
            self._validate(new)
        new["metadata"]["uid"] = old["metadata"]["uid"]
        changed = new.get("spec") != old.get("spec")
        if new == old:
            return 200, copy.deepcopy(old)  # a no-op patch changes nothing, resourceVersion included
        return 200, copy.deepcopy(self._put(resource, new, ns, bump_generation=changed))

    def _delete(self, resource: str, ns: str, name: str) -> tuple[int, Obj]:
        obj = self.objects.pop((resource, ns, name), None)
        if obj is None:
            raise ApiError(404, "NotFound", f'{resource} "{name}" not found')
        self.rv = next(self._rv)
        if resource == "pods" and (proc := self.processes.pop(name, None)) is not None:
            proc.stop()
        if resource == "inferenceservices":
            self.objects.pop(("services", ns, name), None)
            if (proxy := self.proxies.pop((ns, name), None)) is not None:
                proxy.close()
        obj["metadata"]["deletionTimestamp"] = _now()  # the API answers a delete with the object as it went
        return 200, obj

    # --- the reconciler ------------------------------------------------------------------------------------
    def reconcile(self) -> None:
        """One pass over every InferenceService (the operator + ReplicaSet + kubelet, much simplified)."""
        with self._lock:
            services = [(k[1], o) for k, o in self.objects.items() if k[0] == "inferenceservices"]
            for ns, isvc in services:
                self._reconcile_one(ns, isvc)
            owned = {o["metadata"]["name"] for _, o in services}
            for key in [k for k in self.objects if k[0] == "pods"]:
                pod = self.objects[key]
                if pod["metadata"]["labels"].get("inference.llmkube.dev/service") not in owned:
                    self._delete("pods", key[1], key[2])

    def _paths(self, ns: str, isvc: Obj) -> tuple[str | None, str | None]:
        def source(model_name: str | None) -> str | None:
            model = self.objects.get(("models", ns, model_name or ""))
            src = ((model or {}).get("spec") or {}).get("source") or ""
            return src.removeprefix("file://") or None
        spec = isvc.get("spec") or {}
        return source(spec.get("modelRef")), source((spec.get("speculativeDecoding") or {}).get("draftModelRef"))

    def _reconcile_one(self, ns: str, isvc: Obj) -> None:
        name = isvc["metadata"]["name"]
        model_path, draft_path = self._paths(ns, isvc)
        template = json.dumps([render_args(isvc, model_path or "", draft_path, 0), isvc["metadata"].get(
            "annotations", {}).get("llmkube.test/restartedAt")], sort_keys=True)
        digest = hashlib.sha256(template.encode()).hexdigest()[:10]
        pods = [o for k, o in self.objects.items() if k[0] == "pods" and k[1] == ns
                and o["metadata"]["labels"].get("inference.llmkube.dev/service") == name]
        for pod in pods:
            if pod["metadata"]["labels"].get("pod-template-hash") != digest:
                self.event(ns, pod, "Killing", "Stopping container llama-server (rollout)")
                self._delete("pods", ns, pod["metadata"]["name"])
        current = [p for p in pods if p["metadata"]["labels"].get("pod-template-hash") == digest]
        if model_path is None:
            self._status(ns, isvc, "Pending", ready=False, message=f"Model {isvc['spec'].get('modelRef')} not found")
            return
        if not current:
            current = [self._new_pod(ns, isvc, digest)]
        pod = current[0]
        self._tend(ns, isvc, pod, model_path, draft_path)
        ready = self.processes.get(pod["metadata"]["name"]) is not None and \
            self.processes[pod["metadata"]["name"]].ready
        phase = "Ready" if ready else ("WaitingForGPU" if pod["status"]["phase"] == "Pending" and pod["status"].get(
            "conditions", [{}])[0].get("status") == "False" else "Progressing")
        self._service(ns, isvc)
        self._status(ns, isvc, phase, ready=ready)

    def _new_pod(self, ns: str, isvc: Obj, digest: str) -> Obj:
        spec = isvc.get("spec") or {}
        request = (spec.get("resources") or {}).get("memory") or "1Gi"
        name = f"{isvc['metadata']['name']}-{digest[:6]}-{uuid.uuid4().hex[:5]}"
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "labels": {"app": isvc["metadata"]["name"],
                                                     "inference.llmkube.dev/service": isvc["metadata"]["name"],
                                                     "inference.llmkube.dev/model": spec.get("modelRef", ""),
                                                     "pod-template-hash": digest}},
               "spec": {"nodeName": "", "containers": [{"name": "llama-server", "image": spec.get(
                   "image") or "ghcr.io/ggml-org/llama.cpp:server",
                   "resources": {"requests": {"memory": request, "cpu": (spec.get("resources") or {}).get(
                       "cpu") or "1"}}}]},
               "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "Unknown"}]}}
        self._put("pods", pod, ns)
        return pod

    def _fits(self, pod: Obj) -> bool:
        def request(p: Obj) -> float:
            return _quantity(p["spec"]["containers"][0]["resources"]["requests"]["memory"])
        scheduled = [o for k, o in self.objects.items() if k[0] == "pods" and o["spec"].get("nodeName")]
        return sum(request(p) for p in scheduled) + request(pod) <= _quantity(self.node_memory)

    def _tend(self, ns: str, isvc: Obj, pod: Obj, model_path: str, draft_path: str | None) -> None:
        name = pod["metadata"]["name"]
        status = pod["status"]
        if not pod["spec"]["nodeName"]:
            if not self._fits(pod):
                if status["conditions"][0]["status"] != "False":
                    status["conditions"] = [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]
                    self._put("pods", pod, ns)
                    self.event(ns, pod, "FailedScheduling", "0/1 nodes are available: 1 Insufficient memory.",
                               "Warning")
                return
            pod["spec"]["nodeName"] = "node-1"
            status["conditions"] = [{"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "False"}]
            self._put("pods", pod, ns)
            self.event(ns, pod, "Scheduled", f"Successfully assigned {ns}/{name} to node-1")
        if self.hold_unready is not None and self.hold_unready(isvc):
            return  # the container never starts (stands for an image that never pulls, a probe that never passes)
        proc = self.processes.get(name)
        if proc is None or (proc.proc is not None and proc.proc.poll() is not None):
            restarts = int(status.get("restartCount") or 0)
            if proc is not None:
                restarts += 1
                self.event(ns, pod, "BackOff", f"Back-off restarting failed container llama-server (exit "
                                               f"{proc.proc.returncode if proc.proc else '?'})", "Warning")
            self.processes[name] = self._start(name, isvc, model_path, draft_path)
            status.update(phase="Running", restartCount=restarts,
                          containerStatuses=[self._container(pod, False, restarts)])
            status["conditions"] = [{"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "False"}]
            self._put("pods", pod, ns)
            self.event(ns, pod, "Started", "Started container llama-server")
            return
        if not proc.ready and self._healthy(proc.port):
            proc.ready = True
            status["conditions"] = [{"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "True"}]
            status["containerStatuses"] = [self._container(pod, True, int(status.get("restartCount") or 0))]
            status["podIP"] = "127.0.0.1"
            self._put("pods", pod, ns)

    @staticmethod
    def _container(pod: Obj, ready: bool, restarts: int) -> Obj:
        c = pod["spec"]["containers"][0]
        return {"name": c["name"], "image": c["image"], "imageID": "", "ready": ready, "restartCount": restarts,
                "started": True, "state": {"running": {"startedAt": _now()}}}

    def _start(self, name: str, isvc: Obj, model_path: str, draft_path: str | None) -> PodProcess:
        port = _free_port()
        argv = [self.llama_server, *render_args(isvc, model_path, draft_path, port)]
        if self.threads:
            argv += ["--threads", str(self.threads)]  # the node's CPU share (a pod's cpu limit, in effect)
        log = self.workdir / f"{name}.log"
        launch, preexec = _launch(argv)  # the project's shim: the server dies with this process, even by SIGKILL
        with open(log, "ab") as out:
            proc = subprocess.Popen(launch, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    start_new_session=True, preexec_fn=preexec)
        return PodProcess(proc=proc, port=port, argv=argv, log=log)

    @staticmethod
    def _healthy(port: int) -> bool:
        try:
            return httpx.get(f"http://127.0.0.1:{port}/health", timeout=1.0).status_code == 200
        except httpx.HTTPError:
            return False

    def _status(self, ns: str, isvc: Obj, phase: str, *, ready: bool, message: str = "") -> None:
        gen = isvc["metadata"]["generation"]
        status = {"phase": phase, "readyReplicas": 1 if ready else 0, "desiredReplicas": 1, "replicas": 1,
                  "modelReady": phase != "Pending" or not message,
                  "conditions": [{"type": "Ready", "status": "True" if ready else "False",
                                  "observedGeneration": gen, "reason": phase, "message": message}]}
        if (proxy := self.proxies.get((ns, isvc["metadata"]["name"]))) is not None:
            status["endpoint"] = f"http://127.0.0.1:{proxy.port}/v1/chat/completions"
        if isvc.get("status", {}).get("conditions") != status["conditions"] or isvc.get("status", {}).get(
                "phase") != phase:
            isvc["status"] = status
            self._put("inferenceservices", isvc, ns)
            if ready:
                self.event(ns, isvc, "Ready", f"InferenceService {isvc['metadata']['name']} is ready "
                                              f"(generation {gen})")

    def _ready_port(self, ns: str, name: str) -> int | None:
        with self._lock:
            for pod_name, proc in self.processes.items():
                pod = self.objects.get(("pods", ns, pod_name))
                if pod and proc.ready and pod["metadata"]["labels"].get("inference.llmkube.dev/service") == name:
                    return proc.port
        return None

    def _service(self, ns: str, isvc: Obj) -> None:
        """The Service of `isvc`: type LoadBalancer, ingress 127.0.0.1, a stable port (ServiceProxy)."""
        name = isvc["metadata"]["name"]
        if ("services", ns, name) in self.objects:
            return
        proxy = self.proxies.get((ns, name)) or ServiceProxy(lambda: self._ready_port(ns, name))
        self.proxies[(ns, name)] = proxy
        svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "labels": {"app": name}},
               "spec": {"type": "LoadBalancer", "selector": {"app": name},
                        "ports": [{"name": "http", "port": proxy.port, "protocol": "TCP"}]},
               "status": {"loadBalancer": {"ingress": [{"ip": "127.0.0.1"}]}}}
        self._put("services", svc, ns)

    # --- test hooks ------------------------------------------------------------------------------------------
    def kill_pod(self, service: str, ns: str = "default") -> str:
        """SIGKILL the llama-server of `service`'s pod (a crash, an OOM kill); the pod's name."""
        with self._lock:
            for name, proc in self.processes.items():
                pod = self.objects.get(("pods", ns, name))
                if pod and pod["metadata"]["labels"].get("inference.llmkube.dev/service") == service and proc.proc:
                    os.killpg(proc.proc.pid, signal.SIGKILL)
                    return name
        raise LookupError(f"no running pod for {ns}/{service}")

    def seed_demo(self, model_path: str, extra_args: tuple[str, ...] = ("--poll", "0")) -> None:
        """Model default/demo and InferenceService default/demo serving it (4 slots, `extra_args`)."""
        with self._lock:
            self._create("models", "default", {"apiVersion": f"{GROUP}/{VERSION}", "kind": "Model",
                                               "metadata": {"name": "demo"},
                                               "spec": {"source": f"file://{model_path}", "format": "gguf"}}, GROUP)
            self._create("inferenceservices", "default", {
                "apiVersion": f"{GROUP}/{VERSION}", "kind": "InferenceService", "metadata": {"name": "demo"},
                "spec": {"modelRef": "demo", "replicas": 1, "contextSize": 8192, "parallelSlots": 4,
                         "resources": {"cpu": "1", "memory": "1Gi"},
                         # an idle llama-server polls for work on its threads by default; --poll 0 lets the
                         # two arms of a twin share a small node (the kind of option users put in extraArgs)
                         "extraArgs": list(extra_args)}}, GROUP)

    def wait_ready(self, name: str, ns: str = "default", timeout_s: float = 120.0) -> None:
        """Block until `name` reports Ready (tests and --seed-demo)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            obj = self.get("inferenceservices", ns, name)
            if obj and (obj.get("status") or {}).get("phase") == "Ready":
                return
            time.sleep(0.1)
        raise TimeoutError(f"{ns}/{name} not Ready within {timeout_s:.0f} s")

    # --- serving -------------------------------------------------------------------------------------------
    def kubeconfig(self) -> str:
        """A kubeconfig that reaches this server (one cluster, one token user, namespace default)."""
        return (f"apiVersion: v1\nkind: Config\nclusters:\n- name: contract\n  cluster:\n"
                f"    server: http://127.0.0.1:{self.port}\nusers:\n- name: contract\n  user:\n"
                f"    token: contract-token\ncontexts:\n- name: contract\n  context:\n    cluster: contract\n"
                f"    user: contract\n    namespace: default\ncurrent-context: contract\n")

    def start(self) -> ContractCluster:
        """Bind the API on loopback and start the reconciler."""
        cluster = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _answer(self) -> None:
                url = urlparse(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                    code, payload = cluster.handle(self.command, url.path, parse_qs(url.query), body)
                except ApiError as exc:
                    code, payload = exc.code, exc.status()
                except (ValueError, KeyError, TypeError) as exc:
                    code, payload = 400, ApiError(400, "BadRequest", str(exc)).status()
                data = json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = _answer

        self._http = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._http.daemon_threads = True
        self.port = int(self._http.server_address[1])
        threading.Thread(target=self._http.serve_forever, daemon=True).start()
        threading.Thread(target=self._loop, daemon=True).start()
        return self

    def _loop(self) -> None:
        while not self._stop.wait(0.15):
            with contextlib.suppress(Exception):
                self.reconcile()

    def stop(self) -> None:
        """Stop the API, the reconciler and every pod's llama-server."""
        self._stop.set()
        if getattr(self, "_http", None) is not None:
            self._http.shutdown()
            self._http.server_close()
        with self._lock:
            for proc in self.processes.values():
                proc.stop()
            self.processes.clear()
            for proxy in self.proxies.values():
                proxy.close()

    def __enter__(self) -> ContractCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    """Serve until Ctrl-C."""
    from advisor.demo.model import demo_model_path
    from probes.engines.llamacpp.binary import find_llama_server

    p = argparse.ArgumentParser(prog="python -m tests.kube_contract_server", description=__doc__.split("\n")[0])
    p.add_argument("--port", type=int, default=0, help="API port on 127.0.0.1 (default: a free one)")
    p.add_argument("--kubeconfig-out", type=Path, help="write a kubeconfig for this server here")
    p.add_argument("--seed-demo", action="store_true", help="create Model and InferenceService default/demo")
    p.add_argument("--no-spec-field", action="store_true", help="serve an older CRD without speculativeDecoding")
    p.add_argument("--node-memory", default="8Gi", help="the one node's allocatable memory (default 8Gi)")
    p.add_argument("--deny", action="append", default=[], metavar="VERB:RESOURCE", help="refuse a permission")
    args = p.parse_args(argv)
    binary = find_llama_server(None)
    if not hasattr(binary, "path"):
        p.error(f"no llama-server: {binary}")
    deny = frozenset((verb, resource) for verb, _, resource in (d.partition(":") for d in args.deny))
    cluster = ContractCluster(llama_server=binary.path, port=args.port, with_spec_field=not args.no_spec_field,
                              node_memory=args.node_memory, deny=deny)
    def interrupted(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # SIGTERM stops the pods' servers like Ctrl-C does

    signal.signal(signal.SIGTERM, interrupted)
    with cluster:
        if args.kubeconfig_out:
            args.kubeconfig_out.write_text(cluster.kubeconfig())
        if args.seed_demo:
            demo = demo_model_path()
            if demo is None:
                p.error("the demo model is not installed")
            cluster.seed_demo(str(demo))
            cluster.wait_ready("demo")
        print(f"kube contract server on http://127.0.0.1:{cluster.port}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
