"""llama.cpp `llama-server` adapter: identity, real speculation state, metrics and timed streaming requests.

Facts this relies on (engines.md §1): `/props` shows `speculative.types` as "none" even when speculation is
on, so the real state comes from `/slots`; per-request `timings` carry server counts and times, and with
`timings_per_token` every streamed event carries cumulative counters, so bursts of accepted draft tokens can
be reconstructed without counting chunks.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

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
from probes.engines.llamacpp.legacy_http import get_json, post_stream
from probes.engines.prometheus import parse_prometheus, sum_by

_SPEC = "llamacpp:spec_decode_"


class LlamaCppAdapter:
    """A running llama-server at `base_url` (loopback unless the user allowed remote)."""

    kind: EngineKind = "llama.cpp"

    def __init__(self, base_url: str, *, timeout_s: float = 10.0, idle_timeout_s: float = 60.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout_s = timeout_s
        self.idle_timeout_s = idle_timeout_s  # longest silence inside a stream before we call it hung
        self._client = httpx.Client(base_url=self.base_url, timeout=timeout_s, trust_env=False,
                                    follow_redirects=False)

    def close(self) -> None:
        """Release the HTTP connection pool."""
        self._client.close()

    @classmethod
    def detect(cls, client: httpx.Client, base_url: str) -> bool:
        """True when `/props` answers like llama-server (it has `build_info` and `total_slots`)."""
        try:
            r = client.get(f"{base_url.rstrip('/')}/props")
            body = r.json() if r.status_code == 200 else None
        except (httpx.HTTPError, ValueError):
            return False
        return isinstance(body, dict) and "build_info" in body and "total_slots" in body

    # ---- identity -------------------------------------------------------------------------------------

    def info(self) -> EngineInfo:
        """Identity, model, slots and the speculation state as the server itself reports it."""
        props = get_json(self._client, "/props")
        if isinstance(props, Unavailable):
            raise EngineError(f"llama-server at {self.base_url} did not answer /props: {props}",
                              kind="unreachable" if props.reason == "unreachable" else "bad-response")
        version = props.get("build_info") or Unavailable("not-found", "/props has no build_info")
        model_path = props.get("model_path") or Unavailable("not-found", "/props has no model_path")
        model = props.get("model_alias") or (
            str(model_path).rsplit("/", 1)[-1] if isinstance(model_path, str) else model_path)
        n_ctx = (props.get("default_generation_settings") or {}).get("n_ctx")
        slots_total = props.get("total_slots")
        counters = self.spec_counters()
        rate: float | Unavailable = Unavailable("not-found", "no speculative counters yet")
        mean_len: float | Unavailable = Unavailable("not-found", "no speculative counters yet")
        if isinstance(counters, SpecCounters) and counters.draft_tokens > 0:
            rate = counters.accepted_tokens / counters.draft_tokens
            if counters.drafts > 0:
                mean_len = 1.0 + counters.accepted_tokens / counters.drafts
        return EngineInfo(
            kind=self.kind, base_url=self.base_url, version=str(version) if isinstance(version, str) else version,
            model=model, model_path=model_path,
            slots=int(slots_total) if isinstance(slots_total, int) else Unavailable("not-found", "no total_slots"),
            context_size=int(n_ctx) if isinstance(n_ctx, int) else Unavailable("not-found", "no n_ctx"),
            spec=self.spec_state(), acceptance_rate=rate, mean_acceptance_length=mean_len,
            extra={"model_ftype": props.get("model_ftype")},
        )

    def spec_state(self) -> SpecState | Unavailable:
        """Speculation as the server reports it: `/slots` (`speculative` flag, and `params["speculative.types"]`
        once a slot has served a task), else a zero-token `/completion` whose `generation_settings` carry the
        types. `/props` is never used: it always shows the default "none"."""
        slots = get_json(self._client, "/slots")
        if isinstance(slots, Unavailable):
            return Unavailable(slots.reason, f"/slots: {slots.detail} (the server may run with --no-slots)")
        if not isinstance(slots, list) or not slots:
            return Unavailable("bad-response", "/slots returned no slots")
        active = slots[0].get("speculative")
        params = next((s["params"] for s in slots if isinstance(s.get("params"), dict)), None)
        source = "/slots"
        if params is None:
            params, source = self._generation_settings(), "/slots + /completion generation_settings"
        types = params.get("speculative.types") if params else None
        methods = [t for t in str(types or "").split(",") if t and t != "none"]
        draft_max = params.get("speculative.n_max") if params else None  # only older builds expose it
        return SpecState(
            active=bool(active) if isinstance(active, bool) else (bool(methods) if types is not None else None),
            method=",".join(methods) or None,
            draft_max=int(draft_max) if isinstance(draft_max, int) else None,
            source=source,
        )

    def _generation_settings(self) -> dict[str, Any] | None:
        # A zero-token request (n_predict 0, no cache) returns the task parameters the server applies.
        try:
            r = self._client.post("/completion", json={"prompt": " ", "n_predict": 0, "cache_prompt": False})
            settings = r.json().get("generation_settings") if r.status_code == 200 else None
        except (httpx.HTTPError, ValueError, AttributeError):
            return None
        return settings if isinstance(settings, dict) else None

    def spec_counters(self) -> SpecCounters | Unavailable:
        """Cumulative `llamacpp:spec_decode_*` counters (needs `--metrics` and a build from 2026-07 or later)."""
        try:
            r = self._client.get("/metrics")
        except httpx.HTTPError as exc:
            return Unavailable("unreachable", f"/metrics: {exc}")
        if r.status_code == 501:
            return Unavailable("not-supported", "the server runs without --metrics")
        if r.status_code != 200:
            return Unavailable("bad-response", f"/metrics answered HTTP {r.status_code}")
        metrics = parse_prometheus(r.text)
        if f"{_SPEC}num_draft_tokens_total" not in metrics:
            return Unavailable("not-supported", "this build exposes no spec_decode_* metrics")
        per_pos = sorted(
            (int(s.labels.get("position", "0")), s.value)
            for s in metrics.get(f"{_SPEC}num_accepted_tokens_per_pos_total", [])
        )
        return SpecCounters(
            drafts=sum_by(metrics, f"{_SPEC}num_drafts_total") or 0.0,
            draft_tokens=sum_by(metrics, f"{_SPEC}num_draft_tokens_total") or 0.0,
            accepted_tokens=sum_by(metrics, f"{_SPEC}num_accepted_tokens_total") or 0.0,
            accepted_per_position=tuple(v for _, v in per_pos),
        )

    def tokenize(self, text: str) -> list[int]:
        """Token ids of `text` (no special tokens), from the server's own tokenizer."""
        try:
            r = self._client.post("/tokenize", json={"content": text, "add_special": False})
            r.raise_for_status()
            return [int(t) for t in r.json()["tokens"]]
        except (httpx.HTTPError, KeyError, TypeError, ValueError) as exc:
            raise EngineError(f"/tokenize failed: {exc}", kind="bad-response") from exc

    def apply_template(self, messages: list[dict[str, str]]) -> str:
        """The prompt text the server's chat template makes of `messages` (POST /apply-template)."""
        try:
            r = self._client.post("/apply-template", json={"messages": messages})
            r.raise_for_status()
            return str(r.json()["prompt"])
        except (httpx.HTTPError, KeyError, TypeError, ValueError) as exc:
            raise EngineError(f"/apply-template failed: {exc}", kind="bad-response") from exc

    # ---- requests ---------------------------------------------------------------------------------------

    def complete(
        self,
        prompt: str | list[int],
        *,
        max_tokens: int,
        temperature: float = 0.0,
        seed: int = 0,
        slot: int | None = None,
        cache_prompt: bool = True,
    ) -> CompletionResult:
        """One streamed `/completion`; counts and times come from the server's `timings`."""
        body: dict[str, Any] = {
            "prompt": prompt, "n_predict": max_tokens, "temperature": temperature, "seed": seed,
            "stream": True, "timings_per_token": True, "cache_prompt": cache_prompt,
        }
        if slot is not None:
            body["id_slot"] = slot
        t0 = time.monotonic()
        ttft: float | None = None
        bursts: list[Burst] = []
        text_parts: list[str] = []
        final: Mapping[str, Any] | None = None
        for event in post_stream(self._client, "/completion", body, idle_timeout_s=self.idle_timeout_s):
            now = (time.monotonic() - t0) * 1000.0
            content = event.get("content") or ""
            if content and ttft is None:
                ttft = now
            text_parts.append(content)
            timings = event.get("timings") or {}
            if "predicted_n" in timings:
                bursts.append(Burst(t_s=now / 1000.0, n_tokens=int(timings["predicted_n"]),
                                    draft_n=_opt_int(timings.get("draft_n")),
                                    draft_n_accepted=_opt_int(timings.get("draft_n_accepted"))))
            if event.get("stop"):
                final = event
                break
        total = (time.monotonic() - t0) * 1000.0
        if final is None:
            raise EngineError("the stream ended before the server sent its final event "
                              "(the engine may have crashed)", kind="stream-broken")
        return _result(final, "".join(text_parts), ttft if ttft is not None else total, total, bursts)


