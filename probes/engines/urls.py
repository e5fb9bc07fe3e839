"""Engine URLs: normalisation and the loopback rule (remote endpoints only when the user asks)."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

# Ports the common local engines listen on by default (llama.cpp, vLLM, SGLang, LM Studio, Ollama).
DEFAULT_PORTS = (8080, 8000, 30000, 1234, 11434)


class BadEngineUrl(ValueError):
    """The text is not an http(s) URL we can use."""


def normalise_url(url: str) -> str:
    """`localhost:8080` → `http://localhost:8080`; strips a trailing slash; rejects non-HTTP schemes."""
    text = url.strip()
    if "://" not in text:
        text = f"http://{text}"
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https"):
        raise BadEngineUrl(f"{url!r} is not an http(s) URL")
    if not parts.hostname:
        raise BadEngineUrl(f"{url!r} has no host name")
    try:
        _ = parts.port
    except ValueError as exc:
        raise BadEngineUrl(f"{url!r} has an invalid port") from exc
    return text.rstrip("/")


def is_loopback(url: str) -> bool:
    """True when the URL's host is on this machine's loopback (127.0.0.0/8, ::1, localhost)."""
    host = urlsplit(normalise_url(url)).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a DNS name other than localhost could point anywhere
