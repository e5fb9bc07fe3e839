"""Contract servers: loopback HTTP servers that replay engines' DOCUMENTED formats, not real engines.

Each `*_routes()` below answers with the response and metrics shapes written down in
engine-facts.md (vLLM §2, SGLang §3, LM Studio and Ollama §4; TGI from its router's `Info`
type). Tests built on them check that our adapters read those formats correctly and fail clearly on bad
input. They say nothing about whether a real engine still emits these formats; docs/engines.md records
which adapters were verified against a real server.

The servers bind 127.0.0.1 on port 0 in a daemon thread and are always shut down by `serve()`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    """One canned answer. `body` that is not str/bytes is sent as JSON; `chunks` are written one by one."""

    body: object = b""
    status: int = 200
    content_type: str = "application/json"
    chunks: list[bytes] | None = None


@dataclass
class Seen:
    """A request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: object


Handler = Reply | Callable[[Seen], Reply] | list[Reply]


def sse(*events: object, done: bool = True) -> Reply:
    """A `text/event-stream` reply: one `data:` event per object, then `data: [DONE]`."""
    chunks = [f"data: {json.dumps(e)}\n\n".encode() for e in events]
    if done:
        chunks.append(b"data: [DONE]\n\n")
    return Reply(content_type="text/event-stream", chunks=chunks)


def ndjson(*objects: object) -> Reply:
    """An `application/x-ndjson` stream (Ollama)."""
    return Reply(content_type="application/x-ndjson", chunks=[(json.dumps(o) + "\n").encode() for o in objects])


def prometheus(text: str) -> Reply:
    return Reply(body=text, content_type="text/plain; version=0.0.4; charset=utf-8")


# Failure scenarios every adapter must turn into a clear EngineError.
SERVER_ERROR = Reply(body={"error": "CUDA out of memory"}, status=500)
HTML_PAGE = Reply(body="<html><body>Bad gateway</body></html>", content_type="text/html")
NOT_JSON = Reply(body="{'model': oops", content_type="application/json")


@dataclass
class ContractServer:
    """A running loopback server; edit `routes` to change a scenario mid-test."""

    routes: dict[tuple[str, str], Handler]
    seen: list[Seen] = field(default_factory=list)
    url: str = ""

    def set(self, method: str, path: str, handler: Handler | dict[str, object]) -> None:
        """Replace one route; a plain dict is answered as JSON with status 200."""
        self.routes[(method, path)] = Reply(handler) if isinstance(handler, dict) else handler

    def reply_for(self, request: Seen) -> Reply:
        self.seen.append(request)
        handler = self.routes.get((request.method, request.path.split("?")[0]))
        if handler is None:
            return Reply(body={"detail": "Not Found"}, status=404)
        if isinstance(handler, list):  # a sequence: consume in order, the last one repeats
            return handler.pop(0) if len(handler) > 1 else handler[0]
        return handler(request) if callable(handler) else handler


def _make_handler(server: ContractServer) -> type[BaseHTTPRequestHandler]:
    class _Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body: object = json.loads(raw) if raw else None
            except ValueError:
                body = raw.decode(errors="replace")
            seen = Seen(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            reply = server.reply_for(seen)
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            if reply.chunks is not None:
                self.send_header("Connection", "close")
                self.end_headers()
                for chunk in reply.chunks:
                    self.wfile.write(chunk)
                    self.wfile.flush()
                return
            payload = reply.body if isinstance(reply.body, bytes) else (
                reply.body.encode() if isinstance(reply.body, str) else json.dumps(reply.body).encode())
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = _serve
        do_POST = _serve

        def log_message(self, format: str, *args: object) -> None:  # keep test output quiet
            pass

    return _Handler


@contextmanager
def serve(routes: dict[tuple[str, str], Handler]) -> Iterator[ContractServer]:
    """Run a contract server on 127.0.0.1:<free port> for the duration of the block."""
    state = ContractServer(routes=dict(routes))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(state))
    httpd.daemon_threads = True
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    # a short poll keeps shutdown (and so every test teardown) fast
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02},
                              name="contract-server", daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


# --- vLLM (engine-facts.md §2) ------------------------------------------------------------------------------

VLLM_MODEL = "Qwen/Qwen3-8B"


