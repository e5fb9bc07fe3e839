"""SGLang adapter: `/server_info`, `/model_info`, streamed native `/generate` with per-request spec stats.

Formats from engine-facts.md §3 (sglang 0.5.23); tested against a contract server replaying them, not
against a running SGLang. SGLang keeps no cumulative draft/accepted counters (its Prometheus spec series
are last-batch gauges), so acceptance comes per request from `meta_info` or as the server's running
`avg_spec_accept_length`.
"""

from __future__ import annotations

import time
from statistics import fmean

import httpx

from probes.base import Unavailable
from probes.engines.base import (
    Burst,
    CompletionResult,
    EngineError,
    EngineInfo,
    EngineKind,
    SpecCounters,
    SpecState,
)
from probes.engines.http import HttpAdapter, get_json, integer, number, obj, probe_json, stream_sse, text

_SPEC_KEYS = ("spec_accept_rate", "spec_accept_length", "spec_verify_ct", "spec_num_correct_drafts",
              "spec_num_proposed_drafts")


def _is_server_info(doc: dict[str, object] | None) -> bool:
    return doc is not None and text(doc, "version") is not None and (
        "internal_states" in doc or "model_path" in doc)


def _is_model_info(doc: dict[str, object] | None) -> bool:
    return doc is not None and text(doc, "model_path") is not None and (
        "served_model_name" in doc or "architectures" in doc or "is_generation" in doc)


