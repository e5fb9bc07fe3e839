"""What every deploy renderer needs: the request (flags, model, host, port), placeholders and header text."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import Literal, get_args

from advisor.errors import UserError
from advisor.recommend.types import Recommendation

DeployFormat = Literal["plain", "llmkube", "docker", "compose", "systemd"]
FORMATS: tuple[str, ...] = get_args(DeployFormat)  # here, not in render.py: the CLI lists them without YAML

# Placeholders are upper-case file names the user cannot mistake for a real path; each output lists them.
MODEL_PLACEHOLDER = "MODEL.gguf"
DRAFT_PLACEHOLDER = "DRAFT_MODEL.gguf"  # the same text advisor.recommend.build puts into argv
MODELS_DIR_PLACEHOLDER = "/path/to/models"
SERVER_PLACEHOLDER = "/path/to/llama-server"
DEFAULT_PORT = 8080  # llama-server's own default (--port)
LLAMACPP = "llama.cpp"
# Flags whose value is a model file on the host (both dialects; engine-facts.md §1.6).
DRAFT_MODEL_FLAGS = frozenset({"-md", "--model-draft", "--spec-draft-model"})


class DeployError(UserError):
    """A deploy format cannot be produced for this recommendation or manifest."""


@dataclass(frozen=True, slots=True)
class DeployRequest:
    """Everything a renderer reads: the speculative flags (empty = leave speculation off) and where it runs."""

    engine: str
    spec_argv: tuple[str, ...]       # empty: add no speculative flags
    notes: tuple[str, ...]
    steps: tuple[str, ...]           # plain-language steps (GUI engines, config files)
    reason: str                      # one line saying why speculation is on or off
    model_path: str | None = None
    host: str | None = None
    port: int | None = None
    manifest_text: str | None = None
    placeholders: list[str] = field(default_factory=list)
    gpu: bool | None = None          # the probed machine has a GPU (gpu.count ≥ 1); None: not probed

    @property
    def cuda(self) -> bool:
        """Container forms use the CUDA image and pass the GPU through unless the machine has none."""
        return self.gpu is not False

    def placeholder(self, text: str, meaning: str) -> str:
        """Record a placeholder (once) for the header and return it."""
        entry = f"{text} ({meaning})"
        if entry not in self.placeholders:
            self.placeholders.append(entry)
        return text


def request_for(recommendation: Recommendation | None, *, verdict: str | None, model_path: str | None,
                host: str | None, port: int | None, manifest_text: str | None, tentative: bool = False,
                gpu: bool | None = None) -> DeployRequest:
    """Normalise the recommendation: no recommendation, or one without argv, adds no speculative flags.
    `tentative`: the flags are the measured settings of an INCONCLUSIVE verdict, to try, not confirmed."""
    rec = recommendation
    if rec is not None and tentative and (rec.argv or rec.steps):
        reason = (f"measured, not confirmed — try these settings in {rec.engine} (verdict: {verdict or 'INCONCLUSIVE'}"
                  "; `spec-advisor decide` lists what stands in the way) and keep them only if your replies get "
                  "faster")
    elif rec is None:
        reason = (f"leave speculative decoding off (verdict: {verdict or 'not ENABLE'}); add no speculative flags "
                  "and drop any --spec-*, --draft-* or -md flags you run with")
    elif rec.argv:
        reason = f"turn speculative decoding on in {rec.engine} with the measured settings"
    elif rec.steps:
        reason = f"turn speculative decoding on in {rec.engine} by the steps below; there are no flags to add"
    else:
        reason = "speculation would pay off, but no flags can be written for this build (see the notes)"
    return DeployRequest(
        engine=rec.engine if rec else LLAMACPP, spec_argv=tuple(rec.argv) if rec else (),
        notes=tuple(rec.notes) if rec else (), steps=tuple(rec.steps) if rec else (), reason=reason,
        model_path=model_path, host=host, port=port, manifest_text=manifest_text, gpu=gpu)


def require_llamacpp(req: DeployRequest, fmt: str) -> None:
    """docker / compose / systemd target the llama.cpp server; say so clearly for other engines."""
    if req.engine != LLAMACPP:
        raise DeployError(f"--format-flags {fmt} writes a llama.cpp server command, but the engine is "
                          f"{req.engine}", hint="use --format-flags plain for this engine's flags")


def header(req: DeployRequest, comment: str = "#") -> list[str]:
    """Comment lines: what this is, the notes, and the placeholders to replace (call after rendering)."""
    # every line starts with "spec-advisor" so a later run can recognise and replace its own header
    lines = [f"{comment} spec-advisor: {req.reason}"]
    lines += [f"{comment} spec-advisor note: {n}" for n in req.notes]
    lines += [f"{comment} spec-advisor step: {s}" for s in _one_line(req.steps)]
    if req.placeholders:
        lines.append(f"{comment} spec-advisor: replace the placeholders " + ", ".join(req.placeholders))
    return lines


def _one_line(items: tuple[str, ...]) -> list[str]:
    # a multi-line step (a config file to write) must stay inside the comment
    return [line for item in items for line in item.splitlines() or [""]]


def container_args(req: DeployRequest) -> tuple[list[str], list[tuple[str, str]]]:
    """llama-server arguments inside the official image, and the read-only (host, container) mounts.

    The model's folder is mounted at /models; a draft model elsewhere on the host gets /draft.
    """
    if req.model_path:
        host_dir, name = posixpath.split(req.model_path)
        host_dir = host_dir or "."
    else:
        host_dir = req.placeholder(MODELS_DIR_PLACEHOLDER, "the folder holding your GGUF files")
        name = req.placeholder(MODEL_PLACEHOLDER, "your model file in that folder")
    mounts = [(host_dir, "/models")]
    args = ["-m", f"/models/{name}", "--host", "0.0.0.0", "--port", str(req.port or DEFAULT_PORT)]
    spec = list(req.spec_argv)
    for i in range(len(spec) - 1):
        if spec[i] in DRAFT_MODEL_FLAGS:
            spec[i + 1] = _draft_in_container(req, spec[i + 1], host_dir, mounts)
    return args + spec, mounts


def _draft_in_container(req: DeployRequest, path: str, model_dir: str, mounts: list[tuple[str, str]]) -> str:
    if path == DRAFT_PLACEHOLDER:
        req.placeholder(DRAFT_PLACEHOLDER, "your draft model, in the same folder as the model")
        return f"/models/{path}"
    folder, name = posixpath.split(path)
    if not folder or folder == model_dir:
        return f"/models/{name}"
    if (folder, "/draft") not in mounts:
        mounts.append((folder, "/draft"))
    return f"/draft/{name}"


def host_args(req: DeployRequest) -> list[str]:
    """llama-server arguments on the host itself (systemd): model, loopback host, port, then the flags."""
    model = req.model_path or req.placeholder(f"/path/to/{MODEL_PLACEHOLDER}", "your model file")
    spec = list(req.spec_argv)
    for i in range(len(spec) - 1):
        if spec[i] in DRAFT_MODEL_FLAGS and spec[i + 1] == DRAFT_PLACEHOLDER:
            spec[i + 1] = req.placeholder(f"/path/to/{DRAFT_PLACEHOLDER}", "your draft model file")
    return ["-m", model, "--host", req.host or "127.0.0.1", "--port", str(req.port or DEFAULT_PORT), *spec]
