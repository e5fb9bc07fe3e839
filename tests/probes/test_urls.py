"""Engine URL normalisation and the loopback-only rule."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from probes.engines.urls import (
    BadEngineUrl,
    Credential,
    is_loopback,
    normalise_url,
    parse_engine_url,
    redact_url_userinfo,
)
from probes.serialize import to_jsonable


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080", "localhost:8080", "http://[::1]:8000/", "127.0.0.5:1"])
def test_loopback(url: str) -> None:
    assert is_loopback(url)


@pytest.mark.parametrize("url", ["http://192.168.1.10:8080", "http://example.com", "10.0.0.1:8000"])
def test_not_loopback(url: str) -> None:
    assert not is_loopback(url)


@pytest.mark.parametrize("url", ["ftp://127.0.0.1", "http://", "http://127.0.0.1:99999"])
def test_bad_urls(url: str) -> None:
    with pytest.raises(BadEngineUrl):
        normalise_url(url)


def test_normalise_adds_scheme_and_strips_slash() -> None:
    assert normalise_url(" localhost:8080/ ") == "http://localhost:8080"


# ---- hostile and malformed URLs: always one clear BadEngineUrl, never a ValueError from deeper down -------

SECRET = "sk-CANARY-url-0123456789"

HOSTILE = [
    "http://[::1", "http://[::1:1", "http://[::1]x:80", "http://[fe80::1%25eth0]:80", "http://[::g]:80",
    "http://::1:8080", "http://" + "a" * 100_000, "http://127.0.0.1:8080\x00", "http://127.0.0.1\r\n:8080",
    "http://127.0.0.1:80\r\nHost: evil.com", "http://exa mple.com", "http://127.0.0.1\t:80", "http://\u200b127.0.0.1",
    "http://127.0.0.1\u202e:80", "http://127.0.0.1:0", "http://127.0.0.1:65536", "http://127.0.0.1:-1",
    "http://127.0.0.1:+80", "http://127.0.0.1:8o8o", "http://127.0.0.1:", "http://127.0.0.1:\u0668\u0660",
    "ftp://127.0.0.1", "file:///etc/passwd", "file:/etc/passwd", "javascript:alert(1)", "data:text/html,x",
    "gopher://127.0.0.1:70", "ws://127.0.0.1:8080", "http:///path", "://", "", "   ", "http://-bad-.example",
    "http://127.1", "http://0127.0.0.1", "http://999.0.0.1", "http://127.0.0.1\\@evil.com",
    "http://127.0.0.1:8080/?x=1", "http://127.0.0.1:8080/#frag", "http://a@b@127.0.0.1", "http://127.0.0.1/v1@x",
    "http://" + "x" * 64 + ".example",
]


@pytest.mark.parametrize("url", HOSTILE, ids=lambda u: repr(u[:40]))
def test_hostile_urls_are_one_line_bad_engine_url(url: str) -> None:
    with pytest.raises(BadEngineUrl) as err:
        normalise_url(url)
    message = str(err.value)
    assert message and "\n" not in message and "\r" not in message and len(message) < 300
    with pytest.raises(BadEngineUrl):
        is_loopback(url)


@pytest.mark.parametrize("url", [
    f"http://{SECRET}@127.0.0.1:99999", f"http://user:{SECRET}@[::1", f"ftp://{SECRET}@127.0.0.1",
    f"http://{SECRET}@127.0.0.1:8080/?q", f"http://a@{SECRET}@127.0.0.1", f"{SECRET}@127.0.0.1:x",
    f"http://to/{SECRET}@127.0.0.1", f"http://u:{SECRET}@127.0.0.1 :80", f"http://{SECRET[:6]}?{SECRET[6:]}@h",
])
def test_bad_url_messages_never_show_the_credential(url: str) -> None:
    with pytest.raises(BadEngineUrl) as err:
        parse_engine_url(url)
    assert SECRET not in str(err.value) and SECRET[6:] not in str(err.value)
    assert SECRET not in repr(err.value)


def test_a_pasted_megabyte_is_refused_without_echoing_it() -> None:
    with pytest.raises(BadEngineUrl) as err:
        normalise_url("http://127.0.0.1:8080/" + "A" * 1_000_000)
    assert "too long" in str(err.value) and len(str(err.value)) < 120


@pytest.mark.parametrize(("url", "base"), [
    ("HTTP://LOCALHOST:8080/", "http://localhost:8080"),
    ("https://[0:0:0:0:0:0:0:1]:8443/v1/", "https://[::1]:8443/v1"),
    ("127.0.0.1:8080\n", "http://127.0.0.1:8080"),  # a pasted trailing newline is trimmed, like spaces
    ("http://127.0.0.1", "http://127.0.0.1"),
])
def test_normalised_forms(url: str, base: str) -> None:
    assert normalise_url(url) == base


# ---- user-info: taken off the URL and used as the key -------------------------------------------------------


@pytest.mark.parametrize(("url", "key"), [
    (f"http://{SECRET}@127.0.0.1:8080", SECRET),                  # token form → bearer key
    (f"http://:{SECRET}@127.0.0.1:8080", SECRET),                 # no user name: the password alone is the key
    ("http://:p%40ss%2Fw%3Ard@127.0.0.1:8080", "p@ss/w:rd"),      # percent-encoded characters decoded
    (f"{SECRET}@localhost:8080", SECRET),                         # no scheme
    ("http://@127.0.0.1:8080", None), ("http://user:@127.0.0.1:8080", "user"),
])
def test_userinfo_becomes_the_key_and_leaves_the_url(url: str, key: str | None) -> None:
    parsed = parse_engine_url(url)
    assert parsed.api_key == key
    assert "@" not in parsed.base and SECRET not in parsed.base
    assert SECRET not in repr(parsed) and SECRET not in str(to_jsonable(parsed))
    assert normalise_url(url) == parsed.base


@pytest.mark.parametrize("url", [f"http://user:{SECRET}@127.0.0.1:8080/", f"user:{SECRET}@localhost:8080"])
def test_a_user_name_and_password_are_refused_not_sent_as_a_bearer_key(url: str) -> None:
    with pytest.raises(BadEngineUrl, match="HTTP Basic") as err:
        parse_engine_url(url)
    assert SECRET not in str(err.value)


def test_a_key_with_control_characters_is_refused_without_showing_it() -> None:
    with pytest.raises(BadEngineUrl) as err:
        parse_engine_url("http://u:abc%0D%0AX-Evil:%201@127.0.0.1:8080")
    assert "abc" not in str(err.value) and "Evil" not in str(err.value)


def test_credential_never_prints() -> None:
    cred = Credential(SECRET)
    assert SECRET not in repr(cred) and SECRET not in str(cred) and SECRET not in f"{cred}"
    assert cred.reveal() == SECRET


def test_adapters_strip_userinfo_and_keep_the_key_in_auth_only() -> None:
    from probes.engines.http import BearerAuth
    from probes.engines.llamacpp.adapter import LlamaCppAdapter
    from probes.engines.vllm import VllmAdapter

    for cls in (LlamaCppAdapter, VllmAdapter):
        adapter = cls(f"http://{SECRET}@127.0.0.1:8080/")
        assert adapter.base_url == "http://127.0.0.1:8080"
        assert SECRET not in repr(adapter) and SECRET not in str(adapter._client.base_url)
        assert isinstance(adapter._client.auth, BearerAuth) and SECRET not in repr(adapter._client.auth)
        adapter.close()


# ---- redaction for the rest of the app --------------------------------------------------------------------


@pytest.mark.parametrize(("text", "shown"), [
    (f"GET http://user:{SECRET}@127.0.0.1:8080/props failed", "GET http://***@127.0.0.1:8080/props failed"),
    (f"url=https://{SECRET}@host/x", "url=https://***@host/x"),
    (f"two: http://a:{SECRET}@h1 and HTTP://{SECRET}@h2:1/", "two: http://***@h1 and HTTP://***@h2:1/"),
    ("http://127.0.0.1:8080/x?mail=a@b.com, me@example.com", "http://127.0.0.1:8080/x?mail=a@b.com, me@example.com"),
    ("no urls here", "no urls here"),
])
def test_redact_url_userinfo(text: str, shown: str) -> None:
    assert redact_url_userinfo(text) == shown


# ---- loopback tricks: none of these may pass as "this machine" ------------------------------------------


@pytest.mark.parametrize("url", [
    "http://127.0.0.1.nip.io:8080", "http://127.0.0.1@evil.com", "http://localhost.evil.com",
    "http://evil.com#@127.0.0.1", "http://evil.com?@127.0.0.1", "http://foo.localhost", "http://0x7f000001",
    "http://2130706433", "http://l\u043ecalhost",
])
def test_loopback_tricks_are_not_loopback(url: str) -> None:
    with contextlib.suppress(BadEngineUrl):  # refusing the URL outright is just as safe
        assert not is_loopback(url)


def test_localhost_counts_only_when_it_resolves_to_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    real = socket.getaddrinfo
    assert is_loopback("http://localhost:8080")

    def remapped(host: str, *args: Any, **kwargs: Any) -> Any:
        if host == "localhost":  # a hosts file that sends localhost elsewhere
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("192.168.1.10", 0))]
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", remapped)
    assert not is_loopback("http://localhost:8080")


def test_connect_turns_a_bad_url_or_key_into_a_connect_error() -> None:
    from probes.engines.discovery import EngineConnectError, connect

    with pytest.raises(EngineConnectError, match="unclosed"):
        connect(f"http://u:{SECRET}@[::1")
    with pytest.raises(EngineConnectError, match="control character") as err:
        connect("http://127.0.0.1:9", api_key=f"{SECRET}\nX-Evil: 1")
    assert SECRET not in str(err.value)
