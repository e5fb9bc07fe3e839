"""Readable text for `spec-advisor probe` in English or Chinese (the JSON form is the same data)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from advisor.text import text


def _v(value: Any, unit: str = "", lang: str = "en") -> str:
    if isinstance(value, Mapping) and "unavailable" in value:
        return text(lang, "probe.unavailable", detail=value.get("detail") or value["unavailable"])
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.2f}{unit}"
    return f"{value}{unit}"


def _label(lang: str, key: str) -> str:
    word = text(lang, f"probe.{key}")
    # labels line up in a column of 9 terminal cells (a CJK character takes two)
    return word + " " * max(1, 9 - sum(2 if ord(ch) > 0x2E7F else 1 for ch in word))


def _gpu(report: Mapping[str, Any], lang: str) -> list[str]:
    gpu = report.get("gpu") or {}
    cards = gpu.get("gpus") or []
    if not cards:
        return [_label(lang, "gpu") + text(lang, "probe.gpu_none", detail=gpu.get("detail") or gpu.get("status"))]
    return [f"GPU {i}    " + text(lang, "probe.gpu_card", name=_v(c.get("name")),
                                   total=_v(c.get("vram_total_gib"), " GiB"), free=_v(c.get("vram_free_gib"), " GiB"),
                                   peak=_v(c.get("peak_bandwidth_gbs"), " GB/s"))
            for i, c in enumerate(cards)]


def _devices(server: Mapping[str, Any], lang: str) -> list[str]:
    """The binary's devices (`--list-devices`), one a line; a CPU-only build says plainly what it measures."""
    if "devices" not in server or server["devices"] is None:  # not read (a binary described by hand)
        return []
    devices, head, more = server["devices"], _label(lang, "devices"), " " * 9
    if not isinstance(devices, list):
        return [head + _v(devices, lang=lang)]
    if not devices:
        return [head + text(lang, "probe.devices_none")]
    lines = [(more if i else head) + text(lang, "probe.device_line", name=d.get("name"),
                                           description=d.get("description") or "—", total=d.get("total_mib"),
                                           free=d.get("free_mib"))
             for i, d in enumerate(devices)]
    if server.get("gpu_capable") is False:  # only CPU-side accelerators (BLAS, ZenDNN) are listed
        lines.append(more + text(lang, "probe.cpu_only"))
    return lines


def _engine(e: Mapping[str, Any], lang: str) -> str:
    spec = e.get("spec") or {}
    if isinstance(spec, Mapping) and "unavailable" not in spec:
        state = "on" if spec.get("active") else "off" if spec.get("active") is False else "unknown"
        spec_text = text(lang, "probe.spec", state=text(lang, f"probe.spec_{state}"))
        spec_text += f" ({spec['method']})" if spec.get("method") else ""
    else:
        spec_text = text(lang, "probe.spec", state=" " + _v(spec, lang=lang))
    rate, length = e.get("acceptance_rate"), e.get("mean_acceptance_length")
    if isinstance(rate, int | float):
        spec_text += text(lang, "probe.acceptance", rate=f"{rate:.0%}")
        spec_text += text(lang, "probe.mean_length", length=f"{length:.2f}") if isinstance(length, int | float) else ""
    return text(lang, "probe.engine_line", kind=e.get("kind"), version=_v(e.get("version"), lang=lang),
                url=e.get("base_url"), model=_v(e.get("model"), lang=lang), spec=spec_text)


def _bandwidth(host: Mapping[str, Any], lang: str) -> str:
    """The median read bandwidth with its passes and their spread (older evidence: the figure alone)."""
    detail = host.get("ram_bandwidth")
    if isinstance(detail, Mapping) and all(isinstance(detail.get(k), int | float) for k in ("cv", "gbs", "repeats")):
        return text(lang, "probe.bw_spread", gbs=detail["gbs"], n=detail.get("repeats"), cv=100 * detail["cv"])
    return _v(host.get("ram_bandwidth_gbs"), " GB/s", lang)


def render_probe(report: Mapping[str, Any], lang: str = "en") -> str:
    """Multi-line summary of a probe report."""
    host = report.get("host") or {}
    lines = [*_gpu(report, lang),
             _label(lang, "host") + text(lang, "probe.host_line", cpu=_v(host.get("cpu_model"), lang=lang),
                                         threads=_v(host.get("cores_logical")),
                                         ram=_v(host.get("ram_total_gib"), " GiB"),
                                         bw=_bandwidth(host, lang))]
    model = report.get("model")
    if model:
        moe = text(lang, "probe.moe", used=model.get("expert_used_count"), count=model.get("expert_count"))
        kind = moe if model.get("is_moe") else text(lang, "probe.dense")
        lines.append(_label(lang, "model") + text(
            lang, "probe.model_line", name=model.get("name") or model.get("path"), arch=model.get("architecture"),
            kind=kind, params=f"{model.get('total_params', 0) / 1e6:.0f}", ftype=model.get("file_type"),
            mb=f"{model.get('bytes_per_token', 0) / 1e6:.1f}"))
    server = report.get("llama_server") or {}
    if "path" in server:
        dialect = server.get("flag_dialect") or {}
        types = ", ".join(dialect.get("spec_types") or []) if isinstance(dialect, Mapping) else ""
        lines.append(_label(lang, "binary") + text(lang, "probe.binary_line", path=server["path"],
                                                   version=_v(server.get("version"), lang=lang), types=types or "—"))
        lines += _devices(server, lang)
    else:
        lines.append(_label(lang, "binary") + text(lang, "probe.no_binary", detail=_v(server, lang=lang)))
    if report.get("engine"):
        lines.append(_label(lang, "engine") + _engine(report["engine"], lang))
    for found in report.get("running_engines") or []:
        lines.append(_label(lang, "running") + _engine(found["engine"], lang))
    return "\n".join(lines) + "\n"
