"""Facts: the flat, dotted, unit-suffixed names that rules see (design.md §6).

`FACT_SPECS` is the registry (type, unit, meaning, source). Evidence flattens to it with
`facts_from_evidence` (advisor/facts_evidence.py); a hand-written `--facts FILE.json` is checked by
`load_facts_file`. Rules are validated against this registry at load time.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, get_args

from advisor.core.names import suggest
from advisor.errors import UserError
from advisor.perf.backend import BACKENDS
from advisor.perf.interval import Claim

__all__ = ["CHOICES", "FACT_SPECS", "FactSpec", "FactType", "FactsError", "validate_facts"]

FactType = Literal["float", "int", "bool", "str"]


class FactsError(UserError):
    """A fact has an unknown name, the wrong type, or a value that contradicts physics or other facts."""


@dataclass(frozen=True, slots=True)
class FactSpec:
    """One documented fact: its type, unit ("" when unitless), meaning and the step/probe behind it."""

    name: str
    type: FactType
    unit: str
    meaning: str
    source: str


# The source of the placement facts: each managed server's load log, read at -lv 4 or more.
_LOG = "managed run: llama-server load log"


def _s(name: str, type_: FactType, unit: str, meaning: str, source: str) -> FactSpec:
    return FactSpec(name, type_, unit, meaning, source)


_SPECS: tuple[FactSpec, ...] = (
    _s("gpu.name", "str", "", "GPU marketing name", "probe gpu"),
    _s("gpu.count", "int", "", "number of GPUs visible to the engine", "probe gpu"),
    _s("gpu.peak_bandwidth_gbs", "float", "GB/s", "theoretical peak memory bandwidth", "probe gpu"),
    _s("gpu.fp16_tflops", "float", "TFLOPS", "peak dense FP16/BF16 matrix throughput of one GPU (else the "
       "hardware table, advisor/perf/hardware.toml)", "user or hardware table"),
    _s("gpu.vram_total_gib", "float", "GiB", "total VRAM of the GPU(s)", "probe gpu"),
    _s("gpu.vram_free_gib", "float", "GiB", "VRAM free with the model loaded", "probe gpu"),
    _s("host.ram_bandwidth_gbs", "float", "GB/s", "measured host RAM bandwidth", "probe host"),
    _s("engine.kind", "str", "", "llama.cpp | vllm | sglang | lmstudio | ollama | tgi | tensorrt-llm",
       "probe engine"),
    _s("engine.version", "str", "", "engine build or version string", "probe engine"),
    _s("engine.backend", "str", "", "compute backend the engine runs on: cuda | rocm | vulkan | metal | sycl | cann | "
       "cpu | tpu | … (else inferred from gpu.name; a CPU build on a GPU box decodes from RAM)",
       "llama-server --list-devices"),
    _s("engine.flag_generation", "str", "", "llama.cpp flag dialect: new | old | unknown", "preflight --help"),
    _s("engine.spec_types", "str", "", "comma list of --spec-type values the build accepts", "preflight --help"),
    _s("engine.draft_max_flag", "str", "", "flag for the draft length (--spec-draft-n-max or --draft-max)",
       "preflight --help"),
    _s("engine.draft_model_flag", "str", "", "flag that names the draft model (-md)", "preflight --help"),
    _s("engine.p_min_flag", "str", "", "flag for the draft p-min (--spec-draft-p-min or --draft-p-min)",
       "preflight --help"),
    _s("model.moe", "bool", "", "the target model is a mixture of experts", "probe modelfile"),
    _s("model.total_params_b", "float", "1e9 params", "all parameters", "probe modelfile"),
    _s("model.active_params_b", "float", "1e9 params", "parameters used per token", "probe modelfile"),
    _s("model.expert_count", "int", "", "experts per MoE layer (N)", "probe modelfile"),
    _s("model.expert_used_count", "int", "", "experts chosen per token (top-m)", "probe modelfile"),
    _s("model.quant", "str", "", "weight quantisation, e.g. Q4_K_M", "probe modelfile"),
    _s("model.bytes_per_token_gb", "float", "GB", "bytes read per decoded token (active weights + KV)",
       "probe modelfile / baseline"),
    _s("spec.method", "str", "", "ngram-simple | ngram-mod | ngram-cache | draft | eagle | eagle3 | mtp | …",
       "config"),
    _s("spec.draft_max", "int", "tokens", "drafted tokens per verify step (γ)", "config"),
    _s("spec.draft_cost_ratio", "float", "", "draft cost per drafted token ÷ target cost per token",
       "step tune (the draft model timed on its own) or user"),
    _s("spec.draft_model", "str", "", "path or name of the draft model", "config"),
    _s("spec.draft_params_b", "float", "1e9 params", "draft model size", "probe modelfile (draft)"),
    _s("spec.draft_p_min", "float", "", "minimum draft probability to keep drafting", "config / step tune"),
    _s("spec.ngram_mod_n_match", "int", "tokens", "ngram-mod lookup length (--spec-ngram-mod-n-match); unset "
       "keeps the engine's", "step tune"),
    _s("spec.argv", "str", "", "the measured ON arm's speculative flags, shell-quoted (what is recommended)",
       "managed ON arm"),
    _s("spec.server_args", "str", "", "the llama-server options both arms ran with beyond the check's own: the "
       "ones the model file needed (a chat template, --swa-full) and the user's (check … --), shell-quoted; the "
       "recommended command keeps them", "config"),
    _s("spec.settings", "str", "", "the drafter's knobs as measured, in words (which are the engine's defaults)",
       "managed ON arm"),
    _s("workload.concurrency", "int", "requests", "simultaneous requests the user expects (home: 1)",
       "config"),
    _s("workload.repeated_prompts", "bool", "", "the measured workload repeats prompts", "config"),
    _s("workload.context_tokens", "int", "tokens", "typical context depth per request (KV cache read per step)",
       "config or user"),
    _s("baseline.decode_tok_s", "float", "tok/s", "decode speed with speculation off", "step baseline"),
    _s("baseline.mbu", "float", "0..1", "memory-bandwidth utilisation of decode", "step baseline"),
    _s("baseline.bottleneck", "str", "", "memory | compute | overhead", "step baseline"),
    _s("baseline.cv_pct", "float", "%",
       "run-to-run coefficient of variation of baseline decode speed (repeats of one prompt)", "step baseline"),
    _s("acceptance.rate", "float", "0..1", "accepted ÷ drafted tokens over all prompts (α)", "step acceptance"),
    _s("acceptance.rate_ci_low", "float", "0..1", "lower 95% bound of α (prompt bootstrap)", "step acceptance"),
    _s("acceptance.rate_ci_high", "float", "0..1", "upper 95% bound of α", "step acceptance"),
    _s("acceptance.mean_length", "float", "tokens", "τ = 1 + accepted ÷ verify steps", "step acceptance"),
    _s("acceptance.draft_coverage", "float", "ratio", "drafted tokens per generated token (how often a draft "
       "existed at all; n-gram drafting on diverse prompts often has nothing to copy)", "step acceptance"),
    _s("acceptance.repeat_inflation", "float", "ratio", "tok/s on re-seen prompts ÷ first runs (canary)",
       "step acceptance"),
    _s("acceptance.min_category_rate", "float", "0..1", "α of the weakest prompt category", "step acceptance"),
    _s("acceptance.min_category", "str", "", "name of the weakest prompt category", "step acceptance"),
    _s("verify.cost_ratio_at_draft_max", "float", "ratio", "T_verify(γ+1) ÷ T(1)", "step verify"),
    _s("tuner.method", "str", "", "the method the tuner chose (what the A/B then measured)", "step tune"),
    _s("tuner.k", "int", "tokens", "the draft length the tuner chose", "step tune"),
    _s("tuner.predicted_speedup", "float", "ratio", "the tuner's predicted speedup for its choice, for the mix",
       "step tune"),
    _s("tuner.prediction_rel_err", "float", "ratio", "|predicted ÷ measured − 1| for the chosen settings",
       "step tune + step ab"),
    _s("batch.crossover_concurrency", "int", "requests", "lowest concurrency where spec stops paying",
       "step batch"),
    _s("batch.max_concurrency_tested", "int", "requests", "highest concurrency the batch step measured",
       "step batch"),
    _s("batch.rounds", "int", "rounds", "paired on/off rounds behind each level's CI (fewest over the levels); "
       "absent for a sweep of one run per arm", "step batch"),
    _s("batch.stops_paying_at", "int", "requests", "lowest concurrency whose whole paired CI of on ÷ off tok/s "
       "lies below break-even (policy.batch.break_even): speculation is clearly slower there", "step batch"),
    _s("batch.pays_up_to", "int", "requests", "highest concurrency up to which every measured level's whole "
       "paired CI lies above break-even", "step batch"),
    _s("batch.compared_concurrency", "int", "requests", "the measured level the batch.*_at_concurrency facts "
       "describe: the user's concurrency, or the next measured level above it", "step batch"),
    _s("batch.speedup_at_concurrency", "float", "ratio", "paired on ÷ off aggregate tok/s at "
       "batch.compared_concurrency (geometric mean of the rounds)", "step batch"),
    _s("batch.ci_low_at_concurrency", "float", "ratio", "lower bound of that speedup's CI", "step batch"),
    _s("batch.ci_high_at_concurrency", "float", "ratio", "upper bound of that speedup's CI", "step batch"),
    _s("ab.speedup", "float", "ratio", "paired A/B speedup (ms/token off ÷ on)", "step ab"),
    _s("ab.ci_low", "float", "ratio", "lower bound of the A/B speedup CI", "step ab"),
    _s("ab.ci_level", "float", "0..1", "two-sided level of that CI (policy.ab.ci_level when the A/B ran)", "step ab"),
    _s("ab.ci_high", "float", "ratio", "upper bound of the A/B speedup CI", "step ab"),
    _s("ab.vs_default_speedup", "float", "ratio", "the chosen settings against the engine's defaults for the "
       "method (ms/token defaults ÷ chosen), both on fresh servers", "step ab, after the tuner moved"),
    _s("ab.vs_default_ci_low", "float", "ratio", "lower bound of its CI (at policy.ab.ci_level)",
       "step ab, after the tuner moved"),
    _s("ab.vs_default_ci_high", "float", "ratio", "upper bound of its CI (at policy.ab.ci_level); below 1 the "
       "flags recommended are the defaults' (advisor/decide/defaults.py)",
       "step ab, after the tuner moved"),
    _s("ab.vs_default_argv", "str", "", "the engine defaults' speculative flags that comparison ran",
       "step ab, after the tuner moved"),
    _s("ab.n_prompts", "int", "pairs", "prompt pairs in the A/B", "step ab"),
    _s("ab.outputs_match_rate", "float", "0..1", "share of prompts with identical greedy output", "step ab"),
    _s("ab.early_divergence_rate", "float", "0..1", "share of prompts whose greedy replies differ within their "
       "first part (policy.ab.early_divergence_share): a different answer, not a late numerical flip", "step ab"),
    _s("ab.early_divergence_low", "float", "0..1", "the early-divergence share the pairs show at least: one-sided "
       "Clopper–Pearson lower bound at policy.ab.ci_level (2 of 20 → 0.018, 4 of 20 → 0.071)", "step ab"),
    _s("ab.probs_available", "bool", "", "the OFF arm returned token probabilities, so each divergence was "
       "classified by its margin (false: the engine cannot, and divergences are only bounded)", "step ab"),
    _s("ab.numerics_divergences", "int", "pairs", "divergent pairs where OFF's top two tokens were within "
       "policy.ab.near_tie_max_gap nats: a near tie that rounding flipped", "step ab"),
    _s("ab.lossy_divergences", "int", "pairs", "divergent pairs where OFF was sure (its top two further apart than "
       "policy.ab.near_tie_max_gap) and speculation wrote another token: lossy speculation", "step ab"),
    _s("ab.unclassified_divergences", "int", "pairs", "divergent pairs the margin check could not classify",
       "step ab"),
    _s("ab.near_tie_share", "float", "0..1", "share of the divergent pairs that were near ties (numerics)",
       "step ab"),
    _s("ab.lossy_at", "str", "", "where speculation changed a token the model was sure of: prompt, token index, "
       "OFF's token and its probability, what the speculating arm wrote", "step ab"),
    _s("ab.drift", "float", "±fraction", "OFF ms/token change over the A/B's pairs from a log-linear fit (0.1: 10% "
       "slower by the end)", "step ab"),
    _s("ab.effect_drift", "float", "±fraction", "the speedup's own change over the A/B's pairs, the same fit on the "
       "per-pair log speedup (0.1: 10% larger by the end)", "step ab"),
    _s("ab.order_effect", "float", "±fraction", "how much faster pairs that ran ON second were than ON-first pairs "
       "(0.03: 3%)", "step ab"),
    _s("ab.arm_outlier_pairs", "int", "pairs", "pairs with an outlier in one arm only (modified z-score beyond "
       "policy.ab.outlier_z)", "step ab"),
    _s("ab.outlier_free_speedup", "float", "ratio", "the A/B speedup without those pairs", "step ab"),
    _s("ab.cv_off_pct", "float", "%", "OFF-arm ms/token CV across the A/B's prompts (a warning: the paired interval "
       "carries it)", "step ab"),
    _s("ab.output_tokens_low", "int", "tokens", "the shortest OFF reply among the A/B's counted pairs", "step ab"),
    _s("ab.output_tokens_high", "int", "tokens", "the longest OFF reply among them: the verdict holds for replies "
       "from ab.output_tokens_low to this", "step ab"),
    _s("ab.depth_tokens_low", "int", "tokens", "the shallowest mean context depth over a counted pair's decode",
       "step ab"),
    _s("ab.depth_tokens_high", "int", "tokens", "the deepest: the verdict holds for context depths from "
       "ab.depth_tokens_low to this", "step ab"),
    _s("ab.decision", "str", "", "the A/B step's own sequential decision", "step ab"),
    _s("ab.guards_passed", "bool", "", "every A/B guard (skew, order, failures, loops, CV) passed", "step ab"),
    _s("ab.warnings", "str", "", "comma list of the A/B guards that failed", "step ab"),
    _s("ab.measured", "bool", "", "an A/B CI exists (derived: ab.ci_low and ab.ci_high present)", "derived"),
    _s("measurement.trap_suspected", "bool", "", "a repeat/caching trap was flagged in any step",
       "steps acceptance, ab"),
    _s("measurement.contended", "bool", "", "decode with speculation off fell under policy.contention.slow_fraction "
       "of the baseline for policy.contention.consecutive requests in a row: another program slowed the machine",
       "steps after the baseline (advisor/run/contention.py)"),
    _s("measurement.throttled", "bool", "", "GPU clocks were throttled during a measured step",
       "NVML sampling"),
    _s("measurement.pool_reset", "bool", "", "the A/B ran on a freshly started ON server (no memory of earlier "
       "prompts); false for an attached server or with fresh pools off", "step ab"),
    _s("sanity.slowdown", "float", "ratio", "the sanity gate: the smallest ON ÷ OFF ms per token over its two short "
       "request pairs before the long steps (above 1: speculation slower in every pair)", "step preflight"),
    _s("sanity.tripped", "bool", "", "the sanity gate stopped the check (sanity.slowdown at its policy limit)",
       "step preflight"),
    _s("arms.as_claimed", "bool", "", "speculation off in the OFF arm and on in the ON arm (off in both for an "
       "A/A run, --spec-type none), as each server's /slots said at preflight", "step preflight"),
    _s("arms.mismatch", "str", "", "the arms that were not as claimed, with what their server said",
       "step preflight"),
    _s("arms.single_resident", "bool", "", "one copy of the target at a time (check --arms, or the memory "
       "budget chose it)", "managed run: advisor/arms/budget.py"),
    _s("spec.cache_based", "bool", "", "the method keeps drafting tables across requests (n-gram, lookup, "
       "suffix), so repeated text can inflate it (derived from spec.method)", "derived: advisor/methods.py"),
    _s("vram.headroom_after_draft_gib", "float", "GiB", "VRAM left after loading a draft model + its KV",
       "managed run: draft GGUF + NVML free memory with the target loaded"),
    _s("spec.draft_on_cpu", "bool", "", "the draft model runs on the CPU (no GPU, no room, or -ngld 0)",
       "managed run: draft placement"),
    _s("spec.draft_cpu_reason", "str", "", "why the draft runs on the CPU, in words", "managed run: draft placement"),
    # Placement as the servers' own load logs state it (probes/engines/llamacpp/placement.py); the model.* and
    # engine.* ones describe the speculation-off server (the baseline and the verify curve ran on it).
    _s("model.gpu_layer_fraction", "float", "0..1", "share of the target's layers on a GPU (llama.cpp's count: "
       "repeating layers plus the output layer)", _LOG),
    _s("model.layers_total", "int", "layers", "the target's offloadable layers (repeating + output: 33 for a "
       "32-layer model)", _LOG),
    _s("model.experts_on_cpu", "bool", "", "the target's MoE expert weights sit in system RAM (--n-cpu-moe, "
       "--cpu-moe, -ot exps=CPU, --fit's own overflow, or no GPU at all); false for a dense model", _LOG),
    _s("engine.split_mode", "str", "", "how the target's weights span GPUs: layer | row | tensor (absent on one "
       "GPU, where the log does not tell none from layer)", _LOG),
    _s("draft.device", "str", "", "where the draft model's weights loaded: its GPU device(s), e.g. CUDA0, or CPU",
       _LOG),
    _s("arms.placement_match", "bool", "", "both arms' servers hold the target alike: the same layers on the GPU, "
       "the same devices, the experts in the same place", _LOG + ", both arms"),
    _s("arms.off_gpu_layers", "int", "layers", "the target's layers on a GPU in the speculation-off server", _LOG),
    _s("arms.on_gpu_layers", "int", "layers", "the target's layers on a GPU in the speculation-on server", _LOG),
    _s("arms.off_devices", "str", "", "devices holding the target's weights in the speculation-off server, e.g. "
       "CUDA0,CPU", _LOG),
    _s("arms.on_devices", "str", "", "devices holding the target's weights in the speculation-on server", _LOG),
    _s("predict.available", "bool", "", "a speedup could be predicted (derived)", "derived: predict.py"),
    _s("predict.speedup", "float", "ratio", "perf-model speedup τ·T(1)/(T_verify+passes·T_draft+t_spec) at the "
       "user's concurrency", "derived: predict.py"),
    _s("predict.tokens_per_step", "float", "tokens", "τ used by the prediction", "derived: predict.py"),
    _s("predict.is_prior", "bool", "", "the prediction leans on a documented prior", "derived: predict.py"),
    _s("predict.from_measurements", "bool", "", "step time, verify cost and draft cost were all measured (not "
       "modelled), so the prediction's error is the live reconciliation's, not the calibration's",
       "derived: predict.py"),
    _s("predict.gamma", "int", "tokens", "draft length γ the prediction used (spec.draft_max or its prior)",
       "derived: predict.py"),
    _s("predict.low", "float", "ratio", "bottom of the prediction's interval at the policy's level",
       "derived: interval.py"),
    _s("predict.high", "float", "ratio", "top of the prediction's interval at the policy's level",
       "derived: interval.py"),
    _s("predict.level", "float", "0..1", "how sure the interval is (policy prediction.interval_level)",
       "derived: interval.py"),
    _s("predict.claim", "str", "", "what the interval supports: faster (all above 1×) | slower (all below) | "
       "cannot-tell", "derived: interval.py"),
    _s("predict.measure_first", "str", "", "the fact whose measurement narrows the interval most (ab.speedup "
       "when only the A/B can)", "derived: interval.py"),
)

FACT_SPECS: dict[str, FactSpec] = {spec.name: spec for spec in _SPECS}

# Facts with a closed set of values (the Literal types that produce them; tests/advisor/decide/test_rule_values.py
# keeps the two in step): any other value is a typo or a forgery, and "MAYBE" must not walk the tree as if it were one.
CHOICES: dict[str, tuple[str, ...]] = {
    "ab.decision": ("ENABLE", "SKIP", "INCONCLUSIVE"),          # advisor.evidence.steps.AbVerdict
    "baseline.bottleneck": ("memory", "compute", "overhead"),  # advisor.evidence.steps.Bottleneck
    "engine.flag_generation": ("new", "old", "unknown"),       # probes.engines.llamacpp.binary.Generation
    "engine.split_mode": ("layer", "row", "tensor"),           # probes.engines.llamacpp.placement.SplitMode
    "engine.backend": BACKENDS,                                # advisor.perf.backend.BACKENDS
    "predict.claim": get_args(Claim),                          # advisor.perf.interval.Claim
}
# The largest whole number a fact may hold: beyond it a float cannot hold it exactly, and no count is that big.
MAX_INT_FACT = 2**53


def _type_ok(type_: FactType, value: object) -> bool:
    # bool is an int subclass in Python: reject it explicitly for numeric facts
    if type_ == "bool":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if type_ == "int":
        return isinstance(value, int) and abs(value) <= MAX_INT_FACT
    if type_ == "float":
        if isinstance(value, int):
            return abs(value) <= MAX_INT_FACT  # float() of a 400-digit integer overflows
        return isinstance(value, float) and math.isfinite(value)
    return isinstance(value, str)


def _kind(type_: FactType) -> str:
    return {"float": "a finite number", "int": "a whole number", "bool": "true or false"}.get(type_, type_)


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def validate_facts(facts: Mapping[str, object], *, origin: str = "facts") -> dict[str, object]:
    """Check names and types; return a plain dict (ints given for float facts become floats).

    Raises UserError naming the first bad fact, with a "did you mean" for unknown names.
    """
    out: dict[str, object] = {}
    for name, value in facts.items():
        spec = FACT_SPECS.get(name)
        if spec is None:
            raise FactsError(f"{origin}: unknown fact '{name}'{suggest(name, FACT_SPECS)}",
                             hint="`spec-advisor decide --list-facts` prints every name (docs/facts.md)")
        if value is None:
            continue  # null means "not measured": the same as leaving the fact out
        if not _type_ok(spec.type, value):
            raise FactsError(f"{origin}: fact '{name}' must be {_kind(spec.type)}, got {_shown(value)}")
        choices = CHOICES.get(name)
        if choices is not None and value not in choices:
            raise FactsError(f"{origin}: fact '{name}' is {_shown(value)}; it can only be one of "
                             f"{', '.join(choices)}{suggest(str(value), list(choices))}")
        out[name] = float(value) if spec.type == "float" else value  # type: ignore[arg-type]
    return out
