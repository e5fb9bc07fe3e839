"""Start and stop a managed `llama-server` on 127.0.0.1: free port, health wait, captured log, clean stop.

The server always runs in its own process group, and `stop()` ends the whole group (TERM, then KILL), on
errors and Ctrl-C too, so no stray server keeps a port or the GPU busy after a run.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import signal
import socket
import subprocess
import sys
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

import httpx

from advisor.arms.modelfile import require_gguf
from advisor.errors import UserError
from advisor.recommend.dialect import ENGINE_ENV_PREFIX
from advisor.recommend.llamacpp import DraftPlacement, SpecSettings, UnsupportedSpec
from advisor.recommend.llamacpp import spec_args as llamacpp_spec_args
from probes.engines.http import make_client, status_of
from probes.engines.llamacpp.binary import FlagDialect, LlamaServerBinary
from probes.engines.llamacpp.placement import PLACEMENT_VERBOSITY, Placement, read_placement

log = logging.getLogger(__name__)

LOOPBACK = "127.0.0.1"
_LIVE: weakref.WeakSet[ManagedServer] = weakref.WeakSet()


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """One engine configuration (an arm of the comparison)."""

    model: Path
    spec_type: str | None = None        # None or "none": speculation off
    draft_model: Path | None = None
    draft_max: int | None = None        # γ; None keeps the engine default
    synth_len: float | None = None      # synthetic acceptance (the tuner's cost surface only)
    n_match: int | None = None          # ngram-mod lookup length in tokens; None keeps the engine default
    p_min: float | None = None          # draft models: --spec-draft-p-min; None keeps the engine default
    draft_placement: DraftPlacement | None = None  # where the draft runs (-ngld, -devd, -cd, -ctkd/-ctvd)
    ctx_size: int = 4096
    parallel: int = 1                   # slots; 1 keeps single-user measurements clean
    threads: int | None = None
    extra_args: tuple[str, ...] = field(default_factory=tuple)
    label: str = "server"

    @property
    def spec_on(self) -> bool:
        """True when this configuration asks for speculative decoding."""
        return bool(self.spec_type and self.spec_type != "none") or self.draft_model is not None


def free_port() -> int:
    """A TCP port that was free on loopback a moment ago (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((LOOPBACK, 0))
        return int(s.getsockname()[1])


def spec_settings(config: ServerConfig) -> SpecSettings | None:
    """The speculation `config` asks for (None: speculation off)."""
    if not config.spec_on:
        return None
    method = config.spec_type if config.spec_type and config.spec_type != "none" else "draft-simple"
    return SpecSettings(method=method, draft_model=str(config.draft_model) if config.draft_model else None,
                        draft_max=config.draft_max, synth_len=config.synth_len,
                        placement=config.draft_placement, n_match=config.n_match, p_min=config.p_min)


def spec_args(config: ServerConfig, dialect: FlagDialect | None) -> list[str]:
    """The speculative-decoding flags in the binary's own dialect (advisor/recommend/llamacpp.py builds them,
    the same builder the recommendation uses); a flag the binary lacks is a UserError, never sent."""
    settings = spec_settings(config)
    if settings is None:
        return []
    try:
        return llamacpp_spec_args(settings, dialect)
    except UnsupportedSpec as exc:
        hint = f"supported: {', '.join(dialect.spec_types)}" if dialect and dialect.spec_types else ""
        raise UserError(str(exc), hint=hint) from exc


def build_argv(binary: LlamaServerBinary, config: ServerConfig, port: int,
               spec: Sequence[str] | None = None) -> list[str]:
    """Full command line for `config` on `port`, bound to loopback only (`spec`: its speculative flags,
    when the caller already built them with `spec_args`)."""
    dialect = binary.dialect if isinstance(binary.dialect, FlagDialect) else None
    argv = [
        binary.path, "-m", str(config.model), "--host", LOOPBACK, "--port", str(port),
        "-c", str(config.ctx_size), "-np", str(config.parallel),
    ]
    if dialect is None or dialect.has_metrics_flag:
        argv.append("--metrics")
    if dialect is None or dialect.knows("--cache-ram"):
        # The host prompt cache saves and restores whole prompts across requests: it adds copy time to
        # prompt_ms (distorting the verify curve) and is a cross-request warm cache the A/B must not have.
        argv += ["--cache-ram", "0"]
    if dialect is None or dialect.knows("--poll"):
        # Both arms run side by side; an idle server whose threads poll for work steals the cores the busy one
        # needs (seen here: 0.4 tok/s next to a polling idle server vs ~75 tok/s with --poll 0). Same for both
        # arms, so the comparison stays fair.
        argv += ["--poll", "0"]
    if dialect is None or dialect.knows("-lv"):
        # Verbosity 4 is the first that logs where the layers and buffers landed (about 14 KB at start-up, ~35
        # bytes per generated token): the placement facts are read from it (probes/engines/llamacpp/placement.py).
        argv += ["-lv", str(PLACEMENT_VERBOSITY)]
    if config.threads:
        argv += ["-t", str(config.threads)]
    return argv + list(spec if spec is not None else spec_args(config, dialect)) + list(config.extra_args)


def _engine_environment() -> dict[str, str]:
    """This process's environment without llama-server's LLAMA_ARG_* option variables: every option a managed
    server gets is on its command line, where the check set or vetted it (advisor/run/passthrough.py)."""
    return {k: v for k, v in os.environ.items() if not k.startswith(ENGINE_ENV_PREFIX)}


def _die_with_parent() -> None:
    """In the child before exec (Linux): SIGKILL when our process dies, even by SIGKILL or OOM.

    The server runs in its own session so `stop()` can end its group; that also cuts it loose from us, so
    without this a killed spec-advisor would leave servers running forever. The signal is tied to the thread
    that started the server, which is the thread that also stops it. SIGKILL, not SIGTERM: a server that
    was stopped (SIGSTOP, a debugger) would hold a SIGTERM pending forever; our normal stop() still asks
    politely first, so this only fires when nobody is left to do that.
    """
    import ctypes

    pr_set_pdeathsig = 1
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)


