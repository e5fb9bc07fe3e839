"""The check's choices: engine, model, speculation method, draft model, concurrency, prompts, quick/full.
`config()` turns them into the core's `CheckConfig`."""

from __future__ import annotations

import shlex
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QWidget,
)

from advisor.config import ALL_STEPS, CheckConfig, StepId
from advisor.core.policy import default_policy
from advisor.errors import UserError
from advisor.run.duration import PlannedDuration, duration_text, plan_duration
from advisor.run.passthrough import check_server_args
from advisor.workloads import CATEGORIES, load_library, load_user_prompts
from advisor.workloads.mix import normalise, parse_mix
from probes.engines.discovery import Discovered
from ui.strings import tr

DEFAULT_SPEC = "ngram-mod"
DRAFT_SPEC = "draft-simple"  # in new builds -md alone does not enable speculation (see commands/check.py)


class CheckForm(QWidget):
    """Pickers in a form. `engine_changed` / `model_changed` tell the cards to re-probe."""

    engine_changed = Signal()
    model_changed = Signal()
    scan_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.binary_path: str | None = None
        self.model_path: Path | None = None
        self.draft_path: Path | None = None
        self.prompts_path: Path | None = None
        self.servers: list[Discovered] = []
        self.steps: tuple[StepId, ...] = ALL_STEPS  # all in the app; tests may run fewer
        self.engine = QComboBox()
        self.engine.currentIndexChanged.connect(lambda _: self._engine_picked())
        self.browse_engine, self.scan = QPushButton(), QPushButton()
        self.browse_engine.clicked.connect(self._browse_engine)
        self.scan.clicked.connect(self.scan_requested)
        self.model = QLabel()
        self.browse_model = QPushButton()
        self.browse_model.clicked.connect(self._browse_model)
        self.spec = QComboBox()
        self.spec.setMinimumWidth(220)
        self.draft = QLabel()
        self.browse_draft, self.clear_draft = QPushButton(), QPushButton("×")
        self.browse_draft.clicked.connect(self._browse_draft)
        self.clear_draft.clicked.connect(self._clear_draft)
        self.concurrency = QSpinBox()
        self.concurrency.setRange(1, 256)
        self.concurrency.setFixedWidth(90)
        self.prompts = QComboBox()
        self.prompts.activated.connect(self._prompts_picked)
        self.mix = QLineEdit()  # category=weight,… for the A/B; empty: every kind of task equally
        self.mix.setClearButtonEnabled(True)
        # the user's own llama-server options for both launched servers (check … -- in the CLI)
        self.server_args = QLineEdit()
        self.server_args.setClearButtonEnabled(True)
        self.api_key = QLineEdit()  # an attached server's key: held in memory only, never stored
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.api_key.setEnabled(False)
        self.quick, self.full = QRadioButton(), QRadioButton()
        self.quick.setChecked(True)
        self._mode = QButtonGroup(self)
        self._mode.addButton(self.quick)
        self._mode.addButton(self.full)
        self.form = QFormLayout(self)
        self.form.setContentsMargins(0, 0, 0, 0)
        self.form.setHorizontalSpacing(16)
        self.labels = [QLabel() for _ in range(10)]
        rows = [_row(self.engine, self.browse_engine, self.scan), _row(self.model, self.browse_model),
                _row(self.spec, fill=False), _row(self.draft, self.browse_draft, self.clear_draft),
                _row(self.concurrency, fill=False), _row(self.prompts), _row(self.mix),
                _row(self.server_args), _row(self.api_key), _row(self.quick, self.full, fill=False)]
        for label, row in zip(self.labels, rows, strict=True):
            self.form.addRow(label, row)
        # how long each choice takes, from the plan the live clock counts (advisor/run/duration.py)
        self.duration = QLabel()
        self.duration.setObjectName("muted")
        self.duration.setWordWrap(True)
        self.form.addRow(QLabel(), self.duration)
        self.engine_changed.connect(self.update_duration)
        self.model_changed.connect(self.update_duration)
        self.set_spec_types([DEFAULT_SPEC])
        self.retranslate()

    # — engine —
    def is_demo(self) -> bool:
        """Bundled engine and bundled model."""
        return self.engine.currentIndex() <= 0 and self.model_path is None

    def attached_url(self) -> str | None:
        """The URL when a running server is picked (attach mode), else None."""
        data = self.engine.currentData()
        return data[4:] if isinstance(data, str) and data.startswith("url:") else None

    def set_servers(self, found: list[Discovered]) -> None:
        """Discovered loopback servers become engine choices."""
        self.servers = found
        self._fill_engines()

    def set_spec_types(self, types: list[str]) -> None:
        """The methods the installed engine supports ('none' is the off arm, not a choice)."""
        current = self.spec.currentText() or DEFAULT_SPEC
        self.spec.clear()
        self.spec.addItems([t for t in types if t != "none"] or [DEFAULT_SPEC])
        index = self.spec.findText(current)
        self.spec.setCurrentIndex(index if index >= 0 else max(self.spec.findText(DEFAULT_SPEC), 0))

    def _fill_engines(self) -> None:
        keep = self.engine.currentData()
        self.engine.blockSignals(True)
        self.engine.clear()
        self.engine.addItem(tr("pick.engine_demo"), "demo")
        if self.binary_path:
            self.engine.addItem(tr("pick.engine_binary", path=self.binary_path), f"bin:{self.binary_path}")
        for hit in self.servers:
            kind = hit.info.kind if hit.info is not None else "?"
            self.engine.addItem(tr("pick.engine_server", url=hit.url, kind=kind), f"url:{hit.url}")
        index = self.engine.findData(keep)
        self.engine.setCurrentIndex(max(index, 0))
        self.engine.blockSignals(False)

    def _engine_picked(self) -> None:
        attached = self.attached_url() is not None
        self.browse_model.setEnabled(not attached)  # a running server already has its model loaded
        self.server_args.setEnabled(not attached)  # an attached server runs with its own options
        self.api_key.setEnabled(attached)
        self.engine_changed.emit()

    def _browse_engine(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, tr("pick.browse_engine"))
        if path:
            self.binary_path = path
            self._fill_engines()
            self.engine.setCurrentIndex(self.engine.findData(f"bin:{path}"))

    # — files —
    def set_model(self, path: Path | None) -> None:
        """Pick a target model (None = the demo model)."""
        self.model_path = path
        self.model.setText(path.name if path else tr("pick.model_demo"))
        self.model_changed.emit()

    def _browse_model(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, tr("pick.model"), "", "GGUF (*.gguf);;* (*)")
        if path:
            self.set_model(Path(path))

    def _browse_draft(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, tr("pick.draft"), "", "GGUF (*.gguf);;* (*)")
        if path:
            self.draft_path = Path(path)
            self.draft.setText(self.draft_path.name)
            if self.spec.findText(DRAFT_SPEC) >= 0:
                self.spec.setCurrentText(DRAFT_SPEC)

    def _clear_draft(self) -> None:
        self.draft_path = None
        self.draft.setText(tr("pick.draft_none"))

    def _prompts_picked(self, index: int) -> None:
        if index == 1:
            path, _ = QFileDialog.getOpenFileName(self, tr("pick.prompts"), "", "Text / JSONL (*.txt *.jsonl);;* (*)")
            self.prompts_path = Path(path) if path else None
        else:
            self.prompts_path = None
        self.retranslate()

    # — result —
    def mix_weights(self) -> tuple[tuple[str, float], ...] | None:
        """The task mix typed into the form, checked against the kinds of task the prompts have."""
        text = self.mix.text().strip()
        if not text:
            return None
        if self.prompts_path is not None:
            known = sorted({p.category for p in load_user_prompts(self.prompts_path)})
        else:
            known = sorted({p.category for p in load_library()})
        return tuple(normalise(parse_mix(text), known).items())

    def config(self) -> CheckConfig:
        """The user's choices as a `CheckConfig` (quick unless Full is chosen); a bad mix raises UserError."""
        data = self.engine.currentData()
        binary = data[4:] if isinstance(data, str) and data.startswith("bin:") else None
        return CheckConfig(quick=self.quick.isChecked(), steps=self.steps, engine_url=self.attached_url(),
                           llama_server=binary,
                           model=None if self.attached_url() else self.model_path,
                           spec_type=self.spec.currentText() or DEFAULT_SPEC, draft_model=self.draft_path,
                           prompts_file=self.prompts_path, concurrency_expected=self.concurrency.value(),
                           mix=self.mix_weights(), server_args=self.own_server_args(),
                           api_key=(self.api_key.text().strip() or None) if self.attached_url() else None)

    def own_server_args(self) -> tuple[str, ...]:
        """The typed llama-server options, split like a shell would; a flag spec-advisor owns raises UserError."""
        if self.attached_url():
            return ()
        try:
            words = shlex.split(self.server_args.text())
        except ValueError as exc:
            raise UserError(tr("pick.server_args_bad", error=str(exc))) from None
        return check_server_args(words)

    def retranslate(self) -> None:
        """Labels and item texts in the current language."""
        for label, key in zip(self.labels, ("pick.engine", "pick.model", "pick.spec", "pick.draft",
                                            "pick.concurrency", "pick.prompts", "pick.mix", "pick.server_args",
                                            "pick.api_key", "pick.mode"),
                              strict=True):
            label.setText(tr(key))
        self.mix.setPlaceholderText(tr("pick.mix_hint"))
        self.server_args.setPlaceholderText(tr("pick.server_args_hint"))
        self.api_key.setPlaceholderText(tr("pick.api_key_hint"))
        self.browse_engine.setText(tr("pick.browse_engine"))
        self.scan.setText(tr("pick.scan"))
        self.browse_model.setText(tr("pick.browse"))
        self.browse_draft.setText(tr("pick.browse"))
        self.model.setText(self.model_path.name if self.model_path else tr("pick.model_demo"))
        self.draft.setText(self.draft_path.name if self.draft_path else tr("pick.draft_none"))
        self.prompts.blockSignals(True)
        self.prompts.clear()
        name = self.prompts_path.name if self.prompts_path else "…"
        self.prompts.addItems([tr("pick.prompts_bundled", n=len(CATEGORIES)), tr("pick.prompts_file", name=name)])
        self.prompts.setCurrentIndex(1 if self.prompts_path else 0)
        self.prompts.blockSignals(False)
        self.quick.setText(tr("pick.quick"))
        self.full.setText(tr("pick.full"))
        self._fill_engines()
        self.update_duration()

    def planned(self, quick: bool) -> PlannedDuration | None:
        """The plan of the current choices as quick or full (None while a choice cannot be planned)."""
        try:
            config = replace(self.config(), quick=quick, api_key=None)
            return plan_duration(config, default_policy())
        except UserError:
            return None  # a bad mix or prompts file: the Start button says what is wrong

    def update_duration(self) -> None:
        """`Quick: about 1:41 (…) · Full: about 5:57 (…)` under the choice, in the current language."""
        said = [duration_text(p, tr) if p is not None else "—" for p in (self.planned(True), self.planned(False))]
        self.duration.setText(tr("plan.choice", quick=said[0], full=said[1]))


def _row(*widgets: QWidget, fill: bool = True) -> QWidget:
    # `fill`: the first widget takes the spare width; otherwise the widgets keep their size, left-aligned.
    box = QWidget()
    layout = QHBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    for i, widget in enumerate(widgets):
        layout.addWidget(widget, 1 if i == 0 and fill else 0)
    if not fill:
        layout.addStretch(1)
    return box
