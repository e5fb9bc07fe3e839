"""Placement from llama-server load logs: excerpts written from llama.cpp's own log formats (src/llama-model.cpp
load_tensors, src/llama-model-loader.cpp, src/llama.cpp, common/speculative.cpp), then the real bundled binary."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from advisor.decide.verdict import decide
from advisor.evidence.codec import decode, encode
from advisor.evidence.placement import same_placement
from advisor.evidence.schema import Environment, Evidence
from advisor.facts.from_evidence import facts_from_evidence
from probes.engines.llamacpp.placement import (
    PLACEMENT_VERBOSITY,
    ModelPlacement,
    Placement,
    experts_flagged,
    read_placement,
)


def _load(path: str, *, n_layer: int = 32, n_expert: int = 0, offloaded: tuple[int, int] | None = None,
          buffers: tuple[tuple[str, float], ...] = (), mode: str = "mmap", extra: tuple[str, ...] = ()) -> str:
    """One model load as llama.cpp logs it at -lv 4 (timestamps and level letters in front, as this build)."""
    lines = [f"0.00.100.000 I llama_model_loader: loaded meta data with 33 key-value pairs and 291 tensors from "
             f"{path} (version GGUF V3 (latest))",
             f"0.00.110.000 I print_info: n_layer               = {n_layer}",
             f"0.00.110.001 I print_info: n_layer_all           = {n_layer}",
             f"0.00.110.002 I print_info: n_expert              = {n_expert}",
             f"0.00.120.000 I load_tensors: loading model tensors, this can take a while... (load_mode = {mode})",
             *extra]
    if offloaded is not None:
        lines += ["0.00.130.000 I load_tensors: offloading output layer to GPU",
                  f"0.00.130.001 I load_tensors: offloading {max(offloaded[0] - 1, 0)} repeating layers to GPU",
                  f"0.00.130.002 I load_tensors: offloaded {offloaded[0]}/{offloaded[1]} layers to GPU"]
    lines += [f"0.00.140.000 I load_tensors: {name:>12} model buffer size = {mib:8.2f} MiB" for name, mib in buffers]
    return "\n".join(lines) + "\n"


START = ("0.00.001.000 I srv  llama_server: initializing ...\n"
         "0.00.003.000 I cmn  common_param: common_params_print_info: verbosity = 4 (adjust with the `-lv N` CLI arg)\n"
         "0.00.005.000 I srv    load_model: loading model '/m/target.gguf'\n")
WARNING = ("0.00.125.000 W llama_model_loader: tensor overrides to CPU are used with mmap enabled - consider using "
           "--load-mode none for better performance")
DRAFT_LINE = "0.00.900.000 I common_speculative_init_result: loading draft model '/m/draft.gguf'\n"


def _exps(layers: range, buft: str = "CPU") -> tuple[str, ...]:
    return tuple(f"0.00.121.{il:03d} D tensor blk.{il}.ffn_{part}_exps.weight (288 MiB q4_K) buffer type overridden "
                 f"to {buft}" for il in layers for part in ("gate", "up", "down"))


CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "cuda-all-layers": (START + _load("/m/target.gguf", offloaded=(33, 33), buffers=(
        ("CUDA0", 3820.94), ("CPU_Mapped", 70.31))),
        {"gpu_layers": 33, "layers_total": 33, "devices": ("CUDA0", "CPU"), "split_mode": None,
         "gpu_layer_fraction": 1.0, "experts_on_cpu": False, "cpu_overrides": False}),
    "cuda-partial": (START + _load("/m/target.gguf", offloaded=(20, 33), buffers=(
        ("CUDA0", 2315.70), ("CPU_Mapped", 1575.55))),
        {"gpu_layers": 20, "layers_total": 33, "gpu_layer_fraction": pytest.approx(20 / 33)}),
    "cuda-two-gpus-tensor-split": (START + _load("/m/target.gguf", n_layer=80, offloaded=(81, 81), buffers=(
        ("CUDA0", 19000.0), ("CUDA1", 18500.0), ("CPU_Mapped", 500.0))),
        {"devices": ("CUDA0", "CUDA1", "CPU"), "split_mode": "layer", "gpu_devices": ("CUDA0", "CUDA1")}),
    "cuda-row-split": (START + _load("/m/target.gguf", offloaded=(33, 33), buffers=(
        ("CUDA0", 50.0), ("CUDA1", 40.0), ("CUDA_Split", 3700.0), ("CPU_Mapped", 70.31))),
        {"devices": ("CUDA0", "CUDA1", "CPU"), "split_mode": "row"}),
    "tensor-parallel-meta": (START + _load("/m/target.gguf", offloaded=(33, 33), buffers=(
        ("Meta(CUDA0,CUDA1)", 3800.0), ("CPU_Mapped", 70.31)), extra=(
        "0.00.119.000 I llama_prepare_model_devices: creating a Meta device for tensor parallelism from 2 devices:",)),
        {"devices": ("CUDA0", "CUDA1", "CPU"), "split_mode": "tensor"}),
    "rocm": (START + _load("/m/target.gguf", offloaded=(29, 29), n_layer=28, buffers=(
        ("ROCm0", 4168.09), ("CPU_Mapped", 292.36))),
        {"gpu_layers": 29, "devices": ("ROCm0", "CPU")}),
    "vulkan-partial": (START + _load("/m/target.gguf", offloaded=(10, 33), buffers=(
        ("Vulkan0", 1200.0), ("Vulkan_Host", 40.0), ("CPU_Mapped", 2600.0))),
        {"gpu_layers": 10, "devices": ("Vulkan0", "CPU")}),
    "metal": (START + _load("/m/target.gguf", offloaded=(33, 33), buffers=(
        ("MTL0_Mapped", 4096.0), ("CPU_Mapped", 70.31))),
        {"devices": ("MTL0", "CPU"), "gpu_layer_fraction": 1.0}),
    "metal-old-name": (START + _load("/m/target.gguf", offloaded=(33, 33), buffers=(("Metal_Mapped", 4096.0),)),
        {"devices": ("Metal",)}),
    "cpu-only-build": (START + _load("/m/target.gguf", n_layer=30, buffers=(("CPU_Mapped", 92.10),)),
        {"gpu_layers": 0, "layers_total": 31, "devices": ("CPU",), "gpu_layer_fraction": 0.0,
         "experts_on_cpu": False}),
    "old-format": ("llm_load_print_meta: n_layer          = 32\nllm_load_print_meta: n_expert         = 0\n"
                   "llm_load_tensors: offloaded 33/33 layers to GPU\n"
                   "llm_load_tensors:        CPU buffer size =    70.31 MiB\n"
                   "llm_load_tensors:      CUDA0 buffer size =  3820.94 MiB\n"
                   "llama_kv_cache_init:      CUDA0 KV buffer size =   256.00 MiB\n",
                   {"gpu_layers": 33, "buffers_mib": {"CPU": 70.31, "CUDA0": 3820.94}, "devices": ("CUDA0", "CPU")}),
    "moe-experts-cpu-debug-lines": (START + _load("/m/moe.gguf", n_layer=48, n_expert=128, offloaded=(49, 49),
        buffers=(("CUDA0", 3100.0), ("CPU_Mapped", 15000.0)), extra=(WARNING, *_exps(range(48)))),
        {"experts_overridden": 144, "cpu_overrides": True, "experts_on_cpu": True, "gpu_layers": 49}),
    "moe-all-in-vram": (START + _load("/m/moe.gguf", n_layer=48, n_expert=128, offloaded=(49, 49),
        buffers=(("CUDA0", 17800.0), ("CPU_Mapped", 300.0))),
        {"experts_on_cpu": False, "cpu_overrides": False}),
    "moe-override-warning-only": (START + _load("/m/moe.gguf", n_layer=48, n_expert=128, offloaded=(49, 49),
        buffers=(("CUDA0", 3100.0), ("CPU_Mapped", 15000.0)), extra=(WARNING,)),
        {"cpu_overrides": True, "experts_on_cpu": None, "experts_overridden": None}),
    "moe-partial-offload": (START + _load("/m/moe.gguf", n_layer=48, n_expert=128, offloaded=(30, 49),
        buffers=(("CUDA0", 11000.0), ("CPU_Mapped", 7000.0))),
        {"experts_on_cpu": None, "gpu_layers": 30}),
    "default-verbosity": ("0.00.001.000 I srv  llama_server: initializing ...\n"
                          "0.00.003.000 I cmn  common_param: common_params_print_info: verbosity = 3 (adjust with …)\n"
                          "0.00.005.000 I srv    load_model: loading model '/m/target.gguf'\n"
                          "0.00.500.000 I srv  llama_server: model loaded\n",
                          {"path": "/m/target.gguf", "gpu_layers": None, "layers_total": None, "devices": (),
                           "split_mode": None, "experts_on_cpu": None, "cpu_overrides": None,
                           "gpu_layer_fraction": None}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_excerpt(name: str) -> None:
    text, expected = CASES[name]
    model = read_placement(text).model
    for field_name, value in expected.items():
        assert getattr(model, field_name) == value, field_name


def test_experts_named_by_the_flags_and_confirmed_by_the_loader() -> None:
    text = START + _load("/m/moe.gguf", n_layer=48, n_expert=128, offloaded=(49, 49),
                         buffers=(("CUDA0", 3100.0), ("CPU_Mapped", 15000.0)), extra=(WARNING,))
    asks = (["-ot", "exps=CPU"], ["--n-cpu-moe", "20"], ["--cpu-moe"], ["-ot", r"blk\.1\.ffn_up_exps=CPU,x=CUDA0"])
    for argv in asks:
        assert read_placement(text, argv).model.experts_on_cpu is True, argv
    assert read_placement(text, ["--n-cpu-moe", "0"]).model.experts_on_cpu is None
    assert read_placement(text, ["-ot", "attn=CPU"]).model.experts_on_cpu is None  # not the experts
    # the flags alone are no proof: without the loader's word the placement stays unknown
    quiet = START + _load("/m/moe.gguf", n_layer=48, n_expert=128, offloaded=(49, 49), mode="none",
                          buffers=(("CUDA0", 3100.0), ("CPU", 15000.0)))
    assert read_placement(quiet, ["--cpu-moe"]).model.experts_on_cpu is None


def test_draft_flags_are_the_drafts_own() -> None:
    assert experts_flagged(["-cmoed"], draft=True) and not experts_flagged(["-cmoed"])
    assert experts_flagged(["--spec-draft-n-cpu-moe", "4"], draft=True)
    assert not experts_flagged(["--cpu-moe"], draft=True)


def test_draft_model_loads_after_the_target() -> None:
    text = (START + _load("/m/target.gguf", offloaded=(33, 33), buffers=(("CUDA0", 3820.94), ("CPU_Mapped", 70.31)))
            + DRAFT_LINE + _load("/m/draft.gguf", n_layer=24, offloaded=(0, 25), buffers=(("CPU_Mapped", 400.0),)))
    p = read_placement(text)
    assert p.model.path == "/m/target.gguf" and p.model.devices == ("CUDA0", "CPU")
    assert p.draft is not None and p.draft.path == "/m/draft.gguf"
    assert p.draft.gpu_layers == 0 and p.draft.layers_total == 25 and p.draft.devices == ("CPU",)
    assert p.verbosity == PLACEMENT_VERBOSITY


def test_draft_on_a_second_gpu() -> None:
    text = (START + _load("/m/target.gguf", offloaded=(33, 33), buffers=(("CUDA0", 3820.94),))
            + DRAFT_LINE + _load("/m/draft.gguf", n_layer=24, offloaded=(25, 25), buffers=(("CUDA1", 400.0),)))
    draft = read_placement(text).draft
    assert draft is not None and draft.gpu_devices == ("CUDA1",)


def test_fit_trial_loads_are_not_the_placement() -> None:
    # at -lv 5 --fit's trial loads (no_alloc, load_mode none, 0 MiB buffers) come before the real one
    trial = _load("/m/target.gguf", offloaded=(33, 33), mode="none", buffers=(("CUDA0", 0.0), ("CPU", 0.0)))
    trial_draft = _load("/m/draft.gguf", n_layer=24, offloaded=(25, 25), mode="none", buffers=(("CUDA0", 0.0),))
    real = _load("/m/target.gguf", offloaded=(27, 33), buffers=(("CUDA0", 3100.0), ("CPU_Mapped", 700.0)))
    draft = _load("/m/draft.gguf", n_layer=24, offloaded=(25, 25), buffers=(("CUDA0", 400.0),))
    p = read_placement(START + trial + trial_draft + real + DRAFT_LINE + draft)
    assert p.model.gpu_layers == 27 and p.model.buffers_mib == {"CUDA0": 3100.0, "CPU_Mapped": 700.0}
    assert p.draft is not None and p.draft.buffers_mib == {"CUDA0": 400.0}
    assert read_placement(START + trial + real).model.gpu_layers == 27


def test_a_restarted_server_appending_to_its_log_is_read_from_its_last_start() -> None:
    first = START + _load("/m/target.gguf", offloaded=(33, 33), buffers=(("CUDA0", 3820.94),))
    second = START + _load("/m/target.gguf", offloaded=(20, 33), buffers=(("CUDA0", 2315.70),))
    assert read_placement(first + second).model.gpu_layers == 20


def test_the_override_warning_prints_once_a_process() -> None:
    # the target had overrides (the warning) and so does the draft: the draft's load cannot repeat the warning
    target = _load("/m/moe.gguf", n_layer=48, n_expert=128, offloaded=(49, 49), buffers=(("CUDA0", 3100.0),),
                   extra=(WARNING,))
    draft = _load("/m/draft.gguf", n_layer=24, n_expert=64, offloaded=(25, 25), buffers=(("CUDA0", 400.0),))
    p = read_placement(START + target + DRAFT_LINE + draft)
    assert p.model.cpu_overrides is True
    assert p.draft is not None and p.draft.cpu_overrides is None and p.draft.experts_on_cpu is None


def _arms(off: str, on: str) -> tuple[Placement, Placement]:
    return read_placement(START + off), read_placement(START + on)


def test_arms_compare_layers_devices_and_experts() -> None:
    full = _load("/m/t.gguf", offloaded=(33, 33), buffers=(("CUDA0", 3820.94), ("CPU_Mapped", 70.31)))
    fewer = _load("/m/t.gguf", offloaded=(20, 33), buffers=(("CUDA0", 2315.70), ("CPU_Mapped", 1575.55)))
    assert same_placement(*_arms(full, full)) is True
    assert same_placement(*_arms(full, fewer)) is False
    moe = _load("/m/m.gguf", n_layer=48, n_expert=128, offloaded=(49, 49), buffers=(("CUDA0", 17800.0),))
    moe_ram = _load("/m/m.gguf", n_layer=48, n_expert=128, offloaded=(49, 49), buffers=(("CUDA0", 3100.0),),
                    extra=(WARNING,))
    assert same_placement(*_arms(moe, moe_ram)) is False  # the same 49/49 layers, the experts elsewhere
    assert same_placement(*_arms(moe_ram, moe_ram)) is None  # both overrode something; which, the log hides
    assert same_placement(Placement(), Placement()) is None


def test_placement_round_trips_through_the_evidence_codec() -> None:
    text = (START + _load("/m/target.gguf", offloaded=(33, 33), buffers=(("CUDA0", 3820.94), ("CPU_Mapped", 70.31)))
            + DRAFT_LINE + _load("/m/draft.gguf", n_layer=24, offloaded=(25, 25), buffers=(("CUDA0", 400.0),)))
    env = Environment(placement={"off": read_placement(text), "on": read_placement(text)})
    back = decode(Environment, encode(env))
    assert back == env and isinstance(back.placement["on"].draft, ModelPlacement)
    assert decode(Environment, {}).placement == {}  # evidence written before placement was recorded


def _evidence(off: str, on: str) -> Evidence:
    return Evidence(environment=Environment(placement={"off": read_placement(START + off),
                                                       "on": read_placement(START + on)}))


def test_placement_flattens_to_facts() -> None:
    full = _load("/m/t.gguf", offloaded=(33, 33), buffers=(("CUDA0", 3820.94), ("CPU_Mapped", 70.31)))
    with_draft = full + DRAFT_LINE + _load("/m/d.gguf", n_layer=24, offloaded=(25, 25), buffers=(("CUDA1", 400.0),))
    facts = facts_from_evidence(_evidence(full, with_draft))
    assert facts["model.gpu_layer_fraction"] == 1.0 and facts["model.layers_total"] == 33
    assert facts["model.experts_on_cpu"] is False and "engine.split_mode" not in facts  # one GPU: not logged
    assert facts["arms.off_gpu_layers"] == facts["arms.on_gpu_layers"] == 33
    assert facts["arms.off_devices"] == "CUDA0,CPU" and facts["draft.device"] == "CUDA1"
    assert facts["arms.placement_match"] is True
    assert "arms.placement_match" not in facts_from_evidence(Evidence())  # attached or old evidence: unknown


def test_a_second_server_with_fewer_gpu_layers_makes_the_ab_inconclusive() -> None:
    full = _load("/m/t.gguf", offloaded=(33, 33), buffers=(("CUDA0", 3820.94), ("CPU_Mapped", 70.31)))
    fewer = _load("/m/t.gguf", offloaded=(20, 33), buffers=(("CUDA0", 2315.70), ("CPU_Mapped", 1575.55)))
    facts = {**facts_from_evidence(_evidence(full, fewer)), "ab.speedup": 1.4, "ab.ci_low": 1.3, "ab.ci_high": 1.5,
             "ab.n_prompts": 30, "spec.method": "draft-simple"}
    v = decide(facts)
    assert v.verdict == "INCONCLUSIVE" and (v.rule_id, v.branch_id) == ("measurement-validity", "arms-layers-differ")
    assert "33/33 layers on the GPU, the speculation-on server 20/33" in v.because[0]
    zh = v.texts("because", "zh")[0]
    assert "--arms single" in v.because[0] and "33/33" in zh and "20/33" in zh


def test_experts_in_ram_are_a_note_beside_the_verdict() -> None:
    moe_ram = _load("/m/m.gguf", n_layer=48, n_expert=128, offloaded=(49, 49), buffers=(("CUDA0", 3100.0),),
                    extra=(WARNING, *_exps(range(48))))
    facts = {**facts_from_evidence(_evidence(moe_ram, moe_ram)), "ab.speedup": 1.01, "ab.ci_low": 0.95,
             "ab.ci_high": 1.07, "ab.n_prompts": 30}
    v = decide(facts)
    assert any("experts are in system RAM (100% of its layers on the GPU)" in w for w in v.warnings)
    assert v.branch_id != "arms-placement-differs"


@pytest.mark.engine
@pytest.mark.slow
def test_the_bundled_cpu_build_logs_its_placement(llama_binary: Any, demo_model: Path, tmp_path: Path) -> None:
    from advisor.arms.server import ManagedServer, ServerConfig

    server = ManagedServer(llama_binary, ServerConfig(model=demo_model, ctx_size=512, threads=2, draft_model=demo_model,
                                                      extra_args=("-lv", str(PLACEMENT_VERBOSITY))), tmp_path)
    with server:
        pass  # loaded and healthy: the load log is complete
    text = server.log_path.read_text(errors="replace")
    p = read_placement(text, server.argv)
    # this CPU build cannot offload, so it logs no "offloaded N/M" line; every weight is in a CPU buffer
    assert "layers to GPU" not in text
    assert p.verbosity == PLACEMENT_VERBOSITY
    assert p.model.path == str(demo_model) and p.model.gpu_layers == 0 and p.model.layers_total == 31  # 30 + output
    assert p.model.devices == ("CPU",) and set(p.model.buffers_mib) == {"CPU_Mapped"}
    assert p.model.buffers_mib["CPU_Mapped"] == pytest.approx(demo_model.stat().st_size / 2**20, rel=0.1)
    assert p.model.expert_count == 0 and p.model.experts_on_cpu is False and p.model.split_mode is None
    assert p.model.load_mode == "mmap" and p.model.cpu_overrides is False
    assert p.draft is not None and p.draft.path == str(demo_model) and p.draft.devices == ("CPU",)
    assert same_placement(p, p) is True


@pytest.mark.engine
def test_at_the_default_verbosity_the_log_says_almost_nothing(llama_binary: Any, demo_model: Path,
                                                               tmp_path: Path) -> None:
    # Why managed servers run at -lv 4: the user's own -lv 3 (it comes after ours, so it wins) hides placement.
    from advisor.arms.server import ManagedServer, ServerConfig

    config = ServerConfig(model=demo_model, ctx_size=512, threads=2, extra_args=("-lv", "3"))
    with ManagedServer(llama_binary, config, tmp_path) as server:
        p = read_placement(server.log_path.read_text(errors="replace"), server.argv)
    assert p.verbosity == 3
    assert p.model.gpu_layers is None and p.model.devices == () and not p.known


@pytest.mark.engine
@pytest.mark.slow
def test_expert_overrides_in_a_real_log(llama_binary: Any, tmp_path: Path) -> None:
    from dataclasses import replace

    from advisor.arms.server import ManagedServer, ServerConfig
    from advisor.demo.synth import MOE, write_synthetic_model

    moe = write_synthetic_model(tmp_path / "moe.gguf", replace(MOE, n_layer=2))
    found: dict[int, ModelPlacement] = {}
    for lv in (3, 4, 5):
        config = ServerConfig(model=moe, ctx_size=512, threads=2, extra_args=("-lv", str(lv), "-ot", "exps=CPU"))
        server = ManagedServer(llama_binary, config, tmp_path / f"lv{lv}")
        with server:
            pass
        found[lv] = read_placement(server.log_path.read_text(errors="replace"), server.argv).model
    # the loader's warning shows at every level; the tensors it moved only in the debug lines (-lv 5)
    assert all(m.cpu_overrides is True for m in found.values())
    assert found[3].gpu_layers is None and found[4].expert_count == 32 and found[4].layers_total == 3
    assert found[4].experts_overridden is None and found[5].experts_overridden == 6  # gate, up, down × 2 layers
    assert all(m.experts_on_cpu is True for m in found.values())
