"""Chinese for the steps' own warnings and guard details. The steps write one English sentence with its
numbers in it (the evidence keeps exactly what was said); these patterns read the numbers back out and put
them into the Chinese sentence, so a reader of the zh report or window never meets an English warning for
the cases the app writes itself. A message no pattern knows (e.g. an engine's own error text) is shown as
written."""

from __future__ import annotations

import re

_N = r"(?P<{}>[-+]?[\d.]+)"


def _p(pattern: str) -> re.Pattern[str]:
    # `{name}` in a pattern is a number group; everything else is literal text
    parts = re.split(r"(\{\w+\})", pattern)
    return re.compile("^" + "".join(_N.format(p[1:-1]) if re.fullmatch(r"\{\w+\}", p) else re.escape(p)
                                    for p in parts) + "$")


def _free(pattern: str, name: str) -> re.Pattern[str]:
    # one free-text group (a process list, a reason) at `{name}`
    head, _, tail = pattern.partition("{" + name + "}")
    return re.compile("^" + re.escape(head) + f"(?P<{name}>.+?)" + re.escape(tail) + "$")


PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (_p("the machine is busy: decode with speculation off ran at {tok} tok/s for {n} requests in a row, under "
        "{pct}% of the baseline's {base} tok/s; another program is taking the cores or the GPU. Pause it, or stop "
        "the check (Ctrl-C) and resume it later with check --resume"),
     "机器正忙：关闭推测时的解码速度连续 {n} 个请求只有 {tok} tok/s，低于基线 {base} tok/s 的 {pct}%；"
     "有其他程序在占用 CPU 核心或 GPU。请暂停它，或停止检查（Ctrl-C），稍后用 check --resume 继续"),
    (_p("other work used {busy} of {cores} cores when the servers started, so they run with {threads} thread(s) "
        "(-t {t}): a llama.cpp thread that shares a core with other work holds every other thread back; pass "
        "--threads N to choose"),
     "服务器启动时其他工作占用了 {cores} 个核心中的 {busy} 个，所以服务器只用 {threads} 个线程运行（-t {t}）："
     "与其他工作共用一个核心的 llama.cpp 线程会拖慢其余所有线程；可用 --threads N 自行指定"),
    (_p("decode speed of the same prompt varied by {cv}% between repeats"),
     "同一提示词重复运行之间的解码速度波动了 {cv}%"),
    (_p("no request produced a decode time"), "没有任何请求给出解码时间"),
    (_p("bytes per token or peak bandwidth unknown: no MBU"), "每个 token 的字节数或峰值带宽未知：无法计算 MBU"),
    (_p("the server drafted no tokens: is speculation really on?"), "服务器没有起草任何 token：推测解码真的开启了吗？"),
    (_p("only {rate}% of drafted tokens were accepted on these prompts"),
     "在这些提示词上只有 {rate}% 的草稿 token 被接受"),
    (_p("repeating a prompt made speculation {x}× faster than its first run: the engine reuses earlier outputs, "
        "so benchmarks with repeated prompts overstate the speedup"),
     "重复同一提示词让推测解码比第一次快了 {x}×：引擎会复用先前的输出，因此重复提示词的基准会夸大加速"),
    (_p("{n} samples did not reuse the cached prefix exactly and were dropped"),
     "{n} 个样本没有完全复用缓存前缀，已丢弃"),
    (_p("{n} concurrent requests failed"), "{n} 个并发请求失败"),
    (_p("1-minute load {load} on {cores} logical cores: other work is running, timings will be noisy"),
     "{cores} 个逻辑核心上的 1 分钟负载为 {load}：有其他任务在运行，计时会有噪声"),
    (_p("1-minute load {load} on {cores} logical cores"), "{cores} 个逻辑核心上的 1 分钟负载为 {load}"),
    (_p("on battery: clocks may be limited"), "使用电池供电：时钟频率可能受限"),
    (_p("on mains power"), "使用外接电源"),
    (_p("{free} GiB free"), "空闲 {free} GiB"),
    (_p("{n} complete pairs (ENABLE needs ≥ {need})"), "{n} 组完整配对（开启需要 ≥ {need}）"),
    (_p("sd of log-speedups {sd} (0 means identical pairs)"), "对数加速比的标准差 {sd}（0 表示配对完全相同）"),
    (_p("skewness {skew} (need ≥ {need})"), "偏度 {skew}（需要 ≥ {need}）"),
    (_p("median speedup {m}×, ratio of totals {r}× (need > 1 and > {need})"),
     "加速中位数 {m}×，总量之比 {r}×（需要 > 1 且 > {need}）"),
    (_p("{pct}% of prompts slower than {ratio}× (allowed ≤ {allowed}%)"),
     "{pct}% 的提示词慢于 {ratio}×（允许 ≤ {allowed}%）"),
    (_p("without the top {top}% of prompts the speedup is {x}× (need > {need})"),
     "去掉最快的 {top}% 提示词后加速为 {x}×（需要 > {need}）"),
    (_p("OFF-arm ms/token varies {cv}% (need < {need}%)"), "关闭推测组的每 token 毫秒数波动 {cv}%（需要 < {need}%）"),
    (_p("OFF-arm ms/token varies {cv}% across prompts (above {need}% the machine was busy or the prompts differ "
        "widely; the paired interval carries it)"),
     "关闭推测组的每 token 毫秒数在提示词之间波动 {cv}%（超过 {need}% 说明机器繁忙或提示词差别很大；"
     "配对区间已包含这部分噪声）"),
    (_p("pairs that ran ON second were {x}% faster than ON-first ones: Welch t {t} (flag above {c}, one-sided "
        "α = {a})"),
     "开启组后运行的配对比开启组先运行的快 {x}%：Welch t {t}（超过 {c} 时标记，单侧 α = {a}）"),
    (_p("OFF ms/token changed {x}% over the pairs: slope t {t} (flag when beyond ±{c} and the change beyond "
        "±{m}%)"),
     "关闭推测组的每 token 毫秒数在配对过程中变化了 {x}%：斜率 t {t}（超出 ±{c} 且变化超出 ±{m}% 时标记）"),
    (_p("{n} pairs with an outlier in one arm only; without them the speedup is {x}× at t {t} against {m} "
        "(need above {need} when there are any)"),
     "{n} 组配对只在其中一组出现离群值；去掉它们后加速为 {x}×，相对 {m} 的 t 为 {t}（有离群值时需要高于 {need}）"),
    (_p("the rarer run order covers {pct}% of pairs (need ≥ {need}%)"),
     "较少的运行顺序占配对的 {pct}%（需要 ≥ {need}%）"),
    (_p("failed requests: OFF {off}, ON {on} of {n} pairs (ON excess allowed ≤ {excess}%, either arm ≤ {rate}%)"),
     "失败请求：{n} 组配对中关闭 {off} 个、开启 {on} 个（开启多出的部分允许 ≤ {excess}%，任一组 ≤ {rate}%）"),
    (_p("{n} pairs dropped for repetition loops, {on} only under ON (allowed: none only-ON, ≤ {share}% overall)"),
     "{n} 组配对因重复循环被丢弃，其中 {on} 组只在开启时出现（允许：没有只在开启时出现的，总体 ≤ {share}%）"),
    (_p("{n} of {m} counted pairs ran during thermal/HW slowdown"),
     "{m} 组计入的配对中有 {n} 组在过热/硬件降速期间运行"),
    (_p("decode speed varied by {cv}% between requests"), "请求之间的解码速度波动了 {cv}%"),
    (_p("cancelled by the user"), "已被用户取消"),
    (_p("speculation off"), "推测关闭"),
    (_p("speculation on"), "推测开启"),
    (_free("speculation on ({method})", "method"), "推测开启（{method}）"),
    (_free("speculation off ({method})", "method"), "推测关闭（{method}）"),
    (_p("Welch t {t} for ON-second minus ON-first (flag above {limit}, one-sided α = {alpha})"),
     "Welch t {t}（开启组排在后面减去排在前面；超过 {limit} 即标记，单侧 α = {alpha}）"),
    (_p("none"), "无"),
    (_free("no GPU ({why})", "why"), "没有 GPU（{why}）"),
    (_free("{kind} cannot return token probabilities, so divergences are bounded, not classified", "kind"),
     "{kind} 无法返回 token 概率，因此只能给分歧一个上界，无法分类"),
    (_free("power source unknown ({detail})", "detail"), "电源类型未知（{detail}）"),
    (_free("engine did not answer: {exc}", "exc"), "引擎没有响应：{exc}"),
    (_free("stopped after {rest}", "rest"), "提前停止：{rest}"),
)


