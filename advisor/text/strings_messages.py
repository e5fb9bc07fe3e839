"""The templates of the messages measuring code emits (advisor/text/message.py): one per key and language.

`warn.*` are steps' quality warnings, `detail.*` what a guard saw, `assume.*` the perf model's priors for facts
not given, `stop.*` why an A/B ended early, `fail.*` why a run is not whole, `choice.*` why the verdict recommends
other settings than the tuner chose. Placeholders carry the number's
format (`{tok:.1f}`), so both languages show the same digits; the English is what the steps always wrote.
"""

from __future__ import annotations

# Keys no code writes any more but runs saved before still hold: read back, they render with these templates.
SAVED_ONLY = frozenset({
    "detail.drift",  # the drift guard's line before the speedup's own slope joined it
    "detail.drift_effect",  # … and before the weaker end of that slope had to fall below the bar (now drift_weak_end)
    "detail.skew",  # the skew guard's line before the betting test could pass a left-skewed sample (skew_or_bet)
})

EN: dict[str, str] = {
    # steps' quality warnings
    "warn.contended": (
        "the machine is busy: decode with speculation off ran at {tok:.1f} tok/s for {n} requests in a row, under "
        "{fraction:.0%} of the baseline's {base:.1f} tok/s; another program is taking the cores or the GPU. Pause "
        "it, or stop the check (Ctrl-C) and resume it later with check --resume"),
    "warn.step_overrun": (
        "this step has run {took} against the {planned} it was planned for at the baseline's pace ({done} of "
        "{total} units done, waiting on unit {next}): the machine is slower than when the check started, likely "
        "busy with other work. What is measured is kept; pause the other work, or stop the check (Ctrl-C) and "
        "resume it later with check --resume"),
    "warn.engine_threads": (
        "other work used {busy:.1f} of {cores} cores when the servers started, so they run with {threads} thread(s) "
        "(-t {threads}): a llama.cpp thread that shares a core with other work holds every other thread back; pass "
        "--threads N to choose"),
    "warn.model_template": (
        "the model file has no chat template, so llama-server would format every prompt as ChatML, which {arch} "
        "models were not trained on (their replies repeat the markers and loop): the servers ran with "
        "`{args}`; run yours the same way"),
    "warn.model_no_template": (
        "the model file has no chat template, so llama-server formats every prompt as ChatML; if this model uses "
        "another, give it after --, e.g. `-- --no-jinja --chat-template NAME` (llama-server --help lists the names)"),
    "warn.model_swa_full": (
        "the model uses sliding-window attention ({window} tokens): without --swa-full llama-server re-processes "
        "the whole prompt instead of reusing a cached prefix, so the servers ran with --swa-full (more KV-cache "
        "memory, the same compute), and the recommended command keeps it"),
    "warn.noisy_repeats": "decode speed of the same prompt varied by {cv:.0f}% between repeats",
    "warn.no_data": "no request produced a decode time",
    "warn.no_roofline": "bytes per token or peak bandwidth unknown: no MBU",
    "warn.no_drafts": "the server drafted no tokens: is speculation really on?",
    "warn.low_acceptance": "only {rate:.0%} of drafted tokens were accepted on these prompts",
    "warn.trap_inflation": (
        "repeating a prompt made speculation {x:.2f}× faster than its first run: the engine reuses earlier outputs, "
        "so benchmarks with repeated prompts overstate the speedup"),
    "warn.cache_miss": "{n} samples did not reuse the cached prefix exactly and were dropped",
    "warn.batch_failures": "{n} concurrent requests failed",
    "warn.no_probs": "{kind} cannot return token probabilities, so divergences are bounded, not classified",
    # what a preflight guard saw
    "detail.load": "1-minute load {load:.1f} on {cores} logical cores",
    "detail.load_busy": (
        "1-minute load {load:.1f} on {cores} logical cores: "
        "other work is running, timings will be noisy"),
    "detail.load_unknown": "load average not available: {why}",
    "detail.battery": "on battery: clocks may be limited",
    "detail.mains": "on mains power",
    "detail.power_unknown": "power source unknown ({why})",
    "detail.power_unreported": "power source unknown (not reported)",
    "detail.no_gpu": "no GPU ({why})",
    "detail.no_gpu_probed": "no GPU (not probed)",
    "detail.no_other_processes": "none",
    "detail.clocks_free": "clocks not held down",
    "detail.vram_free": "{free:.1f} GiB free",
    "detail.engine_silent": "engine did not answer: {error}",
    "detail.engine_unsure": "the engine does not say ({why})",
    "detail.spec_on": "speculation on",
    "detail.spec_off": "speculation off",
    "detail.spec_on_method": "speculation on ({method})",
    "detail.spec_off_method": "speculation off ({method})",
    # what an A/B guard saw (advisor/ab/guards.py)
    "detail.min_pairs": "{n} complete pairs (ENABLE needs ≥ {need})",
    "detail.spread": "sd of log-speedups {sd:.4f} (0 means identical pairs)",
    "detail.skew": "skewness {skew:+.2f} (need ≥ {need:+.1f})",
    "detail.skew_or_bet": (
        "skewness {skew:+.2f}; a shape-free test by betting grew its stake {capital:.3g}-fold (need skewness ≥ "
        "{need:+.1f}, or the stake ≥ {bet_need:.0f}-fold with no prompt slower than {floor}×)"),
    "detail.median_and_total": "median speedup {median:.3f}×, ratio of totals {total:.3f}× (need > 1 and > {need:.2f})",
    "detail.slow_prompts": "{pct:.0f}% of prompts slower than {ratio}× (allowed ≤ {allowed:.0f}%)",
    "detail.sensitivity": "without the top {top:.0f}% of prompts the speedup is {x:.3f}× (need > {need:.2f})",
    "detail.order_balance": "the rarer run order covers {pct:.0f}% of pairs (need ≥ {need:.0f}%)",
    "detail.order_interaction": (
        "pairs that ran ON second were {x:+.1%} faster than ON-first ones: Welch t {t:+.2f} (flag above {crit:.2f}, "
        "one-sided α = {alpha})"),
    "detail.drift": (
        "OFF ms/token changed {x:+.1%} over the pairs: slope t {t:+.2f} (flag when beyond ±{crit:.2f} and the change "
        "beyond ±{limit:.0%})"),
    "detail.drift_effect": (
        "OFF ms/token changed {x:+.1%} over the pairs: slope t {t:+.2f}, and the speedup {effect:+.1%}: slope t "
        "{effect_t:+.2f} (flag when the first is beyond ±{crit:.2f} with a change beyond ±{limit:.0%} and the "
        "second beyond ±{effect_crit:.2f})"),
    "detail.drift_weak_end": (
        "OFF ms/token changed {x:+.1%} over the pairs: slope t {t:+.2f}, and the speedup {effect:+.1%}: slope t "
        "{effect_t:+.2f}, {low:.3f}× at its weaker end (flag when the first is beyond ±{crit:.2f} with a change beyond "
        "±{limit:.0%}, the second beyond ±{effect_crit:.2f} and the weaker end at or below {bar:.2f}×)"),
    "detail.arm_outliers": (
        "{n} pairs with an outlier in one arm only; without them the speedup is {x:.3f}× at t {t:+.2f} against "
        "{bar:.2f} (need above {need:.2f} when there are any)"),
    "detail.cv_off": (
        "OFF-arm ms/token varies {cv:.1f}% across prompts (above {need:.0f}% the machine was busy or the prompts "
        "differ widely; the paired interval carries it)"),
    "detail.failures": (
        "failed requests: OFF {off}, ON {on} of {n} pairs (ON excess allowed ≤ {excess:.0f}%, either arm ≤ "
        "{rate:.0f}%)"),
    "detail.repetition_loops": (
        "{n} pairs dropped for repetition loops, {on} only under ON (allowed: none only-ON, ≤ {share:.0f}% overall)"),
    "detail.throttling": "{n} of {counted} counted pairs ran during thermal/HW slowdown",
    # why an A/B stopped early
    "stop.cancelled": "cancelled by the user",
    "stop.failures.off": "the off arm failed {n} times in a row (engine down?)",
    "stop.failures.on": "the on arm failed {n} times in a row (engine down?)",
    # the perf model's priors for facts not given (advisor/perf/inputs.py, predict.py)
    "assume.q4_k_m": "weights Q4_K_M ({bits} bits, usual for {engine})",
    "assume.bf16": "weights BF16 (2 bytes per parameter)",
    "assume.model_size": "model size {b:g}B (not given)",
    "assume.context": "context depth {n} tokens per request",
    "assume.moe": "MoE shape {n} experts, top-{m} (counts not given)",
    "assume.cpu_compute": "CPU compute {tflops} TFLOPS",
    "assume.gpu": "GPU {device} ({why})",
    "assume.gpu_compute": "compute {tflops:.0f} TFLOPS (FLOPs per byte of a {device}; {why})",
    "assume.why_unknown_gpu": "{name!r} is not in the hardware table",
    "assume.why_no_gpu": "no GPU named",
    "assume.draft_model": "a separate draft model (spec.method not given)",
    "assume.draft_head": "draft head ≈ one layer + LM head ({share:.1%} of a step; architecture estimate)",
    "assume.draft_size": "draft model {share:.0%} of the target's size (spec.draft_params_b not given)",
    "assume.gamma": "draft length γ = {gamma} (spec.draft_max not given)",
    # why a run is not whole (advisor/run/faults.py, session.py)
    "fail.arm_killed.off": (
        "the speculation-off llama-server stopped during the "
        "{step} step (killed by {signal}; its log: {log})"),
    "fail.arm_killed.on": (
        "the speculation-on llama-server stopped during the "
        "{step} step (killed by {signal}; its log: {log})"),
    "fail.arm_exited.off": (
        "the speculation-off llama-server stopped during the "
        "{step} step (exit code {code}; its log: {log})"),
    "fail.arm_exited.on": (
        "the speculation-on llama-server stopped during the "
        "{step} step (exit code {code}; its log: {log})"),
    "fail.pod_changed.off": "the speculation-off server changed during the {step} step ({what})",
    "fail.pod_changed.on": "the speculation-on server changed during the {step} step ({what})",
    "fail.ended_there": "{why}; the run ended there",
    "fail.engine_error": "engine error: {error}",
    "fail.no_result": "the step ended without a result (a bug)",
    "fail.no_pair": "no A/B pair had both arms answer ({why})",
    "fail.every_request": "every request failed",
    "fail.batch_all": "every concurrent request failed ({n})",
    "fail.unnamed": "failed",
    "fail.step.preflight": "preflight: {why}",
    "fail.step.baseline": "baseline: {why}",
    "fail.step.acceptance": "acceptance: {why}",
    "fail.step.verify": "verify: {why}",
    "fail.step.tune": "tune: {why}",
    "fail.step.batch": "batch: {why}",
    "fail.step.ab": "ab: {why}",
    # why the verdict recommends other settings than the tuner chose (advisor/decide/defaults.py)
    "choice.defaults_instead": (
        "The tuner's choice ({chosen}) measured {ratio:.2f}× the speed of the engine's defaults for the method "
        "({defaults}), {level} CI {low:.2f}× – {high:.2f}×: slower beyond noise, so the defaults are recommended "
        "instead."),
    # two messages in one sentence (message.joined)
    "msg.join": "{first}; {then}",
}

