"""Engine URLs: strict validation, credentials split off, and the loopback rule (remote only when asked).

A URL the user typed can be hostile or just wrong (`http://[::1`, a pasted 100 KB blob, a newline, a key
in the user-info). Every such input becomes one `BadEngineUrl` with a short message that never echoes a
credential. User-info (`http://KEY@host`, `http://user:KEY@host`) is never kept in the URL: it becomes the
API key, sent as `Authorization: Bearer KEY` (llama-server's `--api-key` and the OpenAI-compatible engines
take a bearer key; llama-server answers HTTP Basic with 401, checked against the real server). A single token
(`KEY@`, or `:KEY@` with no user name) is the key; a user name *and* a password mean HTTP Basic, which no engine
here takes, so that form is refused rather than its password sent as a bearer token (docs/refusals.md).
"""

from __future__ import annotations

import ipaddress
import re
import socket
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

# Ports the common local engines listen on by default (llama.cpp, vLLM, SGLang, LM Studio, Ollama).
DEFAULT_PORTS = (8080, 8000, 30000, 1234, 11434)

MAX_URL_CHARS = 2048  # far above any real engine URL; a longer text is a paste accident or an attack
_SHOWN_CHARS = 80     # how much of a bad URL a message quotes
_MASK = "***"

_LABEL = re.compile(r"^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$")
_DOTTED = re.compile(r"^[0-9.]+$")
_OTHER_SCHEME = re.compile(r"(?i)^[a-z][a-z0-9+.\-]*:(?![0-9]+(?:/|$))")
# scheme://user-info@ in free text; user-info ends, as in RFC 3986, at the first / ? # or space
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^\s/?#]*@")


class BadEngineUrl(ValueError):
    """The text is not an http(s) URL we can use; the message is one line and shows no credential."""


class BadApiKey(ValueError):
    """The API key cannot be sent in an HTTP header; the message never shows the key."""


def check_api_key(key: str) -> str:
    """`key` with surrounding whitespace (a paste's newline) trimmed; a space or control character inside
    it, which no header can carry, raises `BadApiKey`."""
    clean = key.strip()
    if not clean:
        raise BadApiKey("the API key is empty")
    if any(ch.isspace() or not ch.isprintable() for ch in clean):
        raise BadApiKey("the API key contains a space or control character; paste it again without them")
    return clean


class Credential:
    """An API key taken from a URL's user-info; prints as `***` so it cannot leak through a repr or JSON."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """The key itself, for the HTTP client's auth object only."""
        return self._value

    def __repr__(self) -> str:
        return f"Credential({_MASK})"

    def __str__(self) -> str:
        return _MASK

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Credential) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


@dataclass(frozen=True, slots=True)
class EngineUrl:
    """A validated engine URL: `base` has no user-info, query or trailing slash; `credential` came from it."""

    base: str
    credential: Credential | None = None

    @property
    def api_key(self) -> str | None:
        """The key from the user-info, or None."""
        return self.credential.reveal() if self.credential else None


def redact_url_userinfo(text: str) -> str:
    """`text` with the user-info of every `scheme://user:pass@host` in it replaced by `***`.

    For messages, logs and reports. User-info is taken to end at the first `/`, `?`, `#` or space, as URL
    parsers do; `parse_engine_url` refuses URLs with an `@` after that, so none reaches an adapter.
    """
    return _USERINFO.sub(r"\1" + _MASK + "@", text)


def _shown(text: str) -> str:
    """A bad URL quoted for a message: everything up to its last `@` masked, clipped, escaped."""
    if "@" in text:
        head, sep, _ = text.partition("://")
        text = (head + sep if sep else "") + _MASK + "@" + text.rpartition("@")[2]
    clipped = text[:_SHOWN_CHARS] + ("…" if len(text) > _SHOWN_CHARS else "")
    return repr(clipped)


