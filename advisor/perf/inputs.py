"""From facts to the step-time model's inputs (machine, target, draft), with a named prior for each gap.

Every prior is used only when the fact is missing and is appended to `priors`, so a prediction says what it
assumed. Priors are defaults a person would otherwise have to guess; the model's fitted constants are not
priors (advisor/perf/constants.py).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from advisor.perf import hardware
from advisor.perf.backend import backend as backend_of
from advisor.perf.constants import (
    EAGLE3_DRAFT_VOCAB,
    HIDDEN_PER_SQRT_B,
    KV_BYTES_PER_TOKEN_AT_8B,
    PARAMS_PER_LAYER_PER_D2,
    TYPICAL_VOCAB,
)
from advisor.perf.cost import Machine, MoeShape, Target
from advisor.perf.model import moe_shared_fraction
from advisor.text.message import Message, msg

Family = Literal["ngram", "head", "draft", "block"]

DEFAULT_GAMMA = 3  # llama.cpp's --spec-draft-n-max default since the 2026 refactor (engine-facts.md §1.6)
DEFAULT_PARAMS_B = 8.0  # the most published size class when a facts file names no model size
DEFAULT_CONTEXT_TOKENS = 1024  # KV depth when workload.context_tokens is absent: one chat turn
# Typical open MoE when counts are unknown (Qwen3-30B-A3B / GLM-4.5-Air: 128 experts, top-8)
MOE_PRIOR = (128, 8)
# An unknown GPU is the first of these that holds the weights with room for KV and buffers (count × memory ≥
# WEIGHTS_FIT_FACTOR × weight bytes): a home model on a 24 GB card, a 70B on H100s, DeepSeek-class on H200s.
PRIOR_DEVICES = ("RTX 4090", "H100 SXM", "H200", "B200")
WEIGHTS_FIT_FACTOR = 11 / 10  # 10% beyond the weights (not a policy number: only picks the prior device)
# CPU decode: compute per socket when only RAM bandwidth is known (8 cores × 2 AVX2 FMA × 8 fp32 × 2 × 3 GHz)
CPU_PRIOR_TFLOPS = 0.77
# llama.cpp-family engines split layers across GPUs (--split-mode layer): one stream reads one card at a time
LAYER_SPLIT_ENGINES = ("llama.cpp", "lmstudio", "ollama", "koboldcpp")
LLAMACPP_DEFAULT_BPW = 4.85  # Q4_K_M, the quant most GGUF users run
HEAD_METHODS = ("eagle", "eagle2", "eagle3", "mtp", "medusa", "draft-eagle3", "draft-mtp", "nextn")
BLOCK_METHODS = ("dflash", "dspark", "draft-dflash", "draft-dspark")

# (pattern on the lower-cased quant string, bits per weight): GGUF block sizes (gguf-py GGML_QUANT_SIZES; the
# K-quant mixes' averages from llama.cpp's quantize table) and the usual serving formats.
_QUANT_BITS: tuple[tuple[str, float], ...] = (
    (r"(\d+(?:\.\d+)?)\s*bpw", -1.0), (r"\bf32\b|fp32|float32", 32.0), (r"bf16|f16|fp16|half", 16.0),
    (r"q8_0|q8\b", 8.5), (r"int8|w8a8|fp8|f8e|e4m3|8-?bit", 8.0), (r"q6_k|q6\b|6-?bit", 6.56), (r"q5_1", 6.0),
    (r"q5_k_m", 5.69), (r"q5", 5.5), (r"q4_1", 5.0), (r"q4_k_m|q4_k_xl", 4.85), (r"nvfp4|q4_k_s|iq4_nl|q4_0", 4.5),
    (r"iq4_xs|mxfp4", 4.25), (r"awq|gptq|int4|w4a16|4-?bit|q4", 4.5), (r"q3|iq3|3-?bit", 3.9),
    (r"q2|iq2|2-?bit", 2.9),
)


@dataclass(frozen=True, slots=True)
class Draft:
    """How drafting runs: the family, γ, sequential passes per step, and its size relative to the target."""

    family: Family
    gamma: int
    passes: int
    head_fraction: float   # head methods: a pass reads this share of one target step's work
    size_ratio: float      # draft / block methods: draft weights ÷ target weights


def f(facts: Mapping[str, object], name: str) -> float | None:
    """A numeric fact as float (bool is not a number here), else None."""
    v = facts.get(name)
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) and v == v else None


def bits_per_weight(quant: str) -> float | None:
    """Bits per weight of a quantisation name ("Q4_K_M" 4.85, "BF16" 16, "EXL2 6.0 bpw" 6.0), None if unknown."""
    q = quant.lower()
    for pattern, bits in _QUANT_BITS:
        found = re.search(pattern, q)
        if found:
            return float(found.group(1)) if bits < 0 else bits
    return None


def bytes_per_param(facts: Mapping[str, object], priors: list[Message]) -> float:
    """Weight bytes per parameter from model.quant, else the engine's usual format, else BF16."""
    quant = facts.get("model.quant")
    bits = bits_per_weight(quant) if isinstance(quant, str) else None
    if bits is not None:
        return bits / 8.0
    if str(facts.get("engine.kind", "")).lower() in LAYER_SPLIT_ENGINES:
        priors.append(msg("assume.q4_k_m", bits=LLAMACPP_DEFAULT_BPW, engine=str(facts["engine.kind"])))
        return LLAMACPP_DEFAULT_BPW / 8.0
    priors.append(msg("assume.bf16"))
    return 2.0


