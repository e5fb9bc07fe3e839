"""A measurement that is not what it claims stops, on the real demo engine (issue 25 classes 2 and 4):

- an OFF arm that speculates (two attached servers that both draft) stops after preflight, and that is the
  verdict's reason (rules/root.toml, arms-not-as-claimed), never a warning beside a speedup;
- prompts longer than a slot's context (by the server's own tokenizer) are a usage error before the first
  measurement;
- a run against a server with an API key can be resumed with the key (it is never stored), and is refused
  without it.
Bounded: the quick budget cut to a few short requests; every server is stopped by its fixture.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from advisor.arms.server import ManagedServer, ServerConfig
from advisor.cli.main import main
from advisor.evidence.codec import decode
from advisor.history.store import RunStore
from advisor.text.message import Message

pytestmark = pytest.mark.engine

KEY = "RESUME-CANARY"


@pytest.fixture(scope="module")
def second_ngram(llama_binary: Any, demo_model: Path,
                 tmp_path_factory: pytest.TempPathFactory) -> Iterator[ManagedServer]:
    config = ServerConfig(model=demo_model, threads=2, label="ngram-b", spec_type="ngram-mod", draft_max=8)
    with ManagedServer(llama_binary, config, tmp_path_factory.mktemp("srv-ngram-b")) as server:
        yield server


@pytest.fixture(scope="module")
def keyed_off(llama_binary: Any, demo_model: Path,
              tmp_path_factory: pytest.TempPathFactory) -> Iterator[ManagedServer]:
    config = ServerConfig(model=demo_model, threads=2, label="keyed", extra_args=("--api-key", KEY))
    with ManagedServer(llama_binary, config, tmp_path_factory.mktemp("srv-keyed")) as server:
        yield server


def test_an_off_arm_that_speculates_stops_after_preflight(server_ngram: Any, second_ngram: ManagedServer,
                                                          tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    code = main(["check", "--quick", "--no-history", "--out", str(out), "--json", "--steps", "baseline,ab",
                 "--engine-url", server_ngram.base_url, "--engine-url-b", second_ngram.base_url])
    printed = json.loads(capsys.readouterr().out)
    evidence = json.loads((out / "evidence.json").read_text())
    assert list(evidence["steps"]) == ["preflight"], "nothing is measured after the guard"
    guards = evidence["steps"]["preflight"]["evidence"]["guards"]
    assert guards["spec-off"]["passed"] is False
    assert "speculation on" in str(decode(Message, guards["spec-off"]["detail"]))
    verdict = printed["verdict"]
    assert verdict["verdict"] == "INCONCLUSIVE" and verdict["decided_by"].endswith("arms-not-as-claimed")
    assert "OFF arm: speculation on" in " ".join(verdict["because"])
    assert code == 0 and printed["status"] == "complete" and "stopped after preflight" in printed["message"]


def _long_prompts(path: Path) -> Path:
    rng = random.Random(25)
    vocab = [a + b for a in ("har", "lan", "cop", "mea", "qua", "vio", "emb", "fal", "gra", "nim", "ost", "pel")
             for b in ("bour", "tern", "per", "dow", "rtz", "let", "ber", "con", "nite", "bus", "rich", "ican")]
    lines = [" ".join(rng.choice(vocab) for _ in range(220)) for _ in range(24)]  # distinct, ~300 tokens each
    path.write_text("\n".join(lines) + "\n")
    return path


def test_prompts_longer_than_a_slot_are_refused_before_measuring(demo_model: Path, llama_binary: Any,
                                                                 tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    # -c 1024 over the managed servers' 4 slots: 256 tokens each, 64 of them for the quick answer
    code = main(["check", "--quick", "--no-history", "--out", str(out), "--steps", "baseline", "--arms", "single",
                 "--threads", "2", "--prompts", str(_long_prompts(tmp_path / "long.txt")), "--", "-c", "1024"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "do not fit a slot's context" in err and "a slot holds 256 tokens" in err
    evidence = json.loads((out / "evidence.json").read_text())
    assert evidence["status"] == "failed" and "baseline" not in evidence["steps"]


def test_a_keyed_run_is_resumed_with_its_key(keyed_off: ManagedServer, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    key_file = tmp_path / "key"
    key_file.write_text(KEY + "\n")
    out = tmp_path / "run"
    assert main(["check", "--quick", "--steps", "baseline", "--out", str(out), "--engine-url",
                 keyed_off.base_url, "--api-key-file", str(key_file), "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["status"] == "complete"
    with RunStore() as store:
        run_id = store.list_runs(1)[0].run_id
        record = store.get_run(run_id)
        assert record is not None and KEY not in json.dumps(record.config) and KEY not in json.dumps(record.environment)
        assert record.environment["model_file"]["path"]  # what the server serves, for the resume to compare
        store.finish_run(run_id, "aborted", None, None)  # as a Ctrl-C would leave it
    assert KEY not in (out / "evidence.json").read_text()
    assert main(["check", "--resume", run_id]) != 0  # without the key the server refuses
    assert "API key" in capsys.readouterr().err
    assert main(["check", "--resume", run_id, "--api-key-file", str(key_file), "--json"]) == 0
    resumed = json.loads(capsys.readouterr().out)
    assert resumed["status"] == "complete" and resumed["verdict"] is not None
    with RunStore() as store:
        summary = store.get_run(run_id)
        assert summary is not None and summary.summary.status == "complete"
