"""After the A/B's timed pairs: replay the OFF request of every pair whose greedy replies differ, asking the
engine for the top-2 probabilities of each token up to the divergence, and classify it (advisor/ab/divergence.py).

The replays run after the last timed pair, on the OFF server (no drafter, so no cross-request memory that a
later measurement could inherit), and are never timed. An engine that cannot return probabilities is said so
once; its divergences stay "unknown" and fall under the plain early-divergence bound.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from advisor.ab.divergence import DivergenceCheck, classify, unchecked
from advisor.ab.types import PairResult
from advisor.steps.base import StepContext
from advisor.text.message import Message, msg, render
from probes.engines.base import EngineError
from probes.engines.probs import ProbsAdapter

N_PROBS = 2
_SLACK_BYTES = 64  # past the parting byte: room for the token that holds it


@dataclass(frozen=True, slots=True)
class Replies:
    """Both arms' greedy replies to one prompt (kept in memory only, never stored)."""

    prompt: Any
    off_text: str
    on_text: str


@dataclass(frozen=True, slots=True)
class MarginCheck:
    """The replays' outcome: one check per divergent pair, and why none could run when `available` is False."""

    checks: tuple[DivergenceCheck, ...] = ()
    available: bool | None = None  # None: nothing diverged, nothing to ask
    note: Message | None = None  # why the replays could not classify (the engine gives no probabilities)


def _parting_byte(off: str, on: str) -> int:
    a, b = off.encode("utf-8", "replace"), on.encode("utf-8", "replace")
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


def check_divergences(ctx: StepContext, replies: Sequence[Replies], phase: str) -> MarginCheck:
    """Replay and classify each divergent pair on the OFF arm (swapped in when single-resident)."""
    if not replies:
        return MarginCheck()
    arm = ctx.use("off", phase)
    adapter = arm.adapter if arm is not None else None
    if not isinstance(adapter, ProbsAdapter):
        kind = getattr(adapter, "kind", "this engine")
        note = msg("warn.no_probs", kind=str(kind))
        return MarginCheck(tuple(unchecked(r.prompt.id, render(note, "en")) for r in replies), False, note)
    gap = ctx.policy.ab.near_tie_max_gap
    checks: list[DivergenceCheck] = []
    for r in replies:
        if ctx.cancelled:
            checks.append(unchecked(r.prompt.id, "cancelled before its replay"))
            continue
        try:
            replay = adapter.token_probs(r.prompt.text, max_tokens=ctx.config.budget.max_tokens, n_probs=N_PROBS,
                                         seed=ctx.config.seed,
                                         stop_after_bytes=_parting_byte(r.off_text, r.on_text) + _SLACK_BYTES)
        except EngineError as exc:
            checks.append(unchecked(r.prompt.id, f"the replay failed: {exc}"))
            continue
        checks.append(classify(r.prompt.id, r.off_text, r.on_text, replay, gap))
    return MarginCheck(tuple(checks), True)


def with_kinds(pairs: Sequence[PairResult], checks: Sequence[DivergenceCheck]) -> list[PairResult]:
    """`pairs` with each divergent pair's kind from its check ("unknown" where none ran)."""
    kinds: Mapping[str, str] = {c.prompt_id: c.kind for c in checks}
    return [replace(p, divergence_kind=kinds.get(p.prompt_id, "unknown")) if p.outputs_match is False else p
            for p in pairs]
