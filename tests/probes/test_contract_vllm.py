"""vLLM adapter against a contract server replaying vLLM's documented formats (engine-facts.md §2), not a real vLLM."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from probes.base import Unavailable
from probes.engines import prometheus as prom
from probes.engines.base import EngineError, SpecCounters
from probes.engines.vllm import VllmAdapter
from tests.contract_servers import (
    ALL_ROUTES,
    HTML_PAGE,
    NOT_JSON,
    SERVER_ERROR,
    VLLM_MODEL,
    ContractServer,
    Reply,
    prometheus,
    serve,
    sse,
    vllm_metrics,
    vllm_routes,
)

KEY = "sk-secret-do-not-leak-123"


@pytest.fixture
def server() -> Iterator[ContractServer]:
    with serve(vllm_routes()) as s:
        yield s


@pytest.fixture
def adapter(server: ContractServer) -> Iterator[VllmAdapter]:
    a = VllmAdapter(server.url, api_key=KEY, timeout_s=5)
    yield a
    a.close()


def test_detect_identifies_vllm(server: ContractServer) -> None:
    with httpx.Client() as client:
        assert VllmAdapter.detect(client, server.url)


@pytest.mark.parametrize("engine", sorted(ALL_ROUTES))
def test_detect_only_vllm(engine: str) -> None:
    with serve(ALL_ROUTES[engine]()) as s, httpx.Client() as client:
        assert VllmAdapter.detect(client, s.url) is (engine == "vllm")


def test_detect_needs_owned_by_vllm(server: ContractServer) -> None:
    server.set("GET", "/v1/models", {"object": "list", "data": [{"id": "m", "owned_by": "llamacpp"}]})
    with httpx.Client() as client:
        assert not VllmAdapter.detect(client, server.url)


def test_info_reads_version_model_and_hand_computed_acceptance(adapter: VllmAdapter) -> None:
    info = adapter.info()
    assert (info.kind, info.version, info.model) == ("vllm", "0.33.0", VLLM_MODEL)
    assert info.model_path == "/models/Qwen3-8B"
    assert info.context_size == 32768
    # two engines summed: drafted 300+150, accepted 180+60, steps 100+50
    assert info.acceptance_rate == pytest.approx(240 / 450)
    assert info.mean_acceptance_length == pytest.approx(1 + 240 / 150)
    assert not isinstance(info.spec, Unavailable)
    assert info.spec.active is True and info.spec.draft_max == 3
    assert info.extra["per_position_acceptance"] == pytest.approx((110 / 150, 80 / 150, 50 / 150))


def test_spec_counters_sum_engines_and_positions(adapter: VllmAdapter) -> None:
    c = adapter.spec_counters()
    assert c == SpecCounters(150, 450, 240, (110, 80, 50))


def test_no_speculative_config_means_off_with_reason() -> None:
    with serve(vllm_routes(spec=False)) as s:
        a = VllmAdapter(s.url)
        info = a.info()
        counters = a.spec_counters()
        a.close()
    assert not isinstance(info.spec, Unavailable) and info.spec.active is False
    assert "--speculative-config" in info.spec.detail
    assert isinstance(counters, Unavailable) and "--speculative-config" in counters.detail
    assert isinstance(info.acceptance_rate, Unavailable)
    assert isinstance(info.mean_acceptance_length, Unavailable)


def test_window_delta_and_counter_reset(server: ContractServer, adapter: VllmAdapter) -> None:
    later = vllm_metrics((110, 50), (330, 150), (200, 60), ((88, 66, 46), (30, 20, 10)))
    restarted = vllm_metrics((3, 0), (9, 0), (5, 0), ((3, 2, 0), (0, 0, 0)))
    first = adapter.spec_counters()
    server.set("GET", "/metrics", [prometheus(later), prometheus(restarted)])
    second = adapter.spec_counters()
    third = adapter.spec_counters()  # the server restarted between scrapes
    assert isinstance(first, SpecCounters) and isinstance(second, SpecCounters)
    assert isinstance(third, SpecCounters)
    window = prom.counters_delta(second, first)
    assert window == SpecCounters(10, 30, 20, (8, 6, 6))
    assert prom.acceptance_rate(window) == pytest.approx(20 / 30)
    reset = prom.counters_delta(third, second)
    assert isinstance(reset, Unavailable) and "restart" in reset.detail


def test_missing_fields_are_unavailable_with_reason(server: ContractServer, adapter: VllmAdapter) -> None:
    server.set("GET", "/version", {"something": "else"})
    server.set("GET", "/v1/models", {"object": "list", "data": [{"id": VLLM_MODEL, "owned_by": "vllm"}]})
    info = adapter.info()
    assert isinstance(info.version, Unavailable) and "version" in info.version.detail
    assert isinstance(info.model_path, Unavailable) and isinstance(info.context_size, Unavailable)
    assert info.model == VLLM_MODEL


def test_complete_counts_tokens_from_usage_not_chunks(server: ContractServer, adapter: VllmAdapter) -> None:
    r = adapter.complete("Hi", max_tokens=9)
    assert r.text == "Hello there, how are you today?"
    assert r.completion_tokens == 9  # three chunks, nine tokens
    assert (r.prompt_tokens, r.cached_tokens) == (8, 4)
    assert (r.draft_tokens, r.draft_accepted) == (12, 6)
    assert r.stop_reason == "length"
    assert 0 <= r.ttft_ms <= r.total_ms
    sent = server.seen[-1]
    assert isinstance(sent.body, dict) and sent.body["stream_options"] == {"include_usage": True}
    assert sent.headers["authorization"] == f"Bearer {KEY}"


def test_complete_without_usage_chunk_refuses_to_guess(server: ContractServer, adapter: VllmAdapter) -> None:
    server.set("POST", "/v1/completions", sse({"choices": [{"index": 0, "text": "x", "finish_reason": "stop"}]}))
    with pytest.raises(EngineError, match="usage"):
        adapter.complete("Hi", max_tokens=4)


@pytest.mark.parametrize(("reply", "kind", "words"), [
    (SERVER_ERROR, "http-5xx", "HTTP 500"),
    (HTML_PAGE, "bad-response", "text/html"),
    (NOT_JSON, "bad-response", "not JSON"),
])
def test_bad_replies_raise_clear_errors(server: ContractServer, adapter: VllmAdapter,
                                        reply: Reply, kind: str, words: str) -> None:
    server.set("GET", "/v1/models", reply)
    with pytest.raises(EngineError, match=words) as err:
        adapter.info()
    assert err.value.kind == kind and "/v1/models" in str(err.value)
    assert KEY not in str(err.value) and KEY not in repr(err.value)


def test_stream_error_and_unreachable_are_engine_errors(server: ContractServer, adapter: VllmAdapter) -> None:
    server.set("POST", "/v1/completions", HTML_PAGE)
    with pytest.raises(EngineError, match="text/event-stream"):
        adapter.complete("Hi", max_tokens=4)
    down = VllmAdapter("http://127.0.0.1:9", api_key=KEY, timeout_s=2)
    with pytest.raises(EngineError) as err:
        down.info()
    assert err.value.kind == "unreachable"
    assert KEY not in str(err.value)
    assert KEY not in repr(down) and KEY not in repr(down._client.auth)


def test_echoed_key_is_scrubbed(server: ContractServer, adapter: VllmAdapter) -> None:
    server.set("GET", "/v1/models", lambda seen: Reply(
        body={"error": "bad header " + seen.headers.get("authorization", "")}, status=502))
    with pytest.raises(EngineError) as err:
        adapter.info()
    assert KEY not in str(err.value) and "***" in str(err.value)
