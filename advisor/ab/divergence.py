"""Why two greedy replies differ: a near tie that rounding flipped (numerics) or a token the model was sure of
(lossy speculation).

Greedy speculative decoding is lossless in exact arithmetic; the batched verify pass and the one-token pass
round differently, so where the model's top two tokens are nearly tied the argmax can flip. A flip can only
reach a token about as likely as the chosen one. So the OFF request is replayed outside the timed sets with
the top-2 log-probabilities of every token (advisor/steps/divergence.py), and at the first token where the
replies part: OFF's top two within `policy.ab.near_tie_max_gap` nats is numerics; a wider gap means the
speculating arm wrote something else where the model was sure, which rounding cannot do (relaxed or typical
acceptance, a broken verify path): lossy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from probes.engines.probs import TokenProbs

DivergenceKind = Literal["numerics", "lossy", "unknown"]
_SHOWN = 24  # bytes of a token kept in evidence: enough to name it, never a stretch of the user's reply


@dataclass(frozen=True, slots=True)
class DivergenceCheck:
    """Where one pair's greedy replies part and what the OFF arm thought of that token.

    `gap_nats` is OFF's top-1 minus top-2 log-probability there; `on_is_runner_up` says whether the ON reply
    went on with OFF's second choice. `kind` is "unknown" when the replay could not say (it ended first, the
    engine gave no candidates, the request failed): those pairs stay under the plain early-divergence bound."""

    prompt_id: str
    kind: DivergenceKind
    token_index: int | None = None
    off_token: str | None = None
    off_logprob: float | None = None
    runner_up: str | None = None
    runner_up_logprob: float | None = None
    on_token: str | None = None
    gap_nats: float | None = None
    on_is_runner_up: bool | None = None
    detail: str = ""


def _shown(raw: bytes) -> str:
    return raw[:_SHOWN].decode("utf-8", "replace")


def _word(rest: bytes) -> str:
    """What the ON reply wrote there: up to the next space after its first byte (no token ids on that side)."""
    cut = rest.find(b" ", 1)
    return _shown(rest[:cut] if cut > 0 else rest)


def classify(prompt_id: str, off_text: str, on_text: str, replay: Sequence[TokenProbs],
             max_gap: float) -> DivergenceCheck:
    """Classify the first token where `on_text` leaves `off_text`, from OFF's replay `replay` (its greedy
    tokens with their top candidates). A replay that itself leaves OFF's timed reply first shows OFF flipping
    on its own there: numerics by definition."""
    off_b, on_b = off_text.encode("utf-8", "replace"), on_text.encode("utf-8", "replace")
    pos = 0
    for i, tok in enumerate(replay):
        end = pos + len(tok.raw)
        if off_b[pos:end] == tok.raw and on_b[pos:end] == tok.raw:
            pos = end
            continue
        if off_b[pos:end] != tok.raw:
            return DivergenceCheck(prompt_id, "numerics", i, off_token=_shown(tok.raw),
                                   detail="the speculation-off server itself answered differently when asked again")
        on_tok = _word(on_b[pos:])
        if len(tok.top) < 2:
            return DivergenceCheck(prompt_id, "unknown", i, off_token=_shown(tok.raw), on_token=on_tok,
                                   detail="the engine gave fewer than two candidates for this token")
        first, second = tok.top[0], tok.top[1]
        gap = first.logprob - second.logprob
        runner = bool(second.raw) and on_b[pos:].startswith(second.raw)
        kind: DivergenceKind = "numerics" if gap <= max_gap else "lossy"
        return DivergenceCheck(prompt_id, kind, i, off_token=_shown(tok.raw), off_logprob=first.logprob,
                               runner_up=_shown(second.raw), runner_up_logprob=second.logprob, on_token=on_tok,
                               gap_nats=gap, on_is_runner_up=runner)
    return DivergenceCheck(prompt_id, "unknown", None,
                           detail="the replay ended before the replies parted (one arm stopped earlier)")


def unchecked(prompt_id: str, why: str) -> DivergenceCheck:
    """A divergence that could not be replayed (the engine cannot return probabilities, a failed request)."""
    return DivergenceCheck(prompt_id, "unknown", detail=why)


def lossy_place(c: DivergenceCheck) -> str:
    """Where a check parted, in a form both languages can quote: `prompt #token: 'OFF' (p 0.98) → 'ON'`."""
    p = f" (p {math.exp(c.off_logprob):.2f})" if c.off_logprob is not None else ""
    return f"{c.prompt_id} #{c.token_index}: {c.off_token!r}{p} → {c.on_token!r}"
