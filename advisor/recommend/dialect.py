"""What llama-server flags each dialect knows, and which arguments are speculative (engine-facts.md §1.6).

Two jobs: `unknown_flags` stops a recommendation from carrying a flag the probed build would reject
(new builds hard-error on the removed `--draft-max` / `--spec-ngram-size-n`; old builds do not know
`--spec-draft-*`), and `strip_spec_args` removes every speculative argument from an existing argument
list (llama.cpp, vLLM and SGLang spellings) so a manifest can be switched off or re-written cleanly.
"""

from __future__ import annotations

from collections.abc import Sequence

# Removed by PR #22397: a current build fails with "the argument has been removed".
REMOVED_IN_NEW = frozenset({
    "--draft", "--draft-n", "--draft-max", "--draft-min", "--draft-n-min",
    "--spec-ngram-size-n", "--spec-ngram-size-m", "--spec-ngram-min-hits",
})
# The only `--spec-*` flags pre-refactor builds have; every other `--spec-*` flag is new-only.
OLD_SPEC_FLAGS = frozenset({
    "--spec-type", "--spec-replace", "--spec-ngram-size-n", "--spec-ngram-size-m", "--spec-ngram-min-hits",
})
# Speculative flags both generations accept (aliases kept by the refactor).
SHARED_FLAGS = frozenset({"-md", "--model-draft", "--draft-p-min", "--draft-p-split", "-ngld",
                          "--gpu-layers-draft", "--n-gpu-layers-draft"})
# Old-only speculative flags that are not in REMOVED_IN_NEW but were renamed (-cd has no new spelling).
OLD_ONLY = frozenset({"-cd", "--ctx-size-draft"})

# Speculative flags that take no value, and the one that takes two; all others take one.
_NO_VALUE = frozenset({"--spec-default", "--spec-draft-cpu-moe", "--spec-draft-backend-sampling",
                       "--no-spec-draft-backend-sampling", "-cmoed", "--cpu-moe-draft",
                       "--speculative-adaptive"})  # SGLang's per-batch-size steps switch (engine_schedule.py)
_TWO_VALUES = frozenset({"--spec-replace"})
_SPEC_NAMES = frozenset({
    "-md", "--model-draft", "-hfd", "-hfrd", "--hf-repo-draft", "-ngld", "--gpu-layers-draft",
    "--n-gpu-layers-draft", "-devd", "--device-draft", "-ctkd", "--cache-type-k-draft", "-ctvd",
    "--cache-type-v-draft", "-td", "--threads-draft", "-tbd", "--threads-batch-draft", "-cd", "--ctx-size-draft",
    "-otd", "--override-tensor-draft", "-ncmoed", "--n-cpu-moe-draft", "-lcs", "--lookup-cache-static", "-lcd",
    "--lookup-cache-dynamic",
    # vLLM (engine-facts.md §2) and its pre-`--speculative-config` spellings
    "-sc", "--num-speculative-tokens", "--ngram-prompt-lookup-max", "--ngram-prompt-lookup-min",
}) | _NO_VALUE | _TWO_VALUES
_SPEC_PREFIXES = ("--spec-", "--draft", "--speculative-")  # llama.cpp, old llama.cpp, vLLM/SGLang

# llama-server reads every option also from LLAMA_ARG_<NAME> (`LLAMA_ARG_SPEC_TYPE=ngram-mod` would make the
# OFF arm speculate); managed servers start without them (advisor/arms/server.py) and a check names them first.
ENGINE_ENV_PREFIX = "LLAMA_ARG_"


def flag_name(arg: str) -> str:
    """The option's name as llama-server reads it: `--flag=value` → `--flag`, and in a long option every `_` is
    a `-` (`--spec_type` → `--spec-type`: common/arg.cpp rewrites `_` to `-` in every argument that starts with
    `--` before looking it up; short options keep theirs). Anything else unchanged."""
    return arg.split("=", 1)[0].replace("_", "-") if arg.startswith("--") else arg


def is_spec_flag(arg: str) -> bool:
    """True for any argument that configures speculative decoding in llama.cpp, vLLM or SGLang."""
    name = flag_name(arg)
    return name in _SPEC_NAMES or name.startswith(_SPEC_PREFIXES)


def _looks_like_flag(arg: str) -> bool:
    # "-1" (a negative number) is a value; "-md" or "--port" is a flag
    return len(arg) > 1 and arg[0] == "-" and (arg[1].isalpha() or arg[1] == "-")


def strip_spec_args(args: Sequence[str]) -> tuple[list[str], list[str]]:
    """Split `args` into (kept, removed): every speculative flag goes, with the values it takes."""
    kept: list[str] = []
    removed: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if not is_spec_flag(arg):
            kept.append(arg)
            i += 1
            continue
        name = flag_name(arg)
        arity = 0 if "=" in arg and arg.startswith("--") else 2 if name in _TWO_VALUES else \
            0 if name in _NO_VALUE else 1
        take = 1
        for _ in range(arity):
            if i + take < len(args) and not _looks_like_flag(args[i + take]):
                take += 1
        removed.extend(args[i:i + take])
        i += take
    return kept, removed


def unknown_flags(argv: Sequence[str], generation: str) -> list[str]:
    """Speculative flags in `argv` that a llama-server of this flag generation does not accept."""
    bad: list[str] = []
    for arg in argv:
        if not _looks_like_flag(arg) or not is_spec_flag(arg):
            continue
        name = flag_name(arg)
        if generation == "new":
            wrong = name in REMOVED_IN_NEW or name in OLD_ONLY
        elif generation == "old":
            wrong = name.startswith("--spec-") and name not in OLD_SPEC_FLAGS
        else:  # unknown dialect: only the flags both generations share are safe
            wrong = name not in SHARED_FLAGS
        if wrong:
            bad.append(name)
    return bad
