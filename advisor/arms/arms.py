"""The two arms of every comparison: speculation off and on, either launched by us or attached to.

Managed mode runs both servers side by side on loopback so A/B order can be counterbalanced per prompt
(reliability.md §2.6). Attach mode uses what the user runs, as configured.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from advisor.config import CheckConfig
from advisor.demo.first_run import first_run_hint
from advisor.demo.model import demo_model_path
from advisor.errors import UserError
from advisor.evidence.draft import DraftSetup
from advisor.recommend.llamacpp import draft_cap, effective_params
from advisor.run.draft import check_tokenizers, plan_draft
from advisor.run.engine_runner import ManagedServer, ServerConfig
from probes.base import Unavailable
from probes.engines.base import EngineAdapter
from probes.engines.llamacpp.adapter import LlamaCppAdapter
from probes.engines.llamacpp.binary import FlagDialect, LlamaServerBinary, find_llama_server
from probes.gpu.probe import GpuReport, probe_gpus

ArmName = Literal["off", "on"]
# Slots per managed server: enough for the quick concurrency sweep (1, 2, 4) without restarting.
MANAGED_SLOTS = 4
MANAGED_CTX_PER_SLOT = 2048


@dataclass
class Arm:
    """One configuration and the adapter that reaches it."""

    name: ArmName
    adapter: EngineAdapter
    server: ManagedServer | None = None
    command_line: list[str] = field(default_factory=list)
    spec_argv: tuple[str, ...] = ()   # the speculative part of command_line, as the flag builder wrote it
    generation: int = 1               # counts server processes: a restart starts the next generation
    # servers found dead when a restart came to stop them (exit status, log): a restart mid-step must not
    # hide a crash from the check after the step (advisor/run/faults.py)
    crashed: list[tuple[int, Path]] = field(default_factory=list)

    @property
    def managed(self) -> bool:
        """True when we launched this arm's server (so it can be restarted to a clean state)."""
        return self.server is not None

    @property
    def config(self) -> ServerConfig | None:
        """The managed server's configuration (None when attached)."""
        return self.server.config if self.server is not None else None

    def restart(self, config: ServerConfig | None = None) -> float:
        """Managed arms only: stop and start a fresh server (empty KV cache and n-gram tables), with `config`
        when given (the tuner's probes and its choice) else as before; seconds taken."""
        if self.server is None:
            return 0.0
        t0 = time.monotonic()
        old = self.server
        if (code := old.died) is not None:
            self.crashed.append((code, old.log_path))
        old.stop()
        close = getattr(self.adapter, "close", None)
        if callable(close):
            close()
        self.server = ManagedServer(old.binary, config or old.config, old.log_path.parent).start()
        self.adapter = LlamaCppAdapter(self.server.base_url)
        self.command_line = list(self.server.argv)
        self.spec_argv = self.server.spec_argv
        self.generation += 1
        return time.monotonic() - t0


@dataclass
class Arms:
    """Both arms; either may be missing in attach mode (steps that need it are skipped with the reason)."""

    off: Arm | None
    on: Arm | None
    binary: LlamaServerBinary | None = None
    model_path: Path | None = None
    draft: DraftSetup | None = None   # managed runs with a draft model: its pairing, VRAM budget and placement

    def stop(self) -> None:
        """Stop every server we launched; attached servers are left alone."""
        for arm in (self.off, self.on):
            if arm is not None and arm.server is not None:
                with contextlib.suppress(Exception):
                    arm.server.stop()

    def command_lines(self) -> dict[str, list[str]]:
        """Engine command lines per arm (managed mode), for the evidence."""
        return {a.name: a.command_line for a in (self.off, self.on) if a is not None and a.command_line}

    def spec_params(self) -> dict[str, str]:
        """The managed ON arm's drafter knobs as it runs them: set flags, else the binary's stated defaults."""
        if self.on is None or not self.on.spec_argv:
            return {}
        return effective_params(self.on.spec_argv, self.dialect)

    def draft_cap(self) -> int | None:
        """The longest draft the managed ON arm may make (γ), from its flags or the engine's default."""
        if self.on is None or not self.on.spec_argv:
            return None
        argv = self.on.spec_argv
        spec_type = argv[argv.index("--spec-type") + 1] if "--spec-type" in argv else "draft-simple"
        generation = self.dialect.generation if self.dialect is not None else "new"
        return draft_cap(self.spec_params(), spec_type, generation)

    @property
    def dialect(self) -> FlagDialect | None:
        """The managed binary's flag dialect (None in attach mode or when --help could not be read)."""
        return self.binary.dialect if self.binary is not None and isinstance(self.binary.dialect, FlagDialect) else None

    def spec_args(self) -> dict[str, tuple[str, ...]]:
        """The speculative flags per managed arm (what the recommendation repeats, token for token)."""
        return {a.name: a.spec_argv for a in (self.off, self.on) if a is not None and a.server is not None}