class SglangAdapter(HttpAdapter):
    """A running `sglang.launch_server` reached over its native HTTP API."""

    kind: EngineKind = "sglang"

    @classmethod
    def detect(cls, client: httpx.Client, base_url: str) -> bool:
        """SGLang answers `/server_info` (older: `/get_server_info`) or `/model_info` with its own fields."""
        base = base_url.rstrip("/")
        if any(_is_server_info(probe_json(client, f"{base}{p}")) for p in ("/server_info", "/get_server_info")):
            return True
        return any(_is_model_info(probe_json(client, f"{base}{p}")) for p in ("/model_info", "/get_model_info"))

    def _get_either(self, path: str, deprecated: str) -> dict[str, object] | Unavailable:
        """GET `path`, falling back to the deprecated name on a 4xx (older SGLang)."""
        for p in (path, deprecated):
            try:
                doc = get_json(self._client, self.url(p))
            except EngineError as exc:
                if exc.kind == "http-4xx" and p == path:
                    continue
                return Unavailable("unreachable" if exc.kind in ("unreachable", "timeout") else "error", str(exc))
            return doc if isinstance(doc, dict) else Unavailable("bad-response", f"{p} is not a JSON object")
        return Unavailable("not-found", f"neither {path} nor {deprecated} answered")

    def info(self) -> EngineInfo:
        """Version and startup config from /server_info, model from /model_info, running accept length."""
        server = self._get_either("/server_info", "/get_server_info")
        model_doc = self._get_either("/model_info", "/get_model_info")
        if isinstance(server, Unavailable) and isinstance(model_doc, Unavailable):
            raise EngineError(f"SGLang at {self.base_url} did not answer: {server}", kind="unreachable")
        sd = server if isinstance(server, dict) else {}
        md = model_doc if isinstance(model_doc, dict) else {}
        path = text(md, "model_path") or text(sd, "model_path")
        name = text(md, "served_model_name") or text(sd, "served_model_name") or path
        ctx = integer(sd, "context_length")
        states = sd.get("internal_states")
        lengths = [v for s in (states if isinstance(states, list) else [])
                   if (v := number(s, "avg_spec_accept_length"))]
        extra: dict[str, object] = {k: md[k] for k in ("model_type", "architectures") if k in md}
        return EngineInfo(
            kind=self.kind, base_url=self.base_url,
            version=text(sd, "version") or (server if isinstance(server, Unavailable)
                                             else Unavailable("not-found", "/server_info has no 'version'")),
            model=name or Unavailable("not-found", "no model_path / served_model_name"),
            model_path=path or Unavailable("not-found", "no model_path"),
            context_size=ctx if ctx is not None else Unavailable("not-found", "context_length not set"),
            spec=self._spec_state(sd, server),
            acceptance_rate=Unavailable(
                "not-supported", "SGLang reports spec_accept_rate per request (meta_info), not server-wide"),
            mean_acceptance_length=fmean(lengths) if lengths else Unavailable(
                "not-found", "no internal_states[].avg_spec_accept_length (speculation off or no requests)"),
            extra=extra,
        )

    @staticmethod
    def _spec_state(sd: dict[str, object], server: object) -> SpecState | Unavailable:
        if isinstance(server, Unavailable):
            return server
        if "speculative_algorithm" not in sd:
            return Unavailable("not-found", "/server_info has no speculative_algorithm")
        algo = text(sd, "speculative_algorithm")
        tokens = integer(sd, "speculative_num_draft_tokens")  # includes the bonus slot
        return SpecState(
            active=algo is not None, method=algo.lower() if algo else None,
            draft_max=tokens - 1 if tokens else None, source="/server_info speculative_*",
            detail="" if algo else "speculative_algorithm is null: started without --speculative-algorithm",
        )

    def spec_counters(self) -> SpecCounters | Unavailable:
        return Unavailable("not-supported", "SGLang has no cumulative draft/accepted counters; its "
                           "sglang:spec_* Prometheus series are last-batch gauges. Use per-request meta_info.")

    def complete(
        self, prompt: str | list[int], *, max_tokens: int, temperature: float = 0.0, seed: int = 0,
        slot: int | None = None, cache_prompt: bool = True,
    ) -> CompletionResult:
        """Streamed native `/generate`. No slots or per-request cache switch (the radix cache is global)."""
        body: dict[str, object] = {
            "input_ids" if isinstance(prompt, list) else "text": prompt, "stream": True,
            "sampling_params": {"max_new_tokens": max_tokens, "temperature": temperature},
        }
        out, stop = "", None
        ttft: float | None = None
        meta: dict[str, object] = {}
        bursts: list[Burst] = []
        t0 = time.monotonic()
        for t_s, event in stream_sse(self._client, self.url("/generate"), body):
            piece = text(event, "text") or ""
            # default streaming resends the whole text so far; --incremental-streaming-output sends deltas
            out = piece if piece.startswith(out) else out + piece
            if piece and ttft is None:
                ttft = t_s
            meta = obj(event, "meta_info") or meta
            n = integer(meta, "completion_tokens")
            if n is not None and (not bursts or n > bursts[-1].n_tokens):
                bursts.append(Burst(t_s, n))
            reason = meta.get("finish_reason")
            stop = text(reason, "type") if isinstance(reason, dict) else (reason if isinstance(reason, str) else stop)
        total_s = time.monotonic() - t0  # request sent → stream closed
        completion = integer(meta, "completion_tokens")
        if completion is None:
            raise EngineError(f"{self.base_url}/generate stream carried no meta_info.completion_tokens",
                              kind="bad-response")
        prompt_total, cached = integer(meta, "prompt_tokens"), integer(meta, "cached_tokens")
        raw = {k: v for k in _SPEC_KEYS if (v := number(meta, k)) is not None}
        return CompletionResult(
            text=out, prompt_tokens=prompt_total - cached if prompt_total is not None and cached is not None
            else prompt_total, cached_tokens=cached, completion_tokens=completion,
            prompt_ms=None, decode_ms=None,
            draft_tokens=integer(meta, "spec_num_proposed_drafts"),
            draft_accepted=integer(meta, "spec_num_correct_drafts"),
            ttft_ms=1000.0 * (ttft if ttft is not None else total_s), total_ms=1000.0 * total_s,
            stop_reason=stop, bursts=tuple(bursts), raw_timings=raw,
        )
