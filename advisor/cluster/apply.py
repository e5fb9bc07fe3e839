"""`check --llmkube … --apply`: after an ENABLE, put the measured speculation fields on the user's service.

A diff of the two speculation fields comes first, then a confirmation (unless --yes), then one merge patch
that changes nothing else; the command that undoes it is printed (a merge patch back to the old fields,
byte-for-byte in spec). Not recorded in the ledger: this change is the one the user asked to keep.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from advisor.cluster.api import Cluster
from advisor.cluster.plan import ClusterPlan
from advisor.cluster.render import fields_diff
from advisor.deploy.llmkube_spec import fields_of, merge_diff
from advisor.errors import UserError
from advisor.text import text


def rollback_command(ns: str, name: str, patch: dict[str, Any]) -> str:
    """The kubectl command that applies `patch` to `ns/name` (a merge patch)."""
    return (f"kubectl patch inferenceservice {shlex.quote(name)} -n {shlex.quote(ns)} --type merge "
            f"-p {shlex.quote(json.dumps(patch, sort_keys=True, separators=(',', ':')))}")


def apply_fields(cluster: Cluster, ns: str, name: str, fields: dict[str, Any], *, lang: str, yes: bool,
                 out: TextIO, ask: Callable[[str], str], interactive: bool | None = None) -> dict[str, Any] | None:
    """Patch `ns/name` to `fields` after a diff and a confirmation; the rollback patch (None: nothing done)."""
    obj = cluster.get_service(ns, name)
    before = fields_of(obj.get("spec") or {})
    if before == fields:
        out.write(text(lang, "cluster.apply_same", service=f"{ns}/{name}") + "\n")
        return None
    out.write(fields_diff(before, fields, f"{ns}/{name}") + "\n")
    if not yes:
        if not (sys.stdin.isatty() if interactive is None else interactive):
            raise UserError(text(lang, "cluster.apply_needs_yes"))
        if ask(text(lang, "cluster.apply_confirm", service=f"{ns}/{name}") + " ").strip().lower() not in ("y", "yes"):
            out.write(text(lang, "cluster.apply_declined") + "\n")
            return None
    patched = cluster.patch_service(ns, name, {"spec": merge_diff(before, fields)})
    rollback = {"spec": merge_diff(fields_of(patched.get("spec") or {}), before)}
    out.write(text(lang, "cluster.apply_done", service=f"{ns}/{name}",
                   generation=patched["metadata"].get("generation")) + "\n")
    out.write(text(lang, "cluster.apply_rollback") + "\n    " + rollback_command(ns, name, rollback) + "\n")
    return rollback


def apply_after_check(cluster: Cluster, plan: ClusterPlan, run_dir: Path, *, lang: str, yes: bool, out: TextIO,
                      ask: Callable[[str], str]) -> int:
    """--apply: only after an ENABLE; the ON arm's fields onto the user's service."""
    verdict = verdict_of(run_dir)
    if verdict != "ENABLE":
        out.write(text(lang, "cluster.apply_not_enable", verdict=verdict or "-") + "\n")
        return 0
    on = next(a for a in plan.arms if a.arm == "on")
    _offer_canary(plan, run_dir, lang, out)
    apply_fields(cluster, plan.namespace, plan.name, on.fields, lang=lang, yes=yes, out=out, ask=ask)
    return 0


def _offer_canary(plan: ClusterPlan, run_dir: Path, lang: str, out: TextIO) -> None:
    from advisor.cluster.canary import write_canary

    try:
        path = write_canary(plan, run_dir)
    except OSError:
        return  # the run folder is not writable any more: the patch is still offered
    out.write(text(lang, "cluster.canary_written", path=str(path)) + "\n")


def recommend(plan: ClusterPlan, run_dir: Path, *, lang: str, out: TextIO) -> None:
    """After an ENABLE: the one merge patch that turns the measured settings on (in the form the installed CRD
    takes), and `--apply` as the way that shows a diff and prints the rollback."""
    if verdict_of(run_dir) != "ENABLE":
        return
    on = next(a for a in plan.arms if a.arm == "on")
    patch = {"spec": merge_diff(fields_of(plan.spec), on.fields)}
    if patch["spec"]:
        out.write(text(lang, "cluster.recommend", service=f"{plan.namespace}/{plan.name}") + "\n    "
                  + rollback_command(plan.namespace, plan.name, patch) + "\n")
        _offer_canary(plan, run_dir, lang, out)


def verdict_of(run_dir: Path) -> str | None:
    """The verdict a finished check wrote (verdict.json), or None."""
    try:
        return str(json.loads((run_dir / "verdict.json").read_text(encoding="utf-8")).get("verdict"))
    except (OSError, ValueError, AttributeError):
        return None
