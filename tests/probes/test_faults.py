"""Faults the adapter must turn into clear EngineErrors: a hung stream, HTTP 5xx, a server killed mid-stream,
connection refused. The hang and the 5xx come from a tiny loopback server (a fault injector, not an engine);
the kill is done to a real llama-server."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from advisor.arms.server import ManagedServer, free_port
from probes.engines.base import EngineError
from probes.engines.llamacpp.adapter import LlamaCppAdapter


class _Faulty(BaseHTTPRequestHandler):
    mode = "hang"

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.mode == "5xx":
            self.send_response(500)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"error": {"code": 500, "message": "out of memory"}}')
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self.wfile.write(b'data: {"content": "Hi", "stop": false}\n\n')
        self.wfile.flush()
        time.sleep(3.0)  # then nothing: a hung engine

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def faulty() -> Iterator[tuple[ThreadingHTTPServer, type[_Faulty]]]:
    handler = type("Handler", (_Faulty,), {})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server, handler
    finally:
        server.shutdown()
        server.server_close()


def test_hung_stream_times_out(faulty: tuple[ThreadingHTTPServer, type[_Faulty]]) -> None:
    server, handler = faulty
    handler.mode = "hang"
    adapter = LlamaCppAdapter(f"http://127.0.0.1:{server.server_address[1]}", idle_timeout_s=0.5)
    with pytest.raises(EngineError) as err:
        adapter.complete("x", max_tokens=8)
    assert err.value.kind == "timeout" and "sent nothing" in str(err.value)


def test_http_500_is_reported(faulty: tuple[ThreadingHTTPServer, type[_Faulty]]) -> None:
    server, handler = faulty
    handler.mode = "5xx"
    adapter = LlamaCppAdapter(f"http://127.0.0.1:{server.server_address[1]}")
    with pytest.raises(EngineError) as err:
        adapter.complete("x", max_tokens=8)
    assert err.value.kind == "http-5xx" and "500" in str(err.value)


def test_connection_refused() -> None:
    adapter = LlamaCppAdapter(f"http://127.0.0.1:{free_port()}")
    with pytest.raises(EngineError) as err:
        adapter.complete("x", max_tokens=8)
    assert err.value.kind == "unreachable"


@pytest.mark.engine
def test_engine_killed_mid_stream(llama_binary, demo_model, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from advisor.arms.server import ServerConfig

    server = ManagedServer(llama_binary, ServerConfig(model=demo_model, threads=2, label="victim"), tmp_path)
    with server:
        adapter = LlamaCppAdapter(server.base_url, idle_timeout_s=10)
        killer = threading.Timer(0.5, server.kill)
        killer.start()
        try:
            with pytest.raises(EngineError) as err:
                # A raw counting prompt keeps a small model generating far past the kill.
                adapter.complete("1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,", max_tokens=4000)
        finally:
            killer.cancel()
            # kill() reaps the process in the killer thread; while that thread holds Popen's wait lock,
            # poll() from here returns None ("running"). Join first so the check sees the reaped process.
            killer.join(timeout=10)
        assert not killer.is_alive()
        assert err.value.kind in ("stream-broken", "unreachable")
        assert not server.running
