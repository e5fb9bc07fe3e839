"""The shared streaming layer: SSE framing (multi-line data, comments, CRLF, llama-server's `error:` field),
the idle timeout (longest silence, not total time), and key scrubbing, through the llama.cpp adapter.

The servers here are loopback fault injectors that write exact bytes with exact pauses, not engines.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from probes.engines.base import EngineError
from probes.engines.http import SseMessage, make_client, sse_messages, stream_sse
from probes.engines.llamacpp.adapter import LlamaCppAdapter
from probes.engines.urls import BadApiKey

KEY = "sk-CANARY-stream-0123456789"
FINAL = (b'data: {"content": "", "stop": true, "stop_type": "limit", '
         b'"timings": {"prompt_n": 3, "predicted_n": 2, "prompt_ms": 1.5, "predicted_ms": 4.0}}\n\n')


@contextmanager
def scripted(chunks: list[tuple[float, bytes]], status: int = 200,
             content_type: str = "text/event-stream") -> Iterator[str]:
    """A loopback server answering every request with `chunks`: (pause before, bytes) each, then close."""

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.end_headers()
            for pause, data in chunks:
                time.sleep(pause)
                # a server may echo what it got: the Authorization header (its raw bytes) stands in for that
                auth = self.headers.get("Authorization", "").encode("latin-1")
                self.wfile.write(data.replace(b"{AUTH}", auth))
                self.wfile.flush()

        do_GET = do_POST = _answer

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


# ---- framing (pure) -------------------------------------------------------------------------------------


def test_multi_line_data_is_joined_with_newlines() -> None:
    lines = ["data: {", 'data: "a": 1', "data: }", "", "data:[DONE]", ""]
    assert list(sse_messages(lines)) == [SseMessage("message", '{\n"a": 1\n}'), SseMessage("message", "[DONE]")]


def test_comments_ids_event_names_and_field_without_colon() -> None:
    lines = ["\ufeff: keep-alive", "id: 7", "retry: 100", "event: delta", "data: x", "data", "", ": ping", ""]
    assert list(sse_messages(lines)) == [SseMessage("delta", "x\n")]


def test_only_one_space_after_the_colon_is_dropped() -> None:
    assert list(sse_messages(["data:  two", ""])) == [SseMessage("message", " two")]


def test_llama_server_error_field_and_unterminated_last_event() -> None:
    lines = ['data: {"content": "a"}', "", 'error: {"code": 500, "message": "boom"}', "", 'data: {"b": 2}']
    assert list(sse_messages(lines)) == [
        SseMessage("message", '{"content": "a"}'),
        SseMessage("error", '{"code": 500, "message": "boom"}'),
        SseMessage("message", '{"b": 2}'),
    ]


# ---- over HTTP --------------------------------------------------------------------------------------------


def test_crlf_and_multi_line_events_reach_the_adapter() -> None:
    chunks = [(0.0, b': hello\r\n\r\ndata: {"content": "He",\r\ndata:  "stop": false}\r\n\r\n'),
              (0.0, b'data: {"content": "llo", "stop": false,\n'), (0.05, b'data: "timings": {"predicted_n": 1}}\n\n'),
              (0.0, FINAL)]
    with scripted(chunks) as url:
        result = LlamaCppAdapter(url).complete("x", max_tokens=2)
    assert result.text == "Hello"
    assert result.completion_tokens == 2 and result.prompt_tokens == 3
    assert [b.n_tokens for b in result.bursts] == [1, 2]
    assert 0 < result.ttft_ms <= result.total_ms


def test_idle_timeout_is_the_longest_silence_not_the_total_time() -> None:
    # 8 events 0.15 s apart: 1.2 s in all, never 1 s of silence
    steady = [(0.15, b'data: {"content": "t", "stop": false}\n\n') for _ in range(8)] + [(0.0, FINAL)]
    with scripted(steady) as url:
        t0 = time.monotonic()
        result = LlamaCppAdapter(url, idle_timeout_s=1.0).complete("x", max_tokens=2)
        took = time.monotonic() - t0
    assert took > 1.0 and result.text == "t" * 8


def test_a_silence_longer_than_the_idle_timeout_is_a_hang() -> None:
    hang = [(0.0, b'data: {"content": "Hi", "stop": false}\n\n'), (2.5, FINAL)]
    with scripted(hang) as url:
        t0 = time.monotonic()
        with pytest.raises(EngineError) as err:
            LlamaCppAdapter(url, idle_timeout_s=0.5).complete("x", max_tokens=2)
        took = time.monotonic() - t0
    assert err.value.kind == "timeout" and "sent nothing for 0.5 s" in str(err.value)
    assert took < 2.0


def test_idle_timeout_applies_to_the_shared_stream_for_every_adapter() -> None:
    with scripted([(0.0, b'data: {"a": 1}\n\n'), (2.5, b'data: {"a": 2}\n\n')]) as url, \
            make_client(url, timeout_s=30.0) as client:
        events = stream_sse(client, f"{url}/v1/completions", {}, idle_timeout_s=0.4)
        assert next(events)[1] == {"a": 1}
        with pytest.raises(EngineError) as err:
            next(events)
    assert err.value.kind == "timeout"


def test_error_event_from_the_engine_is_stream_broken() -> None:
    chunks = [(0.0, b'data: {"content": "a", "stop": false}\n\n'),
              (0.0, b'error: {"code": 500, "message": "KV cache is full", "type": "server_error"}\n\n')]
    with scripted(chunks) as url, pytest.raises(EngineError) as err:
        LlamaCppAdapter(url).complete("x", max_tokens=2)
    assert err.value.kind == "stream-broken" and "KV cache is full" in str(err.value)


def test_stream_closed_before_the_final_event_is_stream_broken() -> None:
    with scripted([(0.0, b'data: {"content": "a", "stop": false}\n\n')]) as url, \
            pytest.raises(EngineError) as err:
        LlamaCppAdapter(url).complete("x", max_tokens=2)
    assert err.value.kind == "stream-broken"


def test_non_json_event_is_a_bad_response() -> None:
    with scripted([(0.0, b"data: {not json\n\n")]) as url, pytest.raises(EngineError) as err:
        LlamaCppAdapter(url).complete("x", max_tokens=2)
    assert err.value.kind == "bad-response"


def test_an_echoed_key_is_scrubbed_from_every_message() -> None:
    echo = [(0.0, b'{"error": "bad header {AUTH}"}')]
    with scripted(echo, status=500, content_type="application/json") as url:
        adapter = LlamaCppAdapter(url, api_key=KEY)
        with pytest.raises(EngineError) as stream_err:
            adapter.complete("x", max_tokens=2)
        with pytest.raises(EngineError) as info_err:
            adapter.info()
        counters = adapter.spec_counters()
        spec = adapter.spec_state()
    for text in (str(stream_err.value), str(info_err.value), str(counters), str(spec), repr(adapter)):
        assert KEY not in text
    assert "Bearer ***" in str(stream_err.value) and stream_err.value.kind == "http-5xx"


def test_a_message_with_empty_data_is_not_sent() -> None:
    assert list(sse_messages(["data:", "", "event: x", "", "data: 1", ""])) == [SseMessage("message", "1")]


@pytest.mark.parametrize("key", ["a\nb", "a b", "a\x00b", "\t", ""])
def test_a_key_no_header_can_carry_is_refused_before_any_request(key: str) -> None:
    with pytest.raises(BadApiKey) as err:
        LlamaCppAdapter("http://127.0.0.1:9", api_key=key or " ")
    assert key.strip() == "" or key not in str(err.value)


def test_a_pasted_key_loses_its_newline_and_a_non_ascii_key_is_scrubbed() -> None:
    key = "ключ-CANARY"
    echo = [(0.0, b'{"error": "bad header {AUTH}"}')]
    with scripted(echo, status=500, content_type="application/json") as url, pytest.raises(EngineError) as err:
        LlamaCppAdapter(url, api_key=key + "\n").info()
    assert "bad header Bearer ***" in str(err.value)  # the server echoed the key; the message does not
    assert key not in str(err.value) and str(key.encode())[2:-1] not in str(err.value)
