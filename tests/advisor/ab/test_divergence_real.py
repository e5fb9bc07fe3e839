"""Divergence by margin on the real engine (issue 24 item 1): a speculating server made lossy on purpose (a
loopback proxy that replaces a token the model was sure of) ends INCONCLUSIVE by the lossy reason, and the
plain demo's divergences, where it has any, come out as numerics."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from advisor.config import QUICK, CheckConfig
from advisor.run.session import Session
from tests.lossy_proxy import REPLACEMENT, lossy_proxy

pytestmark = pytest.mark.engine

BUDGET = dataclasses.replace(QUICK, max_tokens=32, ab_max_pairs=20, warmup_requests=1)


def _attached_ab(tmp_path: Path, off_url: str, on_url: str) -> tuple[Any, dict[str, Any]]:
    config = CheckConfig(quick=True, steps=("ab",), engine_url=off_url, engine_url_b=on_url,
                         out_dir=tmp_path / "run", budget_override=BUDGET)
    done = Session(config).run()
    assert done.status == "complete", done.message
    ab = json.loads((tmp_path / "run" / "evidence.json").read_text())["steps"]["ab"]["evidence"]
    return done, ab


def test_a_lossy_on_arm_is_withheld_by_its_own_reason(server_off: Any, server_ngram: Any, tmp_path: Path) -> None:
    with lossy_proxy(server_ngram.base_url, oracle=server_off.base_url) as (url, replaced):
        done, ab = _attached_ab(tmp_path, server_off.base_url, url)
    assert replaced, "the proxy found no token the model was sure of"
    assert ab["probs_available"] is True
    lossy = [c for c in ab["divergences"] if c["kind"] == "lossy"]
    assert lossy and ab["divergence_counts"]["lossy"] == len(lossy)
    assert all(c["gap_nats"] > 0.5 for c in lossy)
    assert any(REPLACEMENT.strip() in c["on_token"] for c in lossy)
    assert done.verdict is not None and done.verdict.verdict == "INCONCLUSIVE"
    assert f"{done.verdict.rule_id}/{done.verdict.branch_id}" == "measurement-validity/lossy-speculation", done.verdict
    assert "sure of" in " ".join(done.verdict.because)


def test_the_demo_divergences_are_numerics(server_off: Any, server_ngram: Any, tmp_path: Path) -> None:
    done, ab = _attached_ab(tmp_path, server_off.base_url, server_ngram.base_url)
    counts = ab["divergence_counts"]
    print(f"\ndemo divergences by kind: {counts}; checks: {ab['divergences']}")
    assert ab["probs_available"] in (True, None)  # None: nothing diverged, nothing to ask
    assert counts.get("lossy", 0) == 0
    assert done.verdict is not None
    assert f"{done.verdict.rule_id}/{done.verdict.branch_id}" not in ("measurement-validity/lossy-speculation",
                                                                      "measurement-validity/outputs-differ")
