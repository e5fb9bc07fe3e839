"""Where a llama-server put its models' weights, read from its own load log (pure: text in, facts out).

llama.cpp writes these lines while it loads a model (src/llama-model.cpp `load_tensors`, src/llama.cpp,
src/llama-model-loader.cpp, common/speculative.cpp); each is read wherever a line holds it, whatever the
timestamp or level prefix in front:

    llama_model_loader: loaded meta data with 33 key-value pairs and 272 tensors from PATH (version …)
    print_info: n_layer_all = 30            print_info: n_expert = 128        (older: llm_load_print_meta)
    load_tensors: loading model tensors, this can take a while... (load_mode = mmap)
    load_tensors: offloaded 33/33 layers to GPU                 (only in builds that can offload)
    load_tensors:        CUDA0 model buffer size =  4155.99 MiB  (older: "CUDA0 buffer size")
    llama_model_loader: tensor overrides to CPU are used with mmap enabled - …    (a warning, once a process)
    tensor blk.0.ffn_up_exps.weight (8 MiB q8_0) buffer type overridden to CPU   (debug)
    common_speculative_init_result: loading draft model 'PATH'   (the draft loads after the target)

llama.cpp's own INFO lines reach the server's log at verbosity 4 (common/log.cpp maps them to "trace"), so a
server started with `-lv 4` logs the layers and buffers; the override lines are DEBUG and need `-lv 5`. At the
default (3) only the override warning and the model paths appear, and every other field stays None.
`/props` and `/slots` report nothing about placement (tools/server/server-context.cpp), so the log is the only
witness. A field the log does not state is None: nothing here is guessed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

# How the weights span GPUs, as the buffers show it. llama.cpp's "none" (the main GPU only) logs exactly like
# "layer" on one GPU, so it is never reported.
SplitMode = Literal["layer", "row", "tensor"]

# The `-lv N` at which llama-server logs the layer and buffer lines (INFO → trace, common/log.cpp).
PLACEMENT_VERBOSITY = 4
HOST = "CPU"  # the name `devices` gives to system RAM, whichever host buffer type held the weights

_RUN_START = re.compile(r"\bllama_server: initializing\b|\bmain: build = \d|\bbuild: \d+ \(")
_META = re.compile(r"llama_model_loader: loaded meta data with .*? from (.+?) \(version")
_SERVER_MODEL = re.compile(r"\bload_model: loading model '(.+)'")
_DRAFT = re.compile(r"\bloading draft model '(.+)'")
_VERBOSITY = re.compile(r"\bverbosity = (\d+) \(adjust")
_LOAD_MODE = re.compile(r"load_tensors: loading model tensors.*\(load_mode = (\w+)\)")
_OFFLOADED = re.compile(r"load_tensors: offloaded (\d+)/(\d+) layers to GPU")
_BUFFER = re.compile(r"load_tensors:\s+(\S+) (?:model )?buffer size =\s*([0-9.]+) MiB")
_N_LAYER = re.compile(r"(?:print_info|llm_load_print_meta): n_layer(_all)?\s+=\s+(\d+)")
_N_EXPERT = re.compile(r"(?:print_info|llm_load_print_meta): n_expert\s+=\s+(\d+)")
_OVERRIDE = re.compile(r"tensor (\S+) \(\d+ MiB \w+\) buffer type overridden to (\S+)")
_OVERRIDE_WARNING = re.compile(r"tensor overrides to CPU are used with mmap enabled")
_DEBUG_LAYER = re.compile(r"load_tensors: layer\s+\d+ assigned to device ")
_META_DEVICE = re.compile(r"creating a Meta device")
# common/common.h LLM_FFN_EXPS_REGEX: the tensors --cpu-moe / --n-cpu-moe move (gate_up and chexps included).
EXPERT_TENSOR = re.compile(r"\.ffn_(?:up|down|gate|gate_up)_(?:ch)?exps")
_GPU_SUFFIXES = ("_Mapped", "_Private", "_Split")

# Flags that keep expert weights on the CPU (common/arg.cpp), for the target and for the draft.
_TARGET_FLAGS = {"all": ("-cmoe", "--cpu-moe"), "n": ("-ncmoe", "--n-cpu-moe"), "ot": ("-ot", "--override-tensor")}
_DRAFT_FLAGS = {"all": ("--spec-draft-cpu-moe", "-cmoed", "--cpu-moe-draft"),
                "n": ("--spec-draft-n-cpu-moe", "--spec-draft-ncmoe", "-ncmoed", "--n-cpu-moe-draft"),
                "ot": ("--spec-draft-override-tensor", "-otd", "--override-tensor-draft")}


def _is_host(buffer: str) -> bool:
    """System-RAM buffer types: CPU, CPU_Mapped, CPU_REPACK, CPU_HBM, AMX, and pinned CUDA_Host/Vulkan_Host."""
    return buffer.startswith("CPU") or buffer == "AMX" or buffer.endswith("_Host")


def _devices_of(buffer: str) -> tuple[str, ...]:
    """The device(s) a model buffer type lives on: MTL0_Mapped → MTL0, Meta(CUDA0,CUDA1) → both, CPU_* → CPU."""
    if buffer.startswith("Meta(") and buffer.endswith(")"):
        return tuple(d for part in buffer[5:-1].split(",") for d in _devices_of(part))
    if _is_host(buffer):
        return (HOST,)
    for suffix in _GPU_SUFFIXES:
        buffer = buffer.removesuffix(suffix)
    return (buffer,)


@dataclass(frozen=True, slots=True)
class ModelPlacement:
    """One model's weights as its server loaded them; sizes in MiB (2^20 bytes), layers as llama.cpp counts
    them for offload (the repeating layers plus the output layer: "offloaded 33/33" for a 32-layer model)."""

    path: str | None = None                  # the GGUF the server loaded
    gpu_layers: int | None = None            # layers on a GPU (0: a build or a run without GPU offload)
    layers_total: int | None = None          # layers that could be offloaded
    buffers_mib: Mapping[str, float] = field(default_factory=dict)  # model buffer type → MiB of weights
    expert_count: int | None = None          # experts per MoE layer (0: a dense model)
    split_mode: SplitMode | None = None      # how the weights span GPUs, where the buffers show it
    cpu_overrides: bool | None = None        # some weights forced into system RAM by a tensor override
    experts_overridden: int | None = None    # expert tensors overridden to system RAM (None: not logged, -lv < 5)
    experts_flagged: bool = False            # the server's flags ask for experts on the CPU (-ot exps=CPU, …)
    load_mode: str | None = None             # mmap, none, …

    @property
    def gpu_layer_fraction(self) -> float | None:
        """Share of the layers on a GPU, 0..1."""
        if self.gpu_layers is None or not self.layers_total:
            return None
        return min(1.0, self.gpu_layers / self.layers_total)

    @property
    def devices(self) -> tuple[str, ...]:
        """Devices holding weights, GPUs first in log order, then "CPU" (empty: the log did not say)."""
        found = [d for b in self.buffers_mib for d in _devices_of(b)]
        gpus = [d for d in dict.fromkeys(found) if d != HOST]
        # a bare "CUDA" (from CUDA_Split) names the family whose numbered devices are listed anyway
        gpus = [d for d in gpus if d[-1:].isdigit() or not any(g != d and g.startswith(d) for g in gpus)]
        return (*gpus, *((HOST,) if HOST in found else ()))

    @property
    def gpu_devices(self) -> tuple[str, ...]:
        """The GPU devices among `devices`."""
        return tuple(d for d in self.devices if d != HOST)

    @property
    def experts_on_cpu(self) -> bool | None:
        """True when expert weights sit in system RAM; None when the log does not show where they are."""
        if self.experts_overridden:
            return True
        if self.expert_count == 0:
            return False  # a dense model has no experts to keep anywhere
        moe = self.expert_count is not None
        if moe and self.gpu_layers == 0:
            return True  # nothing is on a GPU, the experts included
        if self.experts_flagged and self.cpu_overrides:
            return True  # the flags name the expert tensors and the loader says it overrode tensors to the CPU
        all_on_gpu = self.gpu_layers is not None and self.gpu_layers == self.layers_total
        if moe and all_on_gpu and (self.cpu_overrides is False or self.experts_overridden == 0):
            return False
        return None


@dataclass(frozen=True, slots=True)
class Placement:
    """Where one llama-server put the target model and, when it loaded one, the draft model."""

    model: ModelPlacement = field(default_factory=ModelPlacement)
    draft: ModelPlacement | None = None
    verbosity: int | None = None             # the server's -lv as it logged it

    @property
    def known(self) -> bool:
        """True when the log said where the target's layers went."""
        return self.model.gpu_layers is not None


