"""Ollama adapter against a contract server replaying Ollama's documented API (engine-facts.md §4), not Ollama."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from probes.base import Unavailable
from probes.engines.base import EngineError
from probes.engines.ollama import OllamaAdapter, find_child_llama_server
from tests.contract_servers import (
    ALL_ROUTES,
    HTML_PAGE,
    NOT_JSON,
    OLLAMA_MODEL,
    SERVER_ERROR,
    ContractServer,
    Reply,
    ndjson,
    ollama_routes,
    serve,
)

KEY = "ollama-proxy-secret"


@pytest.fixture
def server() -> Iterator[ContractServer]:
    with serve(ollama_routes()) as s:
        yield s


@pytest.fixture
def adapter(server: ContractServer) -> Iterator[OllamaAdapter]:
    a = OllamaAdapter(server.url, api_key=KEY, timeout_s=5)
    yield a
    a.close()


@pytest.mark.parametrize("engine", sorted(ALL_ROUTES))
def test_detect_only_ollama(engine: str) -> None:
    with serve(ALL_ROUTES[engine]()) as s, httpx.Client() as client:
        assert OllamaAdapter.detect(client, s.url) is (engine == "ollama")


def test_info_and_acceptance_is_unavailable_with_reason(adapter: OllamaAdapter) -> None:
    info = adapter.info()
    assert (info.kind, info.version, info.model, info.context_size) == ("ollama", "0.33.0", OLLAMA_MODEL, 8192)
    assert not isinstance(info.spec, Unavailable)
    assert (info.spec.active, info.spec.method, info.spec.draft_max) == (True, "draft", 6)
    for missing in (info.acceptance_rate, info.mean_acceptance_length, adapter.spec_counters()):
        assert isinstance(missing, Unavailable) and "drops" in missing.detail
    assert info.extra["size_vram"] == 6_900_000_000


@pytest.mark.parametrize(("modelfile", "params", "active", "method"), [
    ("FROM x\n", "", False, None),
    ("FROM x\nDRAFT /d.gguf\n", "draft_num_predict 0\n", False, None),
    ("FROM x\nDRAFT /d.gguf\n", "", True, "draft"),
])
def test_spec_from_modelfile(modelfile: str, params: str, active: bool, method: str | None) -> None:
    with serve(ollama_routes(modelfile=modelfile, parameters=params)) as s:
        spec = OllamaAdapter(s.url).info().spec
    assert not isinstance(spec, Unavailable) and (spec.active, spec.method) == (active, method)


def test_nothing_loaded() -> None:
    with serve(ollama_routes(loaded=False)) as s:
        info = OllamaAdapter(s.url).info()
    assert isinstance(info.model, Unavailable) and "/api/ps" in info.model.detail
    assert isinstance(info.spec, Unavailable)


def test_complete_converts_ns_to_ms(server: ContractServer, adapter: OllamaAdapter) -> None:
    r = adapter.complete("Once", max_tokens=16)
    assert (r.text, r.completion_tokens, r.stop_reason) == ("Once upon a time", 16, "length")
    assert r.prompt_ms == pytest.approx(130.0) and r.decode_ms == pytest.approx(750.0)
    assert r.prompt_tokens is None  # Ollama's count includes cached tokens
    assert r.raw_timings["prompt_eval_count_incl_cached"] == 26
    assert r.draft_tokens is None
    body = server.seen[-1].body
    assert isinstance(body, dict) and body["options"]["num_predict"] == 16 and body["raw"] is True


@pytest.mark.parametrize(("reply", "kind"), [(SERVER_ERROR, "http-5xx"), (HTML_PAGE, "bad-response"),
                                              (NOT_JSON, "bad-response")])
def test_bad_replies(server: ContractServer, adapter: OllamaAdapter, reply: Reply, kind: str) -> None:
    server.set("GET", "/api/version", reply)
    with pytest.raises(EngineError) as err:
        adapter.info()
    assert err.value.kind == kind and "/api/version" in str(err.value) and KEY not in str(err.value)


def test_stream_without_final_object(server: ContractServer, adapter: OllamaAdapter) -> None:
    server.set("POST", "/api/generate", ndjson({"response": "a", "done": False}))
    with pytest.raises(EngineError, match="eval_count"):
        adapter.complete("x", max_tokens=2)


def _proc(root: Path, pid: int, ppid: int, comm: str, argv: list[str]) -> None:
    d = root / str(pid)
    d.mkdir()
    (d / "cmdline").write_bytes(b"\0".join(a.encode() for a in argv) + b"\0")
    (d / "stat").write_text(f"{pid} ({comm}) S {ppid} 1 1 0 -1\n")
    (d / "comm").write_text(comm + "\n")


def test_find_child_llama_server(tmp_path: Path) -> None:
    _proc(tmp_path, 100, 1, "ollama", ["/usr/bin/ollama", "serve"])
    _proc(tmp_path, 200, 100, "llama-server", ["/usr/lib/ollama/llama-server", "--model", "m.gguf",
                                               "--port", "41234", "--no-webui"])
    _proc(tmp_path, 201, 100, "llama-server", ["/usr/lib/ollama/llama-server", "--port=41235"])
    _proc(tmp_path, 300, 1, "llama-server", ["llama-server", "--port", "8080"])  # the user's own server
    _proc(tmp_path, 400, 100, "weird (name)", ["/x/llama-server"])  # no port
    (tmp_path / "self").mkdir()
    assert find_child_llama_server(str(tmp_path)) == ["http://127.0.0.1:41234", "http://127.0.0.1:41235"]
    assert find_child_llama_server(str(tmp_path / "absent")) == []