# The death signal is set by a small exec shim, not by `preexec_fn`: a preexec function makes CPython fork()
# the whole process instead of vfork() (the window's ~430 MB: 8 ms with the GIL held on an idle machine, tens
# of ms on busy cores — a frozen window at every server start), and runs Python in a forked copy of a
# threaded process. The shim is a fresh interpreter (-I -S: no site, no user paths, ~10 ms in the child):
# it asks for SIGKILL on the death of the thread that started it, gives up if we died before that, and
# execs the server (same pid, so `stop()` signals the server itself).
_SHIM = """
import ctypes, os, signal, sys
ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
if os.getppid() != int(sys.argv[1]):
    os._exit(70)
try:
    os.execv(sys.argv[2], sys.argv[2:])
except OSError as exc:
    print(f"cannot run {sys.argv[2]}: {exc.strerror}", file=sys.stderr)
    os._exit(127)
"""


def _launch(argv: Sequence[str]) -> tuple[list[str], Callable[[], None] | None]:
    """The argv to start and the preexec function (None where vfork can be used) for a server that dies with
    us: through the shim on Linux; a frozen app (no interpreter to run the shim) keeps `preexec_fn`."""
    if not sys.platform.startswith("linux"):
        return list(argv), None
    if getattr(sys, "frozen", False) or not sys.executable:
        return list(argv), _die_with_parent
    return [sys.executable, "-I", "-S", "-c", _SHIM, str(os.getpid()), *argv], None


class EngineStartError(UserError):
    """The managed server did not come up; the message carries the end of its log."""


