"""The pairs of an A/B: each prompt under both arms, side by side or single-resident, as the arms layer runs.

Side by side both arms run each prompt back to back, the first alternating per prompt (per-prompt
counterbalancing keeps drift and an order effect off the speedup: the drift and order scenarios of
advisor/ab/simulation.py). Single-resident they run in blocks, one copy of the target at a time
(advisor/arms/schedule.py). A failed request counts against its arm.
"""

from __future__ import annotations

import math
import time
from collections.abc import Generator, Sequence
from dataclasses import dataclass

from advisor.ab.types import PairResult
from advisor.arms.arms import ArmName
from advisor.arms.schedule import leads, single_resident_windows
from advisor.evidence.steps import RequestRecord
from advisor.evidence.units import ABUnit, ArmResult
from advisor.steps.base import StepContext
from advisor.steps.common import run_prompt
from advisor.steps.divergence import Replies
from advisor.steps.plan import PromptLike
from probes.engines.base import EngineAdapter, EngineError


@dataclass(frozen=True, slots=True)
class _Run:
    record: RequestRecord | None
    text: str
    error: str


def _arm(adapter: EngineAdapter, prompt: PromptLike, arm: str, ctx: StepContext) -> _Run:
    cfg = ctx.config
    owner = ctx.arms.off if arm == "off" else ctx.arms.on
    try:
        rec, text = run_prompt(adapter, prompt.text, max_tokens=cfg.budget.max_tokens, seed=cfg.seed,
                               temperature=cfg.temperature, prompt_id=prompt.id, category=prompt.category, arm=arm,
                               generation=owner.generation if owner is not None else None)
    except EngineError as exc:
        return _Run(None, "", str(exc))
    if rec.ms_per_token is None:
        return _Run(None, text, "the server reported no decode time (fewer than 2 tokens generated)")
    return _Run(rec, text, "")


def divergence_at(reference: str, other: str) -> float | None:
    """Where `other` first differs from `reference`, as a share of the reference (None when identical)."""
    if reference == other:
        return None
    common = next((i for i, (a, b) in enumerate(zip(reference, other, strict=False)) if a != b),
                  min(len(reference), len(other)))
    return common / max(len(reference), 1)


def pair_units(ctx: StepContext, prompts: Sequence[PromptLike], key_prefix: str,
               replies: list[Replies] | None = None) -> Generator[tuple[PromptLike, ABUnit, bool], None, None]:
    """Each prompt's pair as it completes: (prompt, unit, measured now — False when resumed). Side by side
    both arms run each prompt back to back, the first alternating per prompt; single-resident they run in
    blocks, one copy of the target at a time (advisor/arms/schedule.py). The caller may stop at any pair.
    `replies` collects both replies of each pair measured now whose greedy outputs differ (for the margin
    check after the timed pairs; texts stay in memory)."""
    resumed = {i: u for i, p in enumerate(prompts) if (u := ctx.resumed(key_prefix + p.id, ABUnit)) is not None}
    if not ctx.arms.single:
        for i, prompt in enumerate(prompts):
            if ctx.cancelled:
                return
            if i in resumed:
                yield prompt, resumed[i], False
                continue
            assert ctx.arms.off is not None and ctx.arms.on is not None
            started = time.monotonic()
            order: tuple[ArmName, ...] = ("on", "off") if i % 2 == 1 else ("off", "on")
            adapters = {"off": ctx.arms.off.adapter, "on": ctx.arms.on.adapter}
            got = {name: _arm(adapters[name], prompt, name, ctx) for name in order}
            yield prompt, _kept(pair_unit(prompt, got, on_first=i % 2 == 1, started=started, ctx=ctx),
                                prompt, got, replies), True
        return
    todo = [i for i in range(len(prompts)) if i not in resumed]
    for i in sorted(resumed):
        yield prompts[i], resumed[i], False
    windows = single_resident_windows(len(todo), ctx.policy.arms.single_block_pairs,
                                      first="on" if ctx.arms.on is not None and ctx.arms.on.resident else "off")
    first = leads(windows)
    halves: dict[int, tuple[float, _Run]] = {}
    for window in windows:
        arm = ctx.use(window.arm, f"ab:{key_prefix or 'pairs'}")
        assert arm is not None
        for j in window.indices:
            if ctx.cancelled:
                return
            prompt = prompts[todo[j]]
            now, run = time.monotonic(), _arm(arm.adapter, prompt, window.arm, ctx)
            if j not in halves:
                halves[j] = (now, run)
                continue
            started, lead = halves.pop(j)
            got = {first[j]: lead, window.arm: run}
            yield prompt, _kept(pair_unit(prompt, got, on_first=first[j] == "on", started=started, ctx=ctx),
                                prompt, got, replies), True


def _kept(unit: ABUnit, prompt: PromptLike, got: dict[ArmName, _Run], replies: list[Replies] | None) -> ABUnit:
    if replies is not None and unit.pair.outputs_match is False:
        replies.append(Replies(prompt, got["off"].text, got["on"].text))
    return unit


def pair_unit(prompt: PromptLike, got: dict[ArmName, _Run], *, on_first: bool, started: float,
              ctx: StepContext) -> ABUnit:
    """One pair from both arms' runs of `prompt` (the first of them began at monotonic `started`)."""
    off_rec, off_err, on_rec, on_err = got["off"].record, got["off"].error, got["on"].record, got["on"].error
    greedy = ctx.config.temperature == 0.0
    match = (off_rec.output_digest == on_rec.output_digest) if off_rec and on_rec and greedy else None
    pair = PairResult(
        prompt_id=prompt.id,
        off_ms_per_token=off_rec.ms_per_token if off_rec and off_rec.ms_per_token else math.nan,
        on_ms_per_token=on_rec.ms_per_token if on_rec and on_rec.ms_per_token else math.nan,
        on_first=on_first, off_error=off_err or None, on_error=on_err or None,
        outputs_match=match, category=prompt.category,
        divergence_at=divergence_at(got["off"].text, got["on"].text) if match is False else None,
        off_repetition_loop=bool(off_rec and off_rec.repetition_loop),
        on_repetition_loop=bool(on_rec and on_rec.repetition_loop),
        throttled=ctx.throttled_since(started),
        output_tokens=off_rec.completion_tokens if off_rec else None,
        depth_tokens=off_rec.decode_depth_tokens if off_rec else None,
    )
    # Both arms always travel together: the history stores a pair whole or not at all.
    return ABUnit(pair, ArmResult(off_rec, off_err or None), ArmResult(on_rec, on_err or None))
