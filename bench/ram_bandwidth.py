"""How stable the RAM-bandwidth probe is: 10 fresh probes, the spread of their figures.

    .venv/bin/python -m bench.ram_bandwidth [--probes 10]

Each probe is a new interpreter that runs `probe_host()`'s own measurement (cache size from the OS, buffer
sized from it and from free RAM, median of its passes), so every probe allocates and first-touches its
buffers afresh, as `spec-advisor probe` and `check` do. `ram_bandwidth_cv` is the standard deviation of the
probes' figures ÷ their mean (issue 27: the old probe read 11.5 to 43.6 GB/s on one machine, a cv near 0.5).
The details keep every probe's figure, its passes' own cv, the buffer and the cache it was sized from.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
from typing import Any

from bench.common import PYTHON, REPO, stop_cleanly_on_sigterm, tail

KEY = "ram_bandwidth_cv"
KEYS = (KEY,)
# One probe in a fresh process: the figure and its details as JSON on stdout.
_PROBE = ("import json; from probes.host import probe_host; from probes.serialize import as_dict; "
          "print(json.dumps(as_dict(probe_host()).get('ram_bandwidth')))")


def one_probe(timeout_s: float = 60.0) -> dict[str, Any]:
    """The `ram_bandwidth` block of one fresh process's host probe; RuntimeError naming what went wrong."""
    done = subprocess.run([PYTHON, "-c", _PROBE], capture_output=True, text=True, timeout=timeout_s, cwd=REPO,
                          check=False)
    if done.returncode != 0:
        raise RuntimeError(f"probe exited {done.returncode}: {tail(done.stderr)}")
    block = json.loads(done.stdout.strip().splitlines()[-1])
    if not isinstance(block, dict) or not isinstance(block.get("gbs"), int | float):
        raise RuntimeError(f"no bandwidth figure: {block}")
    return block


def summarise(blocks: list[dict[str, Any]]) -> dict[str, Any]:
    """The cv over the probes (stdev ÷ mean of their `gbs`), its note and every probe's details."""
    figures = [float(b["gbs"]) for b in blocks]
    mean = statistics.fmean(figures)
    cv = statistics.stdev(figures) / mean if len(figures) > 1 and mean > 0 else None
    first, passes = blocks[0], sorted(int(b.get("repeats") or 0) for b in blocks)
    note = (f"{len(figures)} fresh probes: {min(figures):.1f}-{max(figures):.1f} GB/s, median "
            f"{statistics.median(figures):.1f}; each the median of {passes[0]}-{passes[-1]} passes over "
            f"2 × {first.get('buffer_mib')} MiB (LLC {first.get('llc_mib')} MiB, {first.get('threads')} threads)")
    return {KEY: None if cv is None else round(cv, 4), f"{KEY}_note": note if cv is not None else
            f"not measured: {len(figures)} probe(s), a spread needs two", "ram_bandwidth_probes": blocks}


def measure(probes: int = 10) -> dict[str, Any]:
    """`ram_bandwidth_cv` of `probes` fresh probes (a failed probe makes the figure null with its reason)."""
    blocks: list[dict[str, Any]] = []
    for _ in range(probes):
        try:
            blocks.append(one_probe())
        except (RuntimeError, ValueError, subprocess.TimeoutExpired) as exc:
            return {KEY: None, f"{KEY}_note": f"not measured: probe {len(blocks) + 1} of {probes} failed: {exc}"}
    return summarise(blocks)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--probes", type=int, default=10)
    args = ap.parse_args(argv)
    stop_cleanly_on_sigterm()
    print(json.dumps(measure(args.probes), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
