"""Shared HTTP plumbing for the engine adapters: one client factory and failures turned into `EngineError`.

Every failure a user can meet (engine down, hung, 5xx, an HTML proxy page, a body that is not JSON) becomes
an `EngineError` whose message names the URL and what was expected. The API key lives only inside the
client's auth object; messages are scrubbed of it in case a server echoes request headers back. A key in
the URL's user-info is taken off the URL and used as the key (`probes.engines.urls`).

Streams have their own read timeout, the idle timeout: the longest silence between two reads before the
engine is called hung (a long generation is fine as long as bytes keep coming). Every request also has a total
deadline (`probes.engines.deadline`: a server dripping bytes cannot hold it open) and every body a size cap
(`probes.engines.limits`: a 300 MB answer is refused after its first 8 MiB, never read whole).
"""

from __future__ import annotations

import codecs
import functools
import json
import math
import re
import ssl
import time
from collections.abc import Generator, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import httpx

from probes.engines import limits
from probes.engines.base import EngineError
from probes.engines.deadline import deadline, passed, transport
from probes.engines.urls import check_api_key, parse_engine_url

_SNIPPET = 160  # characters of a bad body worth showing


class BearerAuth(httpx.Auth):
    """`Authorization: Bearer <key>`; its repr never shows the key. A key no header can carry raises
    `BadApiKey` here, before any request (else the HTTP library would quote it in its error)."""

    __slots__ = ("_key",)

    def __init__(self, key: str) -> None:
        self._key = check_api_key(key)

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers["Authorization"] = f"Bearer {self._key}"
        yield request

    def scrub(self, text: str) -> str:
        """`text` without the key, also as it looks inside a quoted bytes value (non-ASCII keys)."""
        for form in {self._key, str(self._key.encode())[2:-1]}:
            text = text.replace(form, "***")
        return text

    def __repr__(self) -> str:
        return "BearerAuth(***)"


@functools.cache
def _tls() -> ssl.SSLContext:
    # building a context loads the CA bundle (~50 ms); discovery makes many clients, so share one
    return ssl.create_default_context()


def make_client(base_url: str, timeout_s: float, api_key: str | None = None) -> httpx.Client:
    """A client for one engine: proxy env vars ignored (engines are local), no redirects followed."""
    return httpx.Client(
        base_url=base_url,
        transport=transport(_tls()),  # sockets that honour each request's total deadline
        timeout=httpx.Timeout(timeout_s),
        auth=BearerAuth(api_key) if api_key else None,
        trust_env=False,  # HTTP(S)_PROXY would route 127.0.0.1 through a corporate proxy
        follow_redirects=False,  # a redirect means this is not the engine endpoint we asked for
    )


def scrub(client: httpx.Client, text: str) -> str:
    """Remove the client's API key from `text`."""
    auth = client.auth
    return auth.scrub(text) if isinstance(auth, BearerAuth) else text


def _where(url: str) -> str:
    u = httpx.URL(url)
    port = f":{u.port}" if u.port else ""
    return f"{u.scheme}://{u.host}{port}{u.path}"  # no userinfo, no query


def _fail(client: httpx.Client, message: str, kind: str, status: int | None = None) -> EngineError:
    return EngineError(scrub(client, message), kind=kind, status=status)


def _transport_error(
    client: httpx.Client, url: str, exc: httpx.HTTPError, during: str, idle_s: float | None = None,
    end: float | None = None, allowed_s: float | None = None,
) -> EngineError:
    where = _where(url)
    if isinstance(exc, httpx.TimeoutException) and end is not None and allowed_s is not None and passed(end):
        return _fail(client, f"{where} did not finish answering within {allowed_s:g} s (the limit on one "
                     "request; the server sends too slowly or never ends its answer)", "timeout")
    if isinstance(exc, httpx.ConnectError):
        return _fail(client, f"cannot connect to {where}: is the engine running? ({exc})", "unreachable")
    if isinstance(exc, httpx.ReadTimeout) and during == "stream" and idle_s is not None:
        return _fail(client, f"{where} sent nothing for {idle_s:g} s inside the stream (hung engine?)", "timeout")
    if isinstance(exc, httpx.TimeoutException):
        return _fail(client, f"{where} did not answer in time during {during}", "timeout")
    if during == "stream":
        return _fail(client, f"stream from {where} broke off: {exc}", "stream-broken")
    return _fail(client, f"request to {where} failed: {type(exc).__name__}: {exc}", "error")


