"""`render_deploy`: one entry point for the CLI, the report and the GUI."""

from __future__ import annotations

from collections.abc import Callable

import advisor.deploy.compose as compose
import advisor.deploy.docker as docker
import advisor.deploy.llmkube as llmkube
import advisor.deploy.plain as plain
import advisor.deploy.systemd as systemd
from advisor.deploy.base import FORMATS, DeployError, DeployFormat, DeployRequest, request_for
from advisor.recommend.types import Recommendation

__all__ = ["FORMATS", "DeployFormat", "render_deploy"]

_RENDERERS: dict[str, Callable[[DeployRequest], str]] = {
    "plain": plain.render, "llmkube": llmkube.render, "docker": docker.render, "compose": compose.render,
    "systemd": systemd.render,
}


def render_deploy(recommendation: Recommendation | None, fmt: str, *, manifest_text: str | None = None,
                  model_path: str | None = None, host: str | None = None, port: int | None = None,
                  verdict: str | None = None, tentative: bool = False, gpu: bool | None = None) -> str:
    """The recommendation in deployable form.

    `recommendation` is `Verdict.flags`: None (SKIP / INCONCLUSIVE) renders a "leave speculation off"
    form that adds no speculative flag (and, for llmkube with a manifest, removes existing ones).
    `manifest_text` is an LLMKube manifest to edit (llmkube only); `model_path`, `host` and `port` are the
    ones the user serves with — unknown ones become clearly marked placeholders or llama-server defaults.
    `tentative` marks `recommendation` as an INCONCLUSIVE verdict's measured settings (`Verdict.try_flags`): the
    forms carry them, headed "measured, not confirmed — try". `gpu` is the probed machine's (gpu.count ≥ 1; None
    when not probed): docker and compose use the CPU image without GPU passthrough when it is False.
    Raises DeployError (a UserError) for a format that does not fit the engine or an unsupported manifest.
    """
    if fmt not in _RENDERERS:
        raise DeployError(f"unknown deploy format {fmt!r}", hint="choose one of " + ", ".join(FORMATS))
    if manifest_text is not None and fmt != "llmkube":
        raise DeployError("a manifest can only be used with the llmkube format")
    if port is not None and not 0 < port < 65536:
        raise DeployError(f"port {port} is out of range")
    req = request_for(recommendation, verdict=verdict, model_path=model_path, host=host, port=port,
                      manifest_text=manifest_text, tentative=tentative, gpu=gpu)
    return _RENDERERS[fmt](req)
