"""A loopback proxy in front of a speculating llama-server that makes it lossy on purpose (issue 24 item 1).

Every streamed `/completion` is passed through with its real timings, except that one token the model was sure
of is replaced: the proxy first asks the speculation-off server (`oracle`, which returns probabilities) for the
greedy reply with `n_probs`, picks the first token after the first few with probability ≥ `sure`, and writes
`REPLACEMENT` in its place in the speculating server's stream. Everything else (GET /props, /slots, /metrics,
tokenize, …) is forwarded untouched, so the check attaches to it as to any server.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

REPLACEMENT = " zebra"


def _sure_offset(oracle: str, body: dict[str, Any], sure: float) -> tuple[int, str] | None:
    """(character offset, text) of the first token at index ≥ 2 that the OFF model gives probability ≥ `sure`."""
    ask = {**body, "stream": False, "n_probs": 1}
    doc = httpx.post(f"{oracle}/completion", json=ask, timeout=120).json()
    offset = 0
    for i, entry in enumerate(doc.get("completion_probabilities") or []):
        text = entry.get("token", "")
        if i >= 2 and text.strip() and entry.get("logprob", -math.inf) >= math.log(sure) and text != REPLACEMENT:
            return offset, text
        offset += len(text)
    return None


class _Handler(BaseHTTPRequestHandler):
    upstream = ""
    oracle = ""
    sure = 0.9
    replaced: list[str]

    def log_message(self, *args: object) -> None:  # quiet: the test prints what it needs
        pass

    def _forward(self, method: str) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        data = self.rfile.read(length) if length else b""
        if method == "POST" and self.path == "/completion":
            body = json.loads(data or b"{}")
            if body.get("stream") and int(body.get("n_predict", 0)) > 1:
                self._lossy_stream(body)
                return
        resp = httpx.request(method, f"{self.upstream}{self.path}", content=data, timeout=120,
                             headers={"Content-Type": self.headers.get("Content-Type", "application/json")})
        self.send_response(resp.status_code)
        self.send_header("Content-Type", resp.headers.get("content-type", "application/json"))
        self.send_header("Content-Length", str(len(resp.content)))
        self.end_headers()
        self.wfile.write(resp.content)

    def _lossy_stream(self, body: dict[str, Any]) -> None:
        target = _sure_offset(self.oracle, body, self.sure)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        seen = 0
        with httpx.stream("POST", f"{self.upstream}/completion", json=body, timeout=120) as resp:
            for line in resp.iter_lines():
                if line.startswith("data: ") and target is not None:
                    event = json.loads(line[6:])
                    content = event.get("content") or ""
                    start, seen = seen, seen + len(content)
                    offset, text = target
                    if content and start <= offset < seen:
                        k = offset - start
                        event["content"] = content[:k] + REPLACEMENT + content[k + len(text):]
                        self.replaced.append(text)
                        target = None
                        line = "data: " + json.dumps(event)
                self.wfile.write((line + "\n").encode())
                self.wfile.flush()

    def do_GET(self) -> None:
        self._forward("GET")

    def do_POST(self) -> None:
        self._forward("POST")


@contextmanager
def lossy_proxy(upstream: str, oracle: str, sure: float = 0.9) -> Iterator[tuple[str, list[str]]]:
    """Serve the proxy on a free loopback port: yields (its base URL, the sure tokens it replaced so far)."""
    replaced: list[str] = []
    handler = type("LossyHandler", (_Handler,), {"upstream": upstream.rstrip("/"), "oracle": oracle.rstrip("/"),
                                                 "sure": sure, "replaced": replaced})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", replaced
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
