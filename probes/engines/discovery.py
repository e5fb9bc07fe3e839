"""Find engines: llama-server binaries, and running servers identified by their own endpoints (not by port)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import httpx

from probes.base import Unavailable
from probes.engines.base import EngineAdapter, EngineError, EngineInfo
from probes.engines.llamacpp.adapter import LlamaCppAdapter
from probes.engines.urls import DEFAULT_PORTS, BadEngineUrl, is_loopback, normalise_url
from probes.serialize import to_jsonable


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


def identify(url: str, *, timeout_s: float = 3.0) -> Discovered:
    """Ask `url` who it is. Never raises: refused, non-LLM servers and errors come back as `problem`."""
    base = normalise_url(url)
    with httpx.Client(timeout=timeout_s, trust_env=False, follow_redirects=False) as client:
        try:
            client.get(base + "/")
        except httpx.ConnectError:
            return Discovered(base, None, Unavailable("unreachable", "connection refused: nothing listens there"))
        except httpx.TimeoutException:
            return Discovered(base, None, Unavailable("unreachable", "timed out"))
        except httpx.HTTPError as exc:
            return Discovered(base, None, Unavailable("error", str(exc)))
        for cls in adapter_classes():
            if not cls.detect(client, base):  # type: ignore[attr-defined]
                continue
            adapter: EngineAdapter = cls(base)
            try:
                return Discovered(base, adapter.info())
            except EngineError as exc:
                return Discovered(base, None, Unavailable("bad-response", str(exc)))
            finally:
                close = getattr(adapter, "close", None)
                if callable(close):
                    close()
    return Discovered(base, None, Unavailable(
        "bad-response", "an HTTP server answers there, but none of the known LLM engine endpoints "
                        "(llama.cpp /props, vLLM /version, SGLang /server_info, LM Studio /api/v0/models, "
                        "Ollama /api/version, TGI /info)"))


def scan_loopback(ports: Iterable[int] = DEFAULT_PORTS, *, timeout_s: float = 0.5) -> list[Discovered]:
    """Engines running on this machine's default ports (only those that answered)."""
    found = []
    for port in ports:
        hit = identify(f"http://127.0.0.1:{port}", timeout_s=timeout_s)
        if hit.info is not None:
            found.append(hit)
    return found


class EngineConnectError(Exception):
    """A user-given engine URL cannot be used; the message says why in plain words."""


def connect(url: str, *, allow_remote: bool = False, timeout_s: float = 3.0) -> EngineAdapter:
    """An adapter for the engine at `url`. Refuses non-loopback URLs unless `allow_remote`."""
    try:
        base = normalise_url(url)
    except BadEngineUrl as exc:
        raise EngineConnectError(str(exc)) from exc
    if not allow_remote and not is_loopback(base):
        raise EngineConnectError(
            f"{base} is not on this machine; spec-advisor only talks to loopback unless you pass --allow-remote")
    found = identify(base, timeout_s=timeout_s)
    if found.info is None:
        problem = found.problem or Unavailable("error", "unknown")
        raise EngineConnectError(f"no usable LLM engine at {base}: {problem.detail or problem.reason}")
    for cls in adapter_classes():
        if getattr(cls, "kind", None) == found.info.kind:
            adapter: EngineAdapter = cls(base)
            return adapter
    raise EngineConnectError(f"{found.info.kind} at {base} has no adapter")
