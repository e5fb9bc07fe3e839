"""A real llama-server started with `--api-key`: reachable with the key (argument or URL user-info), refused
without it or with a wrong one in plain words, and the key in no message, repr or returned structure."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from advisor.arms.server import ManagedServer, ServerConfig
from probes.base import Unavailable
from probes.engines.base import EngineError, SpecCounters
from probes.engines.discovery import EngineConnectError, connect, identify, scan_loopback
from probes.engines.llamacpp.adapter import LlamaCppAdapter
from probes.serialize import to_jsonable

pytestmark = pytest.mark.engine

KEY = "SECRET-CANARY"


@pytest.fixture(scope="module")
def locked(llama_binary: Any, demo_model: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ManagedServer]:
    config = ServerConfig(model=demo_model, threads=2, label="locked", spec_type="ngram-mod", draft_max=8,
                          extra_args=("--api-key", KEY))
    with ManagedServer(llama_binary, config, tmp_path_factory.mktemp("srv-locked")) as server:
        yield server


def _with_userinfo(base_url: str, userinfo: str) -> str:
    return base_url.replace("http://", f"http://{userinfo}@", 1)


def _no_key(*things: object) -> None:
    for thing in things:
        for text in (str(thing), repr(thing), str(to_jsonable(thing))):
            assert KEY not in text, text


def test_reachable_with_the_key(locked: ManagedServer) -> None:
    adapter = LlamaCppAdapter(locked.base_url, api_key=KEY)
    info = adapter.info()
    assert info.kind == "llama.cpp" and isinstance(info.model, str) and "SmolLM2" in info.model
    spec = adapter.spec_state()
    assert not isinstance(spec, Unavailable) and spec.active is True and spec.method == "ngram-mod"
    assert isinstance(adapter.spec_counters(), SpecCounters)            # /metrics needs the key too
    assert adapter.tokenize("hello world")
    result = adapter.complete("One, two, three,", max_tokens=12, seed=1)
    assert result.completion_tokens == 12 and result.bursts[-1].n_tokens == 12
    _no_key(adapter, info, spec, result)
    adapter.close()


@pytest.mark.parametrize("userinfo", [KEY, f":{KEY}"])  # a user name and password: refused (test_urls.py)
def test_key_in_the_url_userinfo_works_and_is_stripped(locked: ManagedServer, userinfo: str) -> None:
    url = _with_userinfo(locked.base_url, userinfo)
    adapter = LlamaCppAdapter(url)
    assert adapter.base_url == locked.base_url
    info = adapter.info()
    assert info.base_url == locked.base_url
    found = identify(url)
    assert found.info is not None and found.url == locked.base_url
    connected = connect(url)
    assert connected.complete("Hi", max_tokens=2).completion_tokens == 2
    _no_key(adapter, info, found, found.to_dict(), connected)
    adapter.close()


@pytest.mark.parametrize("key", [None, "WRONG-KEY"])
def test_refused_without_the_right_key_in_plain_words(locked: ManagedServer, key: str | None) -> None:
    adapter = LlamaCppAdapter(locked.base_url, api_key=key)
    with pytest.raises(EngineError) as info_err:
        adapter.info()
    with pytest.raises(EngineError) as stream_err:
        adapter.complete("Hi", max_tokens=2)
    for err in (info_err.value, stream_err.value):
        assert err.kind == "http-4xx" and err.status == 401 and err.auth_refused
        assert "needs an API key (or the key was refused)" in str(err)
    counters, spec = adapter.spec_counters(), adapter.spec_state()
    assert isinstance(counters, Unavailable) and counters.reason == "permission"
    assert isinstance(spec, Unavailable) and spec.reason == "permission"
    found = identify(locked.base_url, api_key=key)
    assert found.info is None and found.problem is not None and found.problem.reason == "permission"
    assert "needs an API key" in found.problem.detail and "no engine" not in found.problem.detail
    with pytest.raises(EngineConnectError, match="needs an API key"):
        connect(locked.base_url, api_key=key)
    _no_key(info_err.value, stream_err.value, counters, spec, found.to_dict())
    adapter.close()


def test_a_wrong_key_in_the_url_is_not_echoed(locked: ManagedServer) -> None:
    with pytest.raises(EngineConnectError) as err:
        connect(_with_userinfo(locked.base_url, "WRONG-KEY-in-url"))
    assert "needs an API key" in str(err.value) and "WRONG-KEY-in-url" not in str(err.value)


def test_scan_lists_the_locked_server_only_when_asked(locked: ManagedServer) -> None:
    assert scan_loopback([locked.port], timeout_s=3.0) == []
    listed = scan_loopback([locked.port], timeout_s=3.0, include_locked=True)
    assert len(listed) == 1 and listed[0].problem is not None and listed[0].problem.reason == "permission"
    with_key = scan_loopback([locked.port], timeout_s=3.0, api_key=KEY)
    assert len(with_key) == 1 and with_key[0].info is not None
    _no_key(with_key, [d.to_dict() for d in with_key])
