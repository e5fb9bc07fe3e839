"""Accelerator table: peak bandwidth, FP16/INT8 throughput and memory by the names NVML and people write.

The data lives in hardware.toml (one entry per part, each with its source). `lookup("2x RTX 5060 Ti 16GB")`
gives the RTX 5060 Ti and a count of 2; NVML names ("NVIDIA GeForce RTX 4090", "NVIDIA H100 80GB HBM3",
"NVIDIA A100-SXM4-80GB") and hand-written ones ("rtx4090", "H100 SXM", "M3 Max", "8x H100 (TP8)") both work.
Laptop parts are not in the table, so a name saying "Laptop" or "Mobile" matches nothing rather than the
desktop card with twice its bandwidth.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources

_NOISE = frozenset({"nvidia", "geforce", "amd", "apple", "tesla", "radeon", "instinct", "google", "cloud",
                    "generation", "graphics", "gpu", "gpus", "node", "card", "with", "and", "the"})
_LAPTOP = frozenset({"laptop", "mobile", "notebook", "maxq"})
# "2x", "2 x", "x2", "TP8", "8 GPUs", "8-GPU": how many of the part a name describes
_COUNT_PATTERNS = (re.compile(r"(?<![\w.])(\d+)\s*[x×]\s*(?=[a-z])"), re.compile(r"(?<![\w.])[x×]\s*(\d+)\b"),
                   re.compile(r"\btp\s*(\d+)\b"), re.compile(r"\b(\d+)[\s-]*gpus?\b"))


@dataclass(frozen=True, slots=True)
class Device:
    """One accelerator's peaks (per device; a machine with n of them has n× in the model)."""

    name: str
    bandwidth_gbs: float   # GB/s (1e9 bytes/s)
    fp16_tflops: float     # dense FP16/BF16 matrix throughput, TFLOPS
    int8_tops: float | None
    memory_gib: float
    source: str
    aliases: tuple[frozenset[str], ...]


@dataclass(frozen=True, slots=True)
class Match:
    """A table device and how many of it the name describes (1 when it says nothing)."""

    device: Device
    count: int


def _tokens(text: str) -> list[str]:
    s = text.lower().replace("+", " ")
    s = re.sub(r"\b(rtx|gtx|rx)(?=\d)", r"\1 ", s)           # "rtx4090" → "rtx 4090"
    s = re.sub(r"(\d+)\s*(gb|gib)\b", r"\1gb", s)             # "16 GB" → "16gb"
    s = re.sub(r"\bsxm\d\b", "sxm", s)                          # NVML's "SXM4"/"SXM5"
    s = re.sub(r"\bmax[\s-]*q\b", "maxq", s)
    s = re.sub(r"[^a-z0-9]+", " ", s)
    return [t for t in s.split() if t not in _NOISE]


@cache
def devices() -> tuple[Device, ...]:
    """Every entry of hardware.toml, in file order."""
    text = resources.files("advisor.perf").joinpath("hardware.toml").read_text(encoding="utf-8")
    out: list[Device] = []
    for row in tomllib.loads(text)["device"]:
        aliases = tuple(frozenset(_tokens(a)) for a in row["aliases"])
        int8 = row.get("int8_tops")
        out.append(Device(row["name"], float(row["bandwidth_gbs"]), float(row["fp16_tflops"]),
                          float(int8) if int8 is not None else None, float(row["memory_gib"]), row["source"],
                          aliases))
    return tuple(out)


def parse_count(name: str) -> int | None:
    """How many devices a name describes ("2x RTX 3090" → 2, "8x H100 (TP8)" → 8), or None if it does not say."""
    lowered = name.lower()
    for pattern in _COUNT_PATTERNS:
        found = pattern.search(lowered)
        if found and 0 < int(found.group(1)) <= 1024:
            return int(found.group(1))
    return None


def lookup(name: str | None) -> Match | None:
    """The table device a name refers to (the alias with the most tokens wins), or None when none fits."""
    if not name:
        return None
    tokens = set(_tokens(name))
    if tokens & _LAPTOP:
        return None
    best: tuple[int, Device] | None = None
    for device in devices():
        for alias in device.aliases:
            if alias <= tokens and (best is None or len(alias) > best[0]):
                best = (len(alias), device)
    if best is None:
        return None
    return Match(best[1], parse_count(name) or 1)


def by_name(name: str) -> Device:
    """The entry whose `name` is exactly `name` (for documented priors); KeyError if absent."""
    for device in devices():
        if device.name == name:
            return device
    raise KeyError(name)
