"""`systemd`: an `ExecStart=` drop-in for a llama-server unit.

systemd splits ExecStart= itself (not a shell): double quotes group words and take C escapes, `$` expands
environment variables and `%` unit specifiers, so each is escaped (`$$`, `%%`) to stay literal.
"""

from __future__ import annotations

import re

from advisor.deploy.base import SERVER_PLACEHOLDER, DeployRequest, header, host_args, require_llamacpp

_SAFE = re.compile(r"[A-Za-z0-9_@%+=:,./-]+")


def quote(arg: str) -> str:
    """One ExecStart= word that systemd reads back as exactly `arg`."""
    text = arg.replace("%", "%%").replace("$", "$$")
    if _SAFE.fullmatch(arg):
        return text
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'


def render(req: DeployRequest, *, server_path: str | None = None) -> str:
    """A `[Service]` drop-in: the empty `ExecStart=` clears the unit's old command before the new one."""
    require_llamacpp(req, "systemd")
    server = server_path or req.placeholder(SERVER_PLACEHOLDER, "the absolute path of llama-server")
    words = [server, *host_args(req)]
    lines = header(req)
    lines += ["# save with: systemctl edit llama-server.service  (then: systemctl restart llama-server)",
              "[Service]", "ExecStart=", "ExecStart=" + " ".join(quote(w) for w in words)]
    return "\n".join(lines) + "\n"
