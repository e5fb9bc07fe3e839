"""Strings of the verdict's own parts shared by the CLI, the report and the window: the withholding reasons
with their remedies, the settings to try when nothing is confirmed (same keys and placeholders in both
languages, tested); merged into the report tables, so `advisor.report.strings.text` finds them."""

from __future__ import annotations

EN: dict[str, str] = {
    "blocking.title": "What stands in the way ({n}), in the order to fix them:",
    "blocking.remedy": "→ what to do: {remedy}",
    "section.blocking": "What stands in the way, in the order to fix them",
    "try.label": "Measured, not confirmed — try",
    "try.flags": "Measured, not confirmed — try ({engine}): {command}",
    "assumptions.line": "Assumed for facts not given (not measured): {items}.",
    "trace.short": "Trace, the checks that decided ({shown} of {total}; --trace shows every check): {path}",
    "try.why": "These are the settings this run measured; the verdict withholds its confirmation for the reasons "
               "listed. Keep them only if your replies get faster.",
}

ZH: dict[str, str] = {
    "blocking.title": "暂无定论的原因（共 {n} 条），按处理顺序：",
    "blocking.remedy": "→ 怎么做：{remedy}",
    "section.blocking": "暂无定论的原因，按处理顺序",
    "try.label": "已测量、未确认——可以试试",
    "try.flags": "已测量、未确认——可以试试（{engine}）：{command}",
    "assumptions.line": "对未给出的事实所作的假设（未经测量）：{items}。",
    "trace.short": "判定过程中起决定作用的检查（{total} 项中的 {shown} 项；--trace 显示全部）：{path}",
    "try.why": "这些是本次运行测量的设置；由于所列原因，结论暂不确认它们。只有在回复确实变快时才保留。",
}
