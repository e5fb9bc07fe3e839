"""The managed server's lifetime: bound to loopback, stopped with its group, and gone when we are killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from advisor.arms.server import EngineStartError, ManagedServer, ServerConfig, _die_with_parent, _launch
from tests.paths import REPO

pytestmark = pytest.mark.engine


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0); read its state.
    status = Path(f"/proc/{pid}/status")
    return not (status.exists() and "State:\tZ" in status.read_text())


def test_start_health_and_stop(llama_binary: Any, demo_model: Path, tmp_path: Path) -> None:
    server = ManagedServer(llama_binary, ServerConfig(model=demo_model, ctx_size=512), tmp_path)
    with server:
        assert server.base_url.startswith("http://127.0.0.1:")
        assert httpx.get(f"{server.base_url}/health", timeout=5).status_code == 200
        pid = server.pid
        if sys.platform.startswith("linux"):  # the exec shim left the server itself at the pid we signal
            assert Path(f"/proc/{pid}/exe").resolve() == Path(llama_binary.path).resolve()
    assert pid is not None and not server.running
    time.sleep(0.2)
    assert not _alive(pid)
    assert server.log_path.read_text(errors="replace")  # the server log is captured


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signal is Linux-only")
@pytest.mark.parametrize("stopped", [False, True], ids=["running", "sigstopped"])
def test_server_dies_when_spec_advisor_is_killed(demo_model: Path, llama_binary: Any, tmp_path: Path,
                                                 stopped: bool) -> None:
    child = textwrap.dedent(f"""
        import time
        from pathlib import Path
        from advisor.arms.server import EngineStartError, ManagedServer, ServerConfig, _die_with_parent, _launch
        from probes.engines.llamacpp.binary import find_llama_server
        s = ManagedServer(find_llama_server({llama_binary.path!r}),
                          ServerConfig(model=Path({str(demo_model)!r}), ctx_size=512), Path({str(tmp_path)!r}))
        s.start()
        print(s.pid, flush=True)
        time.sleep(120)
    """)
    proc = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, text=True,
                            cwd=REPO)
    assert proc.stdout is not None
    server_pid = int(proc.stdout.readline())
    assert _alive(server_pid)
    if stopped:  # a stopped server would keep a SIGTERM pending forever; the parent-death signal is SIGKILL
        os.kill(server_pid, signal.SIGSTOP)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    deadline = time.monotonic() + 10
    while _alive(server_pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(server_pid), "a killed spec-advisor must not leave its llama-server running"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the exec shim is Linux-only")
def test_the_server_starts_without_forking_us(monkeypatch: pytest.MonkeyPatch) -> None:
    # A preexec function makes CPython fork() the whole process (the window's: a stall at every server start);
    # the shim lets it use vfork. A frozen app has no interpreter for the shim and keeps the preexec function.
    argv, preexec = _launch(["/usr/bin/llama-server", "-m", "x.gguf"])
    assert preexec is None and argv[0] == sys.executable and argv[-3:] == ["/usr/bin/llama-server", "-m", "x.gguf"]
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert _launch(["/usr/bin/llama-server"]) == (["/usr/bin/llama-server"], _die_with_parent)


def test_a_binary_that_cannot_run_is_a_clear_error(demo_model: Path, tmp_path: Path) -> None:
    fake = tmp_path / "llama-server"
    fake.write_text("not a program")  # no execute bit
    binary = type("Binary", (), {"path": str(fake), "dialect": None})()
    server = ManagedServer(binary, ServerConfig(model=demo_model, ctx_size=512), tmp_path)  # type: ignore[arg-type]
    with pytest.raises(EngineStartError, match="not an executable file"):
        server.start()
