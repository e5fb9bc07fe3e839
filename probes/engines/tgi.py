"""Hugging Face TGI adapter: identification via `GET /info`, streamed `/generate_stream`.

engines.md has no TGI section; the `/info` fields come from TGI's router `Info` type (model_id, model_sha,
max_* limits, router, version, sha, docker_label; older builds also model_dtype/model_device_type) and
are tested against a contract server, not a running TGI. TGI's speculation (`--speculate N` with Medusa /
MLP-speculator heads or n-gram) is a launcher flag that `/info` does not report, and no endpoint counts
drafted or accepted tokens, so acceptance is Unavailable.
"""

from __future__ import annotations

import time

import httpx

from probes.base import Unavailable
from probes.engines.base import CompletionResult, EngineError, EngineInfo, EngineKind, SpecCounters, SpecState
from probes.engines.http import HttpAdapter, get_json, integer, obj, probe_json, stream_sse, text

_NO_ACCEPT = "TGI exposes no drafted/accepted token counts (not in /info, responses or /metrics)"
_SPEC_NOTE = ("--speculate N (Medusa/MLP-speculator heads, else n-gram) is set at launch and not "
              "reported by /info; check the launcher command line")


class TgiAdapter(HttpAdapter):
    """A running text-generation-inference router."""

    kind: EngineKind = "tgi"

    @classmethod
    def detect(cls, client: httpx.Client, base_url: str) -> bool:
        """TGI answers `GET /info` with `model_id`, `version` and its router limits."""
        doc = probe_json(client, f"{base_url.rstrip('/')}/info")
        return doc is not None and text(doc, "model_id") is not None and text(doc, "version") is not None and (
            "max_total_tokens" in doc or text(doc, "router") == "text-generation-router")

    def info(self) -> EngineInfo:
        """Model id, version and limits from `/info`; speculation noted in `extra`."""
        doc = get_json(self._client, self.url("/info"))
        if not isinstance(doc, dict):
            raise EngineError(f"{self.base_url}/info is not a JSON object", kind="bad-response")
        keys = ("model_sha", "model_dtype", "model_device_type", "model_pipeline_tag", "router", "sha",
                "docker_label")
        extra: dict[str, object] = {k: v for k, v in doc.items() if k.startswith("max_") or k in keys}
        speculate = integer(doc, "speculate")  # not in any /info we know of; read it if a build adds it
        extra["speculation"] = f"speculate={speculate}" if speculate is not None else _SPEC_NOTE
        ctx = integer(doc, "max_total_tokens")
        return EngineInfo(
            kind=self.kind, base_url=self.base_url,
            version=text(doc, "version") or Unavailable("not-found", "/info has no 'version'"),
            model=text(doc, "model_id") or Unavailable("not-found", "/info has no 'model_id'"),
            context_size=ctx if ctx is not None else Unavailable("not-found", "/info has no max_total_tokens"),
            spec=SpecState(speculate > 0, None, speculate, "/info speculate") if speculate is not None
            else Unavailable("not-supported", _SPEC_NOTE),
            acceptance_rate=Unavailable("not-supported", _NO_ACCEPT),
            mean_acceptance_length=Unavailable("not-supported", _NO_ACCEPT),
            extra=extra,
        )

    def spec_counters(self) -> SpecCounters | Unavailable:
        return Unavailable("not-supported", _NO_ACCEPT)

    def complete(
        self, prompt: str | list[int], *, max_tokens: int, temperature: float = 0.0, seed: int = 0,
        slot: int | None = None, cache_prompt: bool = True,
    ) -> CompletionResult:
        """Streamed `/generate_stream`; the count is `details.generated_tokens` from the final event."""
        if isinstance(prompt, list):
            raise EngineError("TGI's /generate_stream takes text inputs, not token ids", kind="unsupported")
        params: dict[str, object] = {"max_new_tokens": max_tokens, "details": True, "seed": seed}
        # TGI rejects temperature 0; greedy decoding is do_sample=false
        params |= {"do_sample": True, "temperature": temperature} if temperature > 0 else {"do_sample": False}
        parts: list[str] = []
        ttft: float | None = None
        details: dict[str, object] | None = None
        final_text: str | None = None
        t0 = time.monotonic()
        for t_s, event in stream_sse(self._client, self.url("/generate_stream"), {"inputs": prompt,
                                                                                  "parameters": params}):
            if err := text(event, "error"):
                raise EngineError(f"TGI reported an error mid-stream: {err}", kind="stream-broken")
            token = obj(event, "token")
            piece = text(token, "text")
            if piece and token and token.get("special") is not True:
                parts.append(piece)
                ttft = t_s if ttft is None else ttft
            details = obj(event, "details") or details
            final_text = text(event, "generated_text") or final_text
        total_ms = 1000.0 * (time.monotonic() - t0)
        generated = integer(details, "generated_tokens")
        if generated is None:
            raise EngineError(f"{self.base_url}/generate_stream ended without details.generated_tokens",
                              kind="bad-response")
        return CompletionResult(
            text=final_text if final_text is not None else "".join(parts),
            prompt_tokens=integer(details, "input_length"), cached_tokens=None, completion_tokens=generated,
            prompt_ms=None, decode_ms=None, draft_tokens=None, draft_accepted=None,
            ttft_ms=1000.0 * ttft if ttft is not None else total_ms, total_ms=total_ms,
            stop_reason=text(details, "finish_reason"),
        )
