"""The three cards on the start view: GPU (live), engine, model. Each fills itself from probe results
delivered by `ui.workers.Jobs`; nothing here blocks the GUI thread."""

from __future__ import annotations

from PySide6.QtWidgets import QFrame, QLabel, QWidget

from probes.base import Unavailable
from probes.engines.llamacpp.binary import LlamaServerBinary
from probes.gpu.probe import GpuReport
from probes.gpu.sampler import GpuSample
from probes.host import HostReport
from probes.model.info import ModelInfo
from ui.strings import tr
from ui.widgets import card

GB = 1e9


def _ok(value: object) -> bool:
    return value is not None and not isinstance(value, Unavailable)


class InfoCard:
    """A card with a headline and up to five detail lines; `set_lines` replaces them."""

    def __init__(self, title_key: str) -> None:
        self.title_key = title_key
        self.title = QLabel()
        self.headline = QLabel(tr("card.probing"))
        self.headline.setObjectName("cardHeadline")
        self.headline.setWordWrap(True)
        self.lines = [QLabel() for _ in range(5)]
        for line in self.lines:
            line.setWordWrap(True)
            line.setObjectName("muted")
        self.frame: QFrame = card(self.title, self.headline, *self.lines)
        self.note = QLabel()
        self.note.setObjectName("demo")
        self.note.setWordWrap(True)
        self.note.setVisible(False)
        layout = self.frame.layout()
        assert layout is not None
        layout.addWidget(self.note)
        self.retranslate()

    def set_lines(self, headline: str, *lines: str, note: str = "") -> None:
        """Headline, details and an optional highlighted note (the demo warning)."""
        self.headline.setText(headline)
        for label, text in zip(self.lines, [*lines, *[""] * len(self.lines)], strict=False):
            label.setText(text)
            label.setVisible(bool(text))
        self.note.setText(note)
        self.note.setVisible(bool(note))

    def retranslate(self) -> None:
        """Title in the current language (content is refilled by its owner)."""
        self.title.setText(tr(self.title_key).upper())

    def widget(self) -> QWidget:
        """The card's frame."""
        return self.frame


class GpuCard(InfoCard):
    """Static facts from `probe_gpus`, live clocks/util/throttle from the latest `GpuSample`."""

    def __init__(self) -> None:
        super().__init__("card.gpu")
        self.report: GpuReport | None = None
        self.host: HostReport | None = None
        self.sample: GpuSample | None = None

    def fill(self) -> None:
        """Redraw from what is known so far."""
        gpu = self.report.gpus[0] if self.report is not None and self.report.gpus else None
        if gpu is None:
            if self.report is None and self.host is None:
                return
            host = self.host
            bw = host.ram_bandwidth_gbs if host is not None and _ok(host.ram_bandwidth_gbs) else None
            lines = [tr("gpu.host_bw", gbs=f"{bw:.1f}") if isinstance(bw, float) else tr("card.probing")]
            if host is not None:
                cpu = host.cpu_model if _ok(host.cpu_model) else "CPU"
                cores = host.cores_logical if _ok(host.cores_logical) else "?"
                ram = f"{host.ram_total_gib:.0f} GiB RAM" if isinstance(host.ram_total_gib, float) else ""
                lines.append(f"{cpu} · {cores} threads · {ram}")
            self.set_lines(tr("gpu.none"), *lines)
            return
        s = self.sample
        peak = gpu.peak_bandwidth_gbs if _ok(gpu.peak_bandwidth_gbs) else None
        lines = []
        if _ok(gpu.vram_total_gib) and _ok(gpu.vram_free_gib):
            lines.append(tr("gpu.vram", free=f"{gpu.vram_free_gib:.1f}", total=f"{gpu.vram_total_gib:.1f}"))
        if s is not None:
            lines.append(tr("gpu.util", pct=s.util_gpu_pct if s.util_gpu_pct is not None else "?"))
            lines.append(tr("gpu.clocks", sm=s.sm_clock_mhz or "?", mem=s.memory_clock_mhz or "?"))
            if s.util_memory_pct is not None and peak:
                lines.append(tr("gpu.membw", pct=s.util_memory_pct, peak=f"{peak:.0f}"))
            lines.append(tr("gpu.throttle", reasons=", ".join(s.clock_event_reasons)) if s.throttled
                         else tr("gpu.throttle_ok"))
        self.set_lines(str(gpu.name) if _ok(gpu.name) else "NVIDIA GPU", *lines)


def describe_binary(binary: LlamaServerBinary | Unavailable | None, spec_type: str) -> list[str]:
    """Engine card lines for a managed llama-server."""
    if binary is None:
        return [tr("card.probing")]
    if isinstance(binary, Unavailable):
        return [tr("engine.missing"), str(binary)]
    dialect = binary.dialect
    lines = [tr("engine.kind", kind="llama.cpp (llama-server)"),
             tr("engine.build", build=str(binary.version))]
    if not isinstance(dialect, Unavailable):
        generation = tr(f"engine.generation.{dialect.generation}")
        lines.append(tr("engine.dialect", dialect=f"{generation} · {dialect.draft_max_flag or '?'}"))
    lines.append(tr("engine.spec", spec=tr("engine.off_vs", spec=spec_type)))
    return lines


def describe_model(info: ModelInfo | Exception | None) -> tuple[str, list[str]]:
    """Model card headline and lines (dense/MoE, size, bytes per token)."""
    if info is None:
        return tr("card.probing"), []
    if isinstance(info, Exception):
        return tr("model.error", error=str(info)), []
    kind = tr("model.moe", used=info.expert_used_count, experts=info.expert_count) if info.is_moe \
        else tr("model.dense")
    quant = info.file_type or info.dominant_tensor_type or "?"
    return info.name or info.path.rsplit("/", 1)[-1], [
        kind,
        tr("model.size", params=f"{info.total_params / 1e9:.2f}", quant=quant, size=f"{info.file_bytes / GB:.2f}"),
        tr("model.bytes", gb=f"{info.bytes_per_token / GB:.3f}"),
    ]