def vllm_metrics(drafts: tuple[float, float], draft_tokens: tuple[float, float],
                 accepted: tuple[float, float], per_pos: tuple[tuple[float, ...], tuple[float, ...]]) -> str:
    """`vllm:spec_decode_*` counters for two engines (`engine="0"`, `"1"`), as prometheus_client writes them."""
    lines = ["# HELP vllm:num_requests_running Number of requests in model execution batches.",
             "# TYPE vllm:num_requests_running gauge",
             f'vllm:num_requests_running{{engine="0",model_name="{VLLM_MODEL}"}} 0.0']
    for name, values in (("num_drafts", drafts), ("num_draft_tokens", draft_tokens),
                         ("num_accepted_tokens", accepted)):
        lines += [f"# HELP vllm:spec_decode_{name} Spec decode counter.",
                  f"# TYPE vllm:spec_decode_{name} counter"]
        for engine, v in enumerate(values):
            labels = f'engine="{engine}",model_name="{VLLM_MODEL}"'
            lines.append(f"vllm:spec_decode_{name}_total{{{labels}}} {v}")
            lines.append(f"vllm:spec_decode_{name}_created{{{labels}}} 1.7e9")
    lines.append("# TYPE vllm:spec_decode_num_accepted_tokens_per_pos counter")
    for engine, row in enumerate(per_pos):
        for pos, v in enumerate(row):
            lines.append(f'vllm:spec_decode_num_accepted_tokens_per_pos_total{{engine="{engine}",'
                         f'model_name="{VLLM_MODEL}",position="{pos}"}} {v}')
    return "\n".join(lines) + "\n"


# Engine 0: 100 steps, 300 drafted, 180 accepted; engine 1: 50, 150, 60 → rate 240/450, mean len 1+240/150.
VLLM_SPEC_METRICS = vllm_metrics((100, 50), (300, 150), (180, 60), ((80, 60, 40), (30, 20, 10)))
VLLM_PLAIN_METRICS = (
    "# TYPE vllm:num_requests_running gauge\n"
    f'vllm:num_requests_running{{engine="0",model_name="{VLLM_MODEL}"}} 0.0\n'
    f'vllm:generation_tokens_total{{engine="0",model_name="{VLLM_MODEL}"}} 5120.0\n'
)


def vllm_stream(spec: bool = True) -> Reply:
    """A streamed `/v1/completions` with the final usage chunk (include_usage) and per-request spec stats."""
    usage_chunk: dict[str, object] = {
        "id": "cmpl-1", "object": "text_completion", "created": 1, "model": VLLM_MODEL, "choices": [],
        "usage": {"prompt_tokens": 12, "completion_tokens": 9, "total_tokens": 21,
                  "prompt_tokens_details": {"cached_tokens": 4}},
    }
    if spec:
        usage_chunk["metrics"] = {"speculative_decoding": {
            "mean_acceptance_length": 2.5, "draft_acceptance_rate": 0.5, "acceptance_histogram": [1, 0, 1, 1],
            "num_spec_steps": 4, "num_accepted_draft_tokens": 6, "num_draft_tokens": 12, "num_spec_tokens": 3}}
    # a speculative step can put several tokens in one chunk: 3 chunks here carry 9 tokens
    pieces = [("Hello there, ", None), ("how are you ", None), ("today?", "length")]
    return sse(*[{"id": "cmpl-1", "object": "text_completion", "created": 1, "model": VLLM_MODEL,
                  "choices": [{"index": 0, "text": t, "logprobs": None, "finish_reason": f}]}
                 for t, f in pieces], usage_chunk)


def vllm_routes(*, spec: bool = True) -> dict[tuple[str, str], Handler]:
    return {
        ("GET", "/version"): Reply({"version": "0.33.0"}),
        ("GET", "/health"): Reply(b"", content_type="application/json"),
        ("GET", "/v1/models"): Reply({"object": "list", "data": [{
            "id": VLLM_MODEL, "object": "model", "created": 1, "owned_by": "vllm",
            "root": "/models/Qwen3-8B", "parent": None, "max_model_len": 32768, "permission": []}]}),
        ("GET", "/metrics"): prometheus(VLLM_SPEC_METRICS if spec else VLLM_PLAIN_METRICS),
        ("POST", "/v1/completions"): vllm_stream(spec),
    }


# --- SGLang (engine-facts.md §3) ----------------------------------------------------------------------------
# engines.md documents the spec fields of meta_info; prompt_tokens/completion_tokens/cached_tokens and the
# finish_reason object are SGLang's usual meta_info companions and are assumed here.

SGLANG_MODEL = "/models/Llama-3.1-8B-Instruct"


