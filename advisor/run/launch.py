"""Set up the arms of a check: launch managed servers (side by side or single-resident) or attach to the user's.

Before any server starts the memory budget (advisor/arms/budget.py) chooses the mode: `--arms dual` or an
`auto` budget with room for two copies starts both servers; otherwise only one copy of the target is ever
alive. A single-resident check starts the ON server first — preflight reads its speculation state, then swaps
to the OFF server the baseline needs — so the first swap is one the check needs anyway.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from advisor.arms.arms import Arm, ArmName, Arms
from advisor.arms.budget import plan_arms
from advisor.arms.draft import check_tokenizers, draft_need, plan_draft
from advisor.arms.model_flags import model_flags
from advisor.arms.modelfile import require_gguf
from advisor.arms.server import ManagedServer, ServerConfig
from advisor.arms.threads import asked_threads, choose_threads
from advisor.config import CheckConfig
from advisor.core.policy import default_policy
from advisor.demo.first_run import first_run_hint
from advisor.demo.model import demo_model_path
from advisor.errors import UserError
from advisor.evidence.arms import ArmsPlan
from advisor.evidence.placement import same_placement
from advisor.run.engine_gate import cpu_engine_gate
from advisor.run.environment import read_model
from probes.base import Unavailable
from probes.engines.base import EngineAdapter
from probes.engines.llamacpp.adapter import LlamaCppAdapter
from probes.engines.llamacpp.binary import FlagDialect, LlamaServerBinary, find_llama_server
from probes.gpu.probe import GpuReport, GpuSnapshot, probe_gpus
from probes.host import HostReport, busy_cores, probe_host
from probes.model.info import ModelInfo

# Slots per managed server: enough for the quick concurrency sweep (1, 2, 4) without restarting.
MANAGED_SLOTS = 4
MANAGED_CTX_PER_SLOT = 2048


def resolve_model(config: CheckConfig) -> Path:
    """The target model: the user's GGUF, else the bundled demo model."""
    if config.model is not None:
        require_gguf(config.model, "model")
        return config.model
    demo = demo_model_path()
    if demo is None:
        raise UserError("no model given and the demo model is not installed",
                        hint="pass --model FILE.gguf, or run scripts/setup to install the demo model")
    return demo


def _gpu_engine(binary: LlamaServerBinary, gpus: GpuReport) -> bool:
    """True when this llama-server can offload to a GPU that NVML sees (the budget is then VRAM, else RAM);
    devices that could not be read count as a GPU build, whose budget is the tighter one."""
    return bool(gpus.gpus) and binary.gpu_capable is not False


def budget_plan(config: CheckConfig, binary: LlamaServerBinary, info: ModelInfo, *, gpus: GpuReport,
                host: HostReport | None, margin_gib: float) -> ArmsPlan:
    """The arms plan of a managed check for the target `info` (before any server starts)."""
    draft = draft_need(config.draft_model, MANAGED_SLOTS * MANAGED_CTX_PER_SLOT) if config.draft_model else None
    return plan_arms(config.arms, info, ctx_tokens=MANAGED_SLOTS * MANAGED_CTX_PER_SLOT, gpus=gpus, host=host,
                     gpu_engine=_gpu_engine(binary, gpus), margin_gib=margin_gib,
                     draft_bytes=(draft.weight_bytes + (draft.kv_bytes or 0)) if draft else 0,
                     server_args=config.server_args)


def _without_target(gpus: GpuReport, plan: ArmsPlan) -> GpuReport:
    """What NVML would report free once the one target server is loaded (single-resident: the draft shares
    that server, so its room is what the target leaves)."""
    used = {d.device: d.single_gib for d in plan.devices}
    need = plan.need
    draft_share = need.draft_gib / max(need.target_gib + need.draft_gib, 1e-9) if need is not None else 0.0
    cards: list[GpuSnapshot] = []
    for card in gpus.gpus:
        free = card.vram_free_gib
        taken = used.get(f"gpu{card.index}", 0.0) * (1.0 - draft_share)
        cards.append(card if isinstance(free, Unavailable) else replace(card, vram_free_gib=max(free - taken, 0.0)))
    return replace(gpus, gpus=tuple(cards))


