"""A draft model's VRAM budget (weights + KV cache against NVML free memory) and the flags that place it."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any, cast

import pytest

from advisor.arms.arms import Arms
from advisor.arms.draft import GIB, plan_draft
from advisor.arms.server import ManagedServer, ServerConfig
from advisor.config import CheckConfig
from advisor.core.policy import default_policy
from advisor.decide.verdict import decide
from advisor.demo.model import demo_model_path
from advisor.errors import UserError
from advisor.events import StepDone
from advisor.evidence.draft import DraftSetup
from advisor.evidence.schema import ConfigRecord, Environment, Evidence
from advisor.evidence.warnings import WarningCode
from advisor.facts.from_evidence import facts_from_evidence
from advisor.recommend.build import recommend
from advisor.recommend.llamacpp import SpecSettings, spec_args
from advisor.report.strings import step_warning
from advisor.run.launch import start_managed
from advisor.steps.base import StepContext
from advisor.steps.preflight import PreflightStep
from probes.base import Unavailable
from probes.engines.llamacpp.binary import FlagDialect, LlamaServerBinary, parse_help
from probes.gpu.probe import GpuReport, GpuSnapshot
from probes.model.gguf_header import read_gguf_header
from probes.model.kv_cache import kv_cache_bytes, kv_shape
from tests.draft_models import DRAFT_SPEC, write_draft

pytestmark = pytest.mark.skipif(demo_model_path() is None, reason="the demo model supplies the tokenizer")

# --help excerpts of the two flag generations, as far as placement goes (the real texts list these lines).
NEW_HELP = """--spec-draft-n-max N                    number of tokens to draft (default: 3)
--spec-type none,draft-simple,ngram-mod
--spec-draft-type-k, -ctkd, --cache-type-k-draft TYPE
--spec-draft-type-v, -ctvd, --cache-type-v-draft TYPE
--spec-draft-device, -devd, --device-draft <dev1,dev2,..>
--spec-draft-ngl, -ngld, --gpu-layers-draft, --n-gpu-layers-draft N
                                        max. number of draft model layers to store in VRAM, either an exact
                                        number, 'auto', or 'all' (default: auto)
--spec-draft-model, -md, --model-draft FNAME
"""
OLD_HELP = """-md,   --model-draft FNAME              draft model for speculative decoding (default: unused)
--draft-max, --draft, --draft-n N       number of tokens to draft (default: 16)
-cd,   --ctx-size-draft N               size of the prompt context for the draft model (default: 0)
-devd, --device-draft <dev1,dev2,..>    comma-separated list of devices to use for offloading the draft model
-ngld, --gpu-layers-draft, --n-gpu-layers-draft N
                                        number of layers to store in VRAM for the draft model
-ctkd, --cache-type-k-draft TYPE        KV cache data type for K for the draft model
-ctvd, --cache-type-v-draft TYPE        KV cache data type for V for the draft model
"""
NEW, OLD = parse_help(NEW_HELP), parse_help(OLD_HELP)
Q8_0 = 34 / 32  # bytes per element: blocks of 32 one-byte values and a 2-byte scale


def _gpus(*free_gib: float) -> GpuReport:
    """A GPU report whose cards have these free GiB (every other field unavailable)."""
    blank: dict[str, Any] = {f.name: Unavailable("not-supported") for f in dataclasses.fields(GpuSnapshot)}
    cards = tuple(GpuSnapshot(**{**blank, "index": i, "name": "NVIDIA GeForce RTX 3090", "vram_free_gib": free,
                                 "peak_bandwidth_source": "none", "processes": ()}) for i, free in enumerate(free_gib))
    return GpuReport("ok" if cards else "no-driver", "", "x", "x", cards)


@pytest.fixture(scope="module")
def draft(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_draft(tmp_path_factory.mktemp("drafts"), "same")


def _hand_weights() -> int:
    """The draft's tensor bytes from its shape: Q8_0 matrices, F32 norms, a tied output head."""
    s = DRAFT_SPEC
    head = s.n_embd // s.n_head
    matrices = 2 * s.n_embd * s.n_embd + 2 * s.n_head_kv * head * s.n_embd + 3 * s.n_ff * s.n_embd
    return round((49152 * s.n_embd + s.n_layer * matrices) * Q8_0) + 4 * s.n_embd * (1 + 2 * s.n_layer)


