"""The engine interface every adapter implements (llama.cpp first; vLLM, SGLang, LM Studio, Ollama later).

Adapters speak to an already running server over HTTP. They report what the server itself says (token
counts, times, draft counters) and never count SSE chunks as tokens: one chunk can carry several accepted
draft tokens.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol

from probes.base import Unavailable
from probes.engines.limits import MAX_COUNT

# Default for EngineInfo fields an adapter has not filled in (frozen, so sharing one instance is safe).
_NOT_REPORTED = Unavailable("not-found", "not reported by this engine")

EngineKind = Literal["llama.cpp", "vllm", "sglang", "lmstudio", "ollama", "tgi", "unknown"]


class EngineError(Exception):
    """A request to the engine failed in a way the user should read (down, hung, 5xx, bad reply)."""

    def __init__(self, message: str, *, kind: str = "error", status: int | None = None) -> None:
        super().__init__(message)
        self.kind = kind  # "unreachable" | "timeout" | "http-5xx" | "http-4xx" | "bad-response" | "stream-broken"
        self.status = status  # the HTTP status when the engine answered with an error code

    @property
    def auth_refused(self) -> bool:
        """True when the engine answered 401/403: it needs an API key, or refused the one sent."""
        return self.status in (401, 403)


@dataclass(frozen=True, slots=True)
class SpecState:
    """Whether speculative decoding is really active on the server, as the server reports it."""

    active: bool | None              # None: the engine does not say
    method: str | None               # e.g. "ngram-mod", "draft-simple", "eagle3", "mtp"
    draft_max: int | None            # γ, the longest draft; None when the engine does not expose it
    source: str                      # which endpoint/field this was read from
    detail: str = ""


@dataclass(frozen=True, slots=True)
class SpecCounters:
    """Cumulative speculative-decoding counters (Prometheus style); diff two snapshots for a window."""

    drafts: float                    # verify steps that carried a draft
    draft_tokens: float
    accepted_tokens: float
    accepted_per_position: tuple[float, ...] = ()

    def minus(self, earlier: SpecCounters) -> SpecCounters:
        """Counter deltas since `earlier`; a counter that went backwards (restart) raises ValueError."""
        deltas = (
            self.drafts - earlier.drafts,
            self.draft_tokens - earlier.draft_tokens,
            self.accepted_tokens - earlier.accepted_tokens,
        )
        if min(deltas) < 0:
            raise ValueError("speculative counters went backwards: the server restarted between snapshots")
        n = max(len(self.accepted_per_position), len(earlier.accepted_per_position))
        now = self.accepted_per_position + (0.0,) * (n - len(self.accepted_per_position))
        then = earlier.accepted_per_position + (0.0,) * (n - len(earlier.accepted_per_position))
        return SpecCounters(*deltas, accepted_per_position=tuple(a - b for a, b in zip(now, then, strict=True)))

    def problem(self) -> str | None:
        """Why these counters cannot be true (negative, not finite, more accepted than drafted), or None."""
        values = {"drafts": self.drafts, "draft tokens": self.draft_tokens, "accepted tokens": self.accepted_tokens}
        return _bad_values(values.items(), whole=False) or _more_than("accepted tokens", self.accepted_tokens,
                                                                        "draft tokens", self.draft_tokens)


def _bad_values(values: Iterable[tuple[str, object]], *, whole: bool) -> str | None:
    """The first value that is not a finite, non-negative number (a whole one when `whole`), described."""
    for name, v in values:
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            return f"{name} is {v!r}, not a finite number"
        if v < 0:
            return f"{name} is negative ({v:g})"
        if whole and (v != int(v) or v > MAX_COUNT):
            return f"{name} is {v!r}, not a plausible token count"
    return None


def _more_than(part: str, a: float | None, whole: str, b: float | None) -> str | None:
    return f"{a:g} {part} of {b:g} {whole}" if a is not None and b is not None and a > b else None


@dataclass(frozen=True, slots=True)
class Burst:
    """One streamed event: client arrival time and the server's cumulative counters at that point."""

    t_s: float                       # monotonic seconds since the request was sent
    n_tokens: int                    # server-reported tokens generated so far (cumulative)
    draft_n: int | None = None       # cumulative drafted tokens, when the server reports per-token timings
    draft_n_accepted: int | None = None


