"""LM Studio adapter: REST v0 (`/api/v0/models`, `/api/v0/completions`) with its `stats` draft counts.

Formats from engine-facts.md §4 (LM Studio docs, 0.3.10 changelog); tested against a contract server
replaying them, not a running LM Studio. LM Studio turns speculation on per request (`draft_model`), so
one server can serve both arms of an A/B; it has no metrics endpoint, so there are no cumulative counters.
"""

from __future__ import annotations

import time

import httpx

from probes.base import Unavailable
from probes.engines.base import CompletionResult, EngineError, EngineInfo, EngineKind, SpecCounters, SpecState
from probes.engines.http import HttpAdapter, get_json, integer, number, obj, probe_json, request_json, text

_DRAFT_KEYS = ("total_draft_tokens_count", "accepted_draft_tokens_count", "rejected_draft_tokens_count",
               "ignored_draft_tokens_count")


def _models(doc: object) -> list[dict[str, object]] | None:
    data = doc.get("data") if isinstance(doc, dict) else None
    if not isinstance(data, list) or not all(isinstance(m, dict) for m in data):
        return None
    return data


def _loaded_llm(models: list[dict[str, object]]) -> dict[str, object] | None:
    return next((m for m in models if m.get("state") == "loaded" and m.get("type") in ("llm", "vlm")), None)


class LmStudioAdapter(HttpAdapter):
    """LM Studio's local server. `draft_model` (an LM Studio model id) turns speculation on per request."""

    kind: EngineKind = "lmstudio"

    def __init__(
        self, base_url: str, *, api_key: str | None = None, timeout_s: float = 60.0,
        client: httpx.Client | None = None, model: str | None = None, draft_model: str | None = None,
    ) -> None:
        super().__init__(base_url, api_key=api_key, timeout_s=timeout_s, client=client)
        self.model = model
        self.draft_model = draft_model
        self._runtime: dict[str, object] | None = None  # runtime/model_info come only with completions
        self._model_info: dict[str, object] | None = None

    @classmethod
    def detect(cls, client: httpx.Client, base_url: str) -> bool:
        """Only LM Studio serves `/api/v0/models` with per-model `state` and `compatibility_type`."""
        models = _models(probe_json(client, f"{base_url.rstrip('/')}/api/v0/models"))
        return models is not None and all("state" in m and "compatibility_type" in m for m in models)

    def _pick_model(self) -> tuple[str | None, dict[str, object] | None]:
        models = _models(get_json(self._client, self.url("/api/v0/models")))
        if models is None:
            raise EngineError(f"{self.base_url}/api/v0/models has no 'data' list", kind="bad-response")
        if self.model:
            return self.model, next((m for m in models if m.get("id") == self.model), None)
        card = _loaded_llm(models)
        return text(card, "id"), card

    def info(self) -> EngineInfo:
        """Loaded model and its quantisation; the app version is not exposed (runtime comes with replies)."""
        name, card = self._pick_model()
        ctx = integer(card, "loaded_context_length") or integer(card, "max_context_length")
        runtime = self._runtime
        if self.draft_model:
            spec: SpecState | Unavailable = SpecState(
                True, "draft-model", None, "request field draft_model", f"draft model {self.draft_model}")
        else:
            spec = SpecState(None, None, None, "request field draft_model",
                             "no draft_model sent; a draft set in the app's model settings is not visible to the API")
        return EngineInfo(
            kind=self.kind, base_url=self.base_url,
            version=Unavailable("not-supported", "REST v0 does not report the LM Studio version"),
            model=name or Unavailable("not-found", "no LLM is loaded (/api/v0/models shows none 'loaded')"),
            context_size=ctx if ctx is not None else Unavailable("not-found", "no max_context_length"),
            spec=spec,
            acceptance_rate=Unavailable("not-supported", "LM Studio reports draft counts per request only"),
            mean_acceptance_length=Unavailable("not-supported", "LM Studio reports no verify-step count"),
            extra={"model_card": dict(card or {}), "runtime": dict(runtime or {}),
                   "model_info": dict(self._model_info or {}),
                   "draft_model": self.draft_model},
        )

    def spec_counters(self) -> SpecCounters | Unavailable:
        return Unavailable("not-supported", "LM Studio has no metrics endpoint; draft counts come per request")

    def complete(
        self, prompt: str | list[int], *, max_tokens: int, temperature: float = 0.0, seed: int = 0,
        slot: int | None = None, cache_prompt: bool = True,
    ) -> CompletionResult:
        """Non-streamed `/api/v0/completions`: only the full reply documents `stats` with draft counts.

        Because of that, `ttft_ms` is the server's `stats.time_to_first_token`, not a client clock.
        """
        if isinstance(prompt, list):
            raise EngineError("LM Studio's /api/v0/completions takes text prompts, not token ids",
                              kind="unsupported")
        model, _ = self._pick_model()
        if model is None:
            raise EngineError(f"no model is loaded in LM Studio at {self.base_url}", kind="bad-response")
        body: dict[str, object] = {"model": model, "prompt": prompt, "max_tokens": max_tokens,
                                   "temperature": temperature, "seed": seed, "stream": False}
        if self.draft_model:
            body["draft_model"] = self.draft_model
        t0 = time.monotonic()
        doc = request_json(self._client, "POST", self.url("/api/v0/completions"), body)
        total_ms = 1000.0 * (time.monotonic() - t0)
        usage, stats = obj(doc, "usage"), obj(doc, "stats")
        completion = integer(usage, "completion_tokens")
        if completion is None:
            raise EngineError(f"{self.base_url}/api/v0/completions reply has no usage.completion_tokens",
                              kind="bad-response")
        self._runtime = obj(doc, "runtime") or self._runtime
        self._model_info = obj(doc, "model_info") or self._model_info
        choices = doc.get("choices") if isinstance(doc, dict) else None
        first = choices[0] if isinstance(choices, list) and choices else None
        ttft_s, gen_s = number(stats, "time_to_first_token"), number(stats, "generation_time")
        raw = {k: v for k in (*_DRAFT_KEYS, "tokens_per_second") if (v := number(stats, k)) is not None}
        if gen_s is not None:
            raw["generation_time_ms"] = 1000.0 * gen_s  # LM Studio does not say whether it includes token 1
        return CompletionResult(
            text=text(first, "text") or "", prompt_tokens=integer(usage, "prompt_tokens"), cached_tokens=None,
            completion_tokens=completion, prompt_ms=None, decode_ms=None,
            draft_tokens=integer(stats, "total_draft_tokens_count"),
            draft_accepted=integer(stats, "accepted_draft_tokens_count"),
            ttft_ms=1000.0 * ttft_s if ttft_s is not None else total_ms, total_ms=total_ms,
            stop_reason=text(stats, "stop_reason") or text(first, "finish_reason"), raw_timings=raw,
        )
