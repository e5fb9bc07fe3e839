"""What llama-server can load: one GGUF file. Anything else named as a model gets a message that says what it is.

A Hugging Face folder (config.json, *.safetensors) is a model, just not one llama-server reads: "model file not
found" would send the user looking for a typo. `probe` still describes such folders; `check` cannot run them.
"""

from __future__ import annotations

import stat
from pathlib import Path

from advisor.errors import UserError

_HF_MARKERS = ("config.json", "model.safetensors", "model.safetensors.index.json")


def is_hf_folder(path: Path) -> bool:
    """A folder holding Hugging Face weights or their config."""
    try:
        return path.is_dir() and (any((path / m).exists() for m in _HF_MARKERS)
                                  or next(path.glob("*.safetensors"), None) is not None)
    except OSError:
        return False


def require_gguf(path: Path, what: str = "model") -> None:
    """Raise a UserError unless `path` is a regular file llama-server could load (its content is checked by
    the model probe). `what`: "model" or "draft model", for the message and the option."""
    option = "--draft-model" if what == "draft model" else "--model"
    if is_hf_folder(path):
        raise UserError(f"{path} is a Hugging Face model folder (config.json / safetensors weights); "
                        f"llama-server loads one GGUF file",
                        hint=f"pass {option} FILE.gguf: download a GGUF build of this model, or convert the folder "
                             "with llama.cpp's convert_hf_to_gguf.py")
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise UserError(f"{what} file not found: {path}", hint=f"pass {option} FILE.gguf") from None
    except OSError as exc:
        raise UserError(f"cannot read the {what} {path}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(mode):
        raise UserError(f"{path} is a folder, not a {what} file", hint=f"pass {option} FILE.gguf")
    if not stat.S_ISREG(mode):
        raise UserError(f"{path} is not a regular file (a pipe or device cannot be a {what})",
                        hint=f"pass {option} FILE.gguf")
