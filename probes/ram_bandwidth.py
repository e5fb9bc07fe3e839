"""Measured RAM read bandwidth: memcmp of two equal buffers on one thread per physical core, median of passes.

Why each choice (measured on this project's 2-core Xeon VM, whose OS reports a 480 MiB L3):
- Reads, not a copy. A decoding model reads its weights; a copy's figure depends on the libc's store strategy
  as much as on the memory: memmove read ~26 GB/s (read + write) with 128-256 MiB arrays and ~46 GB/s with
  512 MiB ones, where each thread's slice passed glibc's non-temporal-store threshold. memcmp of two equal
  buffers must read every byte of both and writes nothing: 35 GB/s at 256, 512 and 1024 MiB alike.
- Each array is 2 × the last-level cache (LLC), at least 64 MiB and at most 256 MiB, and at most 1/8 of free
  RAM, so one pass streams 4 × LLC and what one pass leaves in the cache cannot serve the next (an LRU-like
  cache evicts a line before a cyclic sweep comes back to it). The old 48 MiB arrays against a 32 MiB cache
  read 11.5 to 43.6 GB/s on one machine (issue 27): part of each pass came from the cache. Where the OS does
  not say, the cache is assumed to be 32 MiB. The cap is for time: on the VM, first-touching 2 × 512 MiB took
  1.3-3 s against 0.3 s for the whole probe at 2 × 256 MiB, while 256, 512 and 1024 MiB arrays read alike
  there (the 480 MiB the VM reports is the socket's L3, shared with other guests), so a server's large LLC
  costs nothing measurable by the cap; a pass still streams at least 512 MiB.
- The compare is libc's memcmp through ctypes, which releases the GIL, so the threads read their slices in
  parallel without numpy. The buffers are private anonymous maps with transparent huge pages asked for: on
  4 KiB pages the earlier copy read 3-4 × lower on this project's VM (TLB misses, not memory). Both are written first,
  so every page is real (untouched pages all map one shared zero page, which the cache would serve).
- One untimed pass first (it starts the threads), then at least 5 timed passes, up to 15, until `budget_s`
  is spent. The figure is the median pass: the best pass rewards a lucky moment and the mean punishes one
  slow one. The spread of the passes (their coefficient of variation) is kept beside it, with every pass.
"""

from __future__ import annotations

import ctypes
import itertools
import math
import mmap
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from functools import cache
from typing import Any

import psutil

MIB = 1024**2
ASSUMED_LLC_MIB = 32  # when the OS does not say: the largest common desktop L3 that is not stacked cache
MIN_BUFFER_MIB, MAX_BUFFER_MIB = 64, 256
LLC_FACTOR = 2  # each of two arrays: one pass streams 4 × the cache, as STREAM asks of its arrays
FREE_RAM_SHARE = 8  # each array at most 1/8 of free RAM: the probe never pushes a busy machine into swap
MIN_PASSES, MAX_PASSES = 5, 15
MAX_THREADS = 8  # llama.cpp decodes with a handful of threads; more cores add little bandwidth


@dataclass(frozen=True, slots=True)
class RamBandwidth:
    """Median read bandwidth over the timed passes: bytes read / seconds, in GB/s (10^9)."""

    gbs: float
    buffer_mib: int  # size of each of the two arrays
    threads: int
    repeats: int  # timed passes
    elapsed_s: float  # allocation, warm-up and timed passes
    llc_mib: int | None = None  # the last-level cache the size was chosen from (None: not known, assumed)
    cv: float | None = None  # spread of the passes: standard deviation ÷ mean (None: one pass)
    best_gbs: float | None = None  # the fastest pass
    pass_gbs: tuple[float, ...] = ()  # every timed pass, in order
    method: str = "read"  # "read": memcmp of two equal buffers (older evidence: a copy, read + write)


