"""Server-sent events: read `data:` payloads from a streamed HTTP response as JSON objects."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from probes.engines.base import EngineError


def iter_sse_json(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    """Yield each `data:` payload as a dict; stop at `[DONE]`. A non-JSON payload raises EngineError."""
    for raw in lines:
        line = raw.strip()
        if not line.startswith("data:"):
            continue  # comments, event names, keep-alives
        payload = line[5:].strip()
        if payload == "[DONE]":
            return
        try:
            obj = json.loads(payload)
        except json.JSONDecodeError as exc:
            raise EngineError(f"the engine streamed a non-JSON event: {payload[:80]!r}", kind="bad-response") from exc
        if not isinstance(obj, dict):
            raise EngineError("the engine streamed a JSON value that is not an object", kind="bad-response")
        yield obj
