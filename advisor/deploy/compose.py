"""`compose`: a Compose service whose `command:` carries the llama-server flags (official server image)."""

from __future__ import annotations

import advisor.recommend.yaml_emit as yaml_emit
from advisor.deploy.base import DeployRequest, container_args, header, require_llamacpp
from advisor.deploy.docker import image, publish


def _no_interpolation(text: str) -> str:
    # Compose expands ${VAR} and $VAR in every string; $$ is its escape for a literal dollar
    return text.replace("$", "$$")


def render(req: DeployRequest, *, cuda: bool | None = None) -> str:
    """A `services:` document with one llama-server service (exec-form `command:` list, no shell)."""
    require_llamacpp(req, "compose")
    cuda = req.cuda if cuda is None else cuda  # the probed machine decides: no GPU reservation on a CPU box
    args, mounts = container_args(req)
    service: dict[str, object] = {
        "image": image(cuda),
        "ports": [publish(req)],
        "volumes": [_no_interpolation(f"{h}:{c}:ro") for h, c in mounts],
        "command": [_no_interpolation(a) for a in args],
    }
    if cuda:
        gpu = {"driver": "nvidia", "count": "all", "capabilities": ["gpu"]}
        service["deploy"] = {"resources": {"reservations": {"devices": [gpu]}}}
    lines = header(req) + yaml_emit.emit({"services": {"llama-server": service}})
    return "\n".join(lines) + "\n"
