"""Usage that would measure something other than it claims, or send a key where it was not meant to go:
one server given as both arms, a key crossing to the other arm's server (docs/refusals.md)."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from advisor.cli import check
from advisor.config import CheckConfig
from advisor.errors import UserError
from advisor.run import launch
from probes.engines.urls import endpoint_key, same_endpoint


def _args(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    check.configure(p)
    return p.parse_args(list(argv))


@pytest.mark.parametrize(("a", "b"), [
    ("http://127.0.0.1:8080", "http://127.0.0.1:8080/"), ("http://localhost:8080", "http://127.0.0.1:8080"),
    ("HTTP://LOCALHOST:8080", "localhost:8080"), ("http://127.0.0.1", "http://127.0.0.1:80"),
    ("https://[::1]", "https://localhost:443/"), ("http://Example.COM:8000", "http://example.com:8000"),
    ("http://127.0.0.1:8080/v1/", "http://127.0.0.1:8080/v1"),
])
def test_spellings_of_one_server_are_one_endpoint(a: str, b: str) -> None:
    assert same_endpoint(a, b), (endpoint_key(a), endpoint_key(b))


@pytest.mark.parametrize(("a", "b"), [
    ("http://127.0.0.1:8080", "http://127.0.0.1:8081"), ("http://127.0.0.1:8080", "https://127.0.0.1:8080"),
    ("http://10.0.0.1:8080", "http://10.0.0.2:8080"), ("http://127.0.0.1:8080/a", "http://127.0.0.1:8080/b"),
])
def test_different_servers_stay_different(a: str, b: str) -> None:
    assert not same_endpoint(a, b)


@pytest.mark.parametrize("b", ["http://127.0.0.1:8080/", "http://localhost:8080", "http://KEY@127.0.0.1:8080"])
def test_the_same_server_as_both_arms_is_a_usage_error(b: str) -> None:
    with pytest.raises(UserError, match="same server"):
        check.config_from_args(_args("--engine-url", "http://127.0.0.1:8080", "--engine-url-b", b))


def test_a_key_in_the_b_url_goes_to_the_b_server_only() -> None:
    cfg = check.config_from_args(_args("--engine-url", "http://127.0.0.1:8080",
                                       "--engine-url-b", "http://KEY-OF-B@127.0.0.1:8081"))
    assert cfg.api_key is None and cfg.api_key_b == "KEY-OF-B"
    cfg = check.config_from_args(_args("--engine-url", "http://KEY-OF-A@127.0.0.1:8080",
                                       "--engine-url-b", "http://127.0.0.1:8081"))
    assert cfg.api_key == "KEY-OF-A" and cfg.api_key_b is None
    assert "KEY-OF" not in repr(cfg) and "KEY-OF" not in str(cfg.to_dict())


def test_the_shared_key_serves_each_server_without_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPEC_ADVISOR_API_KEY", "SHARED")
    cfg = check.config_from_args(_args("--engine-url", "http://127.0.0.1:8080",
                                       "--engine-url-b", "http://OWN@127.0.0.1:8081"))
    assert (cfg.api_key, cfg.api_key_b) == ("SHARED", "OWN")


def test_attach_connects_each_server_with_its_own_key(monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[tuple[str, Any]] = []

    class Stop(Exception):
        pass

    def connect(url: str, *, allow_remote: bool, api_key: str | None) -> Any:
        sent.append((url, api_key))
        if len(sent) == 2:
            raise Stop
        return object()

    import probes.engines.discovery as discovery

    monkeypatch.setattr(discovery, "connect", connect)
    cfg = CheckConfig(engine_url="http://127.0.0.1:8080", engine_url_b="http://127.0.0.1:8081",
                      api_key=None, api_key_b="KEY-OF-B")
    with pytest.raises(Stop):
        launch.attach(cfg)
    assert sent == [("http://127.0.0.1:8080", None), ("http://127.0.0.1:8081", "KEY-OF-B")]
