"""The plain decode step t1 as a function of context depth, from the baseline's own requests.

Each new token's attention reads the whole KV cache, so a plain step at a deep context costs more: on the
demo engine (SmolLM2-135M, 2 CPU cores) a 321-token prompt decodes at 12.5 ms per token against 10.2 ms at
30 tokens. The tuner measures a category's decode time in plain steps at that category's own depth; with one
t1 for all, a long-prompt category looks as if its drafting steps cost more than they do.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from advisor.evidence.steps import BaselineEvidence, RequestRecord

# A slope from requests whose depths span less than this says nothing about depth: it is noise, extrapolated
# to every category (numerical, not a policy).
MIN_DEPTH_SPAN_TOKENS = 64.0


@dataclass(frozen=True, slots=True)
class PlainStep:
    """t1(depth) = t1 at the baseline's median depth + slope × (depth − that depth), in ms."""

    ms_per_token: float                  # the baseline's t1, at its median depth
    depth_tokens: float = 0.0            # the baseline's median decode depth
    slope_ms_per_token: float = 0.0      # ms per token of t1 per token of context (≥ 0)

    def at(self, depth_tokens: float | None) -> float:
        """t1 at a mean decode depth (the baseline's own t1 when the depth is unknown), ms; never below half the
        baseline's (a steep slope extrapolated to a much shallower category)."""
        if depth_tokens is None:
            return self.ms_per_token
        return max(self.ms_per_token + self.slope_ms_per_token * (depth_tokens - self.depth_tokens),
                   0.5 * self.ms_per_token)


def plain_step(baseline: BaselineEvidence) -> PlainStep | None:
    """t1 by depth from the baseline's requests; None without a baseline speed."""
    if not baseline.ms_per_token:
        return None
    depth = baseline.context_depth_tokens or 0.0
    return PlainStep(baseline.ms_per_token, depth, depth_slope(baseline.samples))


def depth_slope(records: Sequence[RequestRecord]) -> float:
    """Least-squares slope of decode ms per token against decode depth; 0 when the depths barely differ or
    the slope comes out negative (deeper is never cheaper)."""
    rows = [(r.decode_depth_tokens, r.ms_per_token) for r in records if r.ms_per_token]
    if len(rows) < 3:
        return 0.0
    depths = [d for d, _ in rows]
    if max(depths) - min(depths) < MIN_DEPTH_SPAN_TOKENS:
        return 0.0
    slope, _ = statistics.linear_regression(depths, [ms for _, ms in rows])
    return max(slope, 0.0)
