"""Readable text for `spec-advisor probe` (the JSON form is the same data)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _v(value: Any, unit: str = "") -> str:
    if isinstance(value, Mapping) and "unavailable" in value:
        return f"unavailable ({value.get('detail') or value['unavailable']})"
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.2f}{unit}"
    return f"{value}{unit}"


def _gpu(report: Mapping[str, Any]) -> list[str]:
    gpu = report.get("gpu") or {}
    cards = gpu.get("gpus") or []
    if not cards:
        return [f"GPU      none — {gpu.get('detail') or gpu.get('status')}"]
    lines = []
    for i, c in enumerate(cards):
        lines.append(f"GPU {i}    {_v(c.get('name'))}, {_v(c.get('vram_total_gib'), ' GiB')} "
                     f"({_v(c.get('vram_free_gib'), ' GiB')} free), peak {_v(c.get('peak_bandwidth_gbs'), ' GB/s')}")
    return lines


def _engine(e: Mapping[str, Any]) -> str:
    spec = e.get("spec") or {}
    if isinstance(spec, Mapping) and "unavailable" not in spec:
        state = "on" if spec.get("active") else "off" if spec.get("active") is False else "unknown"
        spec_text = f"speculation {state}" + (f" ({spec['method']})" if spec.get("method") else "")
    else:
        spec_text = f"speculation {_v(spec)}"
    rate, length = e.get("acceptance_rate"), e.get("mean_acceptance_length")
    if isinstance(rate, int | float):
        spec_text += f", acceptance {rate:.0%}"
        spec_text += f" (mean length {length:.2f})" if isinstance(length, int | float) else ""
    return f"{e.get('kind')} {_v(e.get('version'))} at {e.get('base_url')}: model {_v(e.get('model'))}, {spec_text}"


def render_probe(report: Mapping[str, Any]) -> str:
    """Multi-line summary of a probe report."""
    host = report.get("host") or {}
    lines = [*_gpu(report),
             f"Host     {_v(host.get('cpu_model'))}, {_v(host.get('cores_logical'))} threads, "
             f"{_v(host.get('ram_total_gib'), ' GiB')} RAM, measured {_v(host.get('ram_bandwidth_gbs'), ' GB/s')}"]
    model = report.get("model")
    if model:
        kind = f"MoE {model.get('expert_used_count')}/{model.get('expert_count')} experts" if model.get(
            "is_moe") else "dense"
        lines.append(f"Model    {model.get('name') or model.get('path')}: {model.get('architecture')}, {kind}, "
                     f"{model.get('total_params', 0) / 1e6:.0f}M params, {model.get('file_type')}, "
                     f"{model.get('bytes_per_token', 0) / 1e6:.1f} MB read per token")
    server = report.get("llama_server") or {}
    if "path" in server:
        dialect = server.get("flag_dialect") or {}
        types = ", ".join(dialect.get("spec_types") or []) if isinstance(dialect, Mapping) else ""
        lines.append(f"Binary   {server['path']} ({_v(server.get('version'))}; spec types: {types or '—'})")
    else:
        lines.append(f"Binary   no llama-server: {_v(server)}")
    if report.get("engine"):
        lines.append(f"Engine   {_engine(report['engine'])}")
    for found in report.get("running_engines") or []:
        lines.append(f"Running  {_engine(found['engine'])}")
    return "\n".join(lines) + "\n"
