"""LM Studio adapter against a contract server replaying LM Studio's documented REST v0 (engine-facts.md §4)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from probes.base import Unavailable
from probes.engines.base import EngineError
from probes.engines.lmstudio import LmStudioAdapter
from tests.contract_servers import (
    ALL_ROUTES,
    HTML_PAGE,
    LMSTUDIO_MODEL,
    NOT_JSON,
    SERVER_ERROR,
    ContractServer,
    Reply,
    lmstudio_completion,
    lmstudio_routes,
    serve,
)

KEY = "lm-studio-secret-token"


@pytest.fixture
def server() -> Iterator[ContractServer]:
    with serve(lmstudio_routes()) as s:
        yield s


@pytest.fixture
def adapter(server: ContractServer) -> Iterator[LmStudioAdapter]:
    a = LmStudioAdapter(server.url, api_key=KEY, timeout_s=5, draft_model="qwen2.5-0.5b-instruct")
    yield a
    a.close()


@pytest.mark.parametrize("engine", sorted(ALL_ROUTES))
def test_detect_only_lmstudio(engine: str) -> None:
    with serve(ALL_ROUTES[engine]()) as s, httpx.Client() as client:
        assert LmStudioAdapter.detect(client, s.url) is (engine == "lmstudio")


def test_info_picks_the_loaded_llm(adapter: LmStudioAdapter) -> None:
    info = adapter.info()
    assert (info.kind, info.model, info.context_size) == ("lmstudio", LMSTUDIO_MODEL, 32768)
    assert isinstance(info.version, Unavailable) and "version" in info.version.detail
    assert not isinstance(info.spec, Unavailable) and info.spec.active is True
    assert isinstance(info.acceptance_rate, Unavailable) and "per request" in info.acceptance_rate.detail
    assert info.extra["model_card"]["quantization"] == "Q4_K_M"  # type: ignore[index]


def test_runtime_learnt_from_a_reply(adapter: LmStudioAdapter) -> None:
    adapter.complete("Paris is", max_tokens=48)
    extra = adapter.info().extra
    assert extra["runtime"]["version"] == "1.50.2"  # type: ignore[index]
    assert extra["model_info"]["quant"] == "Q4_K_M"  # type: ignore[index]


def test_without_draft_model_speculation_is_unknown(server: ContractServer) -> None:
    server.set("POST", "/api/v0/completions", lmstudio_completion(draft=False))
    a = LmStudioAdapter(server.url)
    info = a.info()
    r = a.complete("Paris is", max_tokens=48)
    assert not isinstance(info.spec, Unavailable) and info.spec.active is None and info.spec.detail
    assert r.draft_tokens is None and r.draft_accepted is None
    assert "draft_model" not in server.seen[-1].body  # type: ignore[operator]
    assert isinstance(a.spec_counters(), Unavailable)


def test_complete_reads_stats(server: ContractServer, adapter: LmStudioAdapter) -> None:
    r = adapter.complete("Paris is", max_tokens=48)
    assert (r.completion_tokens, r.prompt_tokens) == (48, 5)
    assert (r.draft_tokens, r.draft_accepted) == (40, 30)
    assert r.raw_timings["rejected_draft_tokens_count"] == 8
    assert r.raw_timings["generation_time_ms"] == pytest.approx(954.0)
    assert r.ttft_ms == pytest.approx(111.0)  # server's time_to_first_token, seconds → ms
    assert r.stop_reason == "maxPredictedTokensReached"
    sent = server.seen[-1]
    assert isinstance(sent.body, dict) and sent.body["draft_model"] == "qwen2.5-0.5b-instruct"
    assert sent.body["model"] == LMSTUDIO_MODEL


def test_no_loaded_model_and_missing_usage(server: ContractServer, adapter: LmStudioAdapter) -> None:
    server.set("POST", "/api/v0/completions", {"choices": [{"text": "x"}], "stats": {}})
    with pytest.raises(EngineError, match="completion_tokens"):
        adapter.complete("x", max_tokens=4)
    server.set("GET", "/api/v0/models", {"object": "list", "data": []})
    info = adapter.info()
    assert isinstance(info.model, Unavailable) and "loaded" in info.model.detail
    with pytest.raises(EngineError, match="no model is loaded"):
        adapter.complete("x", max_tokens=4)


def test_token_prompts_are_refused(adapter: LmStudioAdapter) -> None:
    with pytest.raises(EngineError, match="token ids"):
        adapter.complete([1, 2], max_tokens=4)


@pytest.mark.parametrize(("reply", "kind"), [(SERVER_ERROR, "http-5xx"), (HTML_PAGE, "bad-response"),
                                              (NOT_JSON, "bad-response")])
def test_bad_replies(server: ContractServer, adapter: LmStudioAdapter, reply: Reply, kind: str) -> None:
    server.set("POST", "/api/v0/completions", reply)
    with pytest.raises(EngineError) as err:
        adapter.complete("x", max_tokens=4)
    assert err.value.kind == kind and "/api/v0/completions" in str(err.value)
    assert KEY not in str(err.value) and KEY not in repr(adapter)
