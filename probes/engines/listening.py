"""Is anything listening on a loopback port? A bare TCP connect, without the HTTP client (httpx and the engine
adapters take ~0.1 s to import, and where nothing runs, a refused connect answers in microseconds)."""

from __future__ import annotations

import socket
from collections.abc import Iterable


def listening(port: int, timeout_s: float = 0.5, host: str = "127.0.0.1") -> bool:
    """Whether a TCP connect to `host`:`port` is accepted within `timeout_s` seconds."""
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return True
    except OSError:
        return False


def listening_ports(ports: Iterable[int], timeout_s: float = 0.5) -> list[int]:
    """The ports of `ports` that accept a connection on 127.0.0.1, in the order given."""
    return [p for p in ports if listening(p, timeout_s)]
