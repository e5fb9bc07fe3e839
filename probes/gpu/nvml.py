"""A thin guarded layer over `pynvml` (package nvidia-ml-py): every call returns a value or an `Unavailable`.

Nothing here raises into callers. `pynvml` is imported lazily so that a machine without it (or a test that
injects a fake module into `sys.modules`) behaves like any other "no-driver" machine.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any

from probes.base import Unavailable, UnavailableReason

# NVML status codes (nvml.h); read from the module when it defines them, these are the documented values.
_NOT_SUPPORTED = 3
_NO_PERMISSION = 4
_DRIVER_NOT_LOADED = 9
_LIBRARY_NOT_FOUND = 12
_FUNCTION_NOT_FOUND = 13
_LIB_RM_VERSION_MISMATCH = 18

# Clock-event (throttle) reason bits, nvml.h `nvmlClocksEventReason*` (engine-facts.md §5).
CLOCK_EVENT_BITS: tuple[tuple[int, str], ...] = (
    (0x1, "gpu-idle"),
    (0x2, "applications-clocks-setting"),
    (0x4, "sw-power-cap"),
    (0x8, "hw-slowdown"),
    (0x10, "sync-boost"),
    (0x20, "sw-thermal-slowdown"),
    (0x40, "hw-thermal-slowdown"),
    (0x80, "hw-power-brake-slowdown"),
    (0x100, "display-clock-setting"),
)
# Reasons that mean the GPU runs slower than it could under load (idle / app-clock / display are not).
THROTTLING_REASONS: frozenset[str] = frozenset(
    {"sw-power-cap", "hw-slowdown", "sw-thermal-slowdown", "hw-thermal-slowdown", "hw-power-brake-slowdown"}
)


def decode_clock_event_reasons(mask: int) -> tuple[str, ...]:
    """Names of the bits set in an NVML clock-event bitmask; unknown bits become `bit-0x…`."""
    names = [name for bit, name in CLOCK_EVENT_BITS if mask & bit]
    known = sum(bit for bit, _ in CLOCK_EVENT_BITS)
    rest = mask & ~known
    bit = 1
    while rest:
        if rest & bit:
            names.append(f"bit-{bit:#x}")
            rest &= ~bit
        bit <<= 1
    return tuple(names)


def _code(lib: ModuleType, name: str, default: int) -> int:
    value = getattr(lib, name, default)
    return value if isinstance(value, int) else default


def classify_error(lib: ModuleType | None, exc: BaseException) -> Unavailable:
    """Map an exception from an NVML call to a typed reason (never re-raises)."""
    if isinstance(exc, AttributeError):
        return Unavailable("function-missing", str(exc))
    value = getattr(exc, "value", None)
    if lib is None or not isinstance(value, int):
        return Unavailable("error", f"{type(exc).__name__}: {exc}")
    table: dict[int, UnavailableReason] = {
        _code(lib, "NVML_ERROR_NOT_SUPPORTED", _NOT_SUPPORTED): "not-supported",
        _code(lib, "NVML_ERROR_NO_PERMISSION", _NO_PERMISSION): "permission",
        _code(lib, "NVML_ERROR_FUNCTION_NOT_FOUND", _FUNCTION_NOT_FOUND): "function-missing",
        _code(lib, "NVML_ERROR_LIBRARY_NOT_FOUND", _LIBRARY_NOT_FOUND): "no-driver",
        _code(lib, "NVML_ERROR_DRIVER_NOT_LOADED", _DRIVER_NOT_LOADED): "no-driver",
        # After a driver upgrade without reboot/reload the library and kernel module disagree.
        _code(lib, "NVML_ERROR_LIB_RM_VERSION_MISMATCH", _LIB_RM_VERSION_MISMATCH): "no-driver",
    }
    return Unavailable(table.get(value, "error"), str(exc) or type(exc).__name__)


def _nvml_error_type(lib: ModuleType) -> type[BaseException]:
    err = getattr(lib, "NVMLError", None)
    return err if isinstance(err, type) and issubclass(err, BaseException) else Exception


def import_pynvml() -> ModuleType | Unavailable:
    """The `pynvml` module, or why it cannot be imported."""
    try:
        return importlib.import_module("pynvml")
    except ImportError as exc:
        return Unavailable("no-driver", f"pynvml (nvidia-ml-py) is not installed: {exc}")


class Nvml:
    """An initialised NVML session; use as a context manager so `nvmlShutdown` always runs."""

    def __init__(self, lib: ModuleType) -> None:
        self.lib = lib
        self._error = _nvml_error_type(lib)
        self._open = True

    def call(self, function: str, *args: Any) -> Any:
        """`pynvml.<function>(*args)`, or an `Unavailable` for any NVML error or missing function."""
        try:
            fn = getattr(self.lib, function)
            return fn(*args)
        except (self._error, AttributeError) as exc:
            return classify_error(self.lib, exc)
        except Exception as exc:  # a binding bug must not take the probe down
            return Unavailable("error", f"{function}: {type(exc).__name__}: {exc}")

    def call_first(self, functions: tuple[str, ...], *args: Any) -> Any:
        """The first of several alternative names (new, then old) that is present and answers."""
        result: Any = Unavailable("function-missing", " / ".join(functions))
        for function in functions:
            result = self.call(function, *args)
            if not (isinstance(result, Unavailable) and result.reason == "function-missing"):
                return result
        return result

    def constant(self, name: str, default: int) -> int:
        """A `pynvml` integer constant, with the documented value as fallback for old bindings."""
        return _code(self.lib, name, default)

    def close(self) -> None:
        """Shut NVML down once; errors on shutdown are ignored (nothing useful to do with them)."""
        if self._open:
            self._open = False
            self.call("nvmlShutdown")

    def __enter__(self) -> Nvml:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def open_nvml() -> Nvml | Unavailable:
    """Import and initialise NVML; a machine without the driver gets `Unavailable("no-driver", …)`."""
    lib = import_pynvml()
    if isinstance(lib, Unavailable):
        return lib
    try:
        lib.nvmlInit()
    except Exception as exc:
        reason = classify_error(lib, exc)
        # Any failure to initialise means "no usable driver" from the user's point of view.
        return Unavailable("no-driver", f"nvmlInit failed ({reason.reason}): {reason.detail}")
    return Nvml(lib)


def text(value: Any) -> Any:
    """Old bindings return bytes for strings; decode them leniently, pass everything else through."""
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return value


def process_name(nvml: Nvml, pid: int) -> str | Unavailable:
    """Executable name of `pid`: NVML first, then `/proc/<pid>/comm` (Linux; NVML may lack permission)."""
    name = text(nvml.call("nvmlSystemGetProcessName", pid))
    if isinstance(name, str) and name:
        return Path(name).name if "/" in name else name
    try:
        return Path(f"/proc/{pid}/comm").read_text(encoding="utf-8", errors="replace").strip()
    except OSError as exc:
        return name if isinstance(name, Unavailable) else Unavailable("not-found", str(exc))
