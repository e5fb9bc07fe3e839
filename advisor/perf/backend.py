"""Which compute backend runs the engine: the `engine.backend` fact, else what the hardware implies.

The backend decides two things in the perf model. Physics: a CPU build of llama-server on a GPU box decodes from
system RAM, so its roofline is the host's RAM bandwidth, not the card's. Knowledge: the calibration set holds
many CUDA cases and very few of anything else, so a prediction for a rarer backend carries a wider interval
(advisor/perf/interval.py) instead of a per-backend constant fitted on one or two sources.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import get_args

from advisor.perf import hardware
from probes.engines.llamacpp.devices import Backend as LlamaBackend

# llama.cpp's device backends (probes/engines/llamacpp/devices.py) plus the TPU, which JAX serving stacks run on.
BACKENDS: tuple[str, ...] = (*get_args(LlamaBackend), "tpu")
UNKNOWN = "unknown"

# A GPU name the hardware table does not know, by vendor words (NVIDIA parts without a table entry, AMD, Intel,
# Huawei Ascend, Apple): what a reader of the name would infer.
_VENDOR_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\btpu"), "tpu"),
    (re.compile(r"ascend|\bnpu\b|atlas\s*\d"), "cann"),
    (re.compile(r"\bapple\b|\bm[1-5]\b( (pro|max|ultra))?"), "metal"),
    (re.compile(r"radeon|instinct|\bmi\d{3}|\brx\s*\d{4}|ryzen ai|strix"), "rocm"),
    (re.compile(r"\barc\b|\bgaudi\b|intel"), "sycl"),
    (re.compile(r"nvidia|geforce|\brtx|\bgtx|tesla|quadro|\b[abhlt]\d{1,3}\b|\bgb\d{3}\b|\bb\d{3}\b|jetson"),
     "cuda"),
)
# The table's device names by the word they start with (hardware.toml): NVIDIA parts are the rest.
_TABLE_PREFIXES: tuple[tuple[str, str], ...] = (("Apple", "metal"), ("Instinct", "rocm"), ("Radeon", "rocm"),
                                                ("TPU", "tpu"))


def from_gpu_name(name: str) -> str:
    """The backend a GPU's name implies ("NVIDIA GeForce RTX 4090" → cuda, "M3 Max" → metal), or "unknown"."""
    match = hardware.lookup(name)
    if match is not None:
        return next((b for prefix, b in _TABLE_PREFIXES if match.device.name.startswith(prefix)), "cuda")
    lowered = name.lower()
    return next((b for pattern, b in _VENDOR_PATTERNS if pattern.search(lowered)), UNKNOWN)


def backend(facts: Mapping[str, object]) -> str:
    """`engine.backend` when given, else "cpu" on a machine with no GPU, else the GPU name's, else "unknown"."""
    given = facts.get("engine.backend")
    if isinstance(given, str) and given in BACKENDS:
        return given
    if facts.get("gpu.count") == 0:
        return "cpu"
    name = facts.get("gpu.name")
    return from_gpu_name(name) if isinstance(name, str) and name.strip() else UNKNOWN
