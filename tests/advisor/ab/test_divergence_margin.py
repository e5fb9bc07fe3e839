"""Divergence by margin (issue 24 item 1): parsing the engine's token probabilities in both shapes, and telling
a near tie that rounding flipped (numerics) from a token the model was sure of (lossy speculation)."""

from __future__ import annotations

import math

import pytest

from advisor.ab.categories import divergence_counts, early_divergences
from advisor.ab.divergence import classify, lossy_place
from advisor.ab.types import PairResult
from advisor.core.policy import default_policy
from probes.engines.probs import Candidate, TokenProbs, parse_tokens

GAP = default_policy().ab.near_tie_max_gap


def _tok(text: str, *top: tuple[str, float]) -> TokenProbs:
    return TokenProbs(text.encode(), tuple(Candidate(t.encode(), lp) for t, lp in top))


def test_current_and_older_shapes_parse_alike() -> None:
    current = [{"id": 7042, "token": " Paris", "bytes": [32, 80, 97, 114, 105, 115], "logprob": -0.26,
                "top_logprobs": [{"id": 260, "token": " the", "bytes": [32, 116, 104, 101], "logprob": -2.76},
                                 {"id": 7042, "token": " Paris", "bytes": [32, 80, 97, 114, 105, 115],
                                  "logprob": -0.26}]}]
    older = [{"content": " Paris", "probs": [{"tok_str": " Paris", "prob": math.exp(-0.26)},
                                              {"tok_str": " the", "prob": math.exp(-2.76)}]}]
    for shape in (current, older):
        (tok,) = parse_tokens(shape)
        assert tok.raw == b" Paris"
        assert [c.raw for c in tok.top] == [b" Paris", b" the"]  # most likely first, whatever the order sent
        assert tok.top[0].logprob == pytest.approx(-0.26)


def test_an_entry_without_a_token_is_refused_rather_than_shifting_the_rest() -> None:
    with pytest.raises(ValueError):
        parse_tokens([{"logprob": -1.0}])


def test_a_near_tie_is_numerics_and_a_sure_token_is_lossy() -> None:
    off, on = "The answer is Black.", "The answer is The end."
    replay = [_tok("The", ("The", -0.01), ("A", -5.0)), _tok(" answer", (" answer", -0.1), (" end", -3.0)),
              _tok(" is", (" is", -0.2), (" was", -2.0)), _tok(" Black", (" Black", -1.67), (" The", -1.74))]
    tie = classify("p1", off, on, replay, GAP)
    assert tie.kind == "numerics" and tie.token_index == 3 and tie.on_is_runner_up is True
    assert tie.gap_nats == pytest.approx(0.07)
    sure = [*replay[:3], _tok(" Black", (" Black", -0.02), (" White", -4.5))]
    lossy = classify("p1", off, on, sure, GAP)
    assert lossy.kind == "lossy" and lossy.on_is_runner_up is False and lossy.on_token == " The"
    assert "p1 #3" in lossy_place(lossy) and "(p 0.98)" in lossy_place(lossy)


def test_the_runner_up_alone_does_not_make_a_sure_token_numerics() -> None:
    # relaxed or typical acceptance takes exactly runners-up: where OFF was sure, that is lossy
    replay = [_tok("Yes", ("Yes", -0.05), ("No", -3.0))]
    check = classify("p", "Yes", "No", replay, GAP)
    assert check.kind == "lossy" and check.on_is_runner_up is True


def test_an_off_arm_that_answers_itself_differently_is_numerics() -> None:
    replay = [_tok("A", ("A", -0.1), ("B", -3.0)), _tok(" cat", (" cat", -0.3), (" dog", -0.4))]
    check = classify("p", "A dog", "A bird", replay, GAP)
    assert check.kind == "numerics" and "itself" in check.detail


def test_a_replay_that_ends_first_is_unknown() -> None:
    check = classify("p", "Hi", "Hi there", [_tok("Hi", ("Hi", -0.1), ("Yo", -4.0))], GAP)
    assert check.kind == "unknown"


def test_multibyte_tokens_are_compared_as_bytes() -> None:
    # a token may hold half of a UTF-8 character; comparing bytes keeps the walk aligned
    e_acute = "é".encode()
    replay = [TokenProbs(e_acute[:1], (Candidate(e_acute[:1], -0.1), Candidate(b"x", -3.0))),
              TokenProbs(e_acute[1:], (Candidate(e_acute[1:], -0.1), Candidate(b"y", -3.0))),
              _tok("t", ("t", -2.0), ("s", -2.1))]
    check = classify("p", "ét", "és", replay, GAP)
    assert check.kind == "numerics" and check.token_index == 2


def _pair(i: int, at: float | None, kind: str | None) -> PairResult:
    return PairResult(f"p{i}", 10.0, 9.0, i % 2 == 0, outputs_match=at is None, divergence_at=at,
                      divergence_kind=kind)


def test_only_unclassified_early_divergences_count_against_the_plain_bound() -> None:
    policy = default_policy().ab
    pairs = [_pair(0, 0.0, "numerics"), _pair(1, 0.1, "lossy"), _pair(2, 0.1, "unknown"), _pair(3, 0.1, None),
             _pair(4, 0.9, "numerics"), _pair(5, None, None)]
    assert early_divergences(pairs, policy) == (2, 6)
    assert divergence_counts(pairs) == {"numerics": 2, "lossy": 1, "unknown": 2}
