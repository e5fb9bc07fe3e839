"""`check --llmkube NAMESPACE/NAME`: plan, check permissions, measure both arms on the cluster, undo.

Order: leftovers of an earlier check that did not finish are undone first; the plan is made from reads
only (`--plan` stops there and prints it); every permission the plan needs is asked of the API before
anything changes (one message lists all that are missing); then the usual check pipeline measures the two
arms through their Services, and whatever happens — a verdict, a failure, Ctrl-C — every object created
or changed is deleted or restored before the command returns. `--apply` comes after, on an ENABLE.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import re
import sys
import uuid
from collections.abc import Callable
from typing import TextIO

from advisor import lang as langs
from advisor.cli.progress import ProgressPrinter
from advisor.cluster.api import Cluster, ClusterError
from advisor.cluster.driver import ClusterDriver, undo
from advisor.cluster.ledger import Ledger, open_ledgers
from advisor.cluster.plan import ClusterPlan, make_plan
from advisor.cluster.render import print_plan, role_manifest
from advisor.cluster.rollout import ROLLOUT_TIMEOUT_S, service_url
from advisor.errors import UserError
from advisor.recommend.llamacpp import SpecSettings, UnsupportedSpec, spec_args
from advisor.text import text

_NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")


def parse_ref(value: str) -> tuple[str, str]:
    """`NAMESPACE/NAME` (or `NAME`, in `default`) → (namespace, name), both DNS labels."""
    ns, _, name = value.rpartition("/")
    ns = ns or "default"
    if not (_NAME.fullmatch(ns) and _NAME.fullmatch(name)):
        raise UserError(f"--llmkube wants NAMESPACE/NAME of an InferenceService, not {value!r}",
                        hint="example: --llmkube default/qwen3-8b")
    return ns, name


def _refuse_options(args: argparse.Namespace) -> None:
    for flag, given in (("--engine-url", args.engine_url), ("--engine-url-b", args.engine_url_b),
                        ("--resume", args.resume), ("--draft-model", args.draft_model),
                        ("--model", args.model), ("--llama-server", args.llama_server),
                        ("-- LLAMA_SERVER_ARGS", args.server_args)):
        if given:
            raise UserError(f"{flag} does not go with --llmkube: the cluster serves the model and runs the servers",
                            hint="the InferenceService's own spec says which model and options each arm runs")


def on_argv(args: argparse.Namespace) -> tuple[str, ...]:
    """The ON arm's speculative flags (--spec-type, --draft-max) in current llama.cpp spellings."""
    try:
        return tuple(spec_args(SpecSettings(method=args.spec_type, draft_max=args.draft_max), None))
    except UnsupportedSpec as exc:
        raise UserError(str(exc)) from None


def recover(cluster: Cluster, lang: str, say: Callable[[str], None]) -> None:
    """Undo what checks that did not finish left behind (their ledgers are still open)."""
    for ledger in open_ledgers():
        if ledger.api_host and ledger.api_host != cluster.host:
            continue   # another cluster's: its own next check (or `cluster cleanup` there) undoes it
        say(text(lang, "cluster.recovering", ledger=str(ledger.path)))
        for line in undo(cluster, ledger, lang=lang, progress=say, close=True):
            say(line)


def require_permissions(cluster: Cluster, plan: ClusterPlan, lang: str) -> None:
    """Ask the API (SelfSubjectAccessReview) for every permission the plan needs; all missing ones in one
    message, before anything changes."""
    missing = [p for p in dict.fromkeys(plan.permissions()) if not cluster.allowed(p, plan.namespace)]
    if missing:
        raise UserError(text(lang, "cluster.rbac_denied", namespace=plan.namespace,
                             missing=", ".join(str(p) for p in missing)),
                        hint=text(lang, "cluster.rbac_hint") + "\n" + role_manifest(plan.namespace, missing))


def run_cluster_check(args: argparse.Namespace, run_session: Callable[[object, argparse.Namespace], int],
                      config_from_args: Callable[[argparse.Namespace], object]) -> int:
    """The whole cluster check (see the module docstring); the exit code."""
    from advisor.history.store import RunStore
    from advisor.run.session import Session

    lang = langs.resolve(args.lang)
    ns, name = parse_ref(args.llmkube)
    _refuse_options(args)
    if args.apply and args.plan:
        raise UserError("--apply and --plan do not go together: --plan changes nothing")
    say = _stderr_line
    cluster = Cluster(args.kubeconfig, args.context)
    recover(cluster, lang, say)
    plan = make_plan(cluster, ns, name, spec_argv=on_argv(args), arms=args.arms,
                     spec_field=cluster.crd_has_spec_field())
    if args.plan:
        print_plan(plan, lang, sys.stdout)
        return 0
    require_permissions(cluster, plan, lang)
    attach = copy.copy(args)
    attach.engine_url = service_url(cluster, ns, next(a.service for a in plan.arms if not a.ours))
    config = config_from_args(attach)
    timeout_s = float(args.rollout_timeout or ROLLOUT_TIMEOUT_S)
    with contextlib.ExitStack() as stack:
        store = None if args.no_history else stack.enter_context(RunStore())
        session = Session(config, subscribers=[ProgressPrinter(lang=args.lang)], store=store,  # type: ignore[arg-type]
                          run_dir=getattr(config, "out_dir", None))
        ledger = Ledger.start(session.run_dir, cluster.host)
        driver = ClusterDriver(cluster, plan, ledger, run_id=uuid.uuid4().hex[:10], lang=lang,
                               allow_remote=args.allow_remote, timeout_s=timeout_s, progress=say)
        session.arms_factory = driver.setup
        try:
            code = run_session(session, args)
        finally:
            _restore(driver, ledger, lang, say)
        from advisor.cluster.apply import apply_after_check, recommend

        if args.apply and code == 0:
            code = apply_after_check(cluster, driver.plan, session.run_dir, lang=lang, yes=args.yes,
                                     out=sys.stdout, ask=input)
        elif code == 0 and not args.json:
            recommend(driver.plan, session.run_dir, lang=lang, out=sys.stdout)
        return code


def _restore(driver: ClusterDriver, ledger: Ledger, lang: str, say: Callable[[str], None]) -> None:
    """Undo everything (on success, failure and Ctrl-C); a failure to undo is said loudly, with the way out."""
    try:
        for line in driver.undo_all():
            say(line)
        ledger.close()
        say(text(lang, "cluster.restored"))
    except (ClusterError, KeyboardInterrupt) as exc:
        say(text(lang, "cluster.restore_failed", detail=str(exc) or type(exc).__name__, ledger=str(ledger.path)))
        raise


def _stderr_line(line: str, stream: TextIO | None = None) -> None:
    print(f"spec-advisor: {line}", file=stream or sys.stderr, flush=True)

