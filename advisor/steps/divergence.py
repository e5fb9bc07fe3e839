"""After the A/B's timed pairs: replay the OFF request of every pair whose greedy replies differ, asking the
engine for the top-2 probabilities of each token up to the divergence, and classify it (advisor/ab/divergence.py).

The replays run on the OFF server (no drafter, so no cross-request memory that a later measurement could
inherit) and are never timed: side by side right after their pair, single-resident after the last timed pair.
An engine that cannot return probabilities is said so once; its divergences stay "unknown" and fall under the
plain early-divergence bound.
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


class Replayer:
    """Replays the divergent pairs on the OFF arm and keeps their checks. Side by side the OFF server is
    resident, so each pair is replayed right after it was measured (`replay_new` in the pair loop: its time is
    part of that pair's unit, and the check's clock has no unplanned tail after the last pair); single-resident
    the replays wait for the end (`finish`), where one swap to OFF serves them all."""

    def __init__(self, ctx: StepContext, phase: str) -> None:
        self.ctx, self.phase = ctx, phase
        self.checks: list[DivergenceCheck] = []
        self.available: bool | None = None  # None until the first replay asks the OFF arm
        self.adapter: ProbsAdapter | None = None
        self.note: Message | None = None

    def replay_new(self, replies: Sequence[Replies]) -> None:
        """Replay the replies not replayed yet, when the OFF server is resident (side by side)."""
        if not self.ctx.arms.single and len(replies) > len(self.checks):
            self._replay(replies[len(self.checks):])

    def finish(self, replies: Sequence[Replies]) -> MarginCheck:
        """Replay what is left (all of it single-resident) and return the outcome."""
        if len(replies) > len(self.checks):
            self._replay(replies[len(self.checks):])
        return MarginCheck(tuple(self.checks), self.available, self.note)

    def _replay(self, replies: Sequence[Replies]) -> None:
        ctx = self.ctx
        if self.available is None:
            arm = ctx.use("off", self.phase)
            adapter = arm.adapter if arm is not None else None
            self.available = isinstance(adapter, ProbsAdapter)
            if isinstance(adapter, ProbsAdapter):
                self.adapter = adapter
            else:
                self.note = msg("warn.no_probs", kind=str(getattr(adapter, "kind", "this engine")))
        adapter = self.adapter
        if adapter is None:
            why = render(self.note, "en") if self.note is not None else ""
            self.checks.extend(unchecked(r.prompt.id, why) for r in replies)
            return
        gap = ctx.policy.ab.near_tie_max_gap
        for r in replies:
            if ctx.cancelled:
                self.checks.append(unchecked(r.prompt.id, "cancelled before its replay"))
                continue
            try:
                replay = adapter.token_probs(r.prompt.text, max_tokens=ctx.config.budget.max_tokens,
                                             n_probs=N_PROBS, seed=ctx.config.seed,
                                             stop_after_bytes=_parting_byte(r.off_text, r.on_text) + _SLACK_BYTES)
            except EngineError as exc:
                self.checks.append(unchecked(r.prompt.id, f"the replay failed: {exc}"))
                continue
            self.checks.append(classify(r.prompt.id, r.off_text, r.on_text, replay, gap))


def with_kinds(pairs: Sequence[PairResult], checks: Sequence[DivergenceCheck]) -> list[PairResult]:
    """`pairs` with each divergent pair's kind from its check ("unknown" where none ran)."""
    kinds: Mapping[str, str] = {c.prompt_id: c.kind for c in checks}
    return [replace(p, divergence_kind=kinds.get(p.prompt_id, "unknown")) if p.outputs_match is False else p
            for p in pairs]
