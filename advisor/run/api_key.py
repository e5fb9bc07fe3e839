"""Where an engine's API key may come from on the command line: never the command line itself (shell history
and `ps` would keep it), but the SPEC_ADVISOR_API_KEY variable, a file, or the engine URL's user-info."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from advisor.errors import UserError
from advisor.userfile import read_user_file

ENV_VAR = "SPEC_ADVISOR_API_KEY"
MAX_KEY_FILE_BYTES = 4096


def add_api_key_options(p: argparse.ArgumentParser) -> None:
    """`--api-key-file`; the variable and URL user-info need no option."""
    p.add_argument("--api-key-file", type=Path,
                   help=f"file holding the engine's API key (or set {ENV_VAR}, or use http://KEY@host:port)")


def api_key_from(args: argparse.Namespace) -> str | None:
    """The key from --api-key-file, else the environment; None when neither is set (the URL may carry one)."""
    path: Path | None = getattr(args, "api_key_file", None)
    if path is not None:
        try:
            raw = read_user_file(path, MAX_KEY_FILE_BYTES)
        except OSError as exc:
            raise UserError(f"cannot read the API key file {path}: {exc.strerror or exc}") from None
        if len(raw) > MAX_KEY_FILE_BYTES:
            raise UserError(f"{path} is too large to be an API key file")
        key = raw.decode("utf-8", "replace").strip()
        if not key:
            raise UserError(f"the API key file {path} is empty")
        return key
    return os.environ.get(ENV_VAR) or None