def resolve_model(config: CheckConfig) -> Path:
    """The target model: the user's GGUF, else the bundled demo model."""
    if config.model is not None:
        if not config.model.is_file():
            raise UserError(f"model file not found: {config.model}")
        return config.model
    demo = demo_model_path()
    if demo is None:
        raise UserError("no model given and the demo model is not installed",
                        hint="pass --model FILE.gguf, or run scripts/setup to install the demo model")
    return demo


def start_managed(config: CheckConfig, log_dir: Path, *,
                  gpu_probe: Callable[[], GpuReport] = probe_gpus) -> Arms:
    """Launch the spec-off and spec-on servers side by side; stops both if either fails.

    A draft model is checked against the target's tokenizer before either starts, and placed (advisor/run/
    draft.py) between the two starts, from the VRAM left free with the OFF server's copy of the target.
    """
    binary = find_llama_server(config.llama_server)
    if isinstance(binary, Unavailable):
        raise UserError(f"no llama-server found ({binary})",
                        hint=first_run_hint())  # the three first-run options; also `spec-advisor setup-help`
    model = resolve_model(config)
    pair = None
    if config.draft_model is not None:
        if not config.draft_model.is_file():
            raise UserError(f"draft model file not found: {config.draft_model}")
        pair = check_tokenizers(model, config.draft_model)  # before any server starts
    common = {"model": model, "ctx_size": MANAGED_SLOTS * MANAGED_CTX_PER_SLOT, "parallel": MANAGED_SLOTS,
              "threads": config.threads, "extra_args": config.server_args}
    off_cfg = ServerConfig(label="off", **common)  # type: ignore[arg-type]
    on_cfg = ServerConfig(label="on", spec_type=config.spec_type, draft_model=config.draft_model,
                          draft_max=config.draft_cap, **common)  # type: ignore[arg-type]
    arms = Arms(off=None, on=None, binary=binary, model_path=model)
    try:
        arms.off = _launch("off", binary, off_cfg, log_dir)
        if config.draft_model is not None:
            # The OFF server holds one copy of the target now: what NVML reports free is what the draft gets.
            dialect = binary.dialect if isinstance(binary.dialect, FlagDialect) else None
            arms.draft, placement = plan_draft(config, config.draft_model, gpus=gpu_probe(), dialect=dialect,
                                               ctx_size=on_cfg.ctx_size, parallel=on_cfg.parallel, tokenizer=pair)
            on_cfg = replace(on_cfg, draft_placement=placement)
        arms.on = _launch("on", binary, on_cfg, log_dir)
    except BaseException:
        arms.stop()
        raise
    return arms


def _launch(name: ArmName, binary: LlamaServerBinary, cfg: ServerConfig, log_dir: Path) -> Arm:
    server = ManagedServer(binary, cfg, log_dir).start()
    return Arm(name=name, adapter=LlamaCppAdapter(server.base_url), server=server, command_line=list(server.argv),
               spec_argv=server.spec_argv)


def attach(config: CheckConfig) -> Arms:
    """Use the user's running servers. The one whose `/slots` says speculation is on becomes the ON arm;
    when both say the same (an A/A run), `--engine-url` is OFF and `--engine-url-b` is ON, as documented."""
    from probes.engines.discovery import EngineConnectError, connect

    urls = [u for u in (config.engine_url, config.engine_url_b) if u]
    try:
        adapters = [connect(u, allow_remote=config.allow_remote, api_key=config.api_key) for u in urls]
    except EngineConnectError as exc:
        raise UserError(str(exc), hint="is the engine running? `spec-advisor probe` lists what it finds") from exc
    states = [_spec_active(a) for a in adapters]
    if len(adapters) == 1:
        name: ArmName = "on" if states[0] else "off"
        arm = Arm(name=name, adapter=adapters[0])
        return Arms(off=arm if name == "off" else None, on=arm if name == "on" else None)
    first, second = adapters
    if states[0] and not states[1]:
        first, second = second, first
    return Arms(off=Arm(name="off", adapter=first), on=Arm(name="on", adapter=second))


def _spec_active(adapter: EngineAdapter) -> bool:
    try:
        spec = adapter.info().spec
    except Exception:  # an engine that cannot describe itself is treated as spec off, and says so later
        return False
    return bool(not isinstance(spec, Unavailable) and spec.active)