def _host(raw: str, shown: str) -> tuple[str, str]:
    """(host as it goes into the URL, ASCII host for comparisons); IPv6 in brackets, names IDNA-encoded."""
    if raw.startswith("["):
        if not raw.endswith("]"):
            raise BadEngineUrl(f"{shown} has an unclosed '[' around its IPv6 address")
        inner = raw[1:-1]
        if "%" in inner:
            raise BadEngineUrl(f"{shown}: IPv6 zone ids (%…) are not supported")
        try:
            v6 = ipaddress.IPv6Address(inner)
        except ValueError:
            raise BadEngineUrl(f"{shown} has an invalid IPv6 address in [ ]") from None
        return f"[{v6.compressed}]", v6.compressed
    if "[" in raw or "]" in raw:
        raise BadEngineUrl(f"{shown} has a stray '[' or ']' in its host")
    if not raw:
        raise BadEngineUrl(f"{shown} has no host name")
    host = raw.lower()
    if _DOTTED.match(host):
        try:  # refuse "127.1", "0127.0.0.1", "999.0.0.1": resolvers read them in different ways
            return str(ipaddress.IPv4Address(host)), host
        except ValueError:
            raise BadEngineUrl(f"{shown} has an invalid IPv4 address") from None
    try:
        ascii_host = host.encode("idna").decode("ascii")
    except UnicodeError:
        raise BadEngineUrl(f"{shown} has a host name that is not valid") from None
    labels = ascii_host.removesuffix(".").split(".")
    if len(ascii_host) > 253 or not all(_LABEL.match(label) for label in labels):
        raise BadEngineUrl(f"{shown} has a host name that is not valid")
    return host, ascii_host


def _port(raw: str | None, shown: str) -> int | None:
    if raw is None:
        return None
    if not raw:
        raise BadEngineUrl(f"{shown} has an empty port after ':'")
    if not raw.isascii() or not raw.isdigit() or len(raw) > 5 or not 1 <= int(raw) <= 65535:
        raise BadEngineUrl(f"{shown} has an invalid port (give a number from 1 to 65535)")
    return int(raw)


def _credential(userinfo: str) -> Credential | None:
    user, colon, password = userinfo.partition(":")
    if user and password:
        raise BadEngineUrl("the engine URL has a user name and a password (HTTP Basic); engines take a bearer "
                           "key: write http://KEY@host:port, or give the key with --api-key-file")
    key = unquote(password) if colon and password else unquote(user)
    if not key:
        return None
    if key != key.strip() or any(ch.isspace() or not ch.isprintable() for ch in key):
        raise BadEngineUrl("the key in the engine URL's user-info contains a space or control character")
    return Credential(key)


def _check_text(url: str) -> str:
    if len(url) > MAX_URL_CHARS:
        raise BadEngineUrl(f"the engine URL is too long ({len(url)} characters; at most {MAX_URL_CHARS})")
    text = url.strip()
    if not text:
        raise BadEngineUrl("no engine URL given")
    for i, ch in enumerate(text):
        if ch.isspace() or not ch.isprintable():
            raise BadEngineUrl(f"the engine URL contains a space or control character (at position {i + 1})")
    if "\\" in text:
        raise BadEngineUrl(f"{_shown(text)} contains a backslash; URLs use '/'")
    if "://" in text:
        return text
    if "@" not in text and _OTHER_SCHEME.match(text):  # "file:/x", "javascript:…"; not "localhost:8080"
        raise BadEngineUrl(f"{_shown(text)} is not an http(s) URL")
    return f"http://{text}"


