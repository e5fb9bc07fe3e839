"""English words left in Chinese text: what tests/project/test_zh_leftovers.py scans the CLI, report and window for.

A word is three or more ASCII letters (hyphens and underscores inside count, so `repetition-loops` is one). Not
words to translate: placeholders, code spans in backticks, command-line flags, paths and file names, URLs, and
the names below (units, products, formats, the engine's flag values), which read the same in a Chinese text.
Text that comes from outside spec-advisor (an engine's or the OS's own error message, a model's name) is the
caller's to leave out: it is shown as it was said.
"""

from __future__ import annotations

import re

# Proper names, units and formats Chinese text writes in Latin letters too.
NAMES = frozenset({
    "GPU", "CPU", "GPUs", "RAM", "VRAM", "MBU", "MoE", "KV", "API", "URL", "JSON", "JSONL", "HTML", "GGUF", "TOML",
    "CSV", "PNG", "UTC", "BOS", "EOS", "NVIDIA", "CUDA", "NVML", "Metal", "ROCm", "Vulkan", "AMD", "Apple",
    "llama", "cpp", "llama-server", "spec-advisor", "vLLM", "SGLang", "TensorRT-LLM", "Ollama", "LM", "Studio",
    "TGI", "LLMKube", "docker", "compose", "systemd", "Docker", "Compose", "EAGLE", "EAGLE3", "MTP", "Medusa",
    "token", "tokens", "tok", "GiB", "MiB", "KiB", "GB", "MB", "TTFT", "TPOT", "Ctrl-C", "Ctrl", "Linux", "macOS",
    "Windows", "Qt", "PATH", "DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "offscreen", "env", "Hugging", "Face",
    "SmolLM2", "SmolLM2-135M", "Gemma", "Markdown", "Noto", "Sans", "CJK", "A/B", "INCONCLUSIVE", "ENABLE", "SKIP",
    "Welch", "Pocock", "ChatML", "Jinja",
    # Kubernetes and LLMKube kinds and tools, as their APIs spell them
    "Kubernetes", "Pod", "Pods", "Service", "Services", "InferenceService", "ModelRouter", "Model", "Role",
    "RoleBinding", "kubeconfig", "kubectl", "CRD", "RBAC",
    "Clopper", "Pearson", "pyperf", "MLPerf", "STREAM", "LRU", "ngram", "n-gram", "draft", "SSE", "HTTP", "TCP",
    "ms", "p50", "p99", "script", "report-data", "check", "single", "dual", "auto", "none", "plain",
})
# The engine's own words: speculation methods (its --spec-type values, e.g. ngram-mod, draft-eagle3).
METHOD = re.compile(r"(?:ngram|draft)(?:-[a-z0-9]+)+|eagle3?|mtp|medusa|nextn|lookup|prompt-lookup|suffix")

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*")
_STRIP = (re.compile(r"\{[^{}]*\}"),                       # placeholders
          re.compile(r"`[^`]*`"),                          # code spans
          re.compile(r"https?://\S+"),                     # URLs
          re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*(?:[ =][\w.:/-]+)?"),  # flags (and a value)
          re.compile(r"\S*[\\/]\S*"),                      # paths, rule/branch ids
          re.compile(r"\b[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+\b"),  # fact and policy names (docs/facts.md)
          re.compile(r"\d{8}T\d{6}Z-[0-9a-f]+|\d{4}-\d\d-\d\dT[\d:.]+Z?"),  # run ids, timestamps
          re.compile(r"\S+\.(?:json|gguf|toml|md|html|txt|jsonl|png|sqlite3|py)\b"))


def english_words(text: str, allowed: frozenset[str] = frozenset()) -> list[str]:
    """The ASCII words in `text` that a Chinese reader should not meet (see the module notes)."""
    for pattern in _STRIP:
        text = pattern.sub(" ", text)
    ok = NAMES | allowed
    # ALL-CAPS words are acronyms or the verdict's own code beside its translation (INCONCLUSIVE — 暂无定论)
    return [w for w in _WORD.findall(text)
            if len(w) >= 3 and w not in ok and not w.isupper() and not METHOD.fullmatch(w)]
