"""The vectorised kernel used by bench/sim_ab.py and the shipped `decide_ab` agree, dataset by dataset."""

from __future__ import annotations

import numpy as np
import pytest

from advisor.ab.decision import decide_ab, run_batch
from advisor.ab.sequential import CODE_TO_DECISION
from advisor.ab.simulation import Scenario, to_pairs
from advisor.core.policy import default_policy

POLICY = default_policy().ab


def test_batch_and_scalar_agree_on_500_random_datasets() -> None:
    policy = POLICY
    rng = np.random.default_rng(11)
    kinds = ["normal", "t3", "right", "left", "contam"]
    checked = 0
    for block in range(25):  # 25 random scenarios × 20 datasets = 500
        sc = Scenario(
            "rand", g=float(rng.uniform(0.9, 1.3)), sd=float(rng.uniform(0.02, 0.35)),
            kind=kinds[block % len(kinds)], drift=float(rng.uniform(0, 0.06)),
            order_bonus=float(rng.choice([0.0, 0.02])), trap_ratio=float(rng.choice([1.0, 1.0, 1.3])),
        )
        n = int(rng.choice([15, 37, 60]))  # includes sessions that stop between looks (CONTINUE)
        off, on, first = sc.generate(20, n, seed=block)
        batch = run_batch(off, on, first, policy)
        for r in range(20):
            dec = decide_ab(to_pairs(off[r], on[r], first[r]), policy)
            assert dec.decision is CODE_TO_DECISION[int(batch.codes[r])]
            if dec.decision.value != "CONTINUE":
                assert dec.n_pairs == batch.n_used[r]
                assert dec.speedup == pytest.approx(batch.speedup[r], rel=1e-12)
            checked += 1
    assert checked == 500
