"""The user's own llama-server options (`check … -- -ngl 99 -fa on -c 8192`): checked, then given to both
managed arms and carried into the recommended command, so what is measured is what the user will run.

Names are compared as llama-server reads them (`flag_name`: `--spec_type` is `--spec-type`), so no spelling
the engine accepts slips past. What is refused, and why, is in docs/refusals.md; each reason has one key in
advisor/text/strings_refusals.py (English and Chinese).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from advisor.errors import UserError
from advisor.recommend.dialect import ENGINE_ENV_PREFIX, flag_name, is_spec_flag
from advisor.text import text

# Options spec-advisor sets itself on every managed server (advisor/arms/server.py `build_argv`), or that would
# make a check measure something else than it says, by the reason shown (refuse.why.<reason>).
_REFUSED: dict[str, str] = {
    **dict.fromkeys(("-m", "--model", "-mu", "--model-url", "-hf", "-hfr", "--hf-repo", "-hff", "--hf-file",
                     "-dr", "--docker-repo"), "model"),
    **dict.fromkeys(("--host", "--port", "--reuse-port"), "address"),
    **dict.fromkeys(("--api-key", "--api-key-file"), "key"),
    **dict.fromkeys(("--cache-ram", "-cram", "--cache-reuse"), "cache"),
    "--poll": "poll",
    # downloads and other machines: a Hugging Face token, a projector fetched by URL, tool and MCP servers
    **dict.fromkeys(("-hft", "--hf-token", "-mmu", "--mmproj-url", "--mcp-servers-config", "--mcp-servers-json",
                     "--ui-mcp-proxy", "--webui-mcp-proxy", "--no-ui-mcp-proxy", "--tools", "--tools-runtime",
                     "-ag", "--agent"), "network"),
    **dict.fromkeys(("--path", "--media-path", "--slot-save-path", "--models-dir", "--models-preset",
                     "--ssl-key-file", "--ssl-cert-file"), "files"),
    **dict.fromkeys(("--log-prompts-dir", "--log-file"), "prompts"),
    **dict.fromkeys(("-lv", "--verbosity", "--log-verbosity", "-v", "--verbose", "--log-verbose"), "log"),
    **dict.fromkeys(("-n", "--n-predict", "--predict"), "predict"),
    **dict.fromkeys(("-np", "--parallel"), "parallel"),
    **dict.fromkeys(("--embedding", "--embeddings", "--rerank", "--reranking", "--api-prefix", "--no-slots",
                     "--sleep-idle-seconds", "--models-max", "--models-autoload", "--no-models-autoload"), "mode"),
}
_LOG_PREFIX = "--log-"  # colours, prefixes, timestamps, JSON lines: the log spec-advisor parses changes shape
_CTX_FLAGS = frozenset({"-c", "--ctx-size"})
_HINTS = {"spec": "refuse.spec_hint", "parallel": "refuse.np_hint"}


def engine_env_options(environ: Mapping[str, str]) -> list[str]:
    """The variables in `environ` that llama-server would read as options, sorted."""
    return sorted(k for k in environ if k.startswith(ENGINE_ENV_PREFIX))


def check_engine_environment(environ: Mapping[str, str], *, lang: str = "en") -> None:
    """A UserError when the environment carries llama-server options a managed check would not see."""
    names = engine_env_options(environ)
    if names:
        raise UserError(text(lang, "refuse.env", names=", ".join(names)), hint=text(lang, "refuse.env_hint"))


def refusal_reason(arg: str) -> str | None:
    """The reason key (`refuse.why.<key>`) for which `arg` may not be passed through, or None when it may."""
    name = flag_name(arg)
    if is_spec_flag(arg):
        return "spec"
    if name in _REFUSED:
        return _REFUSED[name]
    if name.startswith(_LOG_PREFIX):
        return "log"
    return None


def check_server_args(args: Sequence[str], *, lang: str = "en", max_tokens: int = 0) -> tuple[str, ...]:
    """The arguments as given, or a UserError (in `lang`) naming the first one spec-advisor must refuse.

    `max_tokens`: the answer length of each measured request; a `-c` that leaves a slot less room than that is
    refused now, as no prompt could fit once the servers start.
    """
    from advisor.run.launch import MANAGED_SLOTS

    for i, arg in enumerate(args):
        reason = refusal_reason(arg)
        if reason is not None:
            why = text(lang, f"refuse.why.{reason}", slots=MANAGED_SLOTS)
            raise UserError(text(lang, "refuse.option", flag=arg.split("=", 1)[0], why=why),
                            hint=text(lang, _HINTS.get(reason, "refuse.option_hint")))
        if flag_name(arg) in _CTX_FLAGS and i + 1 < len(args):
            _check_ctx(args[i + 1], lang, max_tokens, MANAGED_SLOTS)
    return tuple(args)


def _check_ctx(value: str, lang: str, max_tokens: int, slots: int) -> None:
    """`-c N` splits N tokens over the managed servers' slots; each slot must hold at least one answer."""
    try:
        ctx = int(value)
    except ValueError:
        return  # not a number: llama-server's own message says so at launch
    if ctx <= 0:
        return  # 0: the model's own context; negative values the engine refuses itself
    need = max_tokens + 1  # one prompt token at the very least
    if ctx // slots < need:
        raise UserError(text(lang, "refuse.ctx", ctx=ctx, per_slot=ctx // slots, need=need, slots=slots),
                        hint=text(lang, "refuse.ctx_hint", least=need * slots))
