"""A total deadline for HTTP requests, enforced under httpx at the socket level.

httpx timeouts bound each read, not a request: a server that drips one byte every 0.5 s keeps a request open
forever. Here every socket operation gets at most the time left before the deadline of the request running in
this context (a `ContextVar`, so threads and nested requests each see their own), and none starts after it;
that covers the status line and headers too, which httpx reads before the caller sees any byte.
"""

from __future__ import annotations

import contextlib
import ssl
import time
import typing
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import httpcore
import httpx

_DEADLINE: ContextVar[float | None] = ContextVar("spec_advisor_http_deadline", default=None)


@contextmanager
def deadline(seconds: float) -> Iterator[float]:
    """Bound every request made inside to end within `seconds` (an outer, earlier deadline still holds).
    Yields the monotonic time of the deadline."""
    end = time.monotonic() + seconds
    outer = _DEADLINE.get()
    token = _DEADLINE.set(end if outer is None else min(outer, end))
    try:
        yield end
    finally:
        # ValueError: a stream generator closed by the garbage collector in another context
        with contextlib.suppress(ValueError):
            _DEADLINE.reset(token)


def passed(end: float) -> bool:
    """True once the monotonic time `end` is reached."""
    return time.monotonic() >= end


def _left(timeout: float | None, kind: type[Exception] = httpcore.ReadTimeout) -> float | None:
    end = _DEADLINE.get()
    if end is None:
        return timeout
    left = end - time.monotonic()
    if left <= 0:
        raise kind("the request's total deadline has passed")
    return left if timeout is None else min(timeout, left)


class _Stream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _left(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, _left(timeout, httpcore.ConnectTimeout)))

    def get_extra_info(self, info: str) -> typing.Any:
        return self._inner.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    def __init__(self) -> None:
        self._inner = httpcore.SyncBackend()

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: typing.Iterable[typing.Any] | None = None) -> httpcore.NetworkStream:
        return _Stream(self._inner.connect_tcp(host, port, _left(timeout, httpcore.ConnectTimeout),
                                               local_address, socket_options))

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: typing.Iterable[typing.Any] | None = None) -> httpcore.NetworkStream:
        return _Stream(self._inner.connect_unix_socket(path, _left(timeout, httpcore.ConnectTimeout),
                                                       socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def transport(ssl_context: ssl.SSLContext) -> httpx.HTTPTransport:
    """httpx's own transport (its pool and error mapping) over sockets that honour `deadline()`."""
    made = httpx.HTTPTransport(verify=ssl_context)
    limits = httpx.Limits()  # httpx's defaults, as HTTPTransport() itself uses them
    # httpx has no public way to choose the network backend; its pool takes one, so the pool is rebuilt
    made._pool = httpcore.ConnectionPool(
        ssl_context=ssl_context, max_connections=limits.max_connections,
        max_keepalive_connections=limits.max_keepalive_connections, keepalive_expiry=limits.keepalive_expiry,
        network_backend=_Backend())
    return made