def _opt_int(value: object) -> int | None:
    return int(value) if isinstance(value, int | float) else None


def _result(final: Mapping[str, Any], text: str, ttft_ms: float, total_ms: float,
            bursts: list[Burst]) -> CompletionResult:
    timings = final.get("timings")
    if not isinstance(timings, dict) or "predicted_n" not in timings:
        raise EngineError("the final event carries no server timings", kind="bad-response")
    draft_n = _opt_int(timings.get("draft_n"))
    return CompletionResult(
        text=text,
        prompt_tokens=_opt_int(timings.get("prompt_n")),
        cached_tokens=_opt_int(timings.get("cache_n")),
        completion_tokens=int(timings["predicted_n"]),
        prompt_ms=float(timings["prompt_ms"]) if "prompt_ms" in timings else None,
        decode_ms=float(timings["predicted_ms"]) if "predicted_ms" in timings else None,
        # The server omits draft fields when nothing was drafted; with speculation on that means 0.
        draft_tokens=draft_n,
        draft_accepted=_opt_int(timings.get("draft_n_accepted")) if draft_n is not None else None,
        ttft_ms=ttft_ms, total_ms=total_ms,
        stop_reason=str(final.get("stop_type")) if final.get("stop_type") else None,
        bursts=tuple(bursts),
        raw_timings={k: float(v) for k, v in timings.items() if isinstance(v, int | float)},
    )