@dataclass(slots=True)
class _Region:
    """The lines of one model load, as they are read."""

    path: str | None = None
    offloaded: tuple[int, int] | None = None
    buffers: dict[str, float] = field(default_factory=dict)
    n_layer: int | None = None
    n_layer_all: int | None = None
    n_expert: int | None = None
    load_mode: str | None = None
    warned: bool = False
    expert_overrides: int = 0
    host_overrides: int = 0
    debug: bool = False
    meta_device: bool = False

    def read(self, line: str) -> None:
        if m := _OFFLOADED.search(line):
            self.offloaded = (int(m.group(1)), int(m.group(2)))
        elif m := _BUFFER.search(line):
            self.buffers[m.group(1)] = self.buffers.get(m.group(1), 0.0) + float(m.group(2))
        elif m := _N_LAYER.search(line):
            if m.group(1):
                self.n_layer_all = int(m.group(2))
            else:
                self.n_layer = int(m.group(2))
        elif m := _N_EXPERT.search(line):
            self.n_expert = int(m.group(1))
        elif m := _LOAD_MODE.search(line):
            self.load_mode = m.group(1)
        elif m := _OVERRIDE.search(line):
            if _is_host(m.group(2)):
                self.host_overrides += 1
                self.expert_overrides += bool(EXPERT_TENSOR.search(m.group(1)))
        elif _OVERRIDE_WARNING.search(line):
            self.warned = True
        elif _DEBUG_LAYER.search(line):
            self.debug = True
        elif _META_DEVICE.search(line):
            self.meta_device = True

    def placement(self, *, warned_before: bool, flagged: bool) -> ModelPlacement:
        gpu_layers, total = self.offloaded if self.offloaded else (None, None)
        n_layer = self.n_layer_all if self.n_layer_all is not None else self.n_layer
        if total is None and n_layer is not None:
            total = n_layer + 1  # the offload count: repeating layers plus the output layer
        if gpu_layers is None and self.buffers and all(_is_host(b) for b in self.buffers):
            gpu_layers = 0  # a build without GPU offload logs no "offloaded" line; every weight is in RAM
        return ModelPlacement(
            path=self.path, gpu_layers=gpu_layers, layers_total=total,
            buffers_mib=dict(self.buffers), expert_count=self.n_expert, split_mode=self._split_mode(),
            cpu_overrides=self._cpu_overrides(warned_before), experts_flagged=flagged, load_mode=self.load_mode,
            experts_overridden=self.expert_overrides if self.debug or self.expert_overrides else None)

    def _cpu_overrides(self, warned_before: bool) -> bool | None:
        if self.warned or self.host_overrides:
            return True
        if self.debug:
            return False  # override lines would have been logged beside the layer lines
        # the warning prints once a process, on the first mmap load with an override to the CPU
        if self.load_mode is not None and "mmap" in self.load_mode and not warned_before:
            return False
        return None

    def _split_mode(self) -> SplitMode | None:
        if self.meta_device or any(b.startswith("Meta(") for b in self.buffers):
            return "tensor"
        if any(b.endswith("_Split") for b in self.buffers):
            return "row"
        gpus = {d for b in self.buffers for d in _devices_of(b) if d != HOST}
        # two GPUs holding weights without split buffers: layers split across them. One GPU: `none` and
        # `layer` log alike, so the mode stays unknown.
        return "layer" if len(gpus) >= 2 else None


