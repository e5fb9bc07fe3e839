"""HTTP helpers for llama-server: JSON GETs that return `Unavailable` and a streamed POST with an idle timeout."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx

from probes.base import Unavailable
from probes.engines.base import EngineError
from probes.engines.llamacpp.legacy_sse import iter_sse_json


def get_json(client: httpx.Client, path: str) -> Any:
    """GET `path` → parsed JSON, or `Unavailable` with the reason (refused, HTTP error, not JSON)."""
    try:
        r = client.get(path)
    except httpx.ConnectError as exc:
        return Unavailable("unreachable", f"connection refused ({exc})")
    except httpx.TimeoutException:
        return Unavailable("unreachable", "timed out")
    except httpx.HTTPError as exc:
        return Unavailable("error", str(exc))
    if r.status_code != 200:
        return Unavailable("bad-response", f"{path} answered HTTP {r.status_code}")
    try:
        return r.json()
    except ValueError:
        return Unavailable("bad-response", f"{path} did not answer JSON")


def post_stream(
    client: httpx.Client, path: str, body: dict[str, Any], *, idle_timeout_s: float
) -> Iterator[dict[str, Any]]:
    """POST with `stream: true`; yield events. Refused, hung (no byte for `idle_timeout_s`), 5xx → EngineError."""
    timeout = httpx.Timeout(connect=5.0, read=idle_timeout_s, write=10.0, pool=5.0)
    try:
        with client.stream("POST", path, json=body, timeout=timeout) as r:
            if r.status_code >= 400:
                r.read()
                kind = "http-5xx" if r.status_code >= 500 else "http-4xx"
                raise EngineError(f"{path} answered HTTP {r.status_code}: {r.text[:200]}", kind=kind)
            yield from iter_sse_json(r.iter_lines())
    except httpx.ConnectError as exc:
        raise EngineError(f"cannot connect to the engine ({exc})", kind="unreachable") from exc
    except httpx.ReadTimeout as exc:
        raise EngineError(f"the engine sent nothing for {idle_timeout_s:.0f} s (hung stream)",
                          kind="timeout") from exc
    except (httpx.RemoteProtocolError, httpx.ReadError) as exc:
        raise EngineError(f"the stream broke off ({exc}); the engine may have crashed",
                          kind="stream-broken") from exc
