"""Run the hostile-input corpus (tests/hostile_cases.py) through the real CLI entry point, one process per case.

    python -m tests.hostile_driver CASES.json RESULTS.json

One interpreter imports `advisor.cli.main` once, then forks a child per case: the child limits its address
space and CPU time (setrlimit), points stdin at /dev/null and stdout/stderr at files (or stdout at a pipe whose
reader is gone, as `| head` leaves it), and exits through `sys.exit(main(argv))` exactly as the console script
does, so interpreter shutdown (flushing stdout, uncaught exceptions and their tracebacks) is real. The parent
kills a child that outlives the case's wall-clock limit; two children run at a time. Forking saves ~0.5 s
of imports per case.
`run_corpus` starts this driver in a fresh subprocess and reads the results back.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# Address space a case may use (the interpreter with the CLI imported takes ~150 MB of it; the sparse-GGUF
# blow-ups of the issue took 2.2 GB). A case that needs more fails with MemoryError: a traceback, a failure.
MEMORY_LIMIT_BYTES = 1536 * 1024 * 1024
WALL_LIMIT_S = 30.0   # per case; the slowest honest case (a GUI screenshot) takes a few seconds
CPU_LIMIT_S = 30      # RLIMIT_CPU: a busy loop dies even if the parent's kill were late
ROOT = Path(__file__).resolve().parent.parent
PARALLEL = 2          # children at a time: the machines this runs on have two cores or more


def _child(argv: list[str], workdir: Path, env: dict[str, str], broken_pipe: bool) -> None:
    """In the forked child: limits, redirections, then the console script's own `sys.exit(main())`."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_LIMIT_S, CPU_LIMIT_S))
    os.chdir(workdir)
    os.environ.clear()
    os.environ.update(env)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    if broken_pipe:
        read_end, write_end = os.pipe()
        os.close(read_end)  # the reader is gone: every write to stdout fails with EPIPE, as after `| head`
        os.dup2(write_end, 1)
    else:
        os.dup2(os.open(workdir / "stdout", os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 1)
    os.dup2(os.open(workdir / "stderr", os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 2)
    sys.argv = ["spec-advisor", *argv]
    from advisor.cli.main import main
    sys.exit(main())  # no try/finally anywhere above: shutdown is the interpreter's own


def _collect(case: dict[str, Any], status: int | None, elapsed: float, timed_out: bool) -> dict[str, Any]:
    workdir = Path(case["dir"])
    code = None if status is None else os.waitstatus_to_exitcode(status)
    out = "" if case.get("broken_pipe") else (workdir / "stdout").read_text(errors="replace")
    err = (workdir / "stderr").read_text(errors="replace")
    changed = [rel for rel, before in case.get("unchanged", {}).items() if digest(workdir / rel) != before]
    return {"id": case["id"], "rc": code if code is None or code >= 0 else None, "seconds": round(elapsed, 3),
            "timed_out": timed_out, "stdout": out[-4000:], "stderr": err[-4000:], "changed": changed}


def digest(path: Path) -> str:
    """A file's bytes as hex SHA-256 ('missing' when it cannot be read): what a case must leave unchanged."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "missing"


def drive(cases: Sequence[dict[str, Any]], parallel: int = PARALLEL) -> list[dict[str, Any]]:
    """Run prepared cases (`argv`, `dir`, `env`, `broken_pipe`, `limit_s`), `parallel` children at a time;
    one result dict per case, in the cases' order."""
    import advisor.cli.main as cli

    cli.build_parser()  # import every command module once, before forking
    if threading.active_count() != 1:
        raise RuntimeError("the driver must not fork with threads running")
    results: dict[int, dict[str, Any]] = {}
    running: dict[int, tuple[int, float]] = {}  # pid → (case index, start)
    todo = list(enumerate(cases))
    while todo or running:
        while todo and len(running) < parallel:
            index, case = todo.pop(0)
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                _child(case["argv"], Path(case["dir"]), case["env"], case.get("broken_pipe", False))
            running[pid] = (index, time.monotonic())
        for pid, (index, start) in list(running.items()):
            case = cases[index]
            done, status = os.waitpid(pid, os.WNOHANG)
            elapsed = time.monotonic() - start
            if done:
                results[index] = _collect(case, status, elapsed, False)
            elif elapsed > case.get("limit_s", WALL_LIMIT_S):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                results[index] = _collect(case, None, elapsed, True)
            else:
                continue
            del running[pid]
        time.sleep(0.01)
    return [results[i] for i in range(len(cases))]


def run_corpus(cases: Sequence[dict[str, Any]], timeout_s: float = 600.0) -> list[dict[str, Any]]:
    """Start this driver in a fresh interpreter (the worktree first on the path) and return its results."""
    with tempfile.TemporaryDirectory(prefix="spec-hostile-io-") as tmp:
        todo, done = Path(tmp) / "cases.json", Path(tmp) / "results.json"
        todo.write_text(json.dumps(list(cases)))
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        proc = subprocess.run([sys.executable, "-m", "tests.hostile_driver", str(todo), str(done)], cwd=ROOT,
                              env=env, capture_output=True, text=True, timeout=timeout_s)
        if proc.returncode != 0:
            raise RuntimeError(f"hostile driver exited {proc.returncode}: {proc.stderr[-2000:]}")
        return list(json.loads(done.read_text()))


if __name__ == "__main__":
    _cases = json.loads(Path(sys.argv[1]).read_text())
    Path(sys.argv[2]).write_text(json.dumps(drive(_cases)))
