"""What a step is doing, unit by unit (`Progress.detail` → `progress.<detail>`), and the step lines of the
CLI, in English and Chinese (same keys and placeholders, tested); merged into the report tables, so
`advisor.report.strings.text` finds them."""

from __future__ import annotations

EN: dict[str, str] = {
    "progress.warmup": "warm-up {n}",
    "progress.baseline_prompt": "{prompt} (round {round})",
    "progress.acceptance_prompt": "{category} · {prompt}",
    "progress.canary_repeat": "canary repeat {n}",
    "progress.canary_rerun": "canary: a seen prompt re-sent ({n})",
    "progress.verify_round": "depth {depth}: round {round} of {rounds}",
    "progress.tune_probe": "{label} · {category}",
    "progress.tune_surface": "surface k={k} τ={tau}",
    "progress.tune_draft_speed": "the draft model's own speed",
    "progress.tune_chosen": "chosen: {label}, k = {k}",
    "progress.batch_level": "concurrency {level}",
    "progress.ab_plan": "about {pairs} pairs planned",
    "progress.ab_pair": "pair {pair}: {decision}",
    "progress.ab_default_pair": "against the engine defaults: pair {pair}",
    "progress.decision.CONTINUE": "continue",
    "progress.decision.ENABLE": "enable",
    "progress.decision.SKIP": "skip",
    "progress.decision.INCONCLUSIVE": "inconclusive",
    "progress.step_done": "{status} in {seconds} s",
}

ZH: dict[str, str] = {
    "progress.warmup": "预热 {n}",
    "progress.baseline_prompt": "{prompt}（第 {round} 轮）",
    "progress.acceptance_prompt": "{category} · {prompt}",
    "progress.canary_repeat": "陷阱探针第 {n} 次重复",
    "progress.canary_rerun": "陷阱探针：重发已见过的提示（第 {n} 个）",
    "progress.verify_round": "深度 {depth}：第 {round} / {rounds} 轮",
    "progress.tune_probe": "{label} · {category}",
    "progress.tune_surface": "合成接受面 k={k} τ={tau}",
    "progress.tune_draft_speed": "草稿模型自身的速度",
    "progress.tune_chosen": "已选择：{label}，k = {k}",
    "progress.batch_level": "并发 {level}",
    "progress.ab_plan": "预计约 {pairs} 对",
    "progress.ab_pair": "第 {pair} 对：{decision}",
    "progress.ab_default_pair": "对比引擎默认设置：第 {pair} 对",
    "progress.decision.CONTINUE": "继续",
    "progress.decision.ENABLE": "开启",
    "progress.decision.SKIP": "关闭",
    "progress.decision.INCONCLUSIVE": "暂无定论",
    "progress.step_done": "{status}，用时 {seconds} 秒",
}
