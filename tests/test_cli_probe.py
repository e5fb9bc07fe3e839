"""`spec-advisor probe`: JSON contents on this GPU-less machine, the demo model, a real engine, and every bad
input as a clear message with exit code 2 and no traceback."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from advisor.cli.main import main
from advisor.run.engine_runner import free_port


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["probe", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_probe_json_without_gpu(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--json", "--no-scan")
    assert code == 0
    report = json.loads(out)
    assert report["gpu"]["gpus"] == [] and report["gpu"]["status"] in ("no-driver", "no-device")
    assert report["gpu"]["detail"]  # the reason, in words
    assert report["host"]["ram_bandwidth_gbs"] > 0


def test_probe_demo_model(capsys: pytest.CaptureFixture[str], demo_model: Path) -> None:
    code, out, _ = _run(capsys, "--json", "--no-scan", "--model", str(demo_model))
    model = json.loads(out)["model"]
    assert code == 0 and model["is_moe"] is False and model["file_type"] == "Q4_1"
    assert 130e6 < model["total_params"] < 140e6
    assert 0.05 < model["bytes_per_token_gb"] < 0.2


@pytest.mark.engine
def test_probe_real_engine_with_ngram(capsys: pytest.CaptureFixture[str], server_ngram: Any) -> None:
    code, out, _ = _run(capsys, "--json", "--no-scan", "--engine-url", server_ngram.base_url)
    engine = json.loads(out)["engine"]
    assert code == 0 and engine["kind"] == "llama.cpp"
    assert isinstance(engine["version"], str) and engine["version"]
    assert "SmolLM2" in engine["model"]
    assert engine["spec"]["active"] is True and engine["spec"]["method"] == "ngram-mod"


@pytest.fixture
def not_an_llm() -> Iterator[str]:
    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"<html><body>router admin</body></html>"
            self.send_response(200 if self.path == "/" else 404)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _bad(tmp_path: Path, not_an_llm: str) -> dict[str, tuple[list[str], str]]:
    truncated = tmp_path / "cut.gguf"
    text = tmp_path / "notes.gguf"
    text.write_text("these are notes, not a model\n" * 10)
    from advisor.demo.model import demo_model_path

    demo = demo_model_path()
    truncated.write_bytes(demo.read_bytes()[:1_000_000] if demo else b"GGUF\x03\x00")
    return {
        "missing model": (["--model", str(tmp_path / "nope.gguf")], "nope.gguf"),
        "truncated model": (["--model", str(truncated)], "cut.gguf"),
        "not a gguf": (["--model", str(text)], "not"),
        "connection refused": (["--engine-url", f"http://127.0.0.1:{free_port()}"], "connection refused"),
        "not an LLM server": (["--engine-url", not_an_llm], "none of the known LLM engine endpoints"),
        "remote without --allow-remote": (["--engine-url", "http://203.0.113.7:8080"], "--allow-remote"),
        "not a URL": (["--engine-url", "ftp://127.0.0.1"], "not an http"),
    }


@pytest.mark.parametrize("case", ["missing model", "truncated model", "not a gguf", "connection refused",
                                  "not an LLM server", "remote without --allow-remote", "not a URL"])
def test_bad_inputs_are_clear_messages(case: str, tmp_path: Path, not_an_llm: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    argv, expected = _bad(tmp_path, not_an_llm)[case]
    code, out, err = _run(capsys, "--no-scan", *argv)
    assert code == 2, (out, err)
    assert expected in err and "Traceback" not in err and err.startswith("spec-advisor: ")
