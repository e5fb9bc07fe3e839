"""What to try instead when speculative decoding is not worth it, chosen from the facts that apply."""

from __future__ import annotations

from collections.abc import Mapping

# weight formats that read at least 8 bits per parameter: a 4–5-bit quant roughly halves the bytes
WIDE_QUANTS = ("F32", "F16", "BF16", "Q8_0", "FP16", "FP8")
# above this a dense model's per-token reads dominate; a MoE of similar quality reads ~3B active
LARGE_DENSE_B = 14.0
# VRAM left after the model (GiB) below which a smaller context or KV quantisation frees room
TIGHT_VRAM_GIB = 2.0


def _num(facts: Mapping[str, object], name: str) -> float | None:
    v = facts.get(name)
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None


def alternatives(facts: Mapping[str, object], low_acceptance: float | None = None) -> tuple[str, ...]:
    """Plain-language suggestions; only those whose preconditions the facts show (or do not rule out).

    `low_acceptance` is the policy's acceptance warning level (rules/policy.toml [acceptance]); below it an
    n-gram method gets the "try a drafter that accepts more" suggestion."""
    out: list[str] = []
    engine = facts.get("engine.kind")
    llamacpp = engine in (None, "llama.cpp", "ollama", "lmstudio")
    total = _num(facts, "model.total_params_b")
    if facts.get("model.moe") is False and total is not None and total >= LARGE_DENSE_B:
        out.append(f"A mixture-of-experts model of similar quality reads far fewer bytes per token than this "
                   f"{total:g}B dense model, which speeds up memory-bound decoding directly.")
    quant = str(facts.get("model.quant") or "").upper()
    if quant.startswith(WIDE_QUANTS):
        out.append(f"A 4–5-bit quantisation (e.g. Q4_K_M or Q5_K_M) instead of {quant} roughly halves the "
                   "bytes read per token.")
    if facts.get("baseline.bottleneck") == "compute":
        out.append("Decoding is compute-bound here; a smaller model or fewer simultaneous requests helps more "
                   "than speculation.")
    if llamacpp:
        out.append("Turn on flash attention (llama.cpp `-fa on`); it also allows a quantised KV cache.")
        out.append("Quantise the KV cache (`-ctk q8_0 -ctv q8_0`) to cut the bytes read at long contexts.")
    elif engine == "vllm":
        out.append("Quantise the KV cache (`--kv-cache-dtype fp8`) to cut the bytes read at long contexts.")
    free = _num(facts, "gpu.vram_free_gib")
    if free is not None and free < TIGHT_VRAM_GIB:
        out.append("VRAM is nearly full: a smaller context size (`-c`) frees room so no layers spill to the CPU.")
    count = facts.get("gpu.count")
    if isinstance(count, int) and count > 1:
        hint = "`--tensor-parallel-size`" if engine in ("vllm", "sglang") else "`--split-mode layer` / `-ts`"
        out.append(f"Split the model across your {count} GPUs ({hint}) to add memory bandwidth.")
    rate = _num(facts, "acceptance.rate")
    if rate is not None and low_acceptance is not None and rate < low_acceptance \
            and str(facts.get("spec.method", "")).startswith("ngram"):
        out.append("N-gram drafting pays off mainly for code editing and retrieval-heavy prompts; a draft "
                   "model or EAGLE head may accept more on free-form text.")
    return tuple(out)
