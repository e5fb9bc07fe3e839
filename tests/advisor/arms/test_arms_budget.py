"""The arms budget (dual or single-resident, before any server starts) and the single-resident A/B order.

No engine: the model is the demo GGUF read by the real model probe (or that reading resized to a 20 GiB
model), the GPUs and host are fake reports. The expected GiB are computed here by hand from the model's own
fields, so the test checks the formula, not only the verdict.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from advisor.arms.arms import Arm, Arms
from advisor.arms.budget import FLOAT_BYTES, GIB, UBATCH_TOKENS, arm_need, plan_arms, weights_private
from advisor.arms.schedule import Window, leads, single_resident_windows
from advisor.demo.model import demo_model_path
from advisor.evidence.arms import ArmsPlan, ArmsRequest
from advisor.report.arms_text import arms_sentence
from advisor.run.launch import single_if_placed_apart
from probes.base import Unavailable
from probes.engines.llamacpp.placement import ModelPlacement, Placement
from probes.gpu.probe import GpuReport, GpuSnapshot
from probes.host import HostReport
from probes.model.info import ModelInfo
from probes.model.probe import probe_model

pytestmark = pytest.mark.skipif(demo_model_path() is None, reason="the demo GGUF supplies the model's shape")

CTX = 4 * 2048          # what a managed check budgets: 4 slots × 2048 tokens (advisor/run/launch.py)
MARGIN = 1.0            # rules/policy.toml [arms] dual_margin_gib


@pytest.fixture(scope="module")
def demo() -> ModelInfo:
    path = demo_model_path()
    assert path is not None
    return probe_model(Path(path))


@pytest.fixture(scope="module")
def big(demo: ModelInfo) -> ModelInfo:
    """The demo's shape with 20 GiB of weights and an 8B-class KV cache (36 layers × 8 KV heads × 128 × K+V ×
    f16 = 147,456 bytes per token): a Q4 model that fills most of a 24 GB card."""
    return dataclasses.replace(demo, total_bytes=20 * GIB, file_bytes=20 * GIB, bytes_per_token=20 * GIB,
                               shared_bytes=20 * GIB, kv_bytes_per_token=147_456, vocab_size=151_936,
                               embedding_length=4096)


def _gpus(*free_gib: float | Unavailable) -> GpuReport:
    """A GPU report whose cards have these free GiB (every other field unavailable)."""
    blank: dict[str, Any] = {f.name: Unavailable("not-supported") for f in dataclasses.fields(GpuSnapshot)}
    cards = tuple(GpuSnapshot(**{**blank, "index": i, "name": "NVIDIA GeForce RTX 4090", "vram_free_gib": free,
                                 "peak_bandwidth_source": "none", "processes": ()}) for i, free in enumerate(free_gib))
    return GpuReport("ok" if cards else "no-driver", "", "x", "x", cards)


def _host(ram_free_gib: float | Unavailable) -> HostReport:
    """A host report with this much RAM available (every other reading unavailable)."""
    na = Unavailable("not-supported")
    return HostReport(os="Linux", os_release="6", machine="x86_64", cpu_model=na, cores_logical=na,
                      cores_physical=na, ram_total_gib=na, ram_free_gib=ram_free_gib, ram_bandwidth_gbs=na,
                      ram_bandwidth=na, power_source=na, python_version="3.11")


def _need_gib(model: ModelInfo, share: float = 1.0) -> tuple[float, float]:
    """(weights, target = weights + KV + compute buffers) in GiB, by hand from the model's fields."""
    assert model.kv_bytes_per_token and model.vocab_size and model.embedding_length
    weights = model.total_bytes * share / GIB
    kv = model.kv_bytes_per_token * CTX / GIB
    buffers = UBATCH_TOKENS * (model.vocab_size + 8 * model.embedding_length) * FLOAT_BYTES / GIB
    return weights, weights + kv + buffers


def _plan(model: ModelInfo | None, requested: ArmsRequest = "auto", *, gpus: GpuReport | None = None,
          host: HostReport | None = None, gpu_engine: bool = True, **kw: Any) -> ArmsPlan:
    return plan_arms(requested, model, ctx_tokens=CTX, gpus=gpus if gpus is not None else _gpus(),
                     host=host if host is not None else _host(64.0), gpu_engine=gpu_engine, margin_gib=MARGIN, **kw)


