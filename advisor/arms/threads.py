"""CPU threads for the managed servers on a machine that is doing other work.

llama.cpp's CPU threads meet at a barrier after every op of the graph. A thread that shares its core with
another program runs only part of the time, and every other thread waits for it at each barrier, so a decode
step slows far more than the core's share would say (docs/benchmarks.md, engine_threads_under_load). When
other work holds cores just before the servers start, they run with one thread fewer per held core, at least
one; the user's own `--threads` (or `-t` after `--`) always wins, and so does the engine's default on an idle
machine.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from advisor.evidence.arms import EngineThreads
from advisor.recommend.dialect import flag_name
from probes.base import Unavailable

_THREAD_FLAGS = frozenset({"-t", "--threads"})


def asked_threads(threads: int | None, server_args: Sequence[str]) -> bool:
    """Did the user choose the thread count (`--threads N`, or `-t`/`--threads` among the server options)?"""
    return threads is not None or any(flag_name(a) in _THREAD_FLAGS for a in server_args)


def choose_threads(cores: int | Unavailable, busy: float | Unavailable, share: float) -> EngineThreads:
    """One thread per physical core that other work does not hold; `share` (0..1) is the part of a core that
    counts as held (rules/policy.toml arms.busy_core_share)."""
    if isinstance(cores, Unavailable) or isinstance(busy, Unavailable) or cores < 1:
        return EngineThreads(None, None if isinstance(busy, Unavailable) else busy, 0,
                            None if isinstance(cores, Unavailable) else cores)
    held = min(cores - 1, max(0, math.floor(busy + (1.0 - share))))
    return EngineThreads(cores - held if held > 0 else None, busy, held, cores)
