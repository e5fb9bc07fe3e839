"""The engine's answers are not trusted (issue 25 class 6): every request has a total deadline, every body a
size cap, every counter a check. Loopback liars (tests/engine_liars.py) say what no real llama-server says."""

from __future__ import annotations

import json
import resource
import time

import pytest

from probes.base import Unavailable
from probes.engines import limits
from probes.engines.base import CompletionResult, EngineError, SpecCounters
from probes.engines.discovery import identify
from probes.engines.http import get_json, make_client
from probes.engines.llamacpp.adapter import LlamaCppAdapter
from tests.engine_liars import drip, endless, fixed, json_head, liar, once

PROPS = json.dumps({"build_info": "b1", "total_slots": 1, "model_path": "/m.gguf"}).encode()


def _final(**timings: object) -> bytes:
    base: dict[str, object] = {"prompt_n": 3, "predicted_n": 10, "prompt_ms": 1.5, "predicted_ms": 4.0}
    base.update(timings)
    return b"data: " + json.dumps({"content": "", "stop": True, "timings": base}).encode() + b"\n\n"


def _sse(*events: bytes) -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n" + b"".join(events)


# ---- total deadline ------------------------------------------------------------------------------------


def test_a_server_dripping_its_headers_cannot_hold_a_request_open() -> None:
    # every byte within the 0.5 s read timeout, so only a total deadline (3 x 0.5 s) ends it
    with liar(drip(json_head(len(PROPS)) + PROPS, every_s=0.1)) as url, make_client(url, 0.5) as client:
        t0 = time.monotonic()
        with pytest.raises(EngineError) as err:
            get_json(client, f"{url}/props")
        took = time.monotonic() - t0
    assert err.value.kind == "timeout" and "did not finish answering within 1.5 s" in str(err.value)
    assert took < 6.0


def test_probe_identify_of_a_dripping_server_ends() -> None:
    with liar(drip(json_head(len(PROPS)) + PROPS, every_s=0.1)) as url:
        t0 = time.monotonic()
        found = identify(url, timeout_s=0.5)
        took = time.monotonic() - t0
    assert found.info is None and isinstance(found.problem, Unavailable)
    assert took < 20.0  # one deadline per endpoint tried, never forever


def test_a_stream_that_drips_forever_meets_the_stream_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "STREAM_DEADLINE_S", 1.0)
    body = _sse(*[b'data: {"content": "t", "stop": false}\n\n'] * 400)
    with liar(drip(body, every_s=0.01)) as url:
        t0 = time.monotonic()
        with pytest.raises(EngineError) as err:
            LlamaCppAdapter(url, idle_timeout_s=5.0).complete("x", max_tokens=2)
        took = time.monotonic() - t0
    assert err.value.kind == "timeout" and "within 1 s" in str(err.value)
    assert took < 5.0


# ---- body size caps ------------------------------------------------------------------------------------


def test_a_300_mb_props_is_refused_without_reading_it() -> None:
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with liar(endless(json_head(), b'{"x": "' + b"a" * 65536, limit_bytes=300 * 1024 * 1024)) as url, \
            pytest.raises(EngineError) as err:
        LlamaCppAdapter(url).info()
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before) / 1024
    assert err.value.kind == "bad-response" and "larger than 8 MiB" in str(err.value)
    assert grown_mib < 200  # reading it whole took 1.3 GB


def test_a_declared_huge_length_is_refused_at_once() -> None:
    with liar(endless(json_head(300 * 1024 * 1024), b"a" * 65536)) as url:
        t0 = time.monotonic()
        with pytest.raises(EngineError) as err:
            LlamaCppAdapter(url).info()
    assert "larger than" in str(err.value) and time.monotonic() - t0 < 5.0


def test_an_endless_stream_line_is_refused() -> None:
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\ndata: "
    with liar(endless(head, b"a" * 65536)) as url, pytest.raises(EngineError) as err:
        LlamaCppAdapter(url).complete("x", max_tokens=2)
    assert err.value.kind == "bad-response" and "line longer than" in str(err.value)


def test_an_error_page_is_quoted_short_and_read_within_the_cap() -> None:
    with liar(fixed(500, "text/html", b"<h1>" + b"x" * (20 * 1024 * 1024))) as url, \
            pytest.raises(EngineError) as err:
        LlamaCppAdapter(url).info()
    assert len(str(err.value)) < 400


# ---- counters ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("timings", "why"), [
    ({"draft_n": 10, "draft_n_accepted": 99}, "99 accepted draft tokens of 10 drafted"),
    ({"draft_n": -5, "draft_n_accepted": 0}, "drafted tokens is negative"),
    ({"prompt_n": -3}, "prompt tokens is negative"),
    ({"predicted_ms": -1.0}, "decode time is negative"),
    ({"cache_n": 10**40}, "not a plausible token count"),
])
def test_impossible_counters_reject_the_request(timings: dict[str, object], why: str) -> None:
    with liar(once(_sse(_final(**timings)))) as url, \
            pytest.raises(EngineError) as err:
        LlamaCppAdapter(url).complete("x", max_tokens=2)
    assert err.value.kind == "bad-response" and why in str(err.value) and "not used" in str(err.value)


def test_a_possible_request_still_passes() -> None:
    with liar(once(_sse(_final(draft_n=10, draft_n_accepted=7)))) as url:
        result = LlamaCppAdapter(url).complete("x", max_tokens=2)
    assert result.draft_tokens == 10 and result.draft_accepted == 7


def test_impossible_metrics_counters_are_unavailable_not_believed() -> None:
    scrape = (b"llamacpp:spec_decode_num_drafts_total 5\nllamacpp:spec_decode_num_draft_tokens_total 10\n"
              b"llamacpp:spec_decode_num_accepted_tokens_total 99\n")
    with liar(fixed(200, "text/plain", scrape)) as url:
        counters = LlamaCppAdapter(url).spec_counters()
    assert isinstance(counters, Unavailable) and counters.reason == "bad-response"
    assert "99 accepted tokens of 10 draft tokens" in counters.detail


@pytest.mark.parametrize("values", [(1.0, float("nan"), 0.0), (-1.0, 2.0, 1.0), (1.0, 2.0, float("inf"))])
def test_spec_counters_problem(values: tuple[float, float, float]) -> None:
    assert SpecCounters(*values).problem() is not None
    assert SpecCounters(1.0, 4.0, 3.0).problem() is None


def test_a_result_built_from_impossible_numbers_raises() -> None:
    with pytest.raises(EngineError):
        CompletionResult("", 1, 0, 10, 1.0, float("nan"), None, None, 1.0, 2.0, None)