def _snippet(text: str) -> str:
    text = " ".join(text.split())
    return text[:_SNIPPET] + ("…" if len(text) > _SNIPPET else "")


def _decoded(resp: httpx.Response, content: bytes) -> str:
    return content.decode(resp.encoding or "utf-8", errors="replace")


def read_capped(client: httpx.Client, resp: httpx.Response, cap: int = limits.MAX_BODY_BYTES) -> bytes:
    """The (decoded) body of a streamed response, refused with `EngineError` once it passes `cap` bytes: a
    300 MB answer costs 8 MiB of memory, not 1.3 GB."""
    declared = resp.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > cap:
        raise _too_big(client, resp, cap)
    parts: list[bytes] = []
    size = 0
    for chunk in resp.iter_bytes():
        size += len(chunk)
        if size > cap:
            raise _too_big(client, resp, cap)
        parts.append(chunk)
    return b"".join(parts)


def _too_big(client: httpx.Client, resp: httpx.Response, cap: int) -> EngineError:
    return _fail(client, f"{_where(str(resp.request.url))} sent an answer larger than {cap // (1024 * 1024)} MiB "
                 "(no engine answer is that big); it was not read", "bad-response")


def check_status(client: httpx.Client, resp: httpx.Response, content: bytes = b"") -> None:
    """Raise `EngineError` for 4xx/5xx and redirects, quoting the start of the body (`content`, read by the
    caller within the size cap)."""
    code = resp.status_code
    if code < 300:
        return
    where = _where(str(resp.request.url))
    body = _snippet(_decoded(resp, content[:4096]))
    if code >= 500:
        raise _fail(client, f"{where} answered HTTP {code} (server error): {body}", "http-5xx", code)
    if code in (401, 403):
        raise _fail(client, f"{where} answered HTTP {code}: it needs an API key (or the key was refused)",
                    "http-4xx", code)
    if code < 400:
        raise _fail(client, f"{where} redirected (HTTP {code}); not an engine endpoint", "bad-response", code)
    raise _fail(client, f"{where} answered HTTP {code}: {body}", "http-4xx", code)


def _media_type(resp: httpx.Response) -> str:
    return resp.headers.get("content-type", "").split(";")[0].strip().lower()


def _decode_json(client: httpx.Client, resp: httpx.Response, content: bytes) -> object:
    where = _where(str(resp.request.url))
    media = _media_type(resp)
    head = _snippet(_decoded(resp, content[:4096]))
    # a missing header is tolerated (some servers omit it); a declared non-JSON type is not
    if media and media != "application/json" and not media.endswith("+json"):
        raise _fail(client, f"{where} sent {media!r}, expected JSON: {head}", "bad-response")
    try:
        return json.loads(content)
    except (ValueError, RecursionError):  # RecursionError: nesting deeper than the parser's stack
        raise _fail(client, f"{where} sent a body that is not JSON: {head}", "bad-response") from None


def request_deadline_s(client: httpx.Client) -> float:
    """The longest a whole non-streamed request may take, seconds: a few read timeouts."""
    return (client.timeout.read or 10.0) * limits.REQUEST_DEADLINE_FACTOR


def _receive(client: httpx.Client, method: str, url: str, body: object | None = None) -> tuple[httpx.Response, bytes]:
    """One request, its body read within the size cap and the whole exchange within the deadline."""
    allowed = request_deadline_s(client)
    with deadline(allowed) as end:
        try:
            with client.stream(method, url, json=body) as resp:
                return resp, read_capped(client, resp)
        except httpx.HTTPError as exc:
            raise _transport_error(client, url, exc, "request", end=end, allowed_s=allowed) from None


def status_of(client: httpx.Client, url: str) -> int:
    """GET `url` for its status code only, within the deadline; the body is not read. Raises httpx errors."""
    with deadline(request_deadline_s(client)), client.stream("GET", url) as resp:
        return resp.status_code


def request_json(client: httpx.Client, method: str, url: str, body: object | None = None) -> object:
    """One JSON request; any failure becomes `EngineError`."""
    resp, content = _receive(client, method, url, body)
    check_status(client, resp, content)
    return _decode_json(client, resp, content)


