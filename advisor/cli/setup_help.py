"""`spec-advisor setup-help`: the ways to get an engine and a model, with the exact commands for this machine."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from advisor import jsonout, lang
from advisor.demo.first_run import first_run_advice


def configure(p: argparse.ArgumentParser) -> None:
    """Arguments of `setup-help`."""
    lang.add_option(p, "language of the text")
    p.add_argument("--json", action="store_true", help="print the options as JSON (for other front ends)")
    p.add_argument("--scan", action="store_true",
                   help="also look for engines running on the default local ports (takes a few seconds)")


def collect(scan: bool) -> dict[str, Any]:
    """The parts of the probe report the advice reads: llama-server, GPUs, and optionally running engines."""
    # Imported here: probing loads NVML and runs llama-server --help, which `--help` of this command need not pay.
    from probes.base import Unavailable
    from probes.engines.discovery import scan_loopback
    from probes.engines.llamacpp.binary import find_llama_server
    from probes.gpu.probe import probe_gpus
    from probes.serialize import to_jsonable

    binary = find_llama_server()
    report: dict[str, Any] = {
        "gpu": probe_gpus().to_dict(),
        "llama_server": to_jsonable(binary) if isinstance(binary, Unavailable) else binary.to_dict(),
    }
    if scan:
        report["running_engines"] = [d.to_dict() for d in scan_loopback()]
    return report


def run(args: argparse.Namespace) -> int:
    """Print the first-run options as text or JSON."""
    advice = first_run_advice(collect(args.scan), lang.resolve(args.lang))
    if args.json:
        jsonout.dump(advice.to_dict(), sys.stdout)
    else:
        sys.stdout.write(advice.as_text())
    return 0
