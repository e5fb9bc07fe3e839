"""`check --resume` (issue 25 class 4): an empty id is a usage error, a complete run is never measured again,
options beside --resume are refused unless a resume can honour them (the API key is accepted, never stored),
and the model file must be the one the run started with. Through the real CLI entry point; the history is
real (SQLite), and every refusal comes before any server starts."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import pytest

from advisor.cli.check import _defaults
from advisor.cli.main import main
from advisor.cli.resume import resumed_config
from advisor.config import CheckConfig
from advisor.demo.model import demo_model_path
from advisor.history.store import RunStore
from advisor.run.model_identity import HEAD_BYTES, fingerprint, same_model, to_record
from tests.paths import FIXTURES

FIXTURE = FIXTURES / "runs" / "demo-quick"


def _run(config: CheckConfig, status: str | None = None, model: dict[str, object] | None = None) -> str:
    with RunStore() as store:
        run_id = store.begin_run(config.to_dict(), {})
        if model is not None:
            store.record_environment(run_id, {"model_file": model})
        if status is not None:
            store.finish_run(run_id, status, None, None)  # type: ignore[arg-type]
    return run_id


def _contents(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.mark.parametrize("given", ["", "   "])
def test_an_empty_run_id_is_a_usage_error(given: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--resume", given]) == 2
    assert "needs a run id" in capsys.readouterr().err
    assert not any(tmp_path.rglob("evidence.json"))


def test_a_complete_run_is_not_measured_again(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "done"
    shutil.copytree(FIXTURE, out)
    before = _contents(out)
    run_id = _run(CheckConfig(quick=True, out_dir=out), status="complete")
    assert main(["check", "--resume", run_id]) == 2
    err = capsys.readouterr().err
    assert "already complete" in err and f"spec-advisor report {out}" in err
    assert _contents(out) == before
    with RunStore() as store:
        assert store.get_run(run_id).summary.status == "complete"  # type: ignore[union-attr]


@pytest.mark.parametrize("extra", [["--quick"], ["--threads", "3"], ["--model", "{tmp}/other.gguf"], ["--steps", "ab"],
                                   ["--", "-ngl", "0"], ["--out", "{tmp}/elsewhere"]])
def test_options_beside_resume_are_refused(extra: list[str], tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    run_id = _run(CheckConfig(quick=False, steps=("baseline",)), status="aborted")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in extra]
    assert main(["check", "--resume", run_id, *argv]) == 2
    err = capsys.readouterr().err
    assert "cannot be changed when resuming" in err, err


def test_repeating_the_recorded_options_is_accepted(tmp_path: Path) -> None:
    out = tmp_path / "run"
    run_id = _run(CheckConfig(quick=True, steps=("baseline", "ab"), threads=2, out_dir=out), status="aborted")
    parser = argparse.ArgumentParser()
    from advisor.cli.check import configure

    configure(parser)
    args = parser.parse_args(["--resume", run_id, "--quick", "--steps", "baseline,ab", "--threads", "2",
                              "--out", str(out)])
    with RunStore() as store:
        config = resumed_config(args, store, _defaults())
    assert config.quick and config.steps == ("baseline", "ab") and config.threads == 2


def test_the_api_key_is_accepted_for_each_recorded_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_id = _run(CheckConfig(engine_url="http://127.0.0.1:8081", engine_url_b="http://127.0.0.1:8082"),
                  status="aborted")
    with RunStore() as store:
        record = store.get_run(run_id)
    assert record is not None and "api_key" not in record.config  # never stored
    key_file = tmp_path / "key"
    key_file.write_text("shared-key\n")
    from advisor.cli.check import configure

    parser = argparse.ArgumentParser()
    configure(parser)
    args = parser.parse_args(["--resume", run_id, "--api-key-file", str(key_file),
                              "--engine-url-b", "http://own-key@127.0.0.1:8082/"])
    with RunStore() as store:
        config = resumed_config(args, store, _defaults())
    assert (config.api_key, config.api_key_b) == ("shared-key", "own-key")
    monkeypatch.setenv("SPEC_ADVISOR_API_KEY", "from-env")
    args = parser.parse_args(["--resume", run_id])
    with RunStore() as store:
        config = resumed_config(args, store, _defaults())
    assert (config.api_key, config.api_key_b) == ("from-env", "from-env")


def test_another_model_is_refused_before_any_server(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    demo = demo_model_path()
    assert demo is not None
    recorded = to_record(fingerprint(demo))
    assert recorded is not None
    changed = {**recorded, "head_sha256": "0" * 64}
    run_id = _run(CheckConfig(quick=True), status="aborted", model=changed)
    assert main(["check", "--resume", run_id]) == 2
    err = capsys.readouterr().err
    assert "not the one run" in err and "must not mix" in err
    unknown = _run(CheckConfig(quick=True), status="aborted")  # a run that recorded no model file
    assert main(["check", "--resume", unknown]) == 2
    assert "recorded no model" in capsys.readouterr().err


def test_fingerprint_tells_files_apart(tmp_path: Path) -> None:
    a, b = tmp_path / "a.gguf", tmp_path / "b.gguf"
    a.write_bytes(b"GGUF" + b"\0" * (HEAD_BYTES + 10))
    b.write_bytes(b"GGUF" + b"\0" * (HEAD_BYTES + 11))  # same first MiB, another size
    assert not same_model(fingerprint(a), fingerprint(b))
    b.write_bytes(b"GGUX" + b"\0" * (HEAD_BYTES + 10))   # same size, another header
    assert not same_model(fingerprint(a), fingerprint(b))
    shutil.copy(a, b)
    assert same_model(fingerprint(a), fingerprint(b))
