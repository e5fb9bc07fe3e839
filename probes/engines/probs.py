"""Per-token probabilities a server returns for a greedy reply: the chosen token and its runners-up.

llama-server fills them when a request sets `n_probs` (engine-facts.md §1.2, §1.3): current builds send
`completion_probabilities` as a list of {token, logprob, top_logprobs: [{token, logprob}, …]}, older builds
{content, probs: [{tok_str, prob}, …]}. Streamed, each event carries the entries of the tokens it holds. Only
the plain sampling path fills them, so they are asked of the speculation-off server.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable


@dataclass(frozen=True, slots=True)
class Candidate:
    """One candidate token: its bytes (a token may hold part of a UTF-8 character) and natural-log probability."""

    raw: bytes
    logprob: float


@dataclass(frozen=True, slots=True)
class TokenProbs:
    """One generated token: the bytes the server chose and its best candidates, most likely first."""

    raw: bytes
    top: tuple[Candidate, ...]


@runtime_checkable
class ProbsAdapter(Protocol):
    """An adapter that can replay a greedy request with the top candidates of every token."""

    def token_probs(self, prompt: str, *, max_tokens: int, n_probs: int, seed: int,
                    stop_after_bytes: int | None = None) -> list[TokenProbs]:
        """The greedy reply to `prompt` token by token with `n_probs` candidates each (stops early once the
        reply is longer than `stop_after_bytes` bytes, when given)."""
        ...


def _logprob(entry: dict[str, object]) -> float | None:
    lp = entry.get("logprob")
    if isinstance(lp, int | float) and not isinstance(lp, bool) and math.isfinite(lp):
        return float(lp)
    p = entry.get("prob")  # older builds: a probability in 0..1
    if isinstance(p, int | float) and not isinstance(p, bool) and 0.0 < p <= 1.0:
        return math.log(p)
    return None


def _raw(entry: dict[str, object], *keys: str) -> bytes | None:
    """The token's `bytes` (current builds), else its text as UTF-8."""
    b = entry.get("bytes")
    if isinstance(b, list) and all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < 256 for x in b):
        return bytes(b)  # type: ignore[arg-type]
    for key in keys:
        v = entry.get(key)
        if isinstance(v, str):
            return v.encode("utf-8", "replace")
    return None


def parse_token(entry: object) -> TokenProbs | None:
    """One `completion_probabilities` entry in either shape, or None when it is not one."""
    if not isinstance(entry, dict):
        return None
    raw_token = _raw(entry, "token", "content")
    raw = entry.get("top_logprobs") if isinstance(entry.get("top_logprobs"), list) else entry.get("probs")
    if raw_token is None or not isinstance(raw, list):
        return None
    top: list[Candidate] = []
    for c in raw:
        if not isinstance(c, dict):
            continue
        c_raw, lp = _raw(c, "token", "tok_str"), _logprob(c)
        if c_raw is not None and lp is not None:
            top.append(Candidate(c_raw, lp))
    top.sort(key=lambda c: -c.logprob)
    return TokenProbs(raw_token, tuple(top))


def parse_tokens(entries: Iterable[object]) -> list[TokenProbs]:
    """The entries of a `completion_probabilities` list, in order; ValueError on one that is not an entry
    (dropping it would shift every later token against the reply's text)."""
    out: list[TokenProbs] = []
    for i, e in enumerate(entries):
        t = parse_token(e)
        if t is None:
            raise ValueError(f"probability entry {i} has no token text and candidates")
        out.append(t)
    return out
