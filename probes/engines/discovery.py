"""Find engines: running servers identified by their own endpoints (not by port), with an optional API key.

A key comes from `api_key=` or from the URL's user-info (`http://KEY@127.0.0.1:8080`); it is sent as a
bearer token and never appears in a `Discovered`, a message or a repr. A server that answers 401/403 is
reported as needing a key, not as "no engine".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import httpx

from probes.base import Unavailable
from probes.engines.base import EngineAdapter, EngineError, EngineInfo
from probes.engines.http import make_client, scrub, status_of
from probes.engines.listening import listening
from probes.engines.llamacpp.adapter import LlamaCppAdapter
from probes.engines.urls import DEFAULT_PORTS, BadApiKey, BadEngineUrl, check_api_key, is_loopback, parse_engine_url
from probes.serialize import to_jsonable

NEEDS_KEY = "needs an API key (or the key was refused)"


@dataclass(frozen=True, slots=True)
class Discovered:
    """A URL probed for an engine: what answered, or why nothing usable did."""

    url: str
    info: EngineInfo | None
    problem: Unavailable | None = None

    def to_dict(self) -> dict[str, object]:
        """JSON-ready summary."""
        return {
            "url": self.url,
            "engine": to_jsonable(self.info) if self.info else None,
            "problem": {"unavailable": self.problem.reason, "detail": self.problem.detail}
            if self.problem else None,
        }


def adapter_classes() -> list[type]:
    """Adapters in the order they are tried; llama.cpp first (most specific `/props` shape)."""
    classes: list[type] = [LlamaCppAdapter]
    try:
        from probes.engines import lmstudio, ollama, sglang, tgi, vllm
    except ImportError:  # pragma: no cover - the other engines ship in the same package
        return classes
    # Ollama and LM Studio wrap llama.cpp but answer their own endpoints; try them before generic OpenAI shapes.
    return [*classes, ollama.OllamaAdapter, lmstudio.LmStudioAdapter, sglang.SglangAdapter,
            vllm.VllmAdapter, tgi.TgiAdapter]


def _locked(base: str, codes: set[int]) -> Discovered:
    shown = "/".join(str(c) for c in sorted(codes))
    return Discovered(base, None, Unavailable("permission", f"the server answered HTTP {shown}: it {NEEDS_KEY}"))


def identify(url: str, *, timeout_s: float = 3.0, api_key: str | None = None) -> Discovered:
    """Ask `url` who it is, sending `api_key` (or the URL's user-info key) as a bearer token.

    Raises `BadEngineUrl` for a malformed URL and `BadApiKey` for a key no header can carry; otherwise
    never raises: refused connections, servers that
    want a key ("permission"), non-LLM servers and errors come back as `problem`.
    """
    parsed = parse_engine_url(url)
    base, key = parsed.base, api_key or parsed.api_key
    refused: set[int] = set()

    def note(response: httpx.Response) -> None:
        if response.status_code in (401, 403):
            refused.add(response.status_code)

    with make_client(base, timeout_s, key) as client:
        client.event_hooks["response"].append(note)
        try:
            status_of(client, base + "/")  # the hook notes 401/403; the body is not read
        except httpx.ConnectError:
            return Discovered(base, None, Unavailable("unreachable", "connection refused: nothing listens there"))
        except httpx.TimeoutException:
            return Discovered(base, None, Unavailable("unreachable", "timed out"))
        except httpx.HTTPError as exc:
            return Discovered(base, None, Unavailable("error", scrub(client, f"{type(exc).__name__}: {exc}")))
        for cls in adapter_classes():
            if not cls.detect(client, base):  # type: ignore[attr-defined]
                continue
            adapter: EngineAdapter = cls(base, api_key=key)
            try:
                return Discovered(base, adapter.info())
            except EngineError as exc:
                if exc.auth_refused:
                    return _locked(base, {exc.status or 401})
                return Discovered(base, None, Unavailable("bad-response", str(exc)))
            finally:
                close = getattr(adapter, "close", None)
                if callable(close):
                    close()
    if refused:
        return _locked(base, refused)
    return Discovered(base, None, Unavailable(
        "bad-response", "an HTTP server answers there, but none of the known LLM engine endpoints "
                        "(llama.cpp /props, vLLM /version, SGLang /server_info, LM Studio /api/v0/models, "
                        "Ollama /api/version, TGI /info)"))


def scan_loopback(
    ports: Iterable[int] = DEFAULT_PORTS, *, timeout_s: float = 0.5, api_key: str | None = None,
    include_locked: bool = False,
) -> list[Discovered]:
    """Engines running on this machine's default ports (only those that answered).

    `include_locked`: also list servers that refused for want of a key (`info` None, problem
    "permission"), so a key-protected engine is not reported as nothing at all.
    """
    found = []
    for port in ports:
        if not listening(port, timeout_s):
            continue  # nothing listens: no HTTP client needed to learn that (a client costs ~10 ms, 5 ports)
        hit = identify(f"http://127.0.0.1:{port}", timeout_s=timeout_s, api_key=api_key)
        locked = hit.problem is not None and hit.problem.reason == "permission"
        if hit.info is not None or (include_locked and locked):
            found.append(hit)
    return found


class EngineConnectError(Exception):
    """A user-given engine URL cannot be used; the message says why in plain words, `reason` in one word
    ("permission" when the server wants an API key or refused the one sent: not a server that is down)."""

    def __init__(self, message: str, reason: str = "error") -> None:
        super().__init__(message)
        self.reason = reason


def connect(
    url: str, *, allow_remote: bool = False, timeout_s: float = 3.0, api_key: str | None = None
) -> EngineAdapter:
    """An adapter for the engine at `url`, holding `api_key` (or the URL's user-info key).

    Refuses non-loopback URLs unless `allow_remote`; every failure is an `EngineConnectError` whose
    message shows no key.
    """
    try:
        parsed = parse_engine_url(url)
        base, key = parsed.base, api_key or parsed.api_key
        if key is not None:
            key = check_api_key(key)
    except (BadEngineUrl, BadApiKey) as exc:
        raise EngineConnectError(str(exc)) from None
    if not allow_remote and not is_loopback(base):
        raise EngineConnectError(
            f"{base} is not on this machine; spec-advisor only talks to loopback unless you pass --allow-remote")
    found = identify(base, timeout_s=timeout_s, api_key=key)
    if found.info is None:
        problem = found.problem or Unavailable("error", "unknown")
        if problem.reason == "permission":
            raise EngineConnectError(f"{base} wants an API key: {problem.detail}", reason="permission")
        raise EngineConnectError(f"no usable LLM engine at {base}: {problem.detail or problem.reason}",
                                 reason=problem.reason)
    for cls in adapter_classes():
        if getattr(cls, "kind", None) == found.info.kind:
            adapter: EngineAdapter = cls(base, api_key=key)
            return adapter
    raise EngineConnectError(f"{found.info.kind} at {base} has no adapter")