def test_a_20_gib_model_on_a_24_gb_card_runs_one_copy_at_a_time_and_says_why(big: ModelInfo) -> None:
    plan = _plan(big, gpus=_gpus(23.5))
    _, target = _need_gib(big)
    assert plan.mode == "single" and plan.reason_code == "does-not-fit" and plan.where == "gpu"
    assert not plan.shared_weights  # each GPU process uploads its own copy of the weights
    (card,) = plan.devices
    assert card.device == "gpu0" and card.single_gib == pytest.approx(target, abs=1e-3)
    assert card.dual_gib == pytest.approx(2 * target, abs=2e-3) and card.single_fits and not card.dual_fits
    # the numbers the user reads: what two servers need, the spare kept, what is free, and on which device
    assert f"two servers need {2 * target:.1f} GiB + 1.0 GiB spare on gpu0, 23.5 GiB is free" in plan.reason
    assert "one copy of the target at a time" in plan.reason


def test_a_small_model_on_a_24_gb_card_runs_side_by_side(demo: ModelInfo) -> None:
    plan = _plan(demo, gpus=_gpus(23.5))
    _, target = _need_gib(demo)
    assert plan.mode == "dual" and plan.reason_code == "fits" and plan.where == "gpu"
    assert plan.devices[0].dual_gib == pytest.approx(2 * target, abs=2e-3)
    assert plan.devices[0].dual_fits
    assert "both arms side by side" in plan.reason


def test_on_the_cpu_mmap_counts_the_weights_once_and_no_mmap_twice(big: ModelInfo) -> None:
    weights, target = _need_gib(big)
    # a GPU-less machine (or a CPU build): RAM is the budget, and two servers mapping one GGUF share its pages
    mapped = _plan(big, gpus=_gpus(), host=_host(64.0), gpu_engine=False)
    assert mapped.where == "cpu" and mapped.shared_weights and mapped.devices[0].device == "ram"
    assert mapped.devices[0].dual_gib == pytest.approx(2 * target - weights, abs=2e-3)
    assert mapped.mode == "dual"  # 20 GiB once + 2 KV caches fit in 64 GiB
    for private in (["--no-mmap"], ["-c", "4096", "--mlock"]):
        own = _plan(big, gpus=_gpus(), host=_host(64.0), gpu_engine=False, server_args=private)
        assert weights_private(private) and not own.shared_weights
        assert own.devices[0].dual_gib == pytest.approx(2 * target, abs=2e-3)
    # where it matters: 30 GiB of RAM holds one mapped copy beside two caches, not two private copies
    assert _plan(big, gpus=_gpus(), host=_host(30.0), gpu_engine=False).mode == "dual"
    tight = _plan(big, gpus=_gpus(), host=_host(30.0), gpu_engine=False, server_args=["--no-mmap"])
    assert tight.mode == "single" and tight.reason_code == "does-not-fit" and "on ram" in tight.reason
    assert not weights_private(["--mmap", "-m", "x.gguf"])


def test_a_gpu_build_beside_a_card_is_budgeted_on_vram_not_ram(big: ModelInfo) -> None:
    # plenty of RAM never makes room on the card: the servers' weights go to VRAM
    plan = _plan(big, gpus=_gpus(23.5), host=_host(256.0), gpu_engine=True)
    assert plan.where == "gpu" and plan.mode == "single" and [d.device for d in plan.devices] == ["gpu0"]
    # a CPU build beside the same card is budgeted on RAM (the card is not used)
    cpu = _plan(big, gpus=_gpus(23.5), host=_host(256.0), gpu_engine=False)
    assert cpu.where == "cpu" and cpu.mode == "dual" and [d.device for d in cpu.devices] == ["ram"]


def test_two_gpus_split_each_server_in_proportion_to_their_free_memory(big: ModelInfo) -> None:
    _, target = _need_gib(big)
    plan = _plan(big, gpus=_gpus(40.0, 20.0))
    first, second = plan.devices
    assert (first.device, second.device) == ("gpu0", "gpu1")
    assert first.single_gib == pytest.approx(target * 2 / 3, abs=1e-3)
    assert second.single_gib == pytest.approx(target / 3, abs=1e-3)
    assert first.dual_gib == pytest.approx(2 * target * 2 / 3, abs=2e-3)
    assert second.dual_gib == pytest.approx(2 * target / 3, abs=2e-3)
    # 2 × 21.5 GiB spread 2:1 over 60 GiB: 28.6 + 1 ≤ 40 and 14.3 + 1 ≤ 20
    assert plan.mode == "dual" and plan.reason_code == "fits"
    # 30 + 15 GiB: the same 2:1 split, but the 1 GiB spare kept per card tips the smaller one over
    # (14.3 + 1 > 15 while 28.6 + 1 ≤ 30): that card decides, and it is the one the reason names
    short = _plan(big, gpus=_gpus(30.0, 15.0))
    assert [d.dual_fits for d in short.devices] == [True, False]
    assert short.mode == "single" and short.reason_code == "does-not-fit"
    assert f"{short.devices[1].dual_gib:.1f} GiB + 1.0 GiB spare on gpu1, 15.0 GiB is free" in short.reason