def start_managed(config: CheckConfig, log_dir: Path, *, margin_gib: float | None = None,
                  draft_headroom_gib: float | None = None,
                  gpu_probe: Callable[[], GpuReport] = probe_gpus,
                  host_probe: Callable[[], HostReport] | None = None,
                  busy_probe: Callable[[], float | Unavailable] | None = None) -> Arms:
    """Plan the arms by the memory budget and launch the servers the plan keeps resident; stops all on failure.

    A draft model is checked against the target's tokenizer before any server starts, and placed (advisor/arms/
    draft.py) in the VRAM the target leaves free: measured beside the running OFF server when side by side,
    from the budget when single-resident. Unless the user chose the threads, the servers get one fewer per core
    that other work holds when they start (advisor/arms/threads.py); a model file without a chat template or
    with sliding-window attention gets the options it needs (advisor/arms/model_flags.py)."""
    binary = find_llama_server(config.llama_server)
    if isinstance(binary, Unavailable):
        raise UserError(f"no llama-server found ({binary})",
                        hint=first_run_hint())  # the three first-run options; also `spec-advisor setup-help`
    model = resolve_model(config)
    pair = None
    if config.draft_model is not None:
        require_gguf(config.draft_model, "draft model")
        pair = check_tokenizers(model, config.draft_model)  # before any server starts
    if margin_gib is None:
        margin_gib = default_policy().arms.dual_margin_gib
    gpus = gpu_probe()
    # A CPU-only build on a GPU machine would measure the CPU: stop before any server. The bundled demo model
    # is exempt: the demo is a CPU demonstration of the method by design (README), never a GPU's answer.
    allow_cpu = config.allow_cpu_engine or config.model is None
    refused = cpu_engine_gate(binary, gpus, allow_cpu, server_args=config.server_args)
    if refused is not None:
        raise refused
    host = host_probe() if host_probe is not None else probe_host(measure_bandwidth=False)
    info = read_model(model)  # a bad file stops here, before any server; the environment reuses it
    plan = budget_plan(config, binary, info, gpus=gpus, host=host, margin_gib=margin_gib)
    threads = config.threads
    if not asked_threads(config.threads, config.server_args):
        busy = (busy_probe or busy_cores)()
        choice = choose_threads(host.cores_physical, busy, default_policy().arms.busy_core_share)
        plan, threads = replace(plan, threads=choice), choice.threads
    dialect = binary.dialect if isinstance(binary.dialect, FlagDialect) else None
    needed = model_flags(info, config.server_args, frozenset(dialect.flags) if dialect is not None else None)
    if needed.said:
        plan = replace(plan, model_flags=needed)
    common = {"model": model, "ctx_size": MANAGED_SLOTS * MANAGED_CTX_PER_SLOT, "parallel": MANAGED_SLOTS,
              "threads": threads, "extra_args": (*needed.args, *config.server_args)}
    off_cfg = ServerConfig(label="off", **common)  # type: ignore[arg-type]
    on_cfg = ServerConfig(label="on", spec_type=config.spec_type, draft_model=config.draft_model,
                          draft_max=config.draft_cap, **common)  # type: ignore[arg-type]
    arms = Arms(off=None, on=None, binary=binary, model_path=model, model_info=info, mode=plan.mode, plan=plan)
    try:
        if plan.mode == "single":
            if config.draft_model is not None:
                arms.draft, placement = plan_draft(config, config.draft_model, gpus=_without_target(gpus, plan),
                                                   dialect=dialect, ctx_size=on_cfg.ctx_size,
                                                   parallel=on_cfg.parallel, tokenizer=pair,
                                                   min_headroom_gib=draft_headroom_gib)
                on_cfg = replace(on_cfg, draft_placement=placement)
            arms.off = _arm("off", binary, off_cfg, log_dir)
            arms.on = _arm("on", binary, on_cfg, log_dir)
            arms.launch(arms.on, "start")
            return arms
        arms.off = _arm("off", binary, off_cfg, log_dir)
        arms.launch(arms.off, "start")
        if config.draft_model is not None:
            # The OFF server holds one copy of the target now: what NVML reports free is what the draft gets.
            arms.draft, placement = plan_draft(config, config.draft_model, gpus=gpu_probe(), dialect=dialect,
                                               ctx_size=on_cfg.ctx_size, parallel=on_cfg.parallel, tokenizer=pair,
                                               min_headroom_gib=draft_headroom_gib)
            on_cfg = replace(on_cfg, draft_placement=placement)
        arms.on = _arm("on", binary, on_cfg, log_dir)
        arms.launch(arms.on, "start")
        if plan.requested == "auto":
            single_if_placed_apart(arms)
    except BaseException:
        arms.stop()
        raise
    return arms


