"""`spec-advisor probe`: describe the GPU, host, model file and engines, without measuring speed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from advisor import jsonout, lang
from advisor.cli.probe_text import render_probe
from advisor.errors import UserError
from advisor.evidence.codec import encode
from advisor.run.api_key import ENV_VAR, add_api_key_options, api_key_from
from advisor.run.environment import package_versions, read_model
from probes.base import Unavailable
from probes.engines.listening import listening_ports
from probes.engines.llamacpp.binary import find_llama_server
from probes.engines.urls import DEFAULT_PORTS, BadApiKey, BadEngineUrl, check_api_key, is_loopback, parse_engine_url
from probes.gpu.probe import probe_gpus
from probes.host import probe_host
from probes.serialize import to_jsonable


def configure(p: argparse.ArgumentParser) -> None:
    """Arguments of `probe`."""
    lang.add_option(p, "language of the summary")
    p.add_argument("--json", action="store_true", help="print JSON instead of a readable summary")
    p.add_argument("--engine-url", help="a running engine to identify (loopback unless --allow-remote)")
    p.add_argument("--allow-remote", action="store_true", help="allow an engine URL that is not on this machine")
    p.add_argument("--model", type=Path, help="a model file (GGUF) or Hugging Face folder to analyse")
    p.add_argument("--llama-server", help="path of a llama-server binary to inspect")
    add_api_key_options(p)
    p.add_argument("--no-scan", action="store_true", help="do not look for engines on the default local ports")


def engine_report(url: str, allow_remote: bool, api_key: str | None = None) -> dict[str, Any]:
    """Identify the engine at `url`; every way it can fail is a UserError the user can act on."""
    try:
        parsed = parse_engine_url(url)
        key = check_api_key(api_key) if api_key else parsed.api_key
    except (BadEngineUrl, BadApiKey) as exc:
        raise UserError(str(exc), hint="example: --engine-url http://127.0.0.1:8080") from exc
    base = parsed.base
    if not allow_remote and not is_loopback(base):
        raise UserError(f"{base} is not on this machine", hint="pass --allow-remote to probe a remote engine")
    from probes.engines.discovery import identify  # the HTTP client and adapters: only when there is an engine

    found = identify(base, api_key=key)
    if found.info is None:
        problem = found.problem or Unavailable("error")
        hints = {"unreachable": "is the engine running, and on this port?",
                 "bad-response": "point --engine-url at the engine's own port (llama-server defaults to 8080)",
                 "permission": f"give the key with --api-key-file, {ENV_VAR} or http://KEY@host:port"}
        what = f"{base} wants an API key" if problem.reason == "permission" else f"no LLM engine at {base}"
        raise UserError(f"{what}: {problem.detail or problem.reason}", hint=hints.get(problem.reason, ""))
    plain = to_jsonable(found.info)
    assert isinstance(plain, dict)
    return plain


def collect(args: argparse.Namespace) -> dict[str, Any]:
    """Everything `probe` reports, JSON-ready."""
    engine = engine_report(args.engine_url, args.allow_remote, api_key_from(args)) if args.engine_url else None
    binary = find_llama_server(args.llama_server)
    if isinstance(binary, Unavailable) and args.llama_server:
        raise UserError(f"cannot use --llama-server {args.llama_server}: {binary.detail or binary.reason}")
    # The parts of advisor.run.environment.gather, without building the evidence record (its schema is most of
    # the package's import time, and probe prints them as they are).
    report: dict[str, Any] = {"gpu": encode(probe_gpus()), "host": encode(probe_host()),
                              "packages": package_versions()}
    if args.model is not None:
        model = read_model(args.model)
        report["model"] = {**encode(model), "bytes_per_token_gb": model.bytes_per_token / 1e9}
    report["llama_server"] = to_jsonable(binary if isinstance(binary, Unavailable) else binary.to_dict())
    if engine is not None:
        report["engine"] = engine
    if not args.no_scan:
        report["running_engines"] = _running_engines()
    return report


def _running_engines() -> list[dict[str, Any]]:
    """Engines on the default local ports; the HTTP client is imported only when some port is open."""
    ports = listening_ports(DEFAULT_PORTS)
    if not ports:
        return []
    from probes.engines.discovery import scan_loopback

    return [d.to_dict() for d in scan_loopback(ports)]


def run(args: argparse.Namespace) -> int:
    """Print the probe report (text or JSON)."""
    report = collect(args)
    if args.json:
        jsonout.dump(report, sys.stdout)
    else:
        sys.stdout.write(render_probe(report, lang.resolve(args.lang)))
    return 0
