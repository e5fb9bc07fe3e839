"""Prometheus text-format parser and the counter arithmetic built on it."""

from __future__ import annotations

import math

import pytest

from probes.base import Unavailable
from probes.engines import prometheus as prom
from probes.engines.base import SpecCounters

SCRAPE = r"""
# HELP llamacpp:spec_decode_num_drafts_total Verify steps.
# TYPE llamacpp:spec_decode_num_drafts_total counter
llamacpp:spec_decode_num_drafts_total 42
llamacpp:spec_decode_num_accepted_tokens_per_pos_total{position="0"} 30
llamacpp:spec_decode_num_accepted_tokens_per_pos_total{position="1"} 12
vllm:request_success_total{engine="0",finished_reason="stop",model_name="m"} 7.0
vllm:request_success_total{engine="1",finished_reason="stop",model_name="m"} 3.0 1712345678000
vllm:request_success_total{engine="0",finished_reason="length",model_name="m"} 2.0
weird{path="a \"quoted\" }brace, comma",nl="x\ny\\z"} 1e3
gauge_nan NaN
gauge_pos +Inf
gauge_neg -Inf
old_exporter_counter 5
this line is not a sample
broken{label="unterminated} 1
novalue{a="b"}
1leading_digit 3
trailing_comma{a="b",} 4
"""


@pytest.fixture(scope="module")
def metrics() -> prom.MetricFamilies:
    return prom.parse_prometheus(SCRAPE)


def test_counters_gauges_and_labels(metrics: prom.MetricFamilies) -> None:
    assert prom.value(metrics, "llamacpp:spec_decode_num_drafts_total") == 42
    assert prom.value(metrics, "vllm:request_success_total", engine="0", finished_reason="length") == 2.0
    assert prom.group_by(metrics, "llamacpp:spec_decode_num_accepted_tokens_per_pos_total", "position") == {
        "0": 30, "1": 12}


def test_escaped_label_values(metrics: prom.MetricFamilies) -> None:
    (s,) = metrics["weird"]
    assert s.labels == {"path": 'a "quoted" }brace, comma', "nl": "x\ny\\z"}
    assert s.value == 1000.0


def test_nan_and_infinities(metrics: prom.MetricFamilies) -> None:
    assert math.isnan(prom.value(metrics, "gauge_nan") or 0.0)
    assert prom.value(metrics, "gauge_pos") == math.inf
    assert prom.value(metrics, "gauge_neg") == -math.inf


def test_total_suffix_optional_both_ways(metrics: prom.MetricFamilies) -> None:
    assert prom.value(metrics, "llamacpp:spec_decode_num_drafts") == 42
    assert prom.value(metrics, "old_exporter_counter_total") == 5


def test_sum_by_sums_matching_series_and_value_refuses_ambiguity(metrics: prom.MetricFamilies) -> None:
    assert prom.sum_by(metrics, "vllm:request_success_total") == 12.0
    assert prom.sum_by(metrics, "vllm:request_success_total", finished_reason="stop") == 10.0
    assert prom.sum_by(metrics, "absent_total") is None
    assert prom.value(metrics, "absent") is None
    with pytest.raises(ValueError, match="sum_by"):
        prom.value(metrics, "vllm:request_success_total", finished_reason="stop")


def test_bad_lines_are_skipped_and_counted(metrics: prom.MetricFamilies) -> None:
    assert metrics.skipped == 4  # prose, unterminated label, no value, leading digit
    assert prom.value(metrics, "trailing_comma") == 4  # a trailing comma is allowed by the format


def test_empty_scrape() -> None:
    m = prom.parse_prometheus("")
    assert m == {} and m.skipped == 0


def test_rates_and_reset() -> None:
    before = SpecCounters(10, 30, 15, (8, 5, 2))
    after = SpecCounters(20, 60, 33, (17, 11, 5))
    window = prom.counters_delta(after, before)
    assert window == SpecCounters(10, 30, 18, (9, 6, 3))
    assert prom.acceptance_rate(window) == pytest.approx(18 / 30)
    assert prom.mean_acceptance_length(window) == pytest.approx(1 + 18 / 10)
    assert prom.per_position_rates(window) == pytest.approx((0.9, 0.6, 0.3))
    reset = prom.counters_delta(before, after)
    assert isinstance(reset, Unavailable) and "restart" in reset.detail


def test_rates_with_nothing_counted_are_unavailable() -> None:
    zero = SpecCounters(0, 0, 0)
    assert isinstance(prom.acceptance_rate(zero), Unavailable)
    assert isinstance(prom.mean_acceptance_length(zero), Unavailable)
    assert isinstance(prom.per_position_rates(zero), Unavailable)
