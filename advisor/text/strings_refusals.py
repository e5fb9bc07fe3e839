"""What `check` refuses before anything starts (docs/refusals.md), in English and Chinese (same keys and
placeholders, tested); merged into the string tables, so `advisor.report.strings.text` finds them."""

from __future__ import annotations

EN: dict[str, str] = {
    "refuse.option": "{flag} cannot be passed through to llama-server: {why}",
    "refuse.option_hint": "remove it from the options after -- (docs/refusals.md lists what is refused and why)",
    "refuse.spec_hint": "use --spec-type, --draft-model and --draft-max instead",
    "refuse.np_hint": "say how many requests you expect with --concurrency instead",
    "refuse.why.model": "the model is --model; a download or a second model would change what is measured",
    "refuse.why.address": "managed servers listen on 127.0.0.1, each on a free port spec-advisor chooses",
    "refuse.why.key": "managed servers are loopback-only and need no key",
    "refuse.why.cache": "the prompt cache across requests stays off so no arm answers from a warm cache",
    "refuse.why.poll": "polling is off so an idle arm does not steal the busy arm's cores",
    "refuse.why.spec": "speculation is what spec-advisor measures; the OFF arm must not speculate",
    "refuse.why.network": "it makes the server download or reach other machines, which a check never does",
    "refuse.why.files": "it makes the server serve, read or write files outside the run folder",
    "refuse.why.prompts": "it keeps the prompts (or the server's log of them) outside the run folder",
    "refuse.why.log": "spec-advisor reads the server's own log, at its own verbosity and format",
    "refuse.why.predict": "the answer length per request is part of the measurement (--quick or the full check)",
    "refuse.why.parallel": "the servers keep {slots} slots for the concurrency sweep; fewer or more changes the curve",
    "refuse.why.mode": "it changes what the server is or where it answers, so the check could not measure it",
    "refuse.ctx": ("-c {ctx} leaves {per_slot} tokens per slot ({slots} slots), less than the {need} tokens one answer "
                   "needs; no prompt could fit"),
    "refuse.ctx_hint": "give -c at least {least} (0 takes the model's own context), or leave -c out",
    "refuse.env": ("the environment sets {names}, which llama-server reads as options; spec-advisor cannot check "
                   "them, so it does not start servers with them"),
    "refuse.env_hint": "unset them (env -u NAME …) and pass what you need as options after --",
}

ZH: dict[str, str] = {
    "refuse.option": "{flag} 不能传给 llama-server：{why}",
    "refuse.option_hint": "请从 -- 之后的选项中去掉它（docs/refusals.md 列出了哪些选项被拒绝以及原因）",
    "refuse.spec_hint": "请改用 --spec-type、--draft-model 和 --draft-max",
    "refuse.np_hint": "请改用 --concurrency 说明你预计的同时请求数",
    "refuse.why.model": "模型由 --model 指定；下载或加载第二个模型会改变所测的对象",
    "refuse.why.address": "托管的服务器只监听 127.0.0.1，端口由 spec-advisor 选择空闲的",
    "refuse.why.key": "托管的服务器只在本机回环地址上，不需要密钥",
    "refuse.why.cache": "跨请求的提示缓存保持关闭，这样没有哪一组能用热缓存作答",
    "refuse.why.poll": "轮询保持关闭，这样空闲的一组不会占用忙碌一组的 CPU 核",
    "refuse.why.spec": "推测解码正是 spec-advisor 要测量的；关闭组不能进行推测",
    "refuse.why.network": "它会让服务器下载文件或连接其他机器，而检查从不这样做",
    "refuse.why.files": "它会让服务器在运行文件夹之外提供、读取或写入文件",
    "refuse.why.prompts": "它会在运行文件夹之外保存提示词（或服务器对提示词的日志）",
    "refuse.why.log": "spec-advisor 读取服务器自己的日志，使用它自己设定的详细程度和格式",
    "refuse.why.predict": "每个请求的回答长度是测量的一部分（--quick 或完整检查）",
    "refuse.why.parallel": "服务器为并发扫描保留 {slots} 个槽位；更少或更多都会改变曲线",
    "refuse.why.mode": "它改变了服务器的类型或应答的位置，检查将无法测量它",
    "refuse.ctx": ("-c {ctx} 使每个槽位（共 {slots} 个）只有 {per_slot} 个 token，少于一次回答所需的 {need} 个；"
                   "没有提示词能放得下"),
    "refuse.ctx_hint": "请把 -c 设为至少 {least}（0 表示使用模型自身的上下文），或者不指定 -c",
    "refuse.env": ("环境变量中设置了 {names}，llama-server 会把它们当作选项读取；spec-advisor 无法检查它们，"
                   "因此不会带着它们启动服务器"),
    "refuse.env_hint": "请取消这些变量（env -u 名称 …），并把需要的设置作为 -- 之后的选项传入",
}