class ManagedServer:
    """A llama-server process we own. Use as a context manager; `stop()` is idempotent."""

    def __init__(self, binary: LlamaServerBinary, config: ServerConfig, log_dir: Path) -> None:
        self.binary = binary
        self.config = config
        self.port = free_port()
        self.base_url = f"http://{LOOPBACK}:{self.port}"
        dialect = binary.dialect if isinstance(binary.dialect, FlagDialect) else None
        self.spec_argv = tuple(spec_args(config, dialect))  # recorded: the recommendation repeats exactly these
        self.argv = build_argv(binary, config, self.port, self.spec_argv)
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = log_dir / f"llama-server-{config.label}-{self.port}.log"
        self._proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout_s: float = 120.0) -> ManagedServer:
        """Launch and wait until `/health` answers 200 (503 means still loading)."""
        require_gguf(self.config.model, "model")
        log.info("starting %s", " ".join(self.argv))
        if not os.access(self.argv[0], os.X_OK):
            raise EngineStartError(f"cannot run {self.argv[0]}: not an executable file")
        argv, preexec = _launch(self.argv)
        with open(self.log_path, "ab") as log_file:
            self._proc = subprocess.Popen(
                argv, stdout=log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True,  # own process group: stop() can end children too
                preexec_fn=preexec,
                env=_engine_environment(),
            )
        _LIVE.add(self)
        try:
            self._wait_healthy(timeout_s)
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_healthy(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        with make_client(self.base_url, 2.0) as client:
            while time.monotonic() < deadline:
                if self._proc is not None and self._proc.poll() is not None:
                    raise EngineStartError(
                        f"llama-server exited with code {self._proc.returncode} while starting",
                        hint=f"its log ends with:\n{self.log_tail()}",
                    )
                with contextlib.suppress(httpx.HTTPError):
                    if status_of(client, f"{self.base_url}/health") == 200:
                        return
                time.sleep(0.2)
        raise EngineStartError(
            f"llama-server did not become healthy within {timeout_s:.0f} s",
            hint=f"its log ends with:\n{self.log_tail()}",
        )

    @property
    def running(self) -> bool:
        """True while the process is alive."""
        return self._proc is not None and self._proc.poll() is None

    @property
    def died(self) -> int | None:
        """The exit status when the process ended without `stop()` (a crash or a kill: -9 is SIGKILL), else None."""
        return self._proc.poll() if self._proc is not None else None

    def died_within(self, timeout_s: float) -> int | None:
        """`died`, waiting up to `timeout_s` for a process that may be dying: a SIGKILLed server resets its
        connections a moment before it can be reaped, so a failed request can arrive before `poll` knows."""
        deadline = time.monotonic() + timeout_s
        while (code := self.died) is None and self._proc is not None and time.monotonic() < deadline:
            time.sleep(0.05)
        return code

    @property
    def pid(self) -> int | None:
        """Process id, or None before start."""
        return self._proc.pid if self._proc else None

    def stop(self, grace_s: float = 5.0) -> None:
        """End the whole process group: SIGTERM, then SIGKILL after `grace_s`."""
        proc, self._proc = self._proc, None
        _LIVE.discard(self)
        if proc is None or proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=grace_s)

    def kill(self) -> None:
        """SIGKILL without grace (fault-injection tests use this to simulate a crash)."""
        if self._proc is not None and self._proc.poll() is None:
            os.killpg(self._proc.pid, signal.SIGKILL)
            self._proc.wait(timeout=5)

    def placement(self) -> Placement:
        """Where this server put the target (and draft), read from the last start in its load log."""
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            text = ""
        return read_placement(text, self.argv)

    def log_tail(self, lines: int = 15) -> str:
        """Last `lines` lines of the server log."""
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def __enter__(self) -> ManagedServer:
        return self.start() if self._proc is None else self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


@atexit.register
def _stop_all() -> None:
    # Last line of defence: a crash in our process must not leave servers running.
    for server in list(_LIVE):
        with contextlib.suppress(Exception):
            server.stop(grace_s=2.0)