def target(facts: Mapping[str, object], concurrency: int, priors: list[Message]) -> tuple[Target, float]:
    """The target model and its total weight bytes (GB, for the device prior)."""
    bpp = bytes_per_param(facts, priors)
    measured_gb = f(facts, "model.bytes_per_token_gb")
    active, total = f(facts, "model.active_params_b"), f(facts, "model.total_params_b")
    moe = facts.get("model.moe") is True
    if active is None and total is not None and not moe:
        active = total
    if active is None and measured_gb is not None:
        active = measured_gb / bpp
    if active is None:
        active = DEFAULT_PARAMS_B
        priors.append(msg("assume.model_size", b=DEFAULT_PARAMS_B))
    total = total if total is not None and total >= active else active
    context = facts.get("workload.context_tokens")
    depth = context if isinstance(context, int) and not isinstance(context, bool) and context >= 0 else None
    if depth is None:
        depth = DEFAULT_CONTEXT_TOKENS
        if concurrency > 1:
            priors.append(msg("assume.context", n=DEFAULT_CONTEXT_TOKENS))
    kv_gb = KV_BYTES_PER_TOKEN_AT_8B * math.sqrt(active / 8.0) * depth / 1e9
    shape = moe_shape(facts, active, total, priors) if moe and total > active else None
    return Target(active, measured_gb if measured_gb is not None else active * bpp, kv_gb, shape), total * bpp


def moe_shape(facts: Mapping[str, object], active: float, total: float, priors: list[Message]) -> MoeShape:
    """Experts, top-m and shared share from the counts, or the typical 128/top-8 shape."""
    n, m = facts.get("model.expert_count"), facts.get("model.expert_used_count")
    if not (isinstance(n, int) and isinstance(m, int) and 0 < m < n):
        n, m = MOE_PRIOR
        priors.append(msg("assume.moe", n=n, m=m))
    return MoeShape(n, m, moe_shared_fraction(total, active, n, m))


