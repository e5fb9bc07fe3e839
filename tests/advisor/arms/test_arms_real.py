"""Single-resident arms on the real demo engine: a forced single A/B, the budget choosing by itself from a fake
NVML, and the CPU-engine gate refusing a user's model before any server starts.

Every server started here is stopped: sessions stop their own, and `start_managed` results are stopped in a
`finally`. The A/B is bounded by its budget (32 tokens, at most 20 pairs); the launch tests start at most two
servers each and stop them at once.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import threading
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from advisor.arms.arms import Arms
from advisor.arms.server import ManagedServer
from advisor.cli.main import EXIT_USER_ERROR, main
from advisor.config import QUICK, CheckConfig
from advisor.events import Event
from advisor.run import launch
from advisor.run.launch import start_managed
from advisor.run.session import Session
from advisor.text import text
from probes.base import Unavailable
from probes.engines.llamacpp.binary import LlamaServerBinary
from probes.engines.llamacpp.devices import DeviceList, LlamaDevice
from probes.gpu.probe import GpuReport, GpuSnapshot
from probes.host import HostReport
from tests.probes.test_probe_gpu import fake_pynvml

pytestmark = pytest.mark.engine

# The A/B takes about 20 s on 2 quiet cores; a machine starved by other jobs can be 50× slower per token. The
# watchdog cancels the session there (it then stops its servers), so the test ends, failing, in bounded time.
AB_LIMIT_S = 300.0
CUDA_BUILD = DeviceList((LlamaDevice("CUDA0", "NVIDIA GeForce RTX 4090", 24080, 23603, "cuda"),))


def _ab_config(tmp_path: Path, **changes: Any) -> CheckConfig:
    budget = dataclasses.replace(QUICK, max_tokens=32, ab_max_pairs=20, warmup_requests=1)
    return CheckConfig(quick=True, steps=("ab",), out_dir=tmp_path / "run", budget_override=budget, threads=2,
                       **changes)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")  # a zombie still answers kill(0)
    return not (status.exists() and "State:\tZ" in status.read_text())


def _running(arms: Arms | None) -> int:
    if arms is None:
        return 0
    return sum(1 for a in (arms.off, arms.on) if a is not None and a.server is not None and a.server.running)


def test_a_forced_single_resident_ab_keeps_one_target_alive(demo_model: Path, llama_binary: Any,
                                                            tmp_path: Path) -> None:
    session = Session(_ab_config(tmp_path, arms="single"))
    alive_at_events: list[int] = []

    def count_servers(event: Event) -> None:  # sampled at every event the session sends, while it runs
        alive_at_events.append(_running(session.arms))

    session.subscribers.append(count_servers)
    watchdog = threading.Timer(AB_LIMIT_S, session.cancel)
    watchdog.start()
    try:
        done = session.run()
    finally:
        watchdog.cancel()
    assert _running(session.arms) == 0  # the session stopped every server it started
    assert done.status == "complete", f"{done.status} after at most {AB_LIMIT_S:.0f} s: {done.message}"
    evidence = json.loads((tmp_path / "run" / "evidence.json").read_text())
    ab = evidence["steps"]["ab"]["evidence"]
    print(f"\nsingle-resident A/B: speedup {ab['speedup']:.3f} [{ab['ci_low']:.3f}, {ab['ci_high']:.3f}] over "
          f"{ab['n_prompts']} pairs, decision {ab['decision']}; {len(evidence['servers'])} server spans")
    assert ab["decision"] in {"ENABLE", "SKIP", "INCONCLUSIVE"} and ab["n_prompts"] >= 3
    assert evidence["arms"]["mode"] == "single" and evidence["arms"]["reason_code"] == "asked-single"
    assert max(alive_at_events) == 1

    spans = sorted(evidence["servers"], key=lambda s: s["started_s"])
    assert spans[0]["arm"] == "on" and spans[0]["phase"] == "start"  # the ON server starts, preflight reads it
    for span in spans:
        assert span["stopped_s"] is not None and span["stopped_s"] >= span["started_s"] + span["load_s"]
        assert span["load_s"] > 0 and span["pid"] is not None and not _alive(span["pid"])
    for before, after in pairwise(spans):  # no two target servers overlap in time
        assert after["started_s"] >= before["stopped_s"], (before, after)

    # every server after the first was started by a restart the evidence lists, and each change of arm is a swap
    restarts = evidence["restarts"]
    assert [(r["arm"], r["generation"]) for r in restarts] == [(s["arm"], s["generation"]) for s in spans[1:]]
    for before, restart in zip(spans[:-1], restarts, strict=True):
        assert restart["reason"] == ("swap" if restart["arm"] != before["arm"] else "fresh")
    swaps = [r for r in restarts if r["reason"] == "swap"]
    assert swaps[0]["arm"] == "off" and swaps[0]["before"] == "preflight"
    assert sum(1 for r in swaps if r["before"].startswith("ab")) >= 2  # the A/B's blocks swapped the arms

    # each ON half of the A/B ran in a process started for the A/B (never the one preflight warmed), one
    # request per prompt and process: no ON request can meet its own prompt's earlier text
    ab_on = {s["generation"] for s in spans if s["arm"] == "on" and s["phase"].startswith("ab")}
    on_records = [r for r in ab["samples"] if r["arm"] == "on"]
    assert {r["server_generation"] for r in on_records} <= ab_on and len({r["server_generation"]
                                                                            for r in on_records}) >= 2
    per_process = [(r["server_generation"], r["prompt_id"]) for r in on_records]
    assert len(per_process) == len(set(per_process))
    # blocks of `single_block_pairs` lead with each arm in turn, ON first (it is resident when the A/B starts)
    block = session.policy.arms.single_block_pairs
    assert [p["on_first"] for p in ab["pairs"]] == [(i // block) % 2 == 0 for i in range(len(ab["pairs"]))]


def _gpus(*free_gib: float) -> GpuReport:
    """What NVML would report: RTX 4090s with these free GiB (every other field unavailable)."""
    blank: dict[str, Any] = {f.name: Unavailable("not-supported") for f in dataclasses.fields(GpuSnapshot)}
    cards = tuple(GpuSnapshot(**{**blank, "index": i, "name": "NVIDIA GeForce RTX 4090", "vram_free_gib": free,
                                 "peak_bandwidth_source": "none", "processes": ()}) for i, free in enumerate(free_gib))
    return GpuReport("ok", "", "550.54.14", "12.4", cards)


def _host() -> HostReport:
    na = Unavailable("not-supported")
    return HostReport(os="Linux", os_release="6", machine="x86_64", cpu_model=na, cores_logical=na,
                      cores_physical=na, ram_total_gib=na, ram_free_gib=64.0, ram_bandwidth_gbs=na,
                      ram_bandwidth=na, power_source=na, python_version="3.11")


@pytest.fixture
def gpu_build(llama_binary: LlamaServerBinary, monkeypatch: pytest.MonkeyPatch) -> LlamaServerBinary:
    """The real (CPU) binary, described as a CUDA build: the budget then sets the arms against VRAM."""
    looks_gpu = dataclasses.replace(llama_binary, devices=CUDA_BUILD)
    monkeypatch.setattr(launch, "find_llama_server", lambda explicit=None: looks_gpu)
    return looks_gpu


@pytest.mark.parametrize(("free_gib", "mode", "code", "started"), [
    # the demo needs 0.37 GiB per server (weights + KV for 4 × 2048 tokens + buffers); with the 1 GiB spare two
    # do not fit in 1.5 GiB, one does
    (1.5, "single", "does-not-fit", ["on"]),
    (24.0, "dual", "fits", ["off", "on"]),
], ids=["too-little-vram", "plenty-of-vram"])
def test_auto_arms_follow_the_vram_budget(gpu_build: LlamaServerBinary, demo_model: Path, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch, free_gib: float, mode: str, code: str,
                                          started: list[str]) -> None:
    starts: list[str] = []
    real_start = ManagedServer.start

    def record(self: ManagedServer, timeout_s: float = 120.0) -> ManagedServer:
        starts.append(self.config.label)
        return real_start(self, timeout_s)

    monkeypatch.setattr(ManagedServer, "start", record)
    config = CheckConfig(model=demo_model, threads=2, arms="auto")  # a user's model: the gate applies
    arms = start_managed(config, tmp_path, gpu_probe=lambda: _gpus(free_gib), host_probe=_host)
    try:
        plan = arms.plan
        assert plan is not None and arms.mode == mode
        assert (plan.mode, plan.requested, plan.reason_code, plan.where) == (mode, "auto", code, "gpu")
        assert f"{free_gib:.1f} GiB is free" in plan.reason and "gpu0" in plan.reason
        assert starts == started and _running(arms) == len(started)
        if mode == "single":
            assert arms.off is not None and not arms.off.resident
            # asking for the other arm swaps: ON stops before OFF starts, and the swap is recorded
            on_pid = arms.on.server.pid if arms.on is not None and arms.on.server is not None else None
            assert arms.use("off", "test") is arms.off and arms.off.resident and _running(arms) == 1
            assert on_pid is not None and not _alive(on_pid)
            assert [(r.arm, r.before, r.reason) for r in arms.restarts] == [("off", "test", "swap")]
            first, second = arms.spans
            assert first.stopped_s is not None and second.started_s >= first.stopped_s and second.load_s > 0
    finally:
        arms.stop()
    assert _running(arms) == 0 and all(s.stopped_s is not None for s in arms.spans)


def test_the_demo_model_is_exempt_from_the_gate_and_budgeted_on_ram(llama_binary: LlamaServerBinary,
                                                                    tmp_path: Path) -> None:
    # NVML sees a card, the bundled build is CPU-only, no --model: the demo runs on the CPU by design
    assert llama_binary.gpu_capable is False
    arms = start_managed(CheckConfig(threads=2, llama_server=llama_binary.path), tmp_path,
                         gpu_probe=lambda: _gpus(1.5), host_probe=_host)
    try:
        assert arms.plan is not None and arms.plan.where == "cpu" and arms.plan.shared_weights
        assert arms.mode == "dual" and _running(arms) == 2  # RAM holds two servers sharing one mapped model
    finally:
        arms.stop()
    assert _running(arms) == 0


def test_check_with_a_users_model_on_a_cpu_build_beside_a_gpu_exits_2_before_any_server(
        llama_binary: LlamaServerBinary, demo_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    assert llama_binary.gpu_capable is False  # the bundled build: `--list-devices` shows "(none)"
    monkeypatch.setitem(sys.modules, "pynvml", fake_pynvml())  # NVML sees an RTX 4090
    started: list[str] = []

    def refuse(self: ManagedServer, timeout_s: float = 120.0) -> ManagedServer:
        started.append(self.config.label)
        raise AssertionError("a server was started")

    monkeypatch.setattr(ManagedServer, "start", refuse)
    out = tmp_path / "run"
    code = main(["check", "--quick", "--model", str(demo_model), "--no-history", "--out", str(out),
                 "--llama-server", llama_binary.path])
    captured = capsys.readouterr()
    assert code == EXIT_USER_ERROR and started == []
    lines = captured.err.splitlines()
    assert len(lines) == 2 and lines[0].startswith("spec-advisor: ") and lines[1].startswith("  hint: ")
    assert "CPU-only build" in lines[0] and "NVIDIA GeForce RTX 4090" in lines[0] and llama_binary.path in lines[0]
    assert "--allow-cpu-engine" in lines[1] and "--llama-server" in lines[1]
    assert "Traceback" not in captured.err + captured.out
    assert not out.exists()  # no run folder, so no server logs either


def test_the_cpu_engine_refusal_speaks_the_readers_language(
        llama_binary: LlamaServerBinary, demo_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", fake_pynvml())
    code = main(["check", "--quick", "--model", str(demo_model), "--no-history", "--out", str(tmp_path / "run"),
                 "--llama-server", llama_binary.path, "--lang", "zh"])
    err = capsys.readouterr().err
    assert code == EXIT_USER_ERROR
    assert err.startswith("spec-advisor: ")
    assert text("zh", "gate.cpu_engine", path=llama_binary.path, gpu="NVIDIA GeForce RTX 4090") in err
    assert text("zh", "gate.cpu_engine_hint") in err


def test_this_build_has_no_per_request_drafting_toggle(llama_binary: LlamaServerBinary, demo_model: Path) -> None:
    # Single-resident OFF runs on a plain server because of this: a server started with a drafter keeps
    # drafting when a request asks for n_max 0 (the build compiles its per-request `speculative.*` fields out,
    # tools/server/server-schema.cpp), as the server's own draft counters show. A build that honours the fields
    # fails here, and then a drafter-loaded server could serve the OFF arm without a swap (docs/arms.md).
    from bench.arms import idle_drafter_probe

    probe = idle_drafter_probe(max_tokens=32)
    requests = probe["requests"]
    assert requests["none"]["http_status"] == 200 and requests["none"]["draft_n"] > 0  # the drafter drafts
    assert not probe["toggle_works"]
    assert all(r["http_status"] == 200 and r["draft_n"] > 0 for r in requests.values())
