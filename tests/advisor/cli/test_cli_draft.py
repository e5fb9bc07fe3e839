"""`spec-advisor check --draft-model`: a pair llama.cpp would refuse stops before any server starts (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.arms.server import ManagedServer
from advisor.cli.check import config_from_args
from advisor.cli.main import EXIT_USER_ERROR, build_parser, main
from advisor.demo.model import demo_model_path
from tests.draft_models import renamed_token, write_draft

pytestmark = pytest.mark.skipif(demo_model_path() is None, reason="the demo model supplies the tokenizer")


@pytest.fixture
def no_server(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Fails the test if any llama-server is started (records the attempt)."""
    started: list[str] = []

    def refuse(self: ManagedServer, timeout_s: float = 120.0) -> ManagedServer:
        started.append(self.config.label)
        raise AssertionError("a server was started")

    monkeypatch.setattr(ManagedServer, "start", refuse)
    return started


@pytest.fixture(scope="module")
def bad_draft(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_draft(tmp_path_factory.mktemp("drafts"), "other-vocab", renamed_token(100))


@pytest.mark.parametrize(("lang", "words"), [("en", "cannot draft for SmolLM2"), ("zh", "不能为 SmolLM2")])
def test_an_incompatible_draft_exits_2_before_any_server(bad_draft: Path, no_server: list[str], tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str], lang: str,
                                                         words: str) -> None:
    code = main(["check", "--draft-model", str(bad_draft), "--no-history", "--out", str(tmp_path / "run"),
                 "--lang", lang])
    err = capsys.readouterr().err
    assert code == EXIT_USER_ERROR and not no_server
    first = err.splitlines()[0]
    assert first.startswith("spec-advisor: other-vocab.gguf") and words in first and "100" in first
    assert not (tmp_path / "run").exists()


def test_a_draft_that_is_not_a_gguf_is_noted_not_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "Qwen2.5-0.5B"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    args = build_parser().parse_args(["check", "--draft-model", str(folder), "--draft-kv-type", "q8_0"])
    config = config_from_args(args)
    assert config.draft_model == folder and config.draft_kv_type == "q8_0" and config.spec_type == "draft-simple"
    assert "tokenizer check not possible" in capsys.readouterr().err


def test_draft_options_are_checked(tmp_path: Path) -> None:
    for bad in (["--draft-gpu-layers", "many"], ["--draft-ctx", "0"]):
        code = main(["check", "--draft-model", str(tmp_path / "d.gguf"), *bad, "--no-history"])
        assert code == EXIT_USER_ERROR
