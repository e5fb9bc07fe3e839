"""Loopback servers that answer like no real llama-server can: dripping bytes, endless bodies, impossible counters.

Each serves every connection with one scripted `answer(send)` in a thread, binds 127.0.0.1 on a free port, and
stops (closing every socket) when the `with` block ends; `send` returns False once the client has gone, so an
endless answer ends with its client. Unit tests of the HTTP layer's limits, not engines.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

Send = Callable[[bytes], bool]


@contextmanager
def liar(answer: Callable[[Send], None]) -> Iterator[str]:
    """A server at the yielded base URL that reads each request's head and then runs `answer(send)`."""
    stop = threading.Event()
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    threads: list[threading.Thread] = []

    def serve(conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            try:
                conn.recv(65536)  # the request head (and a small body); its content does not matter here
            except OSError:
                return

            def send(data: bytes) -> bool:
                if stop.is_set():
                    return False
                try:
                    conn.sendall(data)
                    return True
                except OSError:
                    return False
            answer(send)

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            t = threading.Thread(target=serve, args=(conn,), daemon=True)
            threads.append(t)
            t.start()

    acceptor = threading.Thread(target=accept, daemon=True)
    acceptor.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        acceptor.join(timeout=5)
        listener.close()
        for t in threads:
            t.join(timeout=5)


def drip(data: bytes, every_s: float) -> Callable[[Send], None]:
    """Send `data` one byte at a time, `every_s` apart (status line and headers included)."""
    def answer(send: Send) -> None:
        for i in range(len(data)):
            if not send(data[i:i + 1]):
                return
            time.sleep(every_s)
    return answer


def endless(head: bytes, unit: bytes, *, limit_bytes: int = 400 * 1024 * 1024) -> Callable[[Send], None]:
    """`head`, then `unit` over and over until the client leaves (or `limit_bytes`, a bound for the test)."""
    def answer(send: Send) -> None:
        if not send(head):
            return
        sent = 0
        while sent < limit_bytes and send(unit):
            sent += len(unit)
    return answer


def fixed(status: int, content_type: str, body: bytes) -> Callable[[Send], None]:
    """One ordinary HTTP/1.1 answer."""
    head = (f"HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n").encode()
    return once(head + body)


def once(data: bytes) -> Callable[[Send], None]:
    """Send `data` and close."""
    def answer(send: Send) -> None:
        send(data)
    return answer


def json_head(length: int | None = None, content_type: str = "application/json") -> bytes:
    size = f"Content-Length: {length}\r\n" if length is not None else ""
    return f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n{size}Connection: close\r\n\r\n".encode()
