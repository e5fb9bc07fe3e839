"""Whether the display named in the environment can really be reached, asked before Qt is: Qt's xcb plugin
aborts the process (exit 134, a core dump) when DISPLAY is set but no X server answers, which no message
follows. A socket connect is enough to tell "nobody there" (a stale DISPLAY after an SSH session, a closed
VNC) from a display Qt can try; authorisation problems still reach Qt, which then reports them itself."""

from __future__ import annotations

import os
import re
import socket
from collections.abc import Mapping
from pathlib import Path

CONNECT_TIMEOUT_S = 1.0  # a local display answers in microseconds; a remote one over SSH in milliseconds
_X_DISPLAY = re.compile(r"^(?P<host>[^:]*):(?P<number>\d+)(\.\d+)?$")
# Platforms that draw nowhere: nothing to reach.
_HEADLESS = ("offscreen", "minimal", "vnc", "eglfs", "linuxfb")


def _can_connect(family: int, address: object) -> bool:
    try:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.settimeout(CONNECT_TIMEOUT_S)
            sock.connect(address)  # type: ignore[arg-type]
            return True
    except OSError:
        return False


def _x11_reachable(display: str) -> tuple[bool, str]:
    match = _X_DISPLAY.match(display)
    if match is None:
        return False, "not a display name like :0 or host:0"
    host, number = match.group("host"), int(match.group("number"))
    if host in ("", "unix") or host.startswith("/"):
        path = host if host.startswith("/") else f"/tmp/.X11-unix/X{number}"
        # Linux X servers also listen on the abstract socket of the same name (a container may lack /tmp's)
        if _can_connect(socket.AF_UNIX, path) or _can_connect(socket.AF_UNIX, "\0" + path):
            return True, ""
        return False, f"no X server listens on {path}"
    if _can_connect(socket.AF_INET, (host, 6000 + number)):
        return True, ""
    return False, f"no X server answers at {host}:{6000 + number}"


def _wayland_reachable(name: str, env: Mapping[str, str]) -> bool:
    runtime = env.get("XDG_RUNTIME_DIR") or f"/run/user/{os.getuid()}"
    path = Path(name) if name.startswith("/") else Path(runtime) / name
    return _can_connect(socket.AF_UNIX, str(path))


def display_problem(env: Mapping[str, str]) -> tuple[str, str] | None:
    """(display, why) when the environment names a display that cannot be reached, else None (reachable,
    or a headless Qt platform, or none named: `has_display` handles that)."""
    platform = (env.get("QT_QPA_PLATFORM") or "").split(":")[0].strip().lower()
    if platform in _HEADLESS:
        return None
    wayland, x11 = env.get("WAYLAND_DISPLAY", ""), env.get("DISPLAY", "")
    if wayland and platform in ("", "wayland") and _wayland_reachable(wayland, env):
        return None
    if platform == "wayland":
        return (f"WAYLAND_DISPLAY={wayland}", "no Wayland compositor answers there") if wayland else None
    if x11 and platform in ("", "xcb"):
        ok, why = _x11_reachable(x11)
        return None if ok else (f"DISPLAY={x11}", why)
    if wayland and not x11:
        return f"WAYLAND_DISPLAY={wayland}", "no Wayland compositor answers there"
    return None
