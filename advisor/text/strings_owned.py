"""What spec-advisor refuses to write over, how `--resume` refuses, and the checks a run stops at when its
measurement would not be what it claims (docs/refusals.md), in English and Chinese (same keys and
placeholders, tested); merged into the string tables, so `advisor.report.strings.text` finds them."""

from __future__ import annotations

EN: dict[str, str] = {
    "owned.run_file": "will not write {path}: it belongs to the run in {run} (its evidence, verdict or logs)",
    "owned.source": "will not write {path}: it is the file the report is made from",
    "owned.data": "will not write {path}: it is spec-advisor's own data (the history or the check lock)",
    "owned.hint": "choose another file name, or a folder (-o DIR/ writes DIR/report.<format>)",
    "owned.no_folder": "cannot create the folder {path}: {why}",
    "owned.earlier_run": "--out {path} already holds a run: a new check would replace it",
    "owned.earlier_run_hint": ("choose a new folder, or go on with that run with --resume RUN_ID "
                               "(`spec-advisor history`)"),
    "resume.empty": "--resume needs a run id, not an empty string",
    "resume.empty_hint": "`spec-advisor history` lists runs and their ids",
    "resume.complete": "run {run_id} is already complete: nothing to resume, and it is not measured again",
    "resume.complete_hint": "its report: `spec-advisor report RUN_DIR`; to measure again, start a new check",
    "resume.options": "{options} cannot be changed when resuming: the run goes on with the settings it started with",
    "resume.options_hint": ("resume with --resume RUN_ID alone (plus --json, --lang or the API key), or start a "
                            "new check with the new settings"),
    "resume.url": "{option} {url} is not a server run {run_id} measured ({recorded})",
    "resume.url_hint": "give the run's own server URLs (only to pass their keys), or leave them out",
    "resume.no_model": "run {run_id} recorded no model file to compare, so it cannot be resumed safely",
    "resume.no_model_hint": "start a new check; its units would otherwise mix with units of an unknown model",
    "resume.model_changed": ("the model is not the one run {run_id} started with ({path}: {now}; recorded: {then}); "
                             "units of two models must not mix"),
    "resume.model_changed_hint": "put the original model file back at that path, or start a new check",
    "resume.no_history": "--resume needs the history database (drop --no-history)",
    "resume.unknown": "no run {run_id!r} in the history",
    "resume.unknown_hint": "`spec-advisor history` lists runs",
    "guard.arms": "the arms are not what the check measures ({detail}), so it stopped after preflight",
    "guard.no_step": "no measuring step succeeded ({failed}), so there is nothing to decide from",
    "fault.arm.off": "speculation-off",
    "fault.arm.on": "speculation-on",
    "fault.died": "the {arm} llama-server stopped during the {step} step ({how}; its log: {log})",
    "fault.changed": "the {arm} server changed during the {step} step ({lost})",
    "fault.signal": "killed by {signal}",
    "fault.signal_n": "killed by signal {n}",
    "fault.exit": "exit code {code}",
    "fault.join": "; ",
    "fault.ended": "{reasons}; the run ended there",
    "guard.prompts_too_long": ("{count} of the prompts do not fit a slot's context: the longest is {tokens} tokens, "
                               "and a slot holds {n_ctx} tokens, {room} of them left after the {answer}-token answer"),
    "guard.prompts_too_long_hint": "use shorter prompts, or a larger context (-c after --, or the server's own -c)",
}

ZH: dict[str, str] = {
    "owned.run_file": "不会写入 {path}：它属于 {run} 中的运行（其证据、结论或日志）",
    "owned.source": "不会写入 {path}：报告正是从这个文件生成的",
    "owned.data": "不会写入 {path}：它是 spec-advisor 自己的数据（历史记录或检查锁）",
    "owned.hint": "请换一个文件名，或给一个文件夹（-o DIR/ 会写入 DIR/report.<格式>）",
    "owned.no_folder": "无法创建文件夹 {path}：{why}",
    "owned.earlier_run": "--out {path} 中已有一次运行：新的检查会把它替换掉",
    "owned.earlier_run_hint": "请换一个新文件夹，或用 --resume RUN_ID 继续那次运行（见 `spec-advisor history`）",
    "resume.empty": "--resume 需要一个运行 ID，不能是空字符串",
    "resume.empty_hint": "`spec-advisor history` 会列出各次运行及其 ID",
    "resume.complete": "运行 {run_id} 已经完成：没有可继续的内容，也不会再测一次",
    "resume.complete_hint": "查看其报告：`spec-advisor report RUN_DIR`；如需重新测量，请开始一次新的检查",
    "resume.options": "继续运行时不能更改 {options}：运行会沿用开始时的设置",
    "resume.options_hint": "请只用 --resume RUN_ID 继续（可加 --json、--lang 或 API 密钥），或用新设置开始一次新的检查",
    "resume.url": "{option} {url} 不是运行 {run_id} 测量过的服务器（{recorded}）",
    "resume.url_hint": "请给出该运行自己的服务器 URL（仅用于传递其密钥），或者不要给出",
    "resume.no_model": "运行 {run_id} 没有记录可供比对的模型文件，因此无法安全地继续",
    "resume.no_model_hint": "请开始一次新的检查；否则它的测量单元会和一个未知模型的单元混在一起",
    "resume.model_changed": ("模型不是运行 {run_id} 开始时的那个（{path}：{now}；记录的是：{then}）；"
                             "两个模型的测量单元不能混在一起"),
    "resume.model_changed_hint": "请把原来的模型文件放回该路径，或开始一次新的检查",
    "resume.no_history": "--resume 需要历史数据库（请去掉 --no-history）",
    "resume.unknown": "历史记录中没有运行 {run_id!r}",
    "resume.unknown_hint": "`spec-advisor history` 会列出各次运行",
    "guard.arms": "两组服务器不是检查要测量的状态（{detail}），因此检查在预检后停止",
    "guard.no_step": "没有任何测量步骤成功（{failed}），因此没有可供判断的数据",
    "fault.arm.off": "关闭推测的",
    "fault.arm.on": "开启推测的",
    "fault.died": "{arm} llama-server 在“{step}”步骤中停止了（{how}；日志：{log}）",
    "fault.changed": "{arm}服务器在“{step}”步骤中被替换了（{lost}）",
    "fault.signal": "被 {signal} 终止",
    "fault.signal_n": "被信号 {n} 终止",
    "fault.exit": "退出码 {code}",
    "fault.join": "；",
    "fault.ended": "{reasons}；运行到此结束",
    "guard.prompts_too_long": ("有 {count} 条提示词放不进一个槽位的上下文：最长的有 {tokens} 个 token，而一个槽位只有 "
                               "{n_ctx} 个 token，除去 {answer} 个 token 的回答后只剩 {room} 个"),
    "guard.prompts_too_long_hint": "请使用更短的提示词，或更大的上下文（-- 之后的 -c，或服务器自己的 -c）",
}
