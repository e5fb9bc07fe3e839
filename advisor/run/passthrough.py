"""The user's own llama-server options (`check … -- -ngl 99 -fa on -c 8192`): checked, then given to both
managed arms and carried into the recommended command, so what is measured is what the user will run."""

from __future__ import annotations

from collections.abc import Sequence

from advisor.errors import UserError
from advisor.recommend.dialect import flag_name, is_spec_flag

# Options spec-advisor sets itself on every managed server (run/engine_runner.py `build_argv`): the model and
# address it measures, and the settings that keep the comparison fair. A user's value would break one or the other.
_OWNED = {
    "-m": "the model is --model", "--model": "the model is --model", "-mu": "the model is --model",
    "--model-url": "the model is --model", "-hf": "the model is --model", "-hfr": "the model is --model",
    "--hf-repo": "the model is --model", "-hff": "the model is --model", "--hf-file": "the model is --model",
    "--host": "managed servers listen on 127.0.0.1", "--port": "each managed server gets a free port",
    "--api-key": "managed servers are loopback-only and need no key",
    "--api-key-file": "managed servers are loopback-only and need no key",
    "--cache-ram": "the host prompt cache is off so no arm answers from a warm cache",
    "-cram": "the host prompt cache is off so no arm answers from a warm cache",
    "--poll": "polling is off so an idle arm does not steal the busy arm's cores",
}


def check_server_args(args: Sequence[str]) -> tuple[str, ...]:
    """The arguments as given, or a UserError naming the first one spec-advisor must set itself."""
    for arg in args:
        name = flag_name(arg)
        if name in _OWNED:
            raise UserError(f"{name} cannot be passed through: {_OWNED[name]}",
                            hint="remove it from the arguments after --")
        if is_spec_flag(arg):
            raise UserError(f"{name} cannot be passed through: speculation is what spec-advisor measures",
                            hint="use --spec-type, --draft-model and --draft-max instead")
    return tuple(args)
