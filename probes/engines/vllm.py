"""vLLM (v1 engine) adapter: `/version`, `/v1/models`, `/metrics` spec counters, streamed `/v1/completions`.

Formats are the documented ones in engine-facts.md §2 (vllm 0.33.0). Tested against a contract server
that replays them, not against a running vLLM (no CUDA here).
"""

from __future__ import annotations

import time

import httpx

from probes.base import Unavailable
from probes.engines import prometheus as prom
from probes.engines.base import CompletionResult, EngineError, EngineInfo, EngineKind, SpecCounters, SpecState
from probes.engines.http import HttpAdapter, get_json, get_text, integer, number, obj, probe_json, stream_sse, text

_SPEC = "vllm:spec_decode_"
_NO_SPEC = "vLLM exposes vllm:spec_decode_* only when started with --speculative-config"


def _first_model(doc: object) -> dict[str, object] | None:
    data = doc.get("data") if isinstance(doc, dict) else None
    return data[0] if isinstance(data, list) and data and isinstance(data[0], dict) else None


def counters_from_metrics(metrics: prom.MetricFamilies) -> SpecCounters | Unavailable:
    """vLLM's cumulative spec counters summed over engines and models."""
    drafts = prom.sum_by(metrics, _SPEC + "num_drafts_total")
    draft_tokens = prom.sum_by(metrics, _SPEC + "num_draft_tokens_total")
    accepted = prom.sum_by(metrics, _SPEC + "num_accepted_tokens_total")
    if drafts is None or draft_tokens is None or accepted is None:
        return Unavailable("not-found", _NO_SPEC)
    per_pos = prom.group_by(metrics, _SPEC + "num_accepted_tokens_per_pos_total", "position")
    try:
        ordered = sorted((int(k), v) for k, v in per_pos.items())
    except ValueError:
        ordered = []  # a non-numeric position label: keep the totals, drop the histogram
    counters = SpecCounters(drafts, draft_tokens, accepted, tuple(v for _, v in ordered))
    problem = counters.problem()
    if problem is not None:
        return Unavailable("bad-response", f"impossible speculative counters: {problem}")
    return counters


