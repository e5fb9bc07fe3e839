"""Shared pieces of the cluster tests: a contract cluster seeded with default/demo, and a bounded check budget."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.kube_contract_server import ContractCluster


@contextmanager
def demo_cluster(binary: Any, model: Path, tmp: Path, **options: Any) -> Iterator[tuple[ContractCluster, Path]]:
    """A contract cluster serving default/demo (Ready), and a kubeconfig file for it; stopped afterwards."""
    with ContractCluster(llama_server=binary.path, **options) as cluster:
        cluster.seed_demo(str(model))
        cluster.wait_ready("demo")
        kubeconfig = tmp / "kubeconfig.yaml"
        kubeconfig.write_text(cluster.kubeconfig())
        yield cluster, kubeconfig


def small_budget(monkeypatch: pytest.MonkeyPatch, **changes: Any) -> None:
    """`check` builds its configuration with a smaller quick budget (32 tokens, ≤ 12 A/B pairs): the cluster
    machinery is what these tests measure, and the 2-core test machine is shared."""
    import advisor.cli.check as check
    from advisor.config import QUICK

    budget = dataclasses.replace(QUICK, max_tokens=32, ab_max_pairs=12, warmup_requests=1, **changes)
    original: Callable[..., Any] = check.config_from_args

    def smaller(args: Any) -> Any:
        return dataclasses.replace(original(args), budget_override=budget)

    monkeypatch.setattr(check, "config_from_args", smaller)