def machine(facts: Mapping[str, object], total_gb: float, priors: list[Message]) -> Machine:
    """Bandwidth and FLOPs of what runs one forward: NVML facts, then the hardware table, then priors."""
    raw_name = facts.get("gpu.name")
    name = raw_name if isinstance(raw_name, str) and raw_name.strip() else None
    count_fact = facts.get("gpu.count")
    bw, tflops = f(facts, "gpu.peak_bandwidth_gbs"), f(facts, "gpu.fp16_tflops")
    ram = f(facts, "host.ram_bandwidth_gbs")
    # CPU decode (no GPU, or a CPU-only engine build on a GPU box): the measured RAM bandwidth is the roofline
    if ram is not None and (count_fact == 0 or backend_of(facts) == "cpu"):
        if tflops is None:
            priors.append(msg("assume.cpu_compute", tflops=CPU_PRIOR_TFLOPS))
        return Machine(ram, tflops or CPU_PRIOR_TFLOPS, 1)
    match = hardware.lookup(name)
    count = count_fact if isinstance(count_fact, int) and not isinstance(count_fact, bool) and count_fact > 0 \
        else (match.count if match else (hardware.parse_count(name) if name else None)) or 1
    if match is not None:
        bw = bw if bw is not None else match.device.bandwidth_gbs
        tflops = tflops if tflops is not None else match.device.fp16_tflops
    if bw is None or tflops is None:
        prior = _prior_device(count, total_gb)
        why = msg("assume.why_unknown_gpu", name=name) if name else msg("assume.why_no_gpu")
        if bw is None:
            priors.append(msg("assume.gpu", device=prior.name, why=why))
            bw = prior.bandwidth_gbs
        if tflops is None:
            tflops = prior.fp16_tflops * bw / prior.bandwidth_gbs
            if match is None and f(facts, "gpu.peak_bandwidth_gbs") is not None:
                priors.append(msg("assume.gpu_compute", tflops=tflops, device=prior.name, why=why))
    if count > 1 and str(facts.get("engine.kind", "")).lower() in LAYER_SPLIT_ENGINES:
        return Machine(bw, tflops, 1)  # layers run one card after another: one card's bandwidth at a time
    return Machine(bw * count, tflops * count, count)


def _prior_device(count: int, total_gb: float) -> hardware.Device:
    for name in PRIOR_DEVICES:
        device = hardware.by_name(name)
        if count * device.memory_gib * 1.073741824 >= WEIGHTS_FIT_FACTOR * total_gb:
            return device
    return hardware.by_name(PRIOR_DEVICES[-1])


def family(method: str) -> Family:
    """ngram (CPU lookups), head (EAGLE/MTP/Medusa layers on the target), block (one-pass block drafter), draft."""
    m = method.lower()
    if m.startswith("ngram") or m in ("prompt-lookup", "lookup", "suffix"):
        return "ngram"
    if m in HEAD_METHODS:
        return "head"
    if m in BLOCK_METHODS:
        return "block"
    return "draft"


def head_fraction(active_params_b: float, method: str) -> float:
    """One draft-head pass ÷ one target step: a decoder layer (12·d²) plus the LM head (vocab × d), ÷ params."""
    d = HIDDEN_PER_SQRT_B * math.sqrt(active_params_b)
    vocab = EAGLE3_DRAFT_VOCAB if "eagle3" in method.lower() else TYPICAL_VOCAB
    return min((PARAMS_PER_LAYER_PER_D2 * d * d + vocab * d) / (active_params_b * 1e9), 1.0)


def draft(facts: Mapping[str, object], gamma: int, active_params_b: float, size_prior: float,
          priors: list[Message]) -> Draft:
    """The draft setup; the head size is an architecture estimate and the draft size a prior unless given."""
    method = str(facts.get("spec.method", "") or "")
    fam = family(method) if method else "draft"
    measured = f(facts, "spec.draft_cost_ratio") is not None
    if not method and not measured:
        priors.append(msg("assume.draft_model"))
    passes = 1 if fam == "block" or method.lower() == "medusa" else gamma
    head = head_fraction(active_params_b, method) if fam == "head" else 0.0
    if fam == "head" and not measured:
        priors.append(msg("assume.draft_head", share=head))
    ratio = size_prior
    draft_b = f(facts, "spec.draft_params_b")
    if fam in ("draft", "block") and draft_b is not None and active_params_b > 0:
        ratio = draft_b / active_params_b
    elif fam in ("draft", "block") and not measured:
        priors.append(msg("assume.draft_size", share=size_prior))
    return Draft(fam, gamma, passes, head, ratio)
