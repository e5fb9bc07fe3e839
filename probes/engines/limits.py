"""How much the tool will read from an engine, and for how long (docs/limits.md says why each is this size).

These are engineering bounds, not decision thresholds: they keep a hostile or broken server from taking the
tool's memory or time, and sit far above what a real engine sends (a llama-server `/props` is ~10 KB, a
`/metrics` scrape ~5 KB, a 512-token SSE stream with per-token timings ~400 KB).
"""

from __future__ import annotations

MAX_BODY_BYTES = 8 * 1024 * 1024        # one non-streamed answer (JSON document, metrics scrape, error page)
MAX_STREAM_BYTES = 64 * 1024 * 1024     # one streamed answer, all its events together
MAX_STREAM_LINE_BYTES = 1024 * 1024     # one line of a stream (one SSE field or NDJSON object)
REQUEST_DEADLINE_FACTOR = 3.0           # a whole non-streamed request: this many times the client's read timeout
STREAM_DEADLINE_S = 1800.0              # a whole streamed request, first byte sent to last byte read
MAX_COUNT = 2**31 - 1                   # a server counter above this (tokens in one request) is not believed