def parse_engine_url(url: str) -> EngineUrl:
    """Validate `url` (`localhost:8080` means `http://localhost:8080`) and split off its credential.

    Raises `BadEngineUrl` for anything but a plain http(s) base URL: bad scheme, host, port or brackets,
    a query or fragment, control characters, over `MAX_URL_CHARS` characters.
    """
    text = _check_text(url)
    shown = _shown(text)
    try:
        parts = urlsplit(text)
    except ValueError:  # urlsplit's only complaint: brackets that do not hold an IPv6 address
        raise BadEngineUrl(f"{shown} has an unclosed '[' or an invalid IPv6 address") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise BadEngineUrl(f"{shown} is not an http(s) URL")
    if parts.query or parts.fragment or "?" in text or "#" in text:
        raise BadEngineUrl(f"{shown} has a query or fragment; give the server's base URL, "
                           "e.g. http://127.0.0.1:8080")
    userinfo, at, hostport = parts.netloc.rpartition("@")
    if "@" in userinfo or "@" in parts.path:
        raise BadEngineUrl(f"{shown} has an '@' that is not the one before the host; write '@', '/' or ':' "
                           "inside a key as %40, %2F or %3A")
    if hostport.startswith("["):
        end = hostport.find("]")
        if end < 0:
            raise BadEngineUrl(f"{shown} has an unclosed '[' around its IPv6 address")
        host_raw, rest = hostport[: end + 1], hostport[end + 1 :]
        if rest and not rest.startswith(":"):
            raise BadEngineUrl(f"{shown} has text between ']' and the port")
        port_raw = rest[1:] if rest else None
    elif hostport.count(":") > 1:
        raise BadEngineUrl(f"{shown}: an IPv6 address must be written in brackets, e.g. http://[::1]:8080")
    else:
        host_raw, colon, port_text = hostport.partition(":")
        port_raw = port_text if colon else None
    host, ascii_host = _host(host_raw, shown)
    port = _port(port_raw, shown)
    base = f"{scheme}://{host}{f':{port}' if port is not None else ''}{parts.path.rstrip('/')}"
    import httpx  # ~50 ms: only where a URL is parsed, not in every process that redacts a log line

    try:  # the HTTP client must read the same host as we did (no parser differential to exploit)
        client_host = httpx.URL(base).raw_host.decode("ascii").lower()
    except (httpx.InvalidURL, UnicodeError, ValueError):
        raise BadEngineUrl(f"{shown} is not a valid URL") from None
    if client_host != ascii_host:
        raise BadEngineUrl(f"{shown} is read differently by the HTTP client; write it plainly")
    return EngineUrl(base, _credential(userinfo) if at else None)


def normalise_url(url: str) -> str:
    """The validated base URL without user-info (`localhost:8080/` → `http://localhost:8080`)."""
    return parse_engine_url(url).base


_DEFAULT_SCHEME_PORTS = {"http": 80, "https": 443}
_LOOPBACK_NAMES = ("localhost", "localhost.")


def endpoint_key(url: str) -> tuple[str, str, int, str]:
    """Who answers at `url`, as a comparable key: (scheme, host, port, path) with the scheme's default port
    filled in, a trailing `/` dropped, case folded where URLs ignore it (scheme, host), and every loopback
    spelling (`localhost`, `127.0.0.1`, `::1`) as one host: the same server may answer to each of them."""
    parts = urlsplit(normalise_url(url))
    scheme, host = parts.scheme, (parts.hostname or "").lower()
    port = parts.port if parts.port is not None else _DEFAULT_SCHEME_PORTS.get(scheme, 0)
    try:
        loopback = host in _LOOPBACK_NAMES or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    return scheme, "loopback" if loopback else host, port, parts.path.rstrip("/")


def same_endpoint(a: str, b: str) -> bool:
    """True when the two URLs may name the same server (see `endpoint_key`)."""
    return endpoint_key(a) == endpoint_key(b)


def _all_loopback(host: str) -> bool:
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return False
    addresses = {info[4][0] for info in infos}
    return bool(addresses) and all(ipaddress.ip_address(str(a).split("%")[0]).is_loopback for a in addresses)


def is_loopback(url: str) -> bool:
    """True when the URL's host is this machine's loopback: 127.0.0.0/8, ::1, or a `localhost` that resolves
    only to those (the hosts file can point `localhost` elsewhere). Other names could point anywhere."""
    host = urlsplit(normalise_url(url)).hostname or ""
    if host in ("localhost", "localhost."):
        return _all_loopback("localhost")
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
