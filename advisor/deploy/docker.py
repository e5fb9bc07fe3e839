"""`docker`: a `docker run` line for the official llama.cpp server image (ghcr.io/ggml-org/llama.cpp)."""

from __future__ import annotations

import shlex

from advisor.deploy.base import DEFAULT_PORT, DeployRequest, container_args, header, require_llamacpp

IMAGE_CUDA = "ghcr.io/ggml-org/llama.cpp:server-cuda"
IMAGE_CPU = "ghcr.io/ggml-org/llama.cpp:server"


def image(cuda: bool) -> str:
    """The server image: `:server-cuda` for NVIDIA GPUs, `:server` for CPU only."""
    return IMAGE_CUDA if cuda else IMAGE_CPU


def publish(req: DeployRequest) -> str:
    """`-p` value: loopback only unless the user runs on another address (a home server stays private)."""
    port = req.port or DEFAULT_PORT
    bind = req.host or "127.0.0.1"
    return f"{port}:{port}" if bind in ("0.0.0.0", "::") else f"{bind}:{port}:{port}"


def render(req: DeployRequest, *, cuda: bool | None = None) -> str:
    """One `docker run` command; the image's entrypoint is llama-server, so its flags follow the image."""
    require_llamacpp(req, "docker")
    cuda = req.cuda if cuda is None else cuda  # the probed machine decides: no --gpus on a CPU box
    args, mounts = container_args(req)
    cmd = ["docker", "run", "--rm", "--name", "llama-server"]
    if cuda:
        cmd += ["--gpus", "all"]
    cmd += ["-p", publish(req)]
    for host_dir, inside in mounts:
        cmd += ["-v", f"{host_dir}:{inside}:ro"]
    cmd += [image(cuda), *args]
    lines = header(req)
    if not cuda:
        lines.append("# CPU only: no --gpus; use ghcr.io/ggml-org/llama.cpp:server-cuda on an NVIDIA GPU")
    lines.append(" \\\n    ".join(_groups(cmd)))
    return "\n".join(lines) + "\n"


def _groups(cmd: list[str]) -> list[str]:
    # one option (with its value) per continuation line keeps a long command reviewable
    out = [shlex.join(cmd[:2])]  # "docker run"
    i = 2
    while i < len(cmd):
        take = 2 if cmd[i].startswith("-") and i + 1 < len(cmd) and not cmd[i + 1].startswith("-") else 1
        out.append(shlex.join(cmd[i:i + take]))
        i += take
    return out
