"""Faults of a cluster check on real pods (tests/kube_contract_server.py): RBAC denied, a rollout that never
becomes Ready, a twin that does not fit, a pod killed mid-A/B, a crashed check's leftovers. Each ends with
the cluster as it was.

Time on the 2-core test machine: the RBAC, timeout and leftovers tests a few seconds each; the windows
fallback ≈ 40–80 s and the killed pod ≈ 20–40 s (real requests).
"""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from advisor.cli.main import main
from advisor.cluster.api import Cluster
from advisor.cluster.driver import ClusterDriver
from advisor.cluster.ledger import Ledger, open_ledgers
from advisor.cluster.plan import make_plan
from tests.cluster_fixtures import demo_cluster, small_budget
from tests.kube_contract_server import ContractCluster
from tests.paths import REPO

pytestmark = pytest.mark.engine


def test_rbac_denied_is_one_message_before_anything_changes(
        llama_binary: Any, demo_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deny = frozenset({("create", "inferenceservices"), ("delete", "pods")})
    with demo_cluster(llama_binary, demo_model, tmp_path, deny=deny) as (cluster, kubeconfig):
        versions = cluster.resource_versions()
        code = main(["check", "--quick", "--llmkube", "default/demo", "--kubeconfig", str(kubeconfig),
                     "--no-history", "--out", str(tmp_path / "run")])
        err = capsys.readouterr().err
        assert code == 2
        assert cluster.resource_versions() == versions   # nothing created, patched or deleted
        lines = [line for line in err.splitlines() if line.startswith("spec-advisor:")]
        assert len(lines) == 1 and "may not do what the check needs in default" in lines[0]
        assert "create inferenceservices.inference.llmkube.dev" in lines[0] and "delete pods" in lines[0]
        assert "kind: \"Role\"" in err and "Traceback" not in err


def test_rollout_that_never_becomes_ready_times_out_and_is_undone(
        llama_binary: Any, demo_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def twin(isvc: dict[str, Any]) -> bool:
        return bool(isvc["metadata"]["name"].endswith("-sa-on"))

    with demo_cluster(llama_binary, demo_model, tmp_path, hold_unready=twin) as (cluster, kubeconfig):
        before = cluster.snapshot()
        out = tmp_path / "run"
        code = main(["check", "--quick", "--llmkube", "default/demo", "--kubeconfig", str(kubeconfig),
                     "--rollout-timeout", "3", "--no-history", "--out", str(out)])
        err = capsys.readouterr().err
        assert code in (1, 2) and "Traceback" not in err
        assert "default/demo-sa-on did not become Ready within 3 s" in err
        assert "deleted default/demo-sa-on" in err
        assert cluster.snapshot() == before
        assert json.loads((out / "cluster-ledger.json").read_text())["closed"] is True
        assert list(open_ledgers()) == []


def test_twin_that_does_not_fit_falls_back_to_windows(
        llama_binary: Any, demo_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    small_budget(monkeypatch, acceptance_per_category=1, canary_repeats=3, canary_reruns=1)
    # room for one pod of 1 GiB: the twin stays Pending (FailedScheduling); --arms dual makes the check try it
    with demo_cluster(llama_binary, demo_model, tmp_path, node_memory="1536Mi") as (cluster, kubeconfig):
        before = cluster.snapshot()
        out = tmp_path / "run"
        code = main(["check", "--quick", "--llmkube", "default/demo", "--kubeconfig", str(kubeconfig),
                     "--arms", "dual", "--steps", "acceptance", "--no-history", "--out", str(out)])
        err = capsys.readouterr().err
        assert code == 0, err
        assert "the twin did not fit" in err and "sequential windows" in err
        record = json.loads((out / "evidence.json").read_text())["cluster"]
        assert record["mode"] == "windows"
        assert {a["inference_service"] for a in record["arms"]} == {"default/demo"}
        swaps = [r for r in record["rollouts"] if r["reason"] == "swap"]
        # the ON window is the user's service at a new generation (patched), its pod a new one
        assert swaps and swaps[0]["arm"] == "on" and swaps[0]["generation"] == 2
        assert cluster.snapshot() == before   # spec, labels and annotations as they were
        served = cluster.get("inferenceservices", "default", "demo")
        assert served is not None and served["status"]["phase"] == "Ready"


def _tokens_predicted(cluster: ContractCluster, service: str) -> float:
    """Tokens the Ready pod of `service` generated so far (its llama-server's /metrics; 0 while there is none)."""
    for name, proc in list(cluster.processes.items()):
        if name.startswith(f"{service}-") and proc.ready:
            try:
                body = httpx.get(f"http://127.0.0.1:{proc.port}/metrics", timeout=2).text
            except httpx.HTTPError:
                return 0.0
            match = re.search(r"^llamacpp:tokens_predicted_total (\S+)", body, re.M)
            return float(match.group(1)) if match else 0.0
    return 0.0


def test_pod_killed_mid_ab_fails_clearly_and_is_undone(
        llama_binary: Any, demo_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    small_budget(monkeypatch)
    with demo_cluster(llama_binary, demo_model, tmp_path) as (cluster, kubeconfig):
        before = cluster.snapshot()
        killed: list[str] = []

        def kill_after_some_answers() -> None:
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline and not killed:
                if _tokens_predicted(cluster, "demo-sa-on") >= 100:   # the warm-up and a few A/B answers
                    killed.append(cluster.kill_pod("demo-sa-on"))
                time.sleep(0.2)

        killer = threading.Thread(target=kill_after_some_answers, daemon=True)
        killer.start()
        out = tmp_path / "run"
        code = main(["check", "--quick", "--llmkube", "default/demo", "--kubeconfig", str(kubeconfig),
                     "--steps", "ab", "--no-history", "--out", str(out)])
        killer.join(timeout=5)
        err = capsys.readouterr().err
        assert killed, "the A/B ended before the pod could be killed"
        assert code == 1 and "Traceback" not in err
        assert f"pod {killed[0]}" in err and "restarted" in err
        evidence = json.loads((out / "evidence.json").read_text())
        assert evidence["steps"]["ab"]["status"] == "failed"
        assert "deleted default/demo-sa-on" in err
        assert cluster.snapshot() == before


def test_leftovers_of_a_crashed_check_are_undone_on_the_next_start(
        llama_binary: Any, demo_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with demo_cluster(llama_binary, demo_model, tmp_path, node_memory="1536Mi") as (cluster, kubeconfig):
        before = cluster.snapshot()
        api = Cluster(kubeconfig)
        plan = make_plan(api, "default", "demo", spec_argv=("--spec-type", "ngram-mod"), arms="single",
                         spec_field=True)
        # a check that patched the service for its ON window, then died without undoing anything
        ledger = Ledger.start(tmp_path / "crashed", api.host)
        driver = ClusterDriver(api, plan, ledger, run_id="crashed1", timeout_s=120)
        driver.live_fields = plan.arms[0].fields
        driver.make_live(plan.arms[1], "acceptance")
        assert cluster.snapshot() != before
        assert main(["cluster", "cleanup", "--kubeconfig", str(kubeconfig), "--dry-run"]) == 0
        assert "left behind: default/demo (patched" in capsys.readouterr().out
        # the next check starts by undoing it (here: --plan, which otherwise only reads)
        assert main(["check", "--llmkube", "default/demo", "--kubeconfig", str(kubeconfig), "--plan"]) == 0
        err = capsys.readouterr().err
        assert "undoing what an earlier check left behind" in err and "restored the speculation fields" in err
        assert cluster.snapshot() == before and list(open_ledgers()) == []
        assert main(["cluster", "cleanup", "--kubeconfig", str(kubeconfig)]) == 0
        assert "no leftovers" in capsys.readouterr().out


def test_ctrl_c_mid_check_undoes_everything(llama_binary: Any, demo_model: Path, tmp_path: Path) -> None:
    """A real Ctrl-C (SIGINT to the command) while the A/B runs on the twin: exit 130, the twin is gone."""
    import os
    import signal
    import subprocess
    import sys

    with demo_cluster(llama_binary, demo_model, tmp_path) as (cluster, kubeconfig):
        before = cluster.snapshot()
        out = tmp_path / "run"
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        proc = subprocess.Popen([sys.executable, "-m", "advisor", "check", "--quick", "--llmkube", "default/demo",
                                 "--kubeconfig", str(kubeconfig), "--steps", "ab", "--no-history", "--out", str(out)],
                                cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 180
            while _tokens_predicted(cluster, "demo-sa-on") < 32 and time.monotonic() < deadline:
                time.sleep(0.2)   # the twin is up and has answered its warm-up: the A/B is running
            assert proc.poll() is None, proc.communicate()[1]
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=180)
        finally:
            if proc.poll() is None:
                proc.kill()
        assert proc.returncode == 130, err
        assert "deleted default/demo-sa-on" in err and "Traceback" not in err
        assert cluster.snapshot() == before
        assert json.loads((out / "cluster-ledger.json").read_text())["closed"] is True
