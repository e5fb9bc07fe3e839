"""A bounded CPU hog: one busy process pinned to one core, for benchmarks of a check on a machine that does
other work (issue 24: a browser, a build). It stops itself at its deadline even if nobody stops it, and
`cpu_hog()` stops it on the way out."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator

# The child: pin itself to one core (where the OS lets it), then spin until its deadline (seconds, monotonic
# from its start), checking the clock now and then.
_SPIN = ("import contextlib, os, time\n"
         "with contextlib.suppress(AttributeError, OSError):\n    os.sched_setaffinity(0, {{{core}}})\n"
         "end = time.monotonic() + {limit}\nwhile time.monotonic() < end:\n    sum(range(10000))\n")


@contextlib.contextmanager
def cpu_hog(limit_s: float) -> Iterator[subprocess.Popen[bytes]]:
    """Run the hog for at most `limit_s` seconds; yields its process, stops it when the block ends."""
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else [0]
    core = cores[-1]
    proc = subprocess.Popen([sys.executable, "-c", _SPIN.format(core=core, limit=float(limit_s))],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