def experts_flagged(argv: Sequence[str], *, draft: bool = False) -> bool:
    """True when `argv` asks llama-server to keep the target's (or the draft's) expert weights on the CPU."""
    flags = _DRAFT_FLAGS if draft else _TARGET_FLAGS
    for i, arg in enumerate(argv):
        value = argv[i + 1] if i + 1 < len(argv) else ""
        if arg in flags["all"]:
            return True
        if arg in flags["n"] and value.isdigit() and int(value) > 0:
            return True
        if arg in flags["ot"]:
            for item in value.split(","):
                pattern, _, buft = item.partition("=")
                if "exps" in pattern and buft.startswith("CPU"):
                    return True
    return False


def _last_run(lines: list[str]) -> list[str]:
    """The lines of the last server start in the log (a log appended to by a restart holds several)."""
    starts = [i for i, line in enumerate(lines) if _RUN_START.search(line)]
    return lines[starts[-1]:] if starts else lines


def read_placement(log_text: str, argv: Sequence[str] = ()) -> Placement:
    """The placement a llama-server log shows; `argv` (its command line, optional) tells whether the tensors
    the loader says it overrode to the CPU are the experts. Fields the log does not state are None."""
    lines = _last_run(log_text.splitlines())
    verbosity = next((int(m.group(1)) for line in lines if (m := _VERBOSITY.search(line))), None)
    server_path = next((m.group(1) for line in lines if (m := _SERVER_MODEL.search(line))), None)
    marker = next((i for i in range(len(lines) - 1, -1, -1) if _DRAFT.search(lines[i])), None)
    starts = [i for i, line in enumerate(lines) if _META.search(line)]
    end = marker if marker is not None else len(lines)
    # the real target load is the last one before the draft: --fit's trial loads (logged at -lv 5) come first
    target_start = max((i for i in starts if i < end), default=0)
    target = _region(lines, target_start, end, server_path)
    warned_before = any(_OVERRIDE_WARNING.search(line) for line in lines[:target_start])
    model = target.placement(warned_before=warned_before, flagged=experts_flagged(argv))
    draft = None
    if marker is not None:
        match = _DRAFT.search(lines[marker])
        draft_region = _region(lines, marker, len(lines), match.group(1) if match else None)
        draft = draft_region.placement(warned_before=warned_before or target.warned,
                                       flagged=experts_flagged(argv, draft=True))
    return Placement(model=model, draft=draft, verbosity=verbosity)


def _region(lines: list[str], start: int, end: int, path: str | None) -> _Region:
    region = _Region(path=path)
    for line in lines[start:end]:
        if m := _META.search(line):
            if region.offloaded or region.buffers:
                break  # the next model's load (the draft region ends where a third one would begin)
            region.path = m.group(1)
            continue
        region.read(line)
    return region