def buffer_mib_for(llc_mib: int | None, free_gib: float | None) -> int:
    """Array size for a cache of `llc_mib` (see the module notes), and at most 1/8 of free RAM per array."""
    want = math.ceil(LLC_FACTOR * (llc_mib or ASSUMED_LLC_MIB))
    size = min(MAX_BUFFER_MIB, max(MIN_BUFFER_MIB, want))
    if free_gib is not None:
        size = min(size, int(free_gib * 1024 / FREE_RAM_SHARE))
    return max(8, size)


def default_threads() -> int:
    """One thread per physical core, up to MAX_THREADS: a single core cannot saturate several memory channels."""
    cores = psutil.cpu_count(logical=False) or os.cpu_count() or 1
    return max(1, min(MAX_THREADS, cores))


def _buffer(n: int) -> mmap.mmap:
    """`n` bytes of private anonymous memory, on huge pages where the OS offers them."""
    if hasattr(mmap, "MAP_PRIVATE"):  # POSIX; the default there is a shared map, which THP does not back
        buf = mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    else:
        buf = mmap.mmap(-1, n)
    if hasattr(mmap, "MADV_HUGEPAGE"):
        buf.madvise(mmap.MADV_HUGEPAGE)
    return buf


@cache
def _memcmp() -> Any:
    """libc's memcmp (msvcrt's on Windows); a CDLL call releases the GIL, so threads run it in parallel."""
    lib = ctypes.cdll.msvcrt if sys.platform == "win32" else ctypes.CDLL(None)  # the C library already loaded
    fn = lib.memcmp
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
    return fn


Slice = tuple[int, int, int]  # first buffer's address, second buffer's address, bytes


def _read_pass(slices: list[Slice], pool: ThreadPoolExecutor | None) -> float:
    memcmp = _memcmp()
    started = time.perf_counter()
    if pool is None:
        for a, b, size in slices:
            memcmp(a, b, size)
    else:
        list(pool.map(lambda s: memcmp(s[0], s[1], s[2]), slices))
    return time.perf_counter() - started


def measure_ram_bandwidth(buffer_mib: int | None = None, threads: int | None = None, budget_s: float = 0.2,
                          max_repeats: int = MAX_PASSES, llc_mib: int | None = None,
                          min_repeats: int = MIN_PASSES) -> RamBandwidth:
    """Read two equal `buffer_mib` buffers side by side: the median of `min_repeats` to `max_repeats` passes,
    as many as fit in about `budget_s` seconds."""
    started = time.perf_counter()
    size = buffer_mib or buffer_mib_for(llc_mib, None)
    threads = threads or default_threads()
    n = size * MIB
    first, second = _buffer(n), _buffer(n)
    base_a, base_b = (ctypes.addressof(ctypes.c_char.from_buffer(b)) for b in (first, second))
    ctypes.memset(base_a, 1, n)  # equal bytes, so memcmp reads both to the end; written, so every page is real
    ctypes.memset(base_b, 1, n)
    bounds = [n * i // threads // 64 * 64 for i in range(threads)] + [n]  # cache-line aligned slices
    slices = [(base_a + a, base_b + a, b - a) for a, b in itertools.pairwise(bounds)]
    times: list[float] = []
    with ThreadPoolExecutor(threads) if threads > 1 else nullcontext() as pool:
        _read_pass(slices, pool)  # untimed: starts the threads
        timed_from = time.perf_counter()
        while len(times) < max_repeats and (len(times) < min_repeats or time.perf_counter() - timed_from < budget_s):
            times.append(_read_pass(slices, pool))
    moved = 2 * n  # both buffers are read once per pass
    passes = tuple(round(moved / t / 1e9, 2) for t in times)
    cv = statistics.stdev(passes) / statistics.fmean(passes) if len(passes) > 1 else None
    return RamBandwidth(round(statistics.median(passes), 2), size, threads, len(passes),
                        round(time.perf_counter() - started, 3), llc_mib,
                        round(cv, 4) if cv is not None else None, max(passes), passes)