@dataclass(frozen=True, slots=True)
class CompletionResult:
    """One finished request, with the server's own counts and times."""

    text: str
    prompt_tokens: int | None        # prompt tokens evaluated this request (excluding cached)
    cached_tokens: int | None        # prompt tokens reused from cache
    completion_tokens: int           # generated tokens, as the server counts them
    prompt_ms: float | None          # server: prompt processing time
    decode_ms: float | None          # server: time for tokens after the first
    draft_tokens: int | None         # server: tokens drafted (None when speculation is off or unreported)
    draft_accepted: int | None
    ttft_ms: float                   # client: first streamed content, monotonic
    total_ms: float                  # client: request sent → stream closed, monotonic
    stop_reason: str | None
    bursts: tuple[Burst, ...] = ()
    raw_timings: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Every adapter ends in this constructor, so an engine's impossible numbers (99 accepted of 10 drafted,
        # negative counts, NaN times) are refused here, once: the request fails like any bad answer and no
        # step stores it.
        problem = self.problem()
        if problem is not None:
            raise EngineError(f"the engine reported impossible numbers for one request ({problem}); "
                              "that request is not used", kind="bad-response")

    def problem(self) -> str | None:
        """Why this result cannot be true, or None."""
        counts = (("generated tokens", self.completion_tokens), ("prompt tokens", self.prompt_tokens),
                  ("cached prompt tokens", self.cached_tokens), ("drafted tokens", self.draft_tokens),
                  ("accepted draft tokens", self.draft_accepted))
        times = (("prompt time", self.prompt_ms), ("decode time", self.decode_ms),
                 ("time to first token", self.ttft_ms), ("total time", self.total_ms))
        found = (_bad_values(counts, whole=True) or _bad_values(times, whole=False)
                 or _more_than("accepted draft tokens", self.draft_accepted, "drafted", self.draft_tokens))
        for burst in self.bursts:
            found = found or _bad_values((("streamed token count", burst.n_tokens), ("streamed drafted count",
                                          burst.draft_n), ("streamed accepted count", burst.draft_n_accepted)),
                                         whole=True) or _more_than("accepted (streamed)", burst.draft_n_accepted,
                                                                   "drafted", burst.draft_n)
        return found

    @property
    def decode_ms_per_token(self) -> float | None:
        """Server decode time per generated token after the first (ms/token), or None."""
        if self.decode_ms is None or self.completion_tokens < 2:
            return None
        return self.decode_ms / (self.completion_tokens - 1)


@dataclass(frozen=True, slots=True)
class EngineInfo:
    """What an engine says about itself."""

    kind: EngineKind
    base_url: str
    version: str | Unavailable
    model: str | Unavailable
    model_path: str | Unavailable = _NOT_REPORTED
    slots: int | Unavailable = _NOT_REPORTED
    context_size: int | Unavailable = _NOT_REPORTED
    spec: SpecState | Unavailable = _NOT_REPORTED
    acceptance_rate: float | Unavailable = _NOT_REPORTED   # from counters, when exposed
    mean_acceptance_length: float | Unavailable = _NOT_REPORTED
    extra: Mapping[str, object] = field(default_factory=dict)


class EngineAdapter(Protocol):
    """A running engine reached over HTTP."""

    kind: EngineKind
    base_url: str

    def info(self) -> EngineInfo:
        """Identity, version, model and speculation state; missing fields carry a reason."""
        ...

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
        """Run one streamed completion and return the server's own counts and times."""
        ...

    def spec_counters(self) -> SpecCounters | Unavailable:
        """Cumulative speculative counters from the metrics endpoint, or why they are unavailable."""
        ...
