"""SGLang adapter against a contract server replaying SGLang's documented formats (engine-facts.md §3), not SGLang."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from probes.base import Unavailable
from probes.engines.base import EngineError
from probes.engines.sglang import SglangAdapter
from tests.contract_servers import (
    ALL_ROUTES,
    HTML_PAGE,
    NOT_JSON,
    SERVER_ERROR,
    SGLANG_MODEL,
    ContractServer,
    Reply,
    serve,
    sglang_routes,
)

KEY = "sglang-key-very-secret"


@pytest.fixture
def server() -> Iterator[ContractServer]:
    with serve(sglang_routes()) as s:
        yield s


@pytest.fixture
def adapter(server: ContractServer) -> Iterator[SglangAdapter]:
    a = SglangAdapter(server.url, api_key=KEY, timeout_s=5)
    yield a
    a.close()


@pytest.mark.parametrize("engine", sorted(ALL_ROUTES))
def test_detect_only_sglang(engine: str) -> None:
    with serve(ALL_ROUTES[engine]()) as s, httpx.Client() as client:
        assert SglangAdapter.detect(client, s.url) is (engine == "sglang")


def test_detect_and_info_on_deprecated_endpoints() -> None:
    with serve(sglang_routes(deprecated_only=True)) as s, httpx.Client() as client:
        assert SglangAdapter.detect(client, s.url)
        info = SglangAdapter(s.url).info()
    assert info.version == "0.5.23" and info.model == "llama-3.1-8b"


def test_info(adapter: SglangAdapter) -> None:
    info = adapter.info()
    assert (info.kind, info.version, info.model, info.model_path) == (
        "sglang", "0.5.23", "llama-3.1-8b", SGLANG_MODEL)
    assert info.context_size == 8192
    assert not isinstance(info.spec, Unavailable)
    assert (info.spec.active, info.spec.method, info.spec.draft_max) == (True, "eagle3", 3)
    assert info.mean_acceptance_length == pytest.approx(2.75)  # mean of the two schedulers
    assert isinstance(info.acceptance_rate, Unavailable) and "per request" in info.acceptance_rate.detail
    assert info.extra["architectures"] == ["LlamaForCausalLM"]


def test_spec_off_and_counters_unavailable() -> None:
    with serve(sglang_routes(spec=False)) as s:
        a = SglangAdapter(s.url)
        info = a.info()
        counters = a.spec_counters()
        r = a.complete("x", max_tokens=8)
    assert not isinstance(info.spec, Unavailable) and info.spec.active is False
    assert "--speculative-algorithm" in info.spec.detail
    assert isinstance(info.mean_acceptance_length, Unavailable)
    assert isinstance(counters, Unavailable) and "gauges" in counters.detail
    assert r.draft_tokens is None and r.draft_accepted is None and r.raw_timings == {}


def test_missing_fields(server: ContractServer, adapter: SglangAdapter) -> None:
    server.set("GET", "/server_info", {"version": "0.5.23", "internal_states": []})
    info = adapter.info()
    assert isinstance(info.context_size, Unavailable)
    assert isinstance(info.spec, Unavailable) and "speculative_algorithm" in info.spec.detail


def test_complete_reads_meta_info(server: ContractServer, adapter: SglangAdapter) -> None:
    r = adapter.complete("The sky", max_tokens=8)
    assert r.text == "The sky is blue today."  # cumulative text is not duplicated
    assert (r.completion_tokens, r.prompt_tokens, r.cached_tokens) == (8, 8, 2)
    assert (r.draft_tokens, r.draft_accepted) == (8, 5)
    assert r.raw_timings["spec_accept_length"] == 2.0 and r.raw_timings["spec_verify_ct"] == 4
    assert [b.n_tokens for b in r.bursts] == [3, 6, 8]
    assert r.stop_reason == "length"
    body = server.seen[-1].body
    assert isinstance(body, dict) and body["sampling_params"]["max_new_tokens"] == 8
    assert adapter.complete([1, 2, 3], max_tokens=8).completion_tokens == 8
    assert server.seen[-1].body["input_ids"] == [1, 2, 3]  # type: ignore[index]


@pytest.mark.parametrize(("reply", "kind"), [(SERVER_ERROR, "http-5xx"), (HTML_PAGE, "bad-response"),
                                              (NOT_JSON, "bad-response")])
def test_bad_stream_replies(server: ContractServer, adapter: SglangAdapter, reply: Reply, kind: str) -> None:
    server.set("POST", "/generate", reply)
    with pytest.raises(EngineError) as err:
        adapter.complete("x", max_tokens=4)
    assert err.value.kind == kind and "/generate" in str(err.value) and KEY not in str(err.value)


def test_bad_info_replies_are_reasons_and_down_engine_raises(server: ContractServer,
                                                            adapter: SglangAdapter) -> None:
    server.set("GET", "/server_info", SERVER_ERROR)
    info = adapter.info()
    assert isinstance(info.version, Unavailable) and "HTTP 500" in info.version.detail
    assert info.model == "llama-3.1-8b"  # still read from /model_info
    down = SglangAdapter("http://127.0.0.1:9", api_key=KEY, timeout_s=2)
    with pytest.raises(EngineError) as err:
        down.info()
    assert err.value.kind == "unreachable" and KEY not in str(err.value) and KEY not in repr(down)
