"""Engine threads under load: demo decode speed with one thread fewer than the cores, against one per core,
while a bounded CPU hog holds one core (the choice advisor/arms/threads.py makes on a busy machine).

    .venv/bin/python -m bench.engine_threads [--requests 3] [--max-tokens 96]

`engine_threads_under_load` is the median decode tok/s at `-t cores-1` divided by the median at `-t cores`, both
under the hog (> 1: the fewer threads are faster). The same server at `-t cores` without the hog is reported
beside it, so the slowdown the hog causes is visible too. Each server gets one warm-up request outside the set.
"""

from __future__ import annotations

import os
import statistics
from typing import Any

from bench.common import LONG_PROMPTS, EngineMissing, client_tok_s, demo_server, requests_main
from bench.cpu_hog import cpu_hog
from probes.engines.llamacpp.adapter import LlamaCppAdapter

KEY = "engine_threads_under_load"
KEYS = (KEY,)


def _tok_s(threads: int, requests: int, max_tokens: int) -> list[float]:
    """Decode tok/s (client clock) of `requests` greedy requests to a fresh demo server at `-t threads`."""
    out: list[float] = []
    with demo_server(f"threads-{threads}", threads=threads) as server:
        adapter = LlamaCppAdapter(server.base_url, timeout_s=300.0, idle_timeout_s=300.0)
        try:
            adapter.complete("Hello", max_tokens=4)  # warm-up, outside the measured set
            for i in range(requests):
                reply = adapter.complete(LONG_PROMPTS[i % len(LONG_PROMPTS)], max_tokens=max_tokens, seed=i)
                rate = client_tok_s(reply)
                if rate:  # None or 0: the reply ended before two bursts
                    out.append(rate)
        finally:
            adapter.close()
    return out


def measure(requests: int = 3, max_tokens: int = 96) -> dict[str, Any]:
    """The figure, its note and the per-setting medians (tok/s)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if cores < 2:
        return {KEY: None, f"{KEY}_note": f"not measured: {cores} core, none to take away"}
    try:
        alone = _tok_s(cores, requests, max_tokens)
        with cpu_hog(limit_s=900.0):
            loaded_all = _tok_s(cores, requests, max_tokens)
            loaded_fewer = _tok_s(cores - 1, requests, max_tokens)
    except EngineMissing as exc:
        return {KEY: None, f"{KEY}_note": f"not measured: {exc}"}
    if not (alone and loaded_all and loaded_fewer):
        return {KEY: None, f"{KEY}_note": "not measured: a request produced no decode timing"}
    med = {name: statistics.median(v) for name, v in
           (("alone", alone), ("loaded_all", loaded_all), ("loaded_fewer", loaded_fewer))}
    return {KEY: round(med["loaded_fewer"] / med["loaded_all"], 3),
            f"{KEY}_note": (f"demo model, {requests} requests of {max_tokens} tokens each: -t {cores} alone "
                            f"{med['alone']:.1f} tok/s; with a hog on one core -t {cores} {med['loaded_all']:.1f} "
                            f"and -t {cores - 1} {med['loaded_fewer']:.1f} tok/s (medians)"),
            "engine_threads_tok_s": {k: round(v, 2) for k, v in med.items()}}


def main(argv: list[str] | None = None) -> int:
    return requests_main(__doc__ or "", measure, 3, 96, argv)


if __name__ == "__main__":
    raise SystemExit(main())
