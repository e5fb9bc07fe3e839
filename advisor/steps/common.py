"""Measurement helpers shared by the steps: one timed request as a plain record, warm-ups, percentiles."""

from __future__ import annotations

import math
from collections.abc import Sequence

from advisor import stats
from advisor.evidence.steps import RequestRecord
from advisor.steps.textcheck import repetition_loop, text_digest
from probes.engines.base import CompletionResult, EngineAdapter


def record(result: CompletionResult, *, prompt_id: str, category: str, arm: str,
           generation: int | None = None) -> RequestRecord:
    """Turn an engine result into a record; per-token rates come from server counts, never SSE chunks."""
    mspt = result.decode_ms_per_token
    return RequestRecord(
        prompt_id=prompt_id, category=category, arm=arm,
        completion_tokens=result.completion_tokens, decode_ms=result.decode_ms,
        ms_per_token=mspt, tok_s=(1000.0 / mspt) if mspt else None,
        prompt_tokens=result.prompt_tokens, cached_tokens=result.cached_tokens, prompt_ms=result.prompt_ms,
        ttft_ms=result.ttft_ms, total_ms=result.total_ms,
        draft_tokens=result.draft_tokens, draft_accepted=result.draft_accepted,
        stop_reason=result.stop_reason, output_digest=text_digest(result.text),
        repetition_loop=repetition_loop(result.text), server_generation=generation,
    )


def run_prompt(adapter: EngineAdapter, text: str, *, max_tokens: int, seed: int, temperature: float,
               prompt_id: str, category: str, arm: str, generation: int | None = None) -> tuple[RequestRecord, str]:
    """One measured request; returns the record and the output text (the text is not stored in evidence)."""
    result = adapter.complete(text, max_tokens=max_tokens, temperature=temperature, seed=seed)
    return record(result, prompt_id=prompt_id, category=category, arm=arm, generation=generation), result.text


def percentile_or_none(values: Sequence[float | None], q: float) -> float | None:
    """Percentile (q in 0..100) of the finite values, or None when there are none (a step may have no data)."""
    finite = [v for v in values if v is not None and math.isfinite(v)]
    return stats.percentile(finite, q) if finite else None
