"""Engine URL normalisation and the loopback-only rule."""

from __future__ import annotations

import pytest

from probes.engines.urls import BadEngineUrl, is_loopback, normalise_url


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