ZH: dict[str, str] = {
    "warn.contended": (
        "机器正忙：关闭推测时的解码速度连续 {n} 个请求只有 {tok:.1f} tok/s，低于基线 {base:.1f} tok/s 的 "
        "{fraction:.0%}；有其他程序在占用 CPU 核心或 GPU。请暂停它，或停止检查（Ctrl-C），稍后用 check --resume 继续"),
    "warn.step_overrun": (
        "此步骤已运行 {took}，而按基线速度计划的时间是 {planned}"
        "（已完成 {done}/{total} 个单元，正在等待第 {next} 个）：机器比检查开始时慢，可能正忙于其他工作。"
        "已测得的数据会保留；请暂停其他工作，或停止检查（Ctrl-C），"
        "稍后用 check --resume 继续"),
    "warn.engine_threads": (
        "服务器启动时其他工作占用了 {cores} 个核心中的 {busy:.1f} 个，"
        "所以服务器只用 {threads} 个线程运行（-t {threads}）："
        "与其他工作共用一个核心的 llama.cpp 线程会拖慢其余所有线程；可用 --threads N 自行指定"),
    "warn.model_template": (
        "模型文件没有聊天模板，llama-server 会把每个提示词按 ChatML 格式化，而 {arch} 模型没有用它训练过"
        "（回复会重复这些标记并陷入循环）：服务器已用 `{args}` 运行；您自己的服务器也请这样运行"),
    "warn.model_no_template": (
        "模型文件没有聊天模板，llama-server 会把每个提示词按 ChatML 格式化；如果该模型使用别的模板，请在 -- 之后指定，"
        "例如 `-- --no-jinja --chat-template NAME`（llama-server --help 列出了可用的名称）"),
    "warn.model_swa_full": (
        "该模型使用滑动窗口注意力（{window} 个词元）：不加 --swa-full 时 llama-server 不会复用已缓存的前缀，"
        "而是重新处理整个提示词，所以服务器已用 --swa-full 运行（KV 缓存占用更多内存，计算量不变），"
        "推荐的命令也保留了它"),
    "warn.noisy_repeats": "同一提示词重复运行之间的解码速度波动了 {cv:.0f}%",
    "warn.no_data": "没有任何请求给出解码时间",
    "warn.no_roofline": "每个 token 的字节数或峰值带宽未知：无法计算 MBU",
    "warn.no_drafts": "服务器没有起草任何 token：推测解码真的开启了吗？",
    "warn.low_acceptance": "在这些提示词上只有 {rate:.0%} 的草稿 token 被接受",
    "warn.trap_inflation": (
        "重复同一提示词让推测解码比第一次快了 {x:.2f}×：引擎会复用先前的输出，"
        "因此重复提示词的基准会夸大加速"),
    "warn.cache_miss": "{n} 个样本没有完全复用缓存前缀，已丢弃",
    "warn.batch_failures": "{n} 个并发请求失败",
    "warn.no_probs": "{kind} 无法返回 token 概率，因此只能给分歧一个上界，无法分类",
    "detail.load": "{cores} 个逻辑核心上的 1 分钟负载为 {load:.1f}",
    "detail.load_busy": "{cores} 个逻辑核心上的 1 分钟负载为 {load:.1f}：有其他任务在运行，计时会有噪声",
    "detail.load_unknown": "无法读取负载均值：{why}",
    "detail.battery": "使用电池供电：时钟频率可能受限",
    "detail.mains": "使用外接电源",
    "detail.power_unknown": "电源类型未知（{why}）",
    "detail.power_unreported": "电源类型未知（系统未报告）",
    "detail.no_gpu": "没有 GPU（{why}）",
    "detail.no_gpu_probed": "没有 GPU（未探测）",
    "detail.no_other_processes": "无",
    "detail.clocks_free": "时钟频率没有被压低",
    "detail.vram_free": "空闲 {free:.1f} GiB",
    "detail.engine_silent": "引擎没有响应：{error}",
    "detail.engine_unsure": "引擎没有说明（{why}）",
    "detail.spec_on": "推测开启",
    "detail.spec_off": "推测关闭",
    "detail.spec_on_method": "推测开启（{method}）",
    "detail.spec_off_method": "推测关闭（{method}）",
    "detail.min_pairs": "{n} 组完整配对（开启需要 ≥ {need}）",
    "detail.spread": "对数加速比的标准差 {sd:.4f}（0 表示配对完全相同）",
    "detail.skew": "偏度 {skew:+.2f}（需要 ≥ {need:+.1f}）",
    "detail.skew_or_bet": (
        "偏度 {skew:+.2f}；不假设分布形状的下注检验使本金增长到 {capital:.3g} 倍（需要偏度 ≥ {need:+.1f}，"
        "或本金 ≥ {bet_need:.0f} 倍且没有提示词慢于 {floor}×）"),
    "detail.median_and_total": "加速中位数 {median:.3f}×，总量之比 {total:.3f}×（需要 > 1 且 > {need:.2f}）",
    "detail.slow_prompts": "{pct:.0f}% 的提示词慢于 {ratio}×（允许 ≤ {allowed:.0f}%）",
    "detail.sensitivity": "去掉最快的 {top:.0f}% 提示词后加速为 {x:.3f}×（需要 > {need:.2f}）",
    "detail.order_balance": "较少的运行顺序占配对的 {pct:.0f}%（需要 ≥ {need:.0f}%）",
    "detail.order_interaction": (
        "开启组后运行的配对比开启组先运行的快 {x:+.1%}：Welch t {t:+.2f}（超过 {crit:.2f} 时标记，单侧 α = {alpha}）"),
    "detail.drift": (
        "关闭推测组的每 token 毫秒数在配对过程中变化了 {x:+.1%}：斜率 t {t:+.2f}（超出 ±{crit:.2f} 且变化超出 "
        "±{limit:.0%} 时标记）"),
    "detail.drift_effect": (
        "关闭推测组的每 token 毫秒数在配对过程中变化了 {x:+.1%}：斜率 t {t:+.2f}；加速比变化了 {effect:+.1%}：斜率 t "
        "{effect_t:+.2f}（前者超出 ±{crit:.2f} 且变化超出 ±{limit:.0%}、后者超出 ±{effect_crit:.2f} 时标记）"),
    "detail.drift_weak_end": (
        "关闭推测组的每 token 毫秒数在配对过程中变化了 {x:+.1%}：斜率 t {t:+.2f}；加速比变化了 {effect:+.1%}：斜率 t "
        "{effect_t:+.2f}，较弱一端为 {low:.3f}×（前者超出 ±{crit:.2f} 且变化超出 ±{limit:.0%}、后者超出 "
        "±{effect_crit:.2f}，且较弱一端不高于 {bar:.2f}× 时标记）"),
    "detail.arm_outliers": (
        "{n} 组配对只在其中一组出现离群值；去掉它们后加速为 {x:.3f}×，相对 {bar:.2f} 的 t 为 {t:+.2f}"
        "（有离群值时需要高于 {need:.2f}）"),
    "detail.cv_off": (
        "关闭推测组的每 token 毫秒数在提示词之间波动 {cv:.1f}%（超过 {need:.0f}% 说明机器繁忙或提示词差别很大；"
        "配对区间已包含这部分噪声）"),
    "detail.failures": (
        "失败请求：{n} 组配对中关闭 {off} 个、开启 {on} 个"
        "（开启多出的部分允许 ≤ {excess:.0f}%，任一组 ≤ {rate:.0f}%）"),
    "detail.repetition_loops": (
        "{n} 组配对因重复循环被丢弃，其中 {on} 组只在开启时出现（允许：没有只在开启时出现的，总体 ≤ {share:.0f}%）"),
    "detail.throttling": "{counted} 组计入的配对中有 {n} 组在过热/硬件降速期间运行",
    "stop.cancelled": "已被用户取消",
    "stop.failures.off": "关闭推测组连续失败 {n} 次（引擎宕机了？）",
    "stop.failures.on": "开启推测组连续失败 {n} 次（引擎宕机了？）",
    "assume.q4_k_m": "权重按 Q4_K_M 计（{bits} 位，{engine} 的常用格式）",
    "assume.bf16": "权重按 BF16 计（每个参数 2 字节）",
    "assume.model_size": "模型大小 {b:g}B（未给出）",
    "assume.context": "每个请求的上下文深度 {n} token",
    "assume.moe": "MoE 结构：{n} 个专家，每个 token 激活 {m} 个（数量未给出）",
    "assume.cpu_compute": "CPU 算力 {tflops} TFLOPS",
    "assume.gpu": "GPU 按 {device} 计（{why}）",
    "assume.gpu_compute": "算力 {tflops:.0f} TFLOPS（按 {device} 每字节的算力；{why}）",
    "assume.why_unknown_gpu": "硬件表中没有 {name!r}",
    "assume.why_no_gpu": "未给出 GPU 名称",
    "assume.draft_model": "独立的草稿模型（未给出 spec.method）",
    "assume.draft_head": "草稿头 ≈ 一层 + LM 头（占一步的 {share:.1%}；按架构估计）",
    "assume.draft_size": "草稿模型为目标模型大小的 {share:.0%}（未给出 spec.draft_params_b）",
    "assume.gamma": "草稿长度 γ = {gamma}（未给出 spec.draft_max）",
    "fail.arm_killed.off": "关闭推测的 llama-server 在 {step} 步骤中停止了（被 {signal} 终止；日志：{log}）",
    "fail.arm_killed.on": "开启推测的 llama-server 在 {step} 步骤中停止了（被 {signal} 终止；日志：{log}）",
    "fail.arm_exited.off": "关闭推测的 llama-server 在 {step} 步骤中停止了（退出码 {code}；日志：{log}）",
    "fail.arm_exited.on": "开启推测的 llama-server 在 {step} 步骤中停止了（退出码 {code}；日志：{log}）",
    "fail.pod_changed.off": "关闭推测的服务器在 {step} 步骤中发生了变化（{what}）",
    "fail.pod_changed.on": "开启推测的服务器在 {step} 步骤中发生了变化（{what}）",
    "fail.ended_there": "{why}；运行到此结束",
    "fail.engine_error": "引擎出错：{error}",
    "fail.no_result": "该步骤没有给出结果就结束了（程序缺陷）",
    "fail.no_pair": "没有一组 A/B 配对两组都给出了回答（{why}）",
    "fail.every_request": "每个请求都失败了",
    "fail.batch_all": "所有并发请求都失败了（{n} 个）",
    "fail.unnamed": "失败",
    "fail.step.preflight": "预检：{why}",
    "fail.step.baseline": "基线（关闭推测）：{why}",
    "fail.step.acceptance": "草稿接受率：{why}",
    "fail.step.verify": "验证开销：{why}",
    "fail.step.tune": "调优器（最佳设置）：{why}",
    "fail.step.batch": "并发：{why}",
    "fail.step.ab": "A/B 测试：{why}",
    "choice.defaults_instead": (
        "调优器的选择（{chosen}）实测速度是该方法引擎默认设置（{defaults}）的 {ratio:.2f}×，{level} 置信区间 "
        "{low:.2f}× – {high:.2f}×：慢于默认设置且超出噪声范围，因此改为推荐默认设置。"),
    "msg.join": "{first}；{then}",
}