def test_the_draft_counts_once_on_the_on_server(big: ModelInfo) -> None:
    _, target = _need_gib(big)
    draft = 2 * GIB
    (card,) = _plan(big, gpus=_gpus(48.0), draft_bytes=draft).devices
    assert card.single_gib == pytest.approx(target + 2.0, abs=1e-3)
    assert card.dual_gib == pytest.approx(2 * target + 2.0, abs=2e-3)
    assert arm_need(big, CTX, draft_bytes=draft).draft_gib == pytest.approx(2.0)


@pytest.mark.parametrize(("model", "gpus", "host", "gpu_engine"), [
    ("demo", (), Unavailable("not-supported", "no /proc/meminfo"), False),   # RAM could not be read
    (None, (23.5,), 64.0, True),                                             # model size unknown
    (None, (), 64.0, False),
], ids=["ram-unreadable", "no-model-gpu", "no-model-cpu"])
def test_a_budget_that_cannot_be_made_is_single_resident(demo: ModelInfo, model: str | None,
                                                         gpus: tuple[float, ...], host: float | Unavailable,
                                                         gpu_engine: bool) -> None:
    plan = _plan(demo if model else None, gpus=_gpus(*gpus), host=_host(host), gpu_engine=gpu_engine)
    assert plan.mode == "single" and plan.reason_code == "unknown-memory" and plan.devices == ()
    assert "could not be made" in plan.reason


def test_a_gpu_whose_free_vram_is_unreadable_is_not_budgeted_on_ram(demo: ModelInfo) -> None:
    # NVML sees the card but not its free memory; the GPU build will offload there, so RAM says nothing
    plan = _plan(demo, gpus=_gpus(Unavailable("not-supported", "nvmlDeviceGetMemoryInfo")), host=_host(256.0),
                 gpu_engine=True)
    assert plan.where == "gpu"
    assert plan.mode == "single" and plan.reason_code == "unknown-memory" and plan.devices == ()
    # one unreadable card of two: the layers it would take are unbudgeted, so the budget is unknown too
    some = _plan(demo, gpus=_gpus(80.0, Unavailable("not-supported")), host=_host(256.0), gpu_engine=True)
    assert some.where == "gpu" and some.mode == "single" and some.reason_code == "unknown-memory"


@pytest.mark.parametrize(("requested", "mode", "code"), [("single", "single", "asked-single"),
                                                        ("dual", "dual", "asked-dual")])
def test_an_explicit_request_is_honoured_whatever_the_budget(big: ModelInfo, demo: ModelInfo, requested: ArmsRequest,
                                                             mode: str, code: str) -> None:
    for model, gpus in ((big, _gpus(23.5)), (demo, _gpus(80.0)), (None, _gpus())):
        plan = _plan(model, requested, gpus=gpus)
        assert (plan.mode, plan.requested, plan.reason_code) == (mode, requested, code)
        assert f"--arms {requested}" in plan.reason
    # the budget is still made and kept, so the report can say whether two copies would have fitted
    assert not _plan(big, "dual", gpus=_gpus(23.5)).devices[0].dual_fits


# -- the single-resident A/B order -------------------------------------------------------------------------------


def _windows_cases() -> list[tuple[int, int, str]]:
    return [(n, b, first) for n in (1, 2, 3, 4, 5, 7, 8, 9, 20, 25) for b in (1, 2, 4, 5)
            for first in ("on", "off")]


