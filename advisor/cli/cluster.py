"""`spec-advisor cluster cleanup`: list and remove what cluster checks left behind (see advisor/cluster/cleanup.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from advisor import lang as langs
from advisor.text import text


def configure(p: argparse.ArgumentParser) -> None:
    """Arguments of `cluster`."""
    p.add_argument("action", choices=("cleanup",), help="cleanup: list and remove leftovers")
    p.add_argument("--kubeconfig", type=Path, metavar="FILE",
                   help="the kubeconfig (default: KUBECONFIG or ~/.kube/config, as kubectl)")
    p.add_argument("--context", metavar="NAME", help="the kubeconfig context (default: its current one)")
    p.add_argument("--namespace", "-n", metavar="NS", help="look in this namespace only (default: every one)")
    p.add_argument("--dry-run", action="store_true", help="list the leftovers, remove nothing")
    langs.add_option(p, "language of the messages")


def run(args: argparse.Namespace) -> int:
    """Undo open ledgers, then remove labelled leftovers; 0 also when there were none."""
    from advisor.cli.cluster_check import recover
    from advisor.cluster.api import Cluster
    from advisor.cluster.cleanup import find_leftovers, remove

    lang = langs.resolve(args.lang)
    cluster = Cluster(args.kubeconfig, args.context)

    def say(line: str) -> None:
        print(f"spec-advisor: {line}", file=sys.stderr, flush=True)

    if not args.dry_run:
        recover(cluster, lang, say)
    found = find_leftovers(cluster, args.namespace)
    if not found:
        print(text(lang, "cluster.cleanup_none"))
        return 0
    for item in found:
        what = text(lang, "cluster.cleanup_twin" if item.twin else "cluster.cleanup_patched")
        print(text(lang, "cluster.cleanup_found", service=f"{item.namespace}/{item.name}", what=what))
        if not args.dry_run:
            remove(cluster, item)
            key = "cluster.undo_deleted" if item.twin else "cluster.undo_restored"
            print("  " + text(lang, key, service=f"{item.namespace}/{item.name}"))
    if args.dry_run:
        print(text(lang, "cluster.cleanup_dry"))
    return 0