# The prediction's assumptions for facts not given (advisor/perf/inputs.py, predict.py): a table of their own,
# since their broad shapes ("GPU …") must not catch a step's warning.
ASSUMPTIONS: tuple[tuple[re.Pattern[str], str], ...] = (
    (_free("weights Q4_K_M ({rest})", "rest"), "权重按 Q4_K_M 计（{rest}）"),
    (_p("weights BF16 (2 bytes per parameter)"), "权重按 BF16 计（每个参数 2 字节）"),
    (_p("model size {b}B (not given)"), "模型大小 {b}B（未给出）"),
    (_p("context depth {n} tokens per request"), "每个请求的上下文深度 {n} token"),
    (_p("MoE shape {n} experts, top-{m} (counts not given)"), "MoE 结构：{n} 个专家，top-{m}（数量未给出）"),
    (_p("CPU compute {t} TFLOPS"), "CPU 算力 {t} TFLOPS"),
    (_free("GPU {rest}", "rest"), "GPU 按 {rest} 计"),
    (_free("compute {rest}", "rest"), "算力 {rest}"),
    (_p("a separate draft model (spec.method not given)"), "独立的草稿模型（未给出 spec.method）"),
    (_free("draft head ≈ one layer + LM head ({rest}; architecture estimate)", "rest"),
     "草稿头 ≈ 一层 + LM 头（{rest}；按架构估计）"),
    (_p("draft model {pct}% of the target's size (spec.draft_params_b not given)"),
     "草稿模型为目标模型大小的 {pct}%（未给出 spec.draft_params_b）"),
    (_p("draft length γ = {g} (spec.draft_max not given)"), "草稿长度 γ = {g}（未给出 spec.draft_max）"),
    (re.compile(r"^draft cost (?P<x>[\d.]+) \(prior for (?P<method>.+)\)$"), "草稿开销 {x}（{method} 的先验值）"),
)


def translate_assumption(message: str) -> str:
    """The Chinese of one assumption the prediction named, or the message as written."""
    for pattern, template in ASSUMPTIONS:
        if (m := pattern.match(message)) is not None:
            return template.format(**m.groupdict())
    return message


def translate(message: str) -> str | None:
    """The Chinese of a step's warning, or None when no pattern knows it."""
    for pattern, template in PATTERNS:
        if (m := pattern.match(message)) is not None:
            return template.format(**m.groupdict())
    return None
