"""Step 1 — baseline profile with speculation off: TTFT, decode ms/token and tok/s, MBU and the bottleneck."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import replace

from advisor import stats
from advisor.events import Event, Progress, QualityWarning, Sample, StepDone, StepStatus
from advisor.evidence.steps import BaselineEvidence, RequestRecord
from advisor.evidence.warnings import WarningCode
from advisor.perf import roofline
from advisor.steps.base import StepContext, missing_arm, warn
from advisor.steps.common import percentile_or_none, run_prompt
from advisor.text.message import msg


class BaselineStep:
    """Spec-off decoding at fixed output length on the baseline prompts."""

    id = "baseline"
    title = "Baseline profile (speculation off)"

    def run(self, ctx: StepContext) -> Iterator[Event]:
        """Warm up, measure, then compute MBU against the roofline."""
        t0 = time.monotonic()
        off = ctx.use("off", self.id, warm=False)  # warmed below, with progress
        if off is None:
            yield missing_arm(self.id, "a speculation-off server")
            return
        adapter, budget, cfg = off.adapter, ctx.config.budget, ctx.config
        for i, warm in enumerate(ctx.workload.warmup[: budget.warmup_requests]):
            yield Progress.unit(self.id, 0, len(ctx.workload.baseline) * budget.baseline_repeats, "warmup",
                                n=i + 1)
            adapter.complete(warm.text, max_tokens=min(budget.warmup_tokens, budget.max_tokens), seed=cfg.seed,
                             temperature=cfg.temperature)
        records: list[RequestRecord] = []
        prompts = ctx.workload.baseline
        total = len(prompts) * budget.baseline_repeats
        # Rounds over the prompt set rather than one prompt's repeats back to back: repeats of a prompt then
        # lie minutes apart, so their spread includes the drift a check is exposed to.
        for round_index in range(budget.baseline_repeats):
            for prompt in prompts:
                if ctx.cancelled:
                    break
                rec, _ = run_prompt(adapter, prompt.text, max_tokens=budget.max_tokens, seed=cfg.seed,
                                    temperature=cfg.temperature, prompt_id=prompt.id, category=prompt.category,
                                    arm="off")
                records.append(rec)
                if rec.tok_s:
                    yield Sample(self.id, "decode_tok_s", float(len(records) - 1), rec.tok_s)
                yield Progress.unit(self.id, len(records), total, "baseline_prompt", prompt=prompt.id,
                                    round=round_index + 1)
        evidence, warnings = summarise(records, ctx)
        if evidence.roofline_tok_s is not None:
            yield Sample(self.id, "roofline_tok_s", 0.0, evidence.roofline_tok_s)
        yield from warnings
        status: StepStatus = "aborted" if ctx.cancelled else "done"
        yield StepDone(self.id, status, evidence, elapsed_s=time.monotonic() - t0, warnings=tuple(warnings))


def summarise(records: Sequence[RequestRecord], ctx: StepContext) -> tuple[BaselineEvidence, list[QualityWarning]]:
    """Evidence and quality warnings from the measured requests."""
    tok_s = [r.tok_s for r in records if r.tok_s]
    base = BaselineEvidence(samples=tuple(records), n_requests=len(records))
    if not tok_s:
        return base, [warn("baseline", WarningCode.NO_DATA, msg("warn.no_data"))]
    warnings: list[QualityWarning] = []
    decode_tok_s = stats.median(tok_s)
    cv = stats.repeat_cv_percent(base.repeats_by_prompt())
    if cv is not None and cv >= ctx.policy.baseline.max_cv_pct:
        warnings.append(warn("baseline", WarningCode.NOISY,
                             msg("warn.noisy_repeats", cv=cv)))
    measured = replace(base, decode_tok_s=decode_tok_s, ms_per_token=1000.0 / decode_tok_s, cv_pct=cv,
                       between_prompt_cv_pct=stats.cv_percent(tok_s),
                       ttft_ms=percentile_or_none([r.ttft_ms for r in records], 50),
                       prompt_ms=percentile_or_none([r.prompt_ms for r in records], 50))
    depth = stats.median([r.decode_depth_tokens for r in records])
    bytes_gb = roofline.bytes_per_token_gb(ctx.environment.model, depth)
    peak = roofline.peak_bandwidth(ctx.environment)
    if bytes_gb is None or peak is None:
        warnings.append(warn("baseline", WarningCode.NO_ROOFLINE, msg("warn.no_roofline")))
        return measured, warnings
    line = roofline.Roofline(peak_gbs=peak[0], source=peak[1], bytes_per_token_gb=bytes_gb)
    value = roofline.mbu(bytes_gb, decode_tok_s, line.peak_gbs)
    return replace(
        measured, bytes_per_token_gb=bytes_gb, peak_bandwidth_gbs=line.peak_gbs, bandwidth_source=line.source,
        mbu=value,
        bottleneck=roofline.classify(value, bytes_gb, ctx.policy.bottleneck), roofline_tok_s=line.max_tok_s,
        context_depth_tokens=depth,
    ), warnings
