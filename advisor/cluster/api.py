"""The cluster, through the official `kubernetes` client: the few reads and writes a cluster check makes.

Every call has a timeout; every failure becomes a `ClusterError` with the API's own message (a 403 names
the permission, a 404 the object), never a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from advisor.errors import UserError

GROUP = "inference.llmkube.dev"
VERSION = "v1alpha1"
SERVICES = "inferenceservices"
MODELS = "models"
CALL_TIMEOUT_S = (5.0, 30.0)   # connect, read: a cluster API answers in milliseconds; a hung one must not hang us
Obj = dict[str, Any]


class ClusterError(UserError):
    """The cluster API refused, could not be reached, or does not have the object."""

    def __init__(self, message: str, *, status: int | None = None, hint: str = "") -> None:
        super().__init__(message, hint=hint)
        self.status = status


@dataclass(frozen=True, slots=True)
class Permission:
    """One RBAC permission a cluster check needs (verb on a resource in an API group)."""

    verb: str
    resource: str
    group: str = ""          # "" is the core group
    cluster_scoped: bool = False

    def __str__(self) -> str:
        return f"{self.verb} {self.resource}{'.' + self.group if self.group else ''}"


def _api_message(exc: Exception) -> tuple[int | None, str]:
    status = getattr(exc, "status", None)
    body = getattr(exc, "body", None)
    try:
        message = json.loads(body).get("message") if body else None
    except (ValueError, AttributeError):
        message = None
    return status, message or getattr(exc, "reason", None) or str(exc)


class Cluster:
    """One kubeconfig context: the API calls a cluster check uses."""

    def __init__(self, kubeconfig: Path | None = None, context: str | None = None) -> None:
        from kubernetes import client, config
        from kubernetes.config.config_exception import ConfigException

        try:
            api_client = config.new_client_from_config(config_file=str(kubeconfig) if kubeconfig else None,
                                                       context=context)
        except (ConfigException, OSError, TypeError, ValueError) as exc:
            where = kubeconfig or "the default kubeconfig (KUBECONFIG or ~/.kube/config)"
            raise ClusterError(f"cannot load {where}: {exc}",
                               hint="pass --kubeconfig FILE (and --context NAME), as kubectl uses them") from None
        api_client.configuration.retries = 1
        self.host = api_client.configuration.host
        self.custom = client.CustomObjectsApi(api_client)
        self.core = client.CoreV1Api(api_client)
        self.ext = client.ApiextensionsV1Api(api_client)
        self.authz = client.AuthorizationV1Api(api_client)
        self._client = client

    def _call(self, what: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        from kubernetes.client.exceptions import ApiException
        from urllib3.exceptions import HTTPError

        try:
            return fn(*args, _request_timeout=CALL_TIMEOUT_S, **kwargs)
        except ApiException as exc:
            status, message = _api_message(exc)
            hint = "`spec-advisor check --llmkube NS/NAME --plan` lists the permissions" if status == 403 else ""
            raise ClusterError(f"{what}: {message}", status=status, hint=hint) from None
        except (HTTPError, OSError) as exc:
            raise ClusterError(f"cannot reach the cluster API at {self.host} ({what}): {exc}",
                               hint="is the cluster up, and is this the right kubeconfig context?") from None

    # --- InferenceServices and Models ----------------------------------------------------------------------
    def get_service(self, ns: str, name: str) -> Obj:
        """The InferenceService `ns/name` as the API returns it."""
        return self._call(f"reading InferenceService {ns}/{name}", self.custom.get_namespaced_custom_object,
                          GROUP, VERSION, ns, SERVICES, name)

    def find_service(self, ns: str, name: str) -> Obj | None:
        """The InferenceService, or None when there is none."""
        try:
            return self.get_service(ns, name)
        except ClusterError as exc:
            if exc.status == 404:
                return None
            raise

    def list_services(self, selector: str, ns: str | None = None) -> list[Obj]:
        """InferenceServices matching a label selector, in `ns` or every namespace."""
        if ns is None:
            out = self._call("listing InferenceServices", self.custom.list_cluster_custom_object, GROUP, VERSION,
                             SERVICES, label_selector=selector)
        else:
            out = self._call(f"listing InferenceServices in {ns}", self.custom.list_namespaced_custom_object,
                             GROUP, VERSION, ns, SERVICES, label_selector=selector)
        return list(out.get("items") or [])

    def create_service(self, ns: str, body: Obj) -> Obj:
        """Create an InferenceService."""
        name = body["metadata"]["name"]
        return self._call(f"creating InferenceService {ns}/{name}", self.custom.create_namespaced_custom_object,
                          GROUP, VERSION, ns, SERVICES, body)

    def patch_service(self, ns: str, name: str, patch: Obj) -> Obj:
        """Merge-patch an InferenceService (the same as `kubectl patch --type merge`)."""
        return self._call(f"patching InferenceService {ns}/{name}", self.custom.patch_namespaced_custom_object,
                          GROUP, VERSION, ns, SERVICES, name, patch)

    def delete_service(self, ns: str, name: str) -> None:
        """Delete an InferenceService; one already gone is fine."""
        try:
            self._call(f"deleting InferenceService {ns}/{name}", self.custom.delete_namespaced_custom_object,
                       GROUP, VERSION, ns, SERVICES, name)
        except ClusterError as exc:
            if exc.status != 404:
                raise

    def get_model(self, ns: str, name: str) -> Obj:
        """The Model `ns/name`."""
        return self._call(f"reading Model {ns}/{name}", self.custom.get_namespaced_custom_object,
                          GROUP, VERSION, ns, MODELS, name)

    def crd_has_spec_field(self) -> bool | None:
        """Whether the installed InferenceService CRD has spec.speculativeDecoding (None: the CRD is unreadable)."""
        try:
            crd = self._call("reading the InferenceService CRD", self.ext.read_custom_resource_definition,
                             f"{SERVICES}.{GROUP}")
        except ClusterError:
            return None
        for version in crd.spec.versions or []:
            if version.name != VERSION or version.schema is None:
                continue
            schema = version.schema.open_apiv3_schema
            spec = (schema.properties or {}).get("spec") if schema is not None else None
            props = (spec.properties or {}) if spec is not None else {}
            return "speculativeDecoding" in props
        return None

    # --- pods, services, events, nodes ----------------------------------------------------------------------
    def pods_of(self, ns: str, service: str) -> list[Any]:
        """The pods LLMKube runs for `service` (its `inference.llmkube.dev/service` label)."""
        out = self._call(f"listing the pods of {ns}/{service}", self.core.list_namespaced_pod, ns,
                         label_selector=f"inference.llmkube.dev/service={service}")
        return list(out.items or [])

    def delete_pod(self, ns: str, name: str) -> None:
        """Delete a pod (its ReplicaSet starts a new one); one already gone is fine."""
        try:
            self._call(f"deleting pod {ns}/{name}", self.core.delete_namespaced_pod, name, ns)
        except ClusterError as exc:
            if exc.status != 404:
                raise

    def k8s_service(self, ns: str, name: str) -> Any:
        """The core Service `ns/name`."""
        return self._call(f"reading Service {ns}/{name}", self.core.read_namespaced_service, name, ns)

    def events_for(self, ns: str, name: str) -> list[Any]:
        """Events about the object called `name` (a pod or the service), oldest first."""
        out = self._call(f"listing events in {ns}", self.core.list_namespaced_event, ns)
        items = [e for e in (out.items or []) if e.involved_object is not None
                 and (e.involved_object.name or "").startswith(name)]
        return sorted(items, key=lambda e: int(e.metadata.resource_version or 0))

    def nodes(self) -> list[Any]:
        """The cluster's nodes."""
        return list(self._call("listing nodes", self.core.list_node).items or [])

    def all_pods(self) -> list[Any]:
        """Every pod the API lets us list (for the room check)."""
        return list(self._call("listing pods", self.core.list_pod_for_all_namespaces).items or [])

    # --- RBAC ------------------------------------------------------------------------------------------------
    def allowed(self, perm: Permission, ns: str) -> bool:
        """A SelfSubjectAccessReview: may this user do `perm` in `ns`?"""
        c = self._client
        attrs = c.V1ResourceAttributes(verb=perm.verb, resource=perm.resource, group=perm.group,
                                       namespace=None if perm.cluster_scoped else ns)
        review = c.V1SelfSubjectAccessReview(spec=c.V1SelfSubjectAccessReviewSpec(resource_attributes=attrs))
        out = self._call(f"asking whether {perm} is allowed", self.authz.create_self_subject_access_review, review)
        return bool(out.status is not None and out.status.allowed)
