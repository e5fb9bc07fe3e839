"""llama.cpp `llama-server` adapter: identity, real speculation state, metrics and timed streaming requests.

Facts this relies on (engine-facts.md §1): `/props` shows `speculative.types` as "none" even when speculation is
on, so the real state comes from `/slots`; per-request `timings` carry server counts and times, and with
`timings_per_token` every streamed event carries cumulative counters, so bursts of accepted draft tokens can
be reconstructed without counting chunks.

HTTP goes through the shared layer (`probes.engines.http`): bearer API key (llama-server `--api-key`),
key scrubbing, multi-line SSE and an idle timeout on the stream.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import closing

import httpx

from probes.base import Unavailable, UnavailableReason
from probes.engines.base import (
    Burst,
    CompletionResult,
    EngineError,
    EngineInfo,
    EngineKind,
    SpecCounters,
    SpecState,
)
from probes.engines.http import (
    HttpAdapter,
    get_json,
    get_text,
    integer,
    number,
    obj,
    probe_json,
    request_json,
    stream_sse,
)
from probes.engines.probs import TokenProbs, parse_tokens
from probes.engines.prometheus import parse_prometheus, sum_by

_SPEC = "llamacpp:spec_decode_"


def _reason(exc: EngineError) -> UnavailableReason:
    """The `Unavailable` reason for a failed GET: 501 means the server runs without that endpoint."""
    if exc.status == 501:
        return "not-supported"
    if exc.auth_refused:
        return "permission"
    return "unreachable" if exc.kind in ("unreachable", "timeout") else "bad-response"


class LlamaCppAdapter(HttpAdapter):
    """A running llama-server at `base_url` (loopback unless the user allowed remote).

    `api_key`: the server's `--api-key`, sent as a bearer token (a key in the URL's user-info works too).
    `timeout_s`: connect/write/pool and non-stream reads; `idle_timeout_s`: the longest silence inside a
    stream before the engine counts as hung.
    """

    kind: EngineKind = "llama.cpp"

    def __init__(
        self, base_url: str, *, api_key: str | None = None, timeout_s: float = 10.0,
        idle_timeout_s: float = 60.0, client: httpx.Client | None = None,
    ) -> None:
        super().__init__(base_url, api_key=api_key, timeout_s=timeout_s, client=client)
        self.timeout_s = timeout_s
        self.idle_timeout_s = idle_timeout_s

    @classmethod
    def detect(cls, client: httpx.Client, base_url: str) -> bool:
        """True when `/props` answers like llama-server (it has `build_info` and `total_slots`)."""
        body = probe_json(client, f"{base_url.rstrip('/')}/props")
        return body is not None and "build_info" in body and "total_slots" in body

    # ---- identity -------------------------------------------------------------------------------------

    def info(self) -> EngineInfo:
        """Identity, model, slots and the speculation state as the server itself reports it."""
        props = get_json(self._client, self.url("/props"))  # down, refused key, not JSON: EngineError
        if not isinstance(props, dict):
            raise self._error(f"{self.url('/props')} did not answer a JSON object", "bad-response")
        version = props.get("build_info") or Unavailable("not-found", "/props has no build_info")
        model_path = props.get("model_path") or Unavailable("not-found", "/props has no model_path")
        model = props.get("model_alias") or (
            str(model_path).rsplit("/", 1)[-1] if isinstance(model_path, str) else model_path)
        n_ctx = integer(obj(props, "default_generation_settings"), "n_ctx")
        slots_total = integer(props, "total_slots")
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
            slots=slots_total if slots_total is not None else Unavailable("not-found", "no total_slots"),
            context_size=n_ctx if n_ctx is not None else Unavailable("not-found", "no n_ctx"),
            spec=self.spec_state(), acceptance_rate=rate, mean_acceptance_length=mean_len,
            extra={"model_ftype": props.get("model_ftype")},
        )

    def spec_state(self) -> SpecState | Unavailable:
        """Speculation as the server reports it: `/slots` (`speculative` flag, and `params["speculative.types"]`
        once a slot has served a task), else a zero-token `/completion` whose `generation_settings` carry the
        types. `/props` is never used: it always shows the default "none"."""
        try:
            slots = get_json(self._client, self.url("/slots"))
        except EngineError as exc:
            hint = " (the server runs with --no-slots)" if exc.status == 501 else ""
            return Unavailable(_reason(exc), f"{exc}{hint}")
        if not isinstance(slots, list) or not slots or not all(isinstance(s, dict) for s in slots):
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

    def _generation_settings(self) -> dict[str, object] | None:
        # A zero-token request (n_predict 0, no cache) returns the task parameters the server applies.
        try:
            doc = request_json(self._client, "POST", self.url("/completion"),
                               {"prompt": " ", "n_predict": 0, "cache_prompt": False})
        except EngineError:
            return None
        settings = doc.get("generation_settings") if isinstance(doc, dict) else None
        return settings if isinstance(settings, dict) else None

    def spec_counters(self) -> SpecCounters | Unavailable:
        """Cumulative `llamacpp:spec_decode_*` counters (needs `--metrics` and a build from 2026-07 or later)."""
        try:
            scrape = get_text(self._client, self.url("/metrics"))
        except EngineError as exc:
            if exc.status == 501:
                return Unavailable("not-supported", "the server runs without --metrics")
            return Unavailable(_reason(exc), str(exc))
        metrics = parse_prometheus(scrape)
        if f"{_SPEC}num_draft_tokens_total" not in metrics:
            return Unavailable("not-supported", "this build exposes no spec_decode_* metrics")
        samples = metrics.get(f"{_SPEC}num_accepted_tokens_per_pos_total", [])
        positions = [s.labels.get("position", "0") for s in samples]
        # a position label that is not a small number: keep the totals, drop the histogram
        per_pos = sorted((int(p), s.value) for p, s in zip(positions, samples, strict=True)
                         if p.isdigit() and len(p) < 6)
        counters = SpecCounters(
            drafts=sum_by(metrics, f"{_SPEC}num_drafts_total") or 0.0,
            draft_tokens=sum_by(metrics, f"{_SPEC}num_draft_tokens_total") or 0.0,
            accepted_tokens=sum_by(metrics, f"{_SPEC}num_accepted_tokens_total") or 0.0,
            accepted_per_position=tuple(v for _, v in per_pos),
        )
        problem = counters.problem()
        if problem is not None:
            return Unavailable("bad-response", f"impossible speculative counters: {problem}")
        return counters

    def tokenize(self, text: str) -> list[int]:
        """Token ids of `text` (no special tokens), from the server's own tokenizer."""
        doc = request_json(self._client, "POST", self.url("/tokenize"), {"content": text, "add_special": False})
        tokens = doc.get("tokens") if isinstance(doc, dict) else None
        if not isinstance(tokens, list) or not all(isinstance(t, int) and not isinstance(t, bool) for t in tokens):
            raise self._error(f"{self.url('/tokenize')} answered without a list of token ids", "bad-response")
        return list(tokens)

    def apply_template(self, messages: list[dict[str, str]]) -> str:
        """The prompt text the server's chat template makes of `messages` (POST /apply-template)."""
        doc = request_json(self._client, "POST", self.url("/apply-template"), {"messages": messages})
        prompt = doc.get("prompt") if isinstance(doc, dict) else None
        if not isinstance(prompt, str):
            raise self._error(f"{self.url('/apply-template')} answered without a prompt string", "bad-response")
        return prompt

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
        body: dict[str, object] = {
            "prompt": prompt, "n_predict": max_tokens, "temperature": temperature, "seed": seed,
            "stream": True, "timings_per_token": True, "cache_prompt": cache_prompt,
        }
        if slot is not None:
            body["id_slot"] = slot
        ttft: float | None = None
        bursts: list[Burst] = []
        text_parts: list[str] = []
        final: Mapping[str, object] | None = None
        t_s = 0.0  # seconds since the request was sent, at the latest event
        # closing(): after the final event the connection is released at once, not at garbage collection
        with closing(stream_sse(self._client, self.url("/completion"), body,
                                idle_timeout_s=self.idle_timeout_s)) as stream:
            for t_s, event in stream:
                content = event.get("content")
                content = content if isinstance(content, str) else ""
                if content and ttft is None:
                    ttft = t_s * 1000.0
                text_parts.append(content)
                timings = obj(event, "timings")
                n_tokens = integer(timings, "predicted_n")
                if n_tokens is not None:
                    bursts.append(Burst(t_s=t_s, n_tokens=n_tokens, draft_n=integer(timings, "draft_n"),
                                        draft_n_accepted=integer(timings, "draft_n_accepted")))
                if event.get("stop"):
                    final = event
                    break
        total = t_s * 1000.0
        if final is None:
            raise self._error(f"the stream from {self.url('/completion')} ended before the server sent its "
                              "final event (the engine may have crashed)", "stream-broken")
        return _result(final, "".join(text_parts), ttft if ttft is not None else total, total, bursts)

    def token_probs(self, prompt: str, *, max_tokens: int, n_probs: int, seed: int,
                    stop_after_bytes: int | None = None) -> list[TokenProbs]:
        """The greedy reply to `prompt` with `n_probs` candidates per token (`completion_probabilities`,
        engine-facts.md §1.2); streamed, so it can stop once the reply passes `stop_after_bytes` bytes. Untimed: the
        caller uses it outside every measured set."""
        body: dict[str, object] = {"prompt": prompt, "n_predict": max_tokens, "temperature": 0.0, "seed": seed,
                                "stream": True, "n_probs": n_probs, "cache_prompt": True}
        tokens: list[TokenProbs] = []
        chars = 0
        with closing(stream_sse(self._client, self.url("/completion"), body,
                                idle_timeout_s=self.idle_timeout_s)) as stream:
            for _, event in stream:
                entries = event.get("completion_probabilities")
                if isinstance(entries, list):
                    try:
                        got = parse_tokens(entries)
                    except ValueError as exc:
                        raise self._error(f"{self.url('/completion')} sent token probabilities in an unknown "
                                          f"shape ({exc})", "bad-response") from exc
                    tokens.extend(got)
                    chars += sum(len(t.raw) for t in got)
                elif isinstance(event.get("content"), str) and event["content"]:
                    raise self._error(f"{self.url('/completion')} answered n_probs without token probabilities",
                                      "bad-response")
                if event.get("stop") or (stop_after_bytes is not None and chars > stop_after_bytes):
                    break
        return tokens


def _result(final: Mapping[str, object], text: str, ttft_ms: float, total_ms: float,
            bursts: list[Burst]) -> CompletionResult:
    timings = obj(final, "timings")
    completion = integer(timings, "predicted_n")
    if timings is None or completion is None:
        raise EngineError("the final event carries no server timings", kind="bad-response")
    draft_n = integer(timings, "draft_n")
    return CompletionResult(
        text=text,
        prompt_tokens=integer(timings, "prompt_n"),
        cached_tokens=integer(timings, "cache_n"),
        completion_tokens=completion,
        prompt_ms=number(timings, "prompt_ms"),
        decode_ms=number(timings, "predicted_ms"),
        # The server omits draft fields when nothing was drafted; with speculation on that means 0.
        draft_tokens=draft_n,
        draft_accepted=integer(timings, "draft_n_accepted") if draft_n is not None else None,
        ttft_ms=ttft_ms, total_ms=total_ms,
        stop_reason=str(final.get("stop_type")) if final.get("stop_type") else None,
        bursts=tuple(bursts),
        raw_timings={k: float(v) for k, v in timings.items() if isinstance(v, int | float) and not isinstance(v, bool)},
    )