def single_if_placed_apart(arms: Arms) -> None:
    """The budget said two copies fit, but llama.cpp's --fit placed the second server differently (fewer GPU
    layers, experts moved to RAM): an A/B of those servers would compare placements. Stop the ON server and go
    single-resident; its next start, alone, gets the same placement as the OFF server had."""
    off, on = arms.placements.get("off"), arms.placements.get("on")
    if off is None or on is None or same_placement(off, on) is not False or arms.plan is None or arms.on is None:
        return
    arms.mode = "single"
    arms.plan = replace(arms.plan, mode="single", reason_code="placed-apart", reason=(
        f"side by side the servers were placed differently ({off.model.gpu_layers} vs {on.model.gpu_layers} layers "
        "on the GPU): one copy of the target at a time"))
    arms.stop_arm("on")


def _arm(name: ArmName, binary: LlamaServerBinary, cfg: ServerConfig, log_dir: Path) -> Arm:
    """An arm with its server built (port, argv, log) but not started: `Arms.launch` or a swap starts it."""
    server = ManagedServer(binary, cfg, log_dir)
    return Arm(name=name, adapter=LlamaCppAdapter(server.base_url), server=server, command_line=list(server.argv),
               spec_argv=server.spec_argv)


def attach(config: CheckConfig) -> Arms:
    """Use the user's running servers. The one whose `/slots` says speculation is on becomes the ON arm;
    when both say the same (an A/A run), `--engine-url` is OFF and `--engine-url-b` is ON, as documented."""
    from probes.engines.discovery import EngineConnectError, connect

    # each server gets its own key only: engine_url_b's key never reaches the engine_url server, nor the reverse
    keyed = [(u, k) for u, k in ((config.engine_url, config.api_key), (config.engine_url_b, config.api_key_b)) if u]
    try:
        adapters = [connect(u, allow_remote=config.allow_remote, api_key=k) for u, k in keyed]
    except EngineConnectError as exc:
        if exc.reason == "permission":  # it answered: it is running, and wants a key (or refused this one)
            from advisor.run.api_key import ENV_VAR  # the variable's one home

            raise UserError(str(exc), hint=f"give the key with --api-key-file FILE, {ENV_VAR} or "
                                           "http://KEY@host:port") from exc
        raise UserError(str(exc), hint="is the engine running? `spec-advisor probe` lists what it finds") from exc
    states = [_spec_active(a) for a in adapters]
    if len(adapters) == 1:
        name: ArmName = "on" if states[0] else "off"
        arm = Arm(name=name, adapter=adapters[0])
        return Arms(off=arm if name == "off" else None, on=arm if name == "on" else None)
    first, second = adapters
    if states[0] and not states[1]:
        first, second = second, first
    return Arms(off=Arm(name="off", adapter=first), on=Arm(name="on", adapter=second))


def _spec_active(adapter: EngineAdapter) -> bool:
    try:
        spec = adapter.info().spec
    except Exception:  # an engine that cannot describe itself is treated as spec off, and says so later
        return False
    return bool(not isinstance(spec, Unavailable) and spec.active)
