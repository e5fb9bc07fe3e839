"""t1 by context depth, from the baseline's requests (the tuner's plain step)."""

from __future__ import annotations

import pytest

from advisor.evidence.steps import BaselineEvidence, RequestRecord
from advisor.tune.plain_step import PlainStep, depth_slope, plain_step


def _record(prompt_tokens: int, ms_per_token: float, cached: int = 0) -> RequestRecord:
    return RequestRecord(prompt_id=f"p{prompt_tokens}", category="chat", arm="off", completion_tokens=64,
                         decode_ms=63 * ms_per_token, ms_per_token=ms_per_token, tok_s=1000 / ms_per_token,
                         prompt_tokens=prompt_tokens, cached_tokens=cached, prompt_ms=1.0, ttft_ms=1.0, total_ms=1.0,
                         draft_tokens=None, draft_accepted=None, stop_reason="length", output_digest="",
                         repetition_loop=False)


def test_the_decode_depth_counts_the_cached_prompt_and_half_the_reply() -> None:
    assert _record(1, 10.0, cached=36).decode_depth_tokens == 1 + 36 + 32


def test_the_slope_is_the_least_squares_line_of_the_demo_engines_baseline() -> None:
    # The demo engine's baseline: 26-, 30- and 37-token prompts at ~10 ms, a 321-token one at ~12.5 ms
    records = [_record(26, 10.0), _record(30, 10.3), _record(37, 10.1), _record(321, 12.6)]
    slope = depth_slope(records)
    assert slope == pytest.approx((12.6 - 10.13) / (321 - 31), rel=0.05)
    base = BaselineEvidence(samples=tuple(records), n_requests=4, ms_per_token=10.2, context_depth_tokens=65.5)
    line = plain_step(base)
    assert line is not None and line.at(65.5) == pytest.approx(10.2)
    assert line.at(353) == pytest.approx(10.2 + slope * (353 - 65.5))
    assert line.at(None) == pytest.approx(10.2)


def test_no_slope_from_depths_that_barely_differ_or_from_a_negative_fit() -> None:
    assert depth_slope([_record(26, 10.0), _record(30, 11.0), _record(40, 12.0)]) == 0.0
    assert depth_slope([_record(26, 12.0), _record(200, 11.0), _record(300, 10.0)]) == 0.0
    assert depth_slope([_record(26, 12.0), _record(300, 10.0)]) == 0.0  # two points: no line to trust


def test_a_steep_slope_never_takes_t1_below_half_the_baseline() -> None:
    assert PlainStep(10.0, 300.0, 0.1).at(0.0) == 5.0