def _hand_kv(tokens: int, bytes_per_element: float = 2.0) -> int:
    s = DRAFT_SPEC
    return round(tokens * s.n_layer * s.n_head_kv * 2 * (s.n_embd // s.n_head) * bytes_per_element)


def test_kv_formula_and_headroom_equal_a_hand_computation(draft: Path) -> None:
    shape = kv_shape(read_gguf_header(draft).metadata)
    assert shape is not None and (shape.kv_heads, shape.key_length, shape.value_length) == ((2, 2), 64, 64)
    assert kv_cache_bytes(shape, 8192) == _hand_kv(8192) == 8_388_608
    assert kv_cache_bytes(shape, 8192, "q8_0", "q8_0") == _hand_kv(8192, Q8_0) == 4_456_448
    setup, _ = plan_draft(CheckConfig(draft_model=draft), draft, gpus=_gpus(1.0), dialect=NEW, ctx_size=8192,
                          parallel=4)
    assert (setup.weight_bytes, setup.kv_bytes, setup.ctx_tokens) == (_hand_weights(), 8_388_608, 8192)
    assert setup.headroom_gib == round(1.0 - (_hand_weights() + 8_388_608) / GIB, 3) == 0.979
    assert setup.gpu_index == 0 and not setup.on_cpu and setup.args == ("-ngld", "all")


def test_placement_flags_per_situation(draft: Path) -> None:
    def plan(gpus: GpuReport, dialect: FlagDialect = NEW, **cfg: Any) -> DraftSetup:
        return plan_draft(CheckConfig(draft_model=draft, **cfg), draft, gpus=gpus, dialect=dialect,
                          ctx_size=8192, parallel=4)[0]

    several = plan(_gpus(0.5, 3.0))
    assert several.args == ("-ngld", "all", "-devd", "CUDA1") and several.gpu_index == 1
    mixed = _gpus(0.5, 3.0)
    mixed = dataclasses.replace(mixed, gpus=(mixed.gpus[0], dataclasses.replace(mixed.gpus[1], name="Tesla P40")))
    assert plan(mixed).args == ("-ngld", "all")  # CUDA may number unlike cards differently from NVML: no -devd
    tight = plan(_gpus(0.01))
    assert tight.headroom_gib is not None and tight.headroom_gib < 0
    assert tight.args == ("-ngld", "0") and tight.cpu_reason == "no-room"
    # Fits, but with less spare than policy.arms.draft_headroom_gib (0.5): the rule tree would SKIP a draft on the
    # GPU there, so it is not placed there either (one number for both).
    close = plan(_gpus(0.3))
    assert close.headroom_gib is not None and 0 < close.headroom_gib < default_policy().arms.draft_headroom_gib
    assert close.args == ("-ngld", "0") and close.cpu_reason == "no-room"
    roomy = plan_draft(CheckConfig(draft_model=draft), draft, gpus=_gpus(0.3), dialect=NEW, ctx_size=8192,
                       parallel=4, min_headroom_gib=0.1)[0]
    assert roomy.args == ("-ngld", "all") and not roomy.on_cpu  # a user's policy override moves both
    nogpu = plan(_gpus())
    assert nogpu.args == () and nogpu.cpu_reason == "no-gpu" and nogpu.headroom_gib is None
    asked = plan(_gpus(8.0), draft_gpu_layers="0")
    assert asked.args == ("-ngld", "0") and asked.cpu_reason == "cpu-layers"
    quant = plan(_gpus(8.0), draft_kv_type="q8_0")
    assert quant.args == ("-ngld", "all", "-ctkd", "q8_0", "-ctvd", "q8_0") and quant.kv_bytes == 4_456_448
    # Old builds: a layer count (2 layers + output) and the draft context pinned to what the budget assumed.
    old = plan(_gpus(8.0, 1.0), dialect=OLD, draft_ctx=512)
    assert old.args == ("-ngld", "3", "-devd", "CUDA0", "-cd", "512") and old.ctx_tokens == 2048
    with pytest.raises(UserError, match="does not list -cd"):
        plan(_gpus(8.0), draft_ctx=512)  # new builds have no -cd: asked for, it is refused before launch


def test_emitted_argv_in_both_dialects(draft: Path) -> None:
    for dialect, length in ((NEW, "--spec-draft-n-max"), (OLD, "--draft-max")):
        _, placement = plan_draft(CheckConfig(draft_model=draft, draft_kv_type="q8_0"), draft, gpus=_gpus(8.0),
                                  dialect=dialect, ctx_size=8192, parallel=4)
        argv = spec_args(SpecSettings("draft", draft_model="d.gguf", draft_max=8, placement=placement), dialect)
        lead = ["--spec-type", "draft-simple"] if dialect is NEW else []
        layers = ["-ngld", "all"] if dialect is NEW else ["-ngld", "3", "-cd", "2048"]
        assert argv == [*lead, "-md", "d.gguf", *layers, "-ctkd", "q8_0", "-ctvd", "q8_0", length, "8"]
        # what a run recommends is the ON arm's flags as measured, placement included
        binary = LlamaServerBinary(path="/bin/llama-server", source="explicit", version="1", dialect=dialect)
        ran = Evidence(environment=Environment(binary=binary, spec_args={"on": tuple(argv)}))
        rec = recommend(facts_from_evidence(ran) | {"spec.method": "draft"})
        assert rec is not None and list(rec.argv) == argv


def _evidence(setup: DraftSetup) -> Evidence:
    return Evidence(config=ConfigRecord(spec_type="draft-simple", draft_model=setup.path),
                    environment=Environment(draft=setup))


@pytest.mark.parametrize(("free", "branch", "verdict"), [(0.01, "no-vram-for-draft", "SKIP"),
                                                        (0.3, "no-vram-for-draft", "SKIP"),
                                                        (8.0, None, "INCONCLUSIVE")])
def test_the_fact_is_written_and_the_rule_fires_below_its_threshold(draft: Path, free: float, branch: str | None,
                                                                    verdict: str) -> None:
    setup, _ = plan_draft(CheckConfig(draft_model=draft), draft, gpus=_gpus(free), dialect=NEW, ctx_size=8192,
                          parallel=4)
    facts = facts_from_evidence(_evidence(setup))
    assert facts["vram.headroom_after_draft_gib"] == setup.headroom_gib
    result = decide(facts)
    assert result.verdict == verdict
    assert ("draft-resources/no-vram-for-draft" in result.path) is (branch is not None)
    if branch is not None:
        assert f"Only {setup.headroom_gib:.1f} GiB of VRAM would remain" in result.because[0]
    assert "vram.headroom_after_draft_gib" not in result.missing_facts


def test_without_a_gpu_the_fact_is_absent_and_named(draft: Path) -> None:
    setup, _ = plan_draft(CheckConfig(draft_model=draft), draft, gpus=_gpus(), dialect=NEW, ctx_size=8192,
                          parallel=4)
    facts = facts_from_evidence(_evidence(setup))
    assert "vram.headroom_after_draft_gib" not in facts and facts["spec.draft_on_cpu"] is True
    result = decide(facts)
    assert "vram.headroom_after_draft_gib" in result.missing_facts
    assert any("The draft model runs on the CPU here (no NVIDIA GPU)" in w for w in result.warnings)


def test_preflight_warns_and_reports_translate(draft: Path) -> None:
    setup, _ = plan_draft(CheckConfig(draft_model=draft), draft, gpus=_gpus(0.01), dialect=NEW, ctx_size=8192,
                          parallel=4)
    ctx = StepContext(config=CheckConfig(), arms=Arms(off=None, on=None), environment=Environment(draft=setup),
                      workload=cast(Any, None), policy=default_policy())
    done = list(PreflightStep().run(ctx))[-1]
    assert isinstance(done, StepDone)
    warned = [w for w in done.warnings if w.code is WarningCode.DRAFT_ON_CPU]
    assert len(warned) == 1 and "do not fit in the VRAM left free next to the target" in str(warned[0].message)
    assert step_warning("zh", warned[0].message).startswith("草稿模型在 CPU 上运行")
    assert step_warning("zh", "2 GPU processes") == "2 GPU processes"  # other messages stay as written


# --- the real llama-server ------------------------------------------------------------------------------------

@pytest.mark.engine
def test_llama_server_allocates_the_kv_bytes_we_budget(llama_binary: Any, demo_model: Path, draft: Path,
                                                       tmp_path: Path) -> None:
    dialect = llama_binary.dialect
    setup, placement = plan_draft(CheckConfig(draft_model=draft, draft_kv_type="q8_0"), draft, gpus=_gpus(8.0),
                                  dialect=dialect, ctx_size=4096, parallel=4)
    assert setup.args[:2] == ("-ngld", "all")  # this build lists -ngld with an 'auto' default
    config = ServerConfig(model=demo_model, spec_type="draft-simple", draft_model=draft, draft_placement=placement,
                          ctx_size=4096, parallel=4, threads=2, extra_args=("-lv", "4"), label="kv")
    with ManagedServer(llama_binary, config, tmp_path) as server:
        assert list(server.spec_argv[4:8]) == ["-ngld", "all", "-ctkd", "q8_0"]
        log = server.log_path.read_text(errors="replace")
    # "llama_kv_cache: size =    2.12 MiB (  1024 cells,   2 layers,  4/4 seqs), K (q8_0): …" — the draft's cache
    sizes = {int(layers): float(mib) for mib, layers in
             re.findall(r"llama_kv_cache: size =\s*([\d.]+) MiB \(\s*\d+ cells,\s*(\d+) layers", log)}
    assert sizes[DRAFT_SPEC.n_layer] == pytest.approx(setup.kv_bytes / 2**20, abs=0.01)  # type: ignore[operator]


@pytest.mark.engine
def test_managed_arms_place_the_draft_from_what_is_free_beside_the_off_server(
        llama_binary: Any, draft: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[str] = []
    real_start = ManagedServer.start

    def start(self: ManagedServer, timeout_s: float = 120.0) -> ManagedServer:
        started.append(self.config.label)
        return real_start(self, timeout_s)

    seen: list[list[str]] = []

    def probe() -> GpuReport:
        seen.append(list(started))
        return _gpus(6.0)

    monkeypatch.setattr(ManagedServer, "start", start)
    config = CheckConfig(draft_model=draft, spec_type="draft-simple", threads=2, llama_server=llama_binary.path,
                         arms="dual")
    arms = start_managed(config, tmp_path, gpu_probe=probe)
    try:
        assert arms.draft is not None and arms.draft.tokenizer is not None and arms.draft.tokenizer.compatible
        assert arms.draft.headroom_gib == round(6.0 - (_hand_weights() + _hand_kv(8192)) / GIB, 3)
        assert arms.on is not None and arms.on.spec_argv[4:6] == ("-ngld", "all") and started == ["off", "on"]
        # the budget reads the GPUs before any server; the draft is placed from what the OFF server left free
        assert seen == [[], ["off"]]
        assert arms.on.adapter.info().spec.active is True  # type: ignore[union-attr]
    finally:
        arms.stop()