class VllmAdapter(HttpAdapter):
    """A running `vllm serve` reached over its OpenAI-compatible HTTP API."""

    kind: EngineKind = "vllm"
    _model: str | None = None  # served model id, cached by complete()

    @classmethod
    def detect(cls, client: httpx.Client, base_url: str) -> bool:
        """vLLM answers `GET /version` with {"version"} and lists models `owned_by: "vllm"`."""
        base = base_url.rstrip("/")
        version = probe_json(client, f"{base}/version")
        if version is None or text(version, "version") is None:
            return False
        model = _first_model(probe_json(client, f"{base}/v1/models"))
        return model is not None and model.get("owned_by") == "vllm"

    def _metrics(self) -> prom.MetricFamilies:
        return prom.parse_prometheus(get_text(self._client, self.url("/metrics")))

    def spec_counters(self) -> SpecCounters | Unavailable:
        """Cumulative counters since server start; diff with `prometheus.counters_delta` for a window."""
        try:
            return counters_from_metrics(self._metrics())
        except EngineError as exc:
            return Unavailable("unreachable" if exc.kind in ("unreachable", "timeout") else "error", str(exc))

    def _spec_state(self, metrics: prom.MetricFamilies | Unavailable) -> SpecState | Unavailable:
        if isinstance(metrics, Unavailable):
            return metrics
        if any(name.startswith(_SPEC) for name in metrics):
            positions = prom.group_by(metrics, _SPEC + "num_accepted_tokens_per_pos_total", "position")
            return SpecState(
                active=True, method=None, draft_max=len(positions) or None, source="/metrics vllm:spec_decode_*",
                detail="method is not exposed (only with VLLM_SERVER_DEV_MODE=1 /server_info)",
            )
        if any(name.startswith("vllm:") for name in metrics):
            return SpecState(active=False, method=None, draft_max=None, source="/metrics", detail=_NO_SPEC)
        return Unavailable("not-found", "/metrics has no vllm:* series")

    def info(self) -> EngineInfo:
        """Version, served model, spec state and cumulative acceptance since server start."""
        try:
            version: str | Unavailable = text(get_json(self._client, self.url("/version")), "version") or \
                Unavailable("bad-response", "/version has no 'version'")
        except EngineError as exc:
            version = Unavailable("error", str(exc))
        card = _first_model(get_json(self._client, self.url("/v1/models")))  # unreachable engine: raise
        model: str | Unavailable = text(card, "id") or Unavailable("not-found", "/v1/models lists no model")
        root = text(card, "root")
        max_len = integer(card, "max_model_len")
        try:
            metrics: prom.MetricFamilies | Unavailable = self._metrics()
        except EngineError as exc:
            metrics = Unavailable("error", str(exc))
        counters = counters_from_metrics(metrics) if not isinstance(metrics, Unavailable) else metrics
        extra: dict[str, object] = {"owned_by": card.get("owned_by") if card else None}
        if not isinstance(metrics, Unavailable):
            extra["metrics_lines_skipped"] = metrics.skipped
        if isinstance(counters, SpecCounters):
            extra["per_position_acceptance"] = prom.per_position_rates(counters)
        return EngineInfo(
            kind=self.kind, base_url=self.base_url, version=version, model=model,
            model_path=root or Unavailable("not-found", "/v1/models has no 'root'"),
            context_size=max_len if max_len is not None else Unavailable("not-found", "no max_model_len"),
            spec=self._spec_state(metrics),
            acceptance_rate=prom.acceptance_rate(counters) if isinstance(counters, SpecCounters) else counters,
            mean_acceptance_length=(
                prom.mean_acceptance_length(counters) if isinstance(counters, SpecCounters) else counters),
            extra=extra,
        )

    def complete(
        self, prompt: str | list[int], *, max_tokens: int, temperature: float = 0.0, seed: int = 0,
        slot: int | None = None, cache_prompt: bool = True,
    ) -> CompletionResult:
        """Streamed `/v1/completions`; counts from the final `usage` chunk, never from chunks.

        vLLM has no slots and no per-request cache switch (prefix caching is server-wide), so `slot` and
        `cache_prompt` are ignored.
        """
        if self._model is None:  # looked up once, outside the timed request
            self._model = text(_first_model(get_json(self._client, self.url("/v1/models"))), "id")
        model = self._model
        if model is None:
            raise EngineError(f"{self.base_url}/v1/models lists no model to complete with", kind="bad-response")
        body = {
            "model": model, "prompt": prompt, "max_tokens": max_tokens, "temperature": temperature,
            "seed": seed, "stream": True, "stream_options": {"include_usage": True},
        }
        parts: list[str] = []
        ttft: float | None = None
        usage: dict[str, object] | None = None
        spec: dict[str, object] | None = None
        stop: str | None = None
        t0 = time.monotonic()
        for t_s, event in stream_sse(self._client, self.url("/v1/completions"), body):
            choices = event.get("choices")
            for choice in choices if isinstance(choices, list) else []:
                piece = text(choice, "text")
                if piece:
                    parts.append(piece)
                    ttft = t_s if ttft is None else ttft
                stop = text(choice, "finish_reason") or stop
            usage = obj(event, "usage") or usage
            spec = obj(obj(event, "metrics"), "speculative_decoding") or spec
        total_s = time.monotonic() - t0  # request sent → stream closed
        completion = integer(usage, "completion_tokens")
        if completion is None:
            raise EngineError(
                f"{self.base_url}/v1/completions stream ended without a usage chunk; chunk counts are not "
                "token counts under speculation, so nothing is reported", kind="bad-response")
        prompt_total = integer(usage, "prompt_tokens")
        cached = integer(obj(usage, "prompt_tokens_details"), "cached_tokens")
        raw: dict[str, float] = {}
        for key in ("mean_acceptance_length", "draft_acceptance_rate", "num_spec_steps", "num_spec_tokens"):
            v = number(spec, key)
            if v is not None:
                raw[key] = v
        return CompletionResult(
            text="".join(parts),
            prompt_tokens=prompt_total - cached if prompt_total is not None and cached is not None else prompt_total,
            cached_tokens=cached, completion_tokens=completion,
            prompt_ms=None, decode_ms=None,  # vLLM's stream carries no server-side phase times
            draft_tokens=integer(spec, "num_draft_tokens"), draft_accepted=integer(spec, "num_accepted_draft_tokens"),
            ttft_ms=1000.0 * (ttft if ttft is not None else total_s), total_ms=1000.0 * total_s,
            stop_reason=stop, raw_timings=raw,
        )