def sglang_stream(spec: bool = True) -> Reply:
    """Streamed `/generate`: each event resends the text so far; spec stats only on the finished event."""
    base = {"prompt_tokens": 10, "cached_tokens": 2, "finish_reason": None}
    final: dict[str, object] = {**base, "completion_tokens": 8, "finish_reason": {"type": "length", "length": 8}}
    if spec:
        final |= {"spec_accept_rate": 0.625, "spec_accept_length": 2.0, "spec_verify_ct": 4,
                  "spec_num_correct_drafts": 5, "spec_num_proposed_drafts": 8,
                  "spec_correct_drafts_histogram": [1, 1, 1, 1]}
    return sse({"text": "The sky", "meta_info": {**base, "completion_tokens": 3}},
               {"text": "The sky is blue", "meta_info": {**base, "completion_tokens": 6}},
               {"text": "The sky is blue today.", "meta_info": final})


def sglang_routes(*, spec: bool = True, deprecated_only: bool = False) -> dict[tuple[str, str], Handler]:
    server_info = {
        "version": "0.5.23", "model_path": SGLANG_MODEL, "served_model_name": "llama-3.1-8b",
        "context_length": 8192, "tp_size": 1,
        "speculative_algorithm": "EAGLE3" if spec else None,
        "speculative_num_steps": 3 if spec else None, "speculative_eagle_topk": 1 if spec else None,
        "speculative_num_draft_tokens": 4 if spec else None,
        "internal_states": [{"avg_spec_accept_length": 2.5}, {"avg_spec_accept_length": 3.0}] if spec
        else [{"last_gen_throughput": 50.0}],
    }
    model_info = {"model_path": SGLANG_MODEL, "served_model_name": "llama-3.1-8b", "model_type": "llama",
                  "architectures": ["LlamaForCausalLM"], "is_generation": True}
    info_path, model_path = (("/get_server_info", "/get_model_info") if deprecated_only
                             else ("/server_info", "/model_info"))
    return {
        ("GET", info_path): Reply(server_info),
        ("GET", model_path): Reply(model_info),
        ("GET", "/health"): Reply(b"", content_type="text/plain"),
        ("GET", "/v1/models"): Reply({"object": "list", "data": [
            {"id": "llama-3.1-8b", "object": "model", "owned_by": "sglang", "root": SGLANG_MODEL}]}),
        ("POST", "/generate"): sglang_stream(spec),
    }


# --- LM Studio REST v0 (engine-facts.md §4) -----------------------------------------------------------------

LMSTUDIO_MODEL = "qwen2.5-7b-instruct"