def get_json(client: httpx.Client, url: str) -> object:
    """GET a JSON document."""
    return request_json(client, "GET", url)


def get_text(client: httpx.Client, url: str) -> str:
    """GET a plain-text document such as a Prometheus scrape."""
    resp, content = _receive(client, "GET", url)
    check_status(client, resp, content)
    media = _media_type(resp)
    if media and not media.startswith("text/") and media != "application/openmetrics-text":
        raise _fail(client, f"{_where(url)} sent {media!r}, expected text", "bad-response")
    return _decoded(resp, content)


def probe_json(client: httpx.Client, url: str) -> dict[str, object] | None:
    """For detect(): the JSON object at `url`, or None on any failure (detection never raises)."""
    try:
        doc = get_json(client, url)
    except EngineError:
        return None
    return doc if isinstance(doc, dict) else None


def _stream_timeout(client: httpx.Client, idle_s: float | None) -> httpx.Timeout:
    """The client's connect/write/pool timeouts, with `idle_s` as the longest wait for the next bytes."""
    base = client.timeout
    return httpx.Timeout(connect=base.connect, read=idle_s if idle_s is not None else base.read,
                         write=base.write, pool=base.pool)


@contextmanager
def _open_stream(
    client: httpx.Client, url: str, body: object, media: str, idle_s: float | None
) -> Iterator[tuple[httpx.Response, float]]:
    t0 = time.monotonic()
    allowed = limits.STREAM_DEADLINE_S
    with deadline(allowed) as end:
        try:
            with client.stream("POST", url, json=body, timeout=_stream_timeout(client, idle_s)) as resp:
                if resp.status_code >= 300:
                    check_status(client, resp, read_capped(client, resp))
                got = _media_type(resp)
                if got != media:
                    head = _snippet(_decoded(resp, read_capped(client, resp)[:4096]))
                    raise _fail(
                        client, f"{_where(url)} sent {got or 'no content type'!r}, expected {media}: {head}",
                        "bad-response")
                yield resp, t0
        except httpx.HTTPError as exc:
            raise _transport_error(client, url, exc, "stream", idle_s, end=end, allowed_s=allowed) from None


_NEWLINE = re.compile(r"\r\n|\r|\n")


def stream_lines(client: httpx.Client, resp: httpx.Response) -> Iterator[str]:
    """The lines of a streamed body (CRLF, CR or LF), UTF-8, within the stream's size caps: an endless line
    or an endless stream ends in `EngineError` after `limits.MAX_STREAM_LINE_BYTES` / `MAX_STREAM_BYTES`."""
    where = _where(str(resp.request.url))
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    pending, size = "", 0
    for chunk in resp.iter_bytes():
        size += len(chunk)
        if size > limits.MAX_STREAM_BYTES:
            raise _fail(client, f"{where} streamed more than {limits.MAX_STREAM_BYTES // (1024 * 1024)} MiB in "
                        "one answer (no engine answer is that big)", "bad-response")
        pending += decoder.decode(chunk)
        cut = len(pending) - 1 if pending.endswith("\r") else len(pending)  # "\r" may be half of "\r\n"
        *lines, rest = _NEWLINE.split(pending[:cut])
        pending = rest + pending[cut:]
        if len(pending) > limits.MAX_STREAM_LINE_BYTES:
            raise _fail(client, f"{where} streamed a line longer than "
                        f"{limits.MAX_STREAM_LINE_BYTES // 1024} KiB (no engine event is that long)", "bad-response")
        yield from lines
    tail = _NEWLINE.split(pending + decoder.decode(b"", final=True))
    yield from (tail[:-1] if tail[-1] == "" else tail)


def _event(client: httpx.Client, url: str, data: str) -> dict[str, object]:
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        raise _fail(client, f"{_where(url)} streamed an event that is not JSON: {_snippet(data)}",
                    "bad-response") from None
    if not isinstance(doc, dict):
        raise _fail(client, f"{_where(url)} streamed a JSON {type(doc).__name__}, expected an object",
                    "bad-response")
    return doc


@dataclass(frozen=True, slots=True)
class SseMessage:
    """One server-sent event: its type ("message" unless `event:` says otherwise) and its joined data."""

    event: str
    data: str


