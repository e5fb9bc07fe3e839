"""Do two copies of the target fit? The memory budget that chooses side-by-side or single-resident arms.

A home GPU holds its model once: a 20 GB Q4 model on a 24 GB card leaves no room for a second server, and
llama.cpp's `--fit` would quietly give the second one fewer GPU layers (an A/B of GPU against partly-CPU). So
before any server starts, each arm's need — target weights + KV cache for the context of every slot + compute
buffers (+ the draft, ON arm only) — is set against what is free: VRAM per GPU from NVML where the engine runs
on a GPU, else RAM. On the CPU two servers mapping one GGUF share its pages (mmap, the default), so the
weights count once there; on a GPU each process uploads its own copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from advisor.evidence.arms import ArmNeed, ArmsMode, ArmsPlan, ArmsRequest, DeviceBudget
from advisor.recommend.dialect import flag_name
from probes.base import Unavailable
from probes.gpu.probe import GpuReport
from probes.host import HostReport
from probes.model.info import ModelInfo

GIB = 1024**3
# Compute buffers: llama.cpp sizes its graph buffers for one micro-batch (n_ubatch, default 512 tokens); the
# largest is the logits, n_vocab floats per token, beside activations of a few n_embd floats per token.
UBATCH_TOKENS = 512
ACTIVATION_WIDTHS = 8        # n_embd-wide float activations live at once per token (attention + FFN scratch)
FLOAT_BYTES = 4
# Options that keep the weights out of a shared page cache (each process then holds its own copy in RAM).
_PRIVATE_WEIGHTS = frozenset({"--no-mmap", "--mlock"})


def arm_need(model: ModelInfo, ctx_tokens: int, *, draft_bytes: int = 0, gpu_share: float = 1.0) -> ArmNeed:
    """One server's need in GiB for `ctx_tokens` cached tokens (all slots) with f16 KV; `gpu_share` of the
    weights sit on the device being budgeted (1 when every layer is offloaded, or on the CPU)."""
    kv = (model.kv_bytes_per_token or 0) * ctx_tokens
    widths = (model.vocab_size or 0) + ACTIVATION_WIDTHS * (model.embedding_length or 0)
    buffers = UBATCH_TOKENS * widths * FLOAT_BYTES
    return ArmNeed(weights_gib=model.total_bytes * gpu_share / GIB, kv_gib=kv / GIB, buffers_gib=buffers / GIB,
                   draft_gib=draft_bytes / GIB)


def weights_private(server_args: Sequence[str]) -> bool:
    """True when the user's options keep each server's weights in its own memory (no shared mmap)."""
    return any(flag_name(a) in _PRIVATE_WEIGHTS for a in server_args)


def _free_gpus(gpus: GpuReport | None) -> list[tuple[str, float]]:
    """Free GiB per card; empty when any card's reading is missing (a budget over the others would miss the
    layers that card receives)."""
    cards = gpus.gpus if gpus is not None else ()
    free = [(f"gpu{c.index}", c.vram_free_gib) for c in cards if not isinstance(c.vram_free_gib, Unavailable)]
    return free if len(free) == len(cards) else []


def _budgets(need: ArmNeed, free: list[tuple[str, float]], margin: float,
             shared_weights: bool) -> tuple[DeviceBudget, ...]:
    """Split each server's need over the devices in proportion to what is free on them (llama.cpp's default
    layer split follows free memory), and compare per device."""
    total_free = sum(f for _, f in free) or 1.0
    out = []
    for name, f in free:
        share = f / total_free
        single = (need.target_gib + need.draft_gib) * share
        second = (need.target_gib - (need.weights_gib if shared_weights else 0.0)) * share
        out.append(DeviceBudget(device=name, free_gib=round(f, 3), single_gib=round(single, 3),
                                dual_gib=round(single + second, 3), margin_gib=margin))
    return tuple(out)


def plan_arms(requested: ArmsRequest, model: ModelInfo | None, *, ctx_tokens: int, gpus: GpuReport | None,
              host: HostReport | None, gpu_engine: bool, margin_gib: float, draft_bytes: int = 0,
              gpu_share: float = 1.0, server_args: Sequence[str] = ()) -> ArmsPlan:
    """Choose side-by-side (dual) or single-resident arms for a managed check.

    `gpu_engine`: the llama-server can offload to a GPU and NVML sees one (else the budget is the RAM).
    `auto` runs dual only where both servers fit on every device with `margin_gib` spare; a budget that
    cannot be made (no model size, no free-memory reading) is single-resident, which is always correct."""
    # A GPU build beside a card NVML sees offloads there even when its free VRAM cannot be read: that budget
    # is then unknown, never the RAM's.
    where: Literal["gpu", "cpu"] = "gpu" if gpu_engine and gpus is not None and gpus.gpus else "cpu"
    shared = where == "cpu" and not weights_private(server_args)
    need = arm_need(model, ctx_tokens, draft_bytes=draft_bytes,
                    gpu_share=gpu_share if where == "gpu" else 1.0) if model is not None else None
    if where == "gpu":
        free = _free_gpus(gpus)
    else:
        ram = host.ram_free_gib if host is not None else None
        free = [("ram", ram)] if isinstance(ram, float | int) else []
    devices = _budgets(need, free, margin_gib, shared) if need is not None and free else ()
    def made(mode: ArmsMode, code: str, reason: str) -> ArmsPlan:
        return ArmsPlan(mode=mode, requested=requested, reason=reason, reason_code=code, where=where, need=need,
                        devices=devices, shared_weights=shared)

    if requested == "single":
        return made("single", "asked-single", "single-resident arms were asked for (--arms single)")
    if requested == "dual":
        return made("dual", "asked-dual", "side-by-side arms were asked for (--arms dual)")
    if not devices:
        return made("single", "unknown-memory", "the memory budget could not be made (model size or free memory "
                    "unknown): one copy of the target at a time")
    short = [d for d in devices if not d.dual_fits]
    worst = short[0] if short else devices[0]
    spent = (f"two servers need {worst.dual_gib:.1f} GiB + {worst.margin_gib:.1f} GiB spare on {worst.device}, "
             f"{worst.free_gib:.1f} GiB is free")
    if short:
        return made("single", "does-not-fit", f"{spent}: one copy of the target at a time")
    return made("dual", "fits", f"{spent}: both arms side by side")
