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
    return tuple(en for en, _ in bilingual(facts, low_acceptance))


class _Pairs(list[tuple[str, str]]):
    """Suggestions as (English, Chinese) pairs."""

    def add(self, en: str, zh: str) -> None:
        self.append((en, zh))


def bilingual(facts: Mapping[str, object], low_acceptance: float | None = None) -> list[tuple[str, str]]:
    """The suggestions of `alternatives`, each as (English, Chinese)."""
    out = _Pairs()
    engine = facts.get("engine.kind")
    llamacpp = engine in (None, "llama.cpp", "ollama", "lmstudio")
    total = _num(facts, "model.total_params_b")
    if facts.get("model.moe") is False and total is not None and total >= LARGE_DENSE_B:
        out.add(f"A mixture-of-experts model of similar quality reads far fewer bytes per token than this "
                f"{total:g}B dense model, which speeds up memory-bound decoding directly.",
                f"质量相近的混合专家模型每个 token 读取的字节远少于这个 {total:g}B 稠密模型，"
                "能直接加快受内存限制的解码。")
    quant = str(facts.get("model.quant") or "").upper()
    if quant.startswith(WIDE_QUANTS):
        out.add(f"A 4–5-bit quantisation (e.g. Q4_K_M or Q5_K_M) instead of {quant} roughly halves the "
                "bytes read per token.",
                f"用 4–5 位量化（例如 Q4_K_M 或 Q5_K_M）代替 {quant}，每个 token 读取的字节大约减半。")
    if facts.get("baseline.bottleneck") == "compute":
        out.add("Decoding is compute-bound here; a smaller model or fewer simultaneous requests helps more "
                "than speculation.", "这里的解码受算力限制；换更小的模型或减少同时请求，比推测解码更有帮助。")
    if llamacpp:
        out.add("Turn on flash attention (llama.cpp `-fa on`); it also allows a quantised KV cache.",
                "开启 flash attention（llama.cpp `-fa on`）；它也让 KV 缓存可以量化。")
        out.add("Quantise the KV cache (`-ctk q8_0 -ctv q8_0`) to cut the bytes read at long contexts.",
                "量化 KV 缓存（`-ctk q8_0 -ctv q8_0`），减少长上下文时读取的字节。")
    elif engine == "vllm":
        out.add("Quantise the KV cache (`--kv-cache-dtype fp8`) to cut the bytes read at long contexts.",
                "量化 KV 缓存（`--kv-cache-dtype fp8`），减少长上下文时读取的字节。")
    free = _num(facts, "gpu.vram_free_gib")
    if free is not None and free < TIGHT_VRAM_GIB:
        out.add("VRAM is nearly full: a smaller context size (`-c`) frees room so no layers spill to the CPU.",
                "显存快满了：更小的上下文长度（`-c`）能腾出空间，避免有层溢出到 CPU。")
    count = facts.get("gpu.count")
    if isinstance(count, int) and count > 1:
        hint = "`--tensor-parallel-size`" if engine in ("vllm", "sglang") else "`--split-mode layer` / `-ts`"
        out.add(f"Split the model across your {count} GPUs ({hint}) to add memory bandwidth.",
                f"把模型拆分到您的 {count} 块 GPU 上（{hint}），增加内存带宽。")
    rate = _num(facts, "acceptance.rate")
    if rate is not None and low_acceptance is not None and rate < low_acceptance \
            and str(facts.get("spec.method", "")).startswith("ngram"):
        out.add("N-gram drafting pays off mainly for code editing and retrieval-heavy prompts; a draft "
                "model or EAGLE head may accept more on free-form text.",
                "n-gram 起草主要在代码编辑和大量引用原文的提示词上划算；草稿模型或 EAGLE 头在自由文本上可能接受更多。")
    return out