def lmstudio_completion(draft: bool = True) -> Reply:
    stats: dict[str, object] = {"tokens_per_second": 51.4, "time_to_first_token": 0.111,
                                "generation_time": 0.954, "stop_reason": "maxPredictedTokensReached"}
    if draft:
        stats |= {"draft_model": "qwen2.5-0.5b-instruct", "total_draft_tokens_count": 40,
                  "accepted_draft_tokens_count": 30, "rejected_draft_tokens_count": 8,
                  "ignored_draft_tokens_count": 2}
    return Reply({
        "id": "cmpl-1", "object": "text_completion", "created": 1, "model": LMSTUDIO_MODEL,
        "choices": [{"index": 0, "text": " the capital of France is Paris.", "logprobs": None,
                     "finish_reason": "length"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 48, "total_tokens": 53},
        "stats": stats,
        "model_info": {"arch": "qwen2", "quant": "Q4_K_M", "format": "gguf", "context_length": 4096},
        "runtime": {"name": "llama.cpp-linux-x86_64-nvidia-cuda-avx2", "version": "1.50.2",
                    "supported_formats": ["gguf"]},
    })


def lmstudio_routes(*, draft: bool = True) -> dict[tuple[str, str], Handler]:
    card = {"object": "model", "type": "llm", "publisher": "lmstudio-community", "arch": "qwen2",
            "compatibility_type": "gguf", "quantization": "Q4_K_M", "max_context_length": 32768}
    return {
        ("GET", "/api/v0/models"): Reply({"object": "list", "data": [
            {**card, "id": "qwen2.5-0.5b-instruct", "state": "not-loaded"},
            {**card, "id": LMSTUDIO_MODEL, "state": "loaded"},
            {"id": "text-embedding-nomic", "object": "model", "type": "embeddings", "publisher": "nomic-ai",
             "arch": "nomic-bert", "compatibility_type": "gguf", "quantization": "Q4_0", "state": "loaded",
             "max_context_length": 2048}]}),
        ("GET", "/v1/models"): Reply({"object": "list", "data": [{"id": LMSTUDIO_MODEL, "object": "model",
                                                                   "owned_by": "organization_owner"}]}),
        ("POST", "/api/v0/completions"): lmstudio_completion(draft),
    }


# --- Ollama (engine-facts.md §4) ----------------------------------------------------------------------------

OLLAMA_MODEL = "qwen3:8b"
OLLAMA_MODELFILE = "FROM /root/.ollama/models/blobs/sha256-abc\nDRAFT /models/qwen3-0.6b.gguf\n"


def ollama_generate() -> Reply:
    """`/api/generate` NDJSON: text pieces, then the final object with nanosecond timings."""
    return ndjson(
        {"model": OLLAMA_MODEL, "created_at": "2026-08-21T00:00:00Z", "response": "Once", "done": False},
        {"model": OLLAMA_MODEL, "created_at": "2026-08-21T00:00:00Z", "response": " upon a time", "done": False},
        {"model": OLLAMA_MODEL, "created_at": "2026-08-21T00:00:01Z", "response": "", "done": True,
         "done_reason": "length", "total_duration": 900_000_000, "load_duration": 1_000_000,
         "prompt_eval_count": 26, "prompt_eval_duration": 130_000_000,
         "eval_count": 16, "eval_duration": 750_000_000})


def ollama_routes(*, modelfile: str = OLLAMA_MODELFILE, parameters: str = "draft_num_predict 6\n",
                  loaded: bool = True) -> dict[tuple[str, str], Handler]:
    ps = {"name": OLLAMA_MODEL, "model": OLLAMA_MODEL, "size": 6_900_000_000, "digest": "abc",
          "details": {"format": "gguf", "family": "qwen3", "parameter_size": "8.2B",
                      "quantization_level": "Q4_K_M"},
          "expires_at": "2026-08-21T00:05:00Z", "size_vram": 6_900_000_000, "context_length": 8192}
    return {
        ("GET", "/api/version"): Reply({"version": "0.33.0"}),
        ("GET", "/api/ps"): Reply({"models": [ps] if loaded else []}),
        ("GET", "/api/tags"): Reply({"models": [ps]}),
        ("POST", "/api/show"): Reply({
            "modelfile": modelfile, "parameters": parameters, "template": "{{ .Prompt }}",
            "details": ps["details"],
            "model_info": {"general.architecture": "qwen3", "qwen3.context_length": 40960,
                           "qwen3.block_count": 36}}),
        ("POST", "/api/generate"): ollama_generate(),
    }


# --- TGI (router `Info` type; not in engines.md) -------------------------------------------------------

TGI_INFO = {
    "model_id": "mistralai/Ministral-8B-Instruct-2410", "model_sha": "4847e87e", "model_pipeline_tag": None,
    "max_concurrent_requests": 128, "max_best_of": 2, "max_stop_sequences": 4, "max_input_tokens": 32767,
    "max_total_tokens": 32768, "validation_workers": 2, "max_client_batch_size": 4,
    "router": "text-generation-router", "version": "3.2.1", "sha": "4d28897b", "docker_label": "sha-4d28897",
}


def tgi_stream() -> Reply:
    """`/generate_stream`: one event per token; the last carries generated_text and details."""
    def tok(i: int, t: str, special: bool = False) -> dict[str, object]:
        return {"id": 100 + i, "text": t, "logprob": -0.1, "special": special}
    return sse({"index": 1, "token": tok(1, "Deep"), "generated_text": None, "details": None},
               {"index": 2, "token": tok(2, " learning"), "generated_text": None, "details": None},
               {"index": 3, "token": tok(3, "</s>", True), "generated_text": "Deep learning",
                "details": {"finish_reason": "eos_token", "generated_tokens": 3, "seed": None}},
               done=False)


def tgi_routes() -> dict[tuple[str, str], Handler]:
    return {
        ("GET", "/info"): Reply(dict(TGI_INFO)),
        ("GET", "/health"): Reply(b"", content_type="text/plain"),
        ("POST", "/generate_stream"): tgi_stream(),
    }


ALL_ROUTES: dict[str, Callable[[], dict[tuple[str, str], Handler]]] = {
    "vllm": vllm_routes, "sglang": sglang_routes, "lmstudio": lmstudio_routes, "ollama": ollama_routes,
    "tgi": tgi_routes,
}