def sse_messages(lines: Iterable[str]) -> Iterator[SseMessage]:
    """Group SSE lines into messages: `data:` lines joined by newlines, sent off at a blank line.

    Follows the WHATWG event-stream rules (one optional space after the colon, a field name without a
    colon has an empty value, `:` lines are comments, `id:`/`retry:` do not matter here, a message with
    empty data is not sent), plus llama-server's own `error: {...}` field, which becomes an "error"
    message. A message left open when the stream closes is still delivered (some servers omit the last
    blank line).
    """
    data: list[str] = []
    errors: list[str] = []
    event = ""
    for i, line in enumerate(lines):
        if i == 0:
            line = line.removeprefix("\ufeff")  # a byte-order mark may open the stream
        if not line:
            message = _message(event, data, errors)
            if message is not None:
                yield message
            data, errors, event = [], [], ""
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value
        elif name == "error":
            errors.append(value)
    message = _message(event, data, errors)
    if message is not None:
        yield message


def _message(event: str, data: list[str], errors: list[str]) -> SseMessage | None:
    if errors:
        return SseMessage("error", "\n".join(errors))
    joined = "\n".join(data)
    return SseMessage(event or "message", joined) if joined else None


def stream_sse(
    client: httpx.Client, url: str, body: object, *, idle_timeout_s: float | None = None
) -> Generator[tuple[float, dict[str, object]], None, None]:
    """POST and yield (seconds since send, event) for each SSE data event until `[DONE]` or close.

    `idle_timeout_s`: the longest silence inside the stream before it counts as hung (default: the
    client's read timeout). An error event from the engine raises `EngineError` ("stream-broken").
    """
    with _open_stream(client, url, body, "text/event-stream", idle_timeout_s) as (resp, t0):
        for message in sse_messages(stream_lines(client, resp)):
            if message.event == "error":
                raise _fail(client, f"{_where(url)} reported an error inside the stream: "
                            f"{_snippet(message.data)}", "stream-broken")
            if message.data.strip() == "[DONE]":
                return
            yield time.monotonic() - t0, _event(client, url, message.data)


def stream_ndjson(
    client: httpx.Client, url: str, body: object, *, idle_timeout_s: float | None = None
) -> Generator[tuple[float, dict[str, object]], None, None]:
    """POST and yield (seconds since send, object) for each line of a newline-delimited JSON stream."""
    with _open_stream(client, url, body, "application/x-ndjson", idle_timeout_s) as (resp, t0):
        for line in stream_lines(client, resp):
            if line.strip():
                yield time.monotonic() - t0, _event(client, url, line)


# --- typed reads from decoded JSON --------------------------------------------------------------------


def obj(doc: object, key: str) -> dict[str, object] | None:
    """`doc[key]` when both are JSON objects."""
    v = doc.get(key) if isinstance(doc, dict) else None
    return v if isinstance(v, dict) else None


def text(doc: object, key: str) -> str | None:
    v = doc.get(key) if isinstance(doc, dict) else None
    return v if isinstance(v, str) and v else None


def number(doc: object, key: str) -> float | None:
    """`doc[key]` as a finite float, or None (absent, not a number, NaN, infinite or beyond a float)."""
    v = doc.get(key) if isinstance(doc, dict) else None
    if not isinstance(v, int | float) or isinstance(v, bool):
        return None
    try:
        f = float(v)
    except OverflowError:  # an integer of hundreds of digits
        return None
    return f if math.isfinite(f) else None


def integer(doc: object, key: str) -> int | None:
    v = number(doc, key)
    return int(v) if v is not None and math.isfinite(v) and v == int(v) else None


class HttpAdapter:
    """Holds one engine's client; subclasses add info/complete/spec_counters. The repr shows no key.

    `base_url` is validated (`BadEngineUrl` when malformed); user-info in it is removed and used as the
    API key unless `api_key` is given, which wins.
    """

    def __init__(
        self, base_url: str, *, api_key: str | None = None, timeout_s: float = 30.0,
        client: httpx.Client | None = None,
    ) -> None:
        parsed = parse_engine_url(base_url)
        self.base_url = parsed.base
        self._client = client or make_client(self.base_url, timeout_s, api_key or parsed.api_key)

    def url(self, path: str) -> str:
        return f"{self.base_url}{path}"

    def _error(self, message: str, kind: str) -> EngineError:
        """An `EngineError` whose message is scrubbed of the API key."""
        return EngineError(scrub(self._client, message), kind=kind)

    def close(self) -> None:
        self._client.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r})"
