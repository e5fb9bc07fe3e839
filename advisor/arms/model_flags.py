"""Server options a model file needs before a check of it measures what it should (docs/engine-facts.md §1.8).

Two model-file facts change what llama-server does with every prompt, whatever the speculation:
- **No chat template in the file** (GGUF `tokenizer.chat_template` missing, as in the Gemma 3 270M package):
  llama-server formats every chat as ChatML, which a Gemma model never saw. It answers the ChatML markers with
  more of them ("<|im_start|>user …") and falls into repetition loops, so the A/B compares garbage and its
  loop guard withholds the verdict. For a family whose template llama-server has built in, the managed servers
  get it by name; on builds where Jinja is the default, a name counts only after `--no-jinja` (otherwise the
  name itself is taken as the template: every prompt became the word "gemma").
- **Sliding-window attention** (Gemma 2/3): the server keeps only the window's KV cache and re-processes the
  whole prompt instead of reusing a cached prefix, so the verify-cost step has nothing to time and every later
  turn of a chat pays its whole prefill. `--swa-full` keeps the full cache (more KV memory, the same compute).

The user's own choice always wins: any template option (or `--swa-full`) among the server options after `--`
leaves that part alone. What was added is recorded in the arms plan and said before the check measures.
"""

from __future__ import annotations

from collections.abc import Sequence

from advisor.evidence.arms import ModelFlags
from advisor.recommend.dialect import flag_name
from probes.model.info import ModelInfo

NO_JINJA = "--no-jinja"
CHAT_TEMPLATE = "--chat-template"
SWA_FULL = "--swa-full"
# Options that choose how chats are formatted: any of them means the user chose.
_TEMPLATE_FLAGS = frozenset({CHAT_TEMPLATE, "--chat-template-file", "--jinja", NO_JINJA})
# Built-in llama-server templates (`--chat-template` help: "list of built-in templates") by GGUF architecture,
# only for families whose template is not ChatML (ChatML is already the fallback).
BUILTIN_TEMPLATE = {"gemma": "gemma", "gemma2": "gemma", "gemma3": "gemma", "gemma3n": "gemma", "phi3": "phi3"}


def model_flags(info: ModelInfo, server_args: Sequence[str], known: frozenset[str] | None = None) -> ModelFlags:
    """The options `info`'s file needs that the user's `server_args` do not already choose; `known` is every
    flag the build's --help lists (None: not known, so every option is taken as understood)."""
    names = {flag_name(a) for a in server_args}

    def understood(*flags: str) -> bool:
        return known is None or not known or all(f in known for f in flags)

    args: list[str] = []
    template = None
    no_template = info.has_chat_template is False and not names & _TEMPLATE_FLAGS
    if no_template and (name := BUILTIN_TEMPLATE.get(info.architecture)) and understood(NO_JINJA, CHAT_TEMPLATE):
        template = name
        args += [NO_JINJA, CHAT_TEMPLATE, name]
    swa_full = bool(info.sliding_window) and SWA_FULL not in names and understood(SWA_FULL)
    if swa_full:
        args.append(SWA_FULL)
    return ModelFlags(tuple(args), template, no_template, swa_full)
