"""A peer tool's decode tok/s against the engine's own figures, on the same server and the same requests.

    .venv/bin/python -m bench.peer [--runs 5] [--tg 256]

The peer is llama-benchy (PyPI; `pip install llama-benchy==0.4.0`), run unchanged as a subprocess against
the demo llama-server's OpenAI endpoint. It needs a text corpus (normally downloaded from Project
Gutenberg) and a tokenizer (normally from the Hugging Face hub); neither is reachable offline, so this
module serves the repository's own docs as the corpus from a loopback HTTP server and gives it a small
word-level tokenizer built from that text. The tokenizer only sizes the prompts; the tok/s figure uses the
server's token counts (stream usage) over the peer's own client clock.

The reference is the server's per-request `eval time … tokens per second` line in its log, the same
`timings` the engine reports over HTTP, for exactly the requests the peer timed.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import importlib.util
import json
import os
import re
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.common import PYTHON, REPO, EngineMissing, demo_server, rel_err, run_cli, stop_cleanly_on_sigterm, tail

KEY = "peer_vs_server_tok_s_rel_err"
PEER = "llama-benchy"
PIP_LINE = ".venv/bin/pip install llama-benchy==0.4.0"
# llama-server's per-request timing line; "prompt eval time" is the prefill line and is excluded.
_EVAL = re.compile(r"(?<!prompt )eval time =\s*([\d.]+) ms /\s*(\d+) (?:tokens|runs)\s*\(\s*([\d.]+) ms per token,"
                   r"\s*([\d.]+) tokens per second\)")


def server_eval_lines(log_text: str) -> list[tuple[int, float]]:
    """(tokens, tokens per second) of every decode timing line in a llama-server log, in order."""
    # tokens ÷ ms is the engine's own formula and keeps more digits than the printed 2-decimal rate.
    return [(int(m.group(2)), int(m.group(2)) * 1000.0 / float(m.group(1)) if float(m.group(1)) > 0
             else float(m.group(4))) for m in _EVAL.finditer(log_text)]


@contextlib.contextmanager
def _serve_folder(folder: Path) -> Iterator[str]:
    """A loopback static file server for the corpus; stopped on exit."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def _corpus() -> str:
    # Our own prose, repeated: the peer cuts random windows of it into prompts.
    texts = [(REPO / "README.md").read_text(encoding="utf-8")]
    texts += [p.read_text(encoding="utf-8") for p in sorted((REPO / "docs").glob("*.md")) if p.name != "benchmarks.md"]
    return "\n\n".join(texts) * 4


def _word_tokenizer(text: str, path: Path) -> None:
    """A word-level tokenizer.json for the peer's prompt sizing (built with `tokenizers`, the peer's own dep)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    words = sorted(set(re.findall(r"\w+|[^\w\s]", text)))
    vocab = {"[UNK]": 0, **{w: i + 1 for i, w in enumerate(words)}}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.decoder = decoders.WordPiece(prefix="##")  # joins words with spaces
    tok.save(str(path))


def _peer_argv() -> list[str] | None:
    script = Path(PYTHON).with_name(PEER)
    if script.is_file():
        return [str(script)]
    if importlib.util.find_spec("llama_benchy") is not None:
        return [PYTHON, "-m", "llama_benchy"]
    return None


def _tg_values(result: dict[str, Any], tg: int) -> list[float]:
    for run in result.get("benchmarks", []):
        metric = run.get("tg_throughput") or {}
        if run.get("response_size") == tg and run.get("concurrency") == 1 and metric.get("values"):
            return [float(v) for v in metric["values"]]
    return []


def measure(runs: int = 3, tg: int = 256, pp: int = 64, timeout_s: float = 600.0) -> dict[str, Any]:
    """Run the peer once against a fresh demo server and compare its tg tok/s with the server's."""
    peer = _peer_argv()
    if peer is None:
        return {KEY: None, f"{KEY}_note": f"not measured: {PEER} is not installed ({PIP_LINE})"}
    try:
        with tempfile.TemporaryDirectory(prefix="spec-bench-peer-") as tmp_s, demo_server("peer") as server:
            tmp = Path(tmp_s)
            (tmp / "www").mkdir()
            text = _corpus()
            (tmp / "www" / "book.txt").write_text(text, encoding="utf-8")
            _word_tokenizer(text, tmp / "tokenizer.json")
            log_start = server.log_path.stat().st_size
            with _serve_folder(tmp / "www") as corpus_url:
                argv = [*peer, "--base-url", f"{server.base_url}/v1", "--model", "demo",
                        "--tokenizer", str(tmp / "tokenizer.json"), "--book-url", f"{corpus_url}/book.txt",
                        "--pp", str(pp), "--tg", str(tg), "--runs", str(runs), "--exact-tg", "--no-cache",
                        "--latency-mode", "none", "--skip-coherence", "--format", "json",
                        "--save-result", str(tmp / "peer.json")]
                # HOME points at the temp folder: the peer caches the corpus under ~/.cache/llama-benchy.
                env = {**os.environ, "HOME": str(tmp), "HF_HUB_OFFLINE": "1"}
                done = run_cli(argv, timeout_s, env)
            log_text = server.log_path.read_bytes()[log_start:].decode(errors="replace")
            if done.returncode != 0 or not (tmp / "peer.json").is_file():
                return {KEY: None, f"{KEY}_note": f"not measured: {PEER} exited {done.returncode}: "
                                                  f"{tail(done.stdout + done.stderr)}"}
            result = json.loads((tmp / "peer.json").read_text())
    except subprocess.TimeoutExpired:
        return {KEY: None, f"{KEY}_note": f"not measured: {PEER} did not finish within {timeout_s:.0f} s"}
    except (EngineMissing, OSError, ImportError) as exc:
        return {KEY: None, f"{KEY}_note": f"not measured: {exc}"}
    peer_values = _tg_values(result, tg)
    # The peer's warm-up run also generates `tg` tokens; its timed runs are the last ones, in order.
    timed = [tps for n, tps in server_eval_lines(log_text) if n == tg]
    server_values = timed[-len(peer_values):] if peer_values else []
    if not peer_values or len(server_values) != len(peer_values):
        return {KEY: None, f"{KEY}_note": (f"not measured: {len(peer_values)} peer runs vs {len(server_values)} "
                                           f"server timing lines of {tg} tokens"), "peer_raw": result}
    peer_mean = sum(peer_values) / len(peer_values)
    server_mean = sum(server_values) / len(server_values)
    per_req = [rel_err(p, s) for p, s in zip(peer_values, server_values, strict=True)]
    return {
        KEY: rel_err(peer_mean, server_mean),
        f"{KEY}_note": (f"{PEER} {result.get('version', '?')}: {len(peer_values)} runs × {tg} tokens, mean "
                        f"{peer_mean:.1f} vs server {server_mean:.1f} tok/s; worst single request "
                        f"{max(per_req):.4f}"),
        "peer_tok_s": peer_values, "peer_server_tok_s": server_values, "peer_version": result.get("version"),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--tg", type=int, default=256)
    args = ap.parse_args(argv)
    stop_cleanly_on_sigterm()
    print(json.dumps(measure(args.runs, args.tg), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