@pytest.mark.parametrize(("n", "block", "first"), _windows_cases())
def test_single_resident_windows_keep_every_invariant(n: int, block: int, first: str) -> None:
    windows = single_resident_windows(n, block, first)  # type: ignore[arg-type]
    # every prompt exactly twice, once per arm
    seen = Counter((i, w.arm) for w in windows for i in w.indices)
    assert set(seen) == {(i, arm) for i in range(n) for arm in ("off", "on")} and set(seen.values()) == {1}
    # consecutive windows are different arms: each ON window is a new process started after an OFF one
    assert all(a.arm != b.arm for a, b in pairwise(windows))
    assert windows[0].arm == first  # the resident arm goes first: the A/B starts without a swap
    # within one window a prompt appears once, so an ON request never meets its own prompt's earlier text
    # in its process (its OFF half ran, if at all, in another process)
    for w in windows:
        assert len(set(w.indices)) == len(w.indices)
    position = {(i, w.arm): k for k, w in enumerate(windows) for i in w.indices}
    for i in range(n):
        assert position[(i, "on")] != position[(i, "off")]
        # both halves of a pair are in adjacent windows: the pair is completed by the next swap
        assert abs(position[(i, "on")] - position[(i, "off")]) == 1
    # one swap per block: as many windows as blocks + 1
    assert len(windows) == -(-n // block) + 1


@pytest.mark.parametrize("first", ["on", "off"])
def test_leads_alternate_per_block(first: str) -> None:
    n, block = 10, 4
    windows = single_resident_windows(n, block, first)  # type: ignore[arg-type]
    lead = leads(windows)
    other = "off" if first == "on" else "on"
    for i in range(n):
        assert lead[i] == (first if (i // block) % 2 == 0 else other), (i, lead)
    # both orders occur, so the order guard sees each arm first
    assert set(lead.values()) == {"on", "off"}
    # written out: ON(b1) | OFF(b1 b2) | ON(b2 b3) for first = on
    if first == "on":
        assert windows == [Window("on", (0, 1, 2, 3)), Window("off", (0, 1, 2, 3, 4, 5, 6, 7)),
                           Window("on", (4, 5, 6, 7, 8, 9)), Window("off", (8, 9))]


def test_degenerate_inputs() -> None:
    assert single_resident_windows(0, 4) == []
    # a block of 0 (a bad override is refused by the policy ranges) is treated as 1, never an endless loop
    assert single_resident_windows(2, 0) == single_resident_windows(2, 1)


def _placed(gpu_layers: int) -> Placement:
    return Placement(model=ModelPlacement(gpu_layers=gpu_layers, layers_total=33, buffers_mib={"CUDA0": 9000.0},
                                          expert_count=0, cpu_overrides=False))


def _dual_arms(off_layers: int, on_layers: int) -> Arms:
    plan = ArmsPlan(mode="dual", requested="auto", reason="fits", reason_code="fits", where="gpu")
    arms = Arms(off=Arm("off", adapter=None), on=Arm("on", adapter=None), mode="dual", plan=plan)  # type: ignore[arg-type]
    arms.placements = {"off": _placed(off_layers), "on": _placed(on_layers)}
    return arms


def test_auto_dual_servers_placed_apart_fall_back_to_single_resident() -> None:
    # The budget said two copies fit, but --fit gave the second server fewer GPU layers: comparing them would
    # compare placements, so the check goes single-resident and says why.
    arms = _dual_arms(33, 20)
    single_if_placed_apart(arms)
    assert arms.mode == "single" and arms.plan is not None and arms.plan.mode == "single"
    assert arms.plan.reason_code == "placed-apart" and "33 vs 20 layers" in arms.plan.reason


def test_auto_dual_servers_placed_alike_stay_side_by_side() -> None:
    arms = _dual_arms(33, 33)
    single_if_placed_apart(arms)
    assert arms.mode == "dual" and arms.plan is not None and arms.plan.reason_code == "fits"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_arms_reason_reads_in_both_languages_with_the_budget_numbers(big: ModelInfo, lang: str) -> None:
    tight = plan_arms("auto", big, ctx_tokens=CTX, gpus=_gpus(23.5), host=None, gpu_engine=True, margin_gib=MARGIN)
    line = arms_sentence(tight, lang)
    assert "23.5" in line and "gpu0" in line and "1.0" in line
    other = "zh" if lang == "en" else "en"
    for code in ("asked-single", "asked-dual", "fits", "does-not-fit", "unknown-memory", "placed-apart"):
        plan = dataclasses.replace(tight, reason_code=code)
        assert "{" not in arms_sentence(plan, lang) and arms_sentence(plan, lang) != arms_sentence(plan, other)
