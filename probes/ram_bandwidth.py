"""Measured RAM copy bandwidth: memcpy on one thread per physical core, best of a few passes.

Sizes and repeats (why):
- Each array (source and destination) is 1.5 × the last-level cache (LLC), at least 32 MiB and at most 256 MiB,
  so one pass streams 3 × LLC or more: what the previous pass left in the cache can serve at most a third of
  it, and nothing under LRU-like replacement, which evicts a line before a cyclic sweep comes back to it.
  STREAM asks 4 × the cache per array: 2 × 128 MiB on this project's 32 MiB-L3 machine, where this measurement
  used to peak at 550 MiB; 1.5 × keeps `probe_host` near 125 MiB. Measured there (2-core EPYC VM): 32 MiB
  arrays (2 × LLC streamed) read ~15 % above 40-64 MiB arrays, which agree within a few per cent, so 1.5 ×
  is past the cache's cliff. Against 48 MiB, larger arrays read lower still on a quiet machine (-10 % at 96,
  -30 % at 256 MiB), yet +15 % at 512 MiB, where a thread's slice passes glibc's non-temporal-store threshold
  (240 MiB there): a copy figure depends on the libc's store strategy as much as on the cache, so read it as
  an estimate to ±30 %.
- The copy is libc's memmove through ctypes, which releases the GIL, so the threads copy their slices in
  parallel as numpy's copyto did, without importing numpy (~0.1 s of `spec-advisor probe`'s start). The
  buffers are private anonymous maps with transparent huge pages asked for, as numpy asks for its large
  arrays: on 4 KiB pages the same copy read 3-4 × lower on this project's VM (TLB misses, not memory).
- One untimed pass first: it faults the destination's pages in and starts the threads.
- Then up to 10 timed passes (STREAM's NTIMES), at least 3, until `budget_s` is spent; the best pass counts,
  as in STREAM: on a shared machine the slower passes are other work, not the memory.
"""

from __future__ import annotations

import ctypes
import itertools
import math
import mmap
import os
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass

import psutil

MIB = 1024**2
ASSUMED_LLC_MIB = 32  # when the OS does not say: the largest common desktop L3 that is not stacked cache
MIN_BUFFER_MIB, MAX_BUFFER_MIB = 32, 256
LLC_FACTOR = 1.5
MAX_THREADS = 8  # llama.cpp decodes with a handful of threads; more cores add little bandwidth


@dataclass(frozen=True, slots=True)
class RamBandwidth:
    """Best observed copy bandwidth: (bytes read + bytes written) / seconds, in GB/s (10^9)."""

    gbs: float
    buffer_mib: int  # size of each of the two arrays
    threads: int
    repeats: int  # timed passes
    elapsed_s: float  # allocation, warm-up and timed passes
    llc_mib: int | None = None  # the last-level cache the size was chosen from (None: not known, assumed)


def buffer_mib_for(llc_mib: int | None, free_gib: float | None) -> int:
    """Array size for a cache of `llc_mib` (see the module notes), and at most 1/8 of free RAM per array."""
    want = math.ceil(LLC_FACTOR * (llc_mib or ASSUMED_LLC_MIB))
    size = min(MAX_BUFFER_MIB, max(MIN_BUFFER_MIB, want))
    if free_gib is not None:
        size = min(size, int(free_gib * 1024 / 8))
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


Slice = tuple[int, int, int]  # source address, destination address, bytes


def _copy_pass(slices: list[Slice], pool: ThreadPoolExecutor | None) -> float:
    started = time.perf_counter()
    if pool is None:
        for src, dst, size in slices:
            ctypes.memmove(dst, src, size)
    else:
        # ctypes releases the GIL around the call, so the slices are copied truly in parallel.
        list(pool.map(lambda s: ctypes.memmove(s[1], s[0], s[2]), slices))
    return time.perf_counter() - started


def measure_ram_bandwidth(buffer_mib: int | None = None, threads: int | None = None, budget_s: float = 0.25,
                          max_repeats: int = 10, llc_mib: int | None = None) -> RamBandwidth:
    """Copy a `buffer_mib` buffer into another, best of up to `max_repeats` passes within about `budget_s`."""
    started = time.perf_counter()
    size = buffer_mib or buffer_mib_for(llc_mib, None)
    threads = threads or default_threads()
    n = size * MIB
    src, dst = _buffer(n), _buffer(n)
    base_src, base_dst = (ctypes.addressof(ctypes.c_char.from_buffer(b)) for b in (src, dst))
    ctypes.memset(base_src, 1, n)  # written now, so every page is real (untouched pages all map one zero page)
    bounds = [n * i // threads // 64 * 64 for i in range(threads)] + [n]  # cache-line aligned slices
    slices = [(base_src + a, base_dst + a, b - a) for a, b in itertools.pairwise(bounds)]
    best = math.inf
    repeats = 0
    with ThreadPoolExecutor(threads) if threads > 1 else nullcontext() as pool:
        _copy_pass(slices, pool)  # untimed: faults dst's pages in, starts the threads
        timed_from = time.perf_counter()
        while repeats < max_repeats and (repeats < 3 or time.perf_counter() - timed_from < budget_s):
            best = min(best, _copy_pass(slices, pool))
            repeats += 1
    moved = 2 * n  # every byte is read once and written once
    return RamBandwidth(round(moved / best / 1e9, 2), size, threads, repeats,
                        round(time.perf_counter() - started, 3), llc_mib)
