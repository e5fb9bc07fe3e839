"""TGI adapter against a contract server replaying TGI's router `Info` and stream shapes, not a running TGI."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from probes.base import Unavailable
from probes.engines.base import EngineError
from probes.engines.tgi import TgiAdapter
from tests.contract_servers import (
    ALL_ROUTES,
    HTML_PAGE,
    NOT_JSON,
    SERVER_ERROR,
    TGI_INFO,
    ContractServer,
    Reply,
    serve,
    tgi_routes,
)

KEY = "hf_tgi_secret_token"


@pytest.fixture
def server() -> Iterator[ContractServer]:
    with serve(tgi_routes()) as s:
        yield s


@pytest.fixture
def adapter(server: ContractServer) -> Iterator[TgiAdapter]:
    a = TgiAdapter(server.url, api_key=KEY, timeout_s=5)
    yield a
    a.close()


@pytest.mark.parametrize("engine", sorted(ALL_ROUTES))
def test_detect_only_tgi(engine: str) -> None:
    with serve(ALL_ROUTES[engine]()) as s, httpx.Client() as client:
        assert TgiAdapter.detect(client, s.url) is (engine == "tgi")


def test_info_reports_identity_limits_and_speculation_note(adapter: TgiAdapter) -> None:
    info = adapter.info()
    assert (info.kind, info.version, info.model, info.context_size) == (
        "tgi", "3.2.1", "mistralai/Ministral-8B-Instruct-2410", 32768)
    assert info.extra["max_input_tokens"] == 32767 and info.extra["max_best_of"] == 2
    assert "--speculate" in str(info.extra["speculation"])
    for missing in (info.spec, info.acceptance_rate, info.mean_acceptance_length, adapter.spec_counters()):
        assert isinstance(missing, Unavailable) and missing.reason == "not-supported" and missing.detail


def test_missing_fields(server: ContractServer, adapter: TgiAdapter) -> None:
    server.set("GET", "/info", {k: v for k, v in TGI_INFO.items() if k not in ("version", "max_total_tokens")})
    info = adapter.info()
    assert isinstance(info.version, Unavailable) and isinstance(info.context_size, Unavailable)


def test_complete_counts_from_details(server: ContractServer, adapter: TgiAdapter) -> None:
    r = adapter.complete("What is", max_tokens=3)
    assert (r.text, r.completion_tokens, r.stop_reason) == ("Deep learning", 3, "eos_token")
    assert r.draft_tokens is None and r.prompt_ms is None
    params = server.seen[-1].body["parameters"]  # type: ignore[index]
    assert params["do_sample"] is False and "temperature" not in params  # TGI refuses temperature 0
    adapter.complete("What is", max_tokens=3, temperature=0.7)
    assert server.seen[-1].body["parameters"]["temperature"] == 0.7  # type: ignore[index]


@pytest.mark.parametrize(("reply", "kind"), [(SERVER_ERROR, "http-5xx"), (HTML_PAGE, "bad-response"),
                                              (NOT_JSON, "bad-response")])
def test_bad_replies(server: ContractServer, adapter: TgiAdapter, reply: Reply, kind: str) -> None:
    server.set("GET", "/info", reply)
    with pytest.raises(EngineError) as err:
        adapter.info()
    assert err.value.kind == kind and "/info" in str(err.value) and KEY not in str(err.value)


def test_validation_error_is_4xx(server: ContractServer, adapter: TgiAdapter) -> None:
    server.set("POST", "/generate_stream", Reply({"error": "Input validation error", "error_type": "validation"},
                                                  status=422))
    with pytest.raises(EngineError, match=r"422.*validation") as err:
        adapter.complete("x", max_tokens=3)
    assert err.value.kind == "http-4xx"


def test_sse_without_space_after_data_colon(server: ContractServer, adapter: TgiAdapter) -> None:
    final = (b'data:{"index":1,"token":{"id":5,"text":"Hi","logprob":0,"special":false},'
             b'"generated_text":"Hi","details":{"finish_reason":"length","generated_tokens":1}}\n\n')
    server.set("POST", "/generate_stream", Reply(content_type="text/event-stream", chunks=[b": ping\n\n", final]))
    r = adapter.complete("x", max_tokens=1)
    assert (r.text, r.completion_tokens) == ("Hi", 1)
