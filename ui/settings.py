"""UI settings (just the language for now) in `config_dir()/ui.json`, so tests stay isolated through
SPEC_ADVISOR_CONFIG_DIR and nothing lands in the platform's QSettings store."""

from __future__ import annotations

import json
from pathlib import Path

from advisor import paths
from advisor.atomic import write_atomic


def _path() -> Path:
    return paths.config_dir() / "ui.json"


def saved_language() -> str | None:
    """The language chosen last time, or None."""
    try:
        data = json.loads(_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    lang = data.get("lang") if isinstance(data, dict) else None
    return lang if lang in ("en", "zh") else None


def save_language(lang: str) -> None:
    """Remember the language; a settings file that cannot be written is not worth an error."""
    try:
        _path().parent.mkdir(parents=True, exist_ok=True)
        write_atomic(_path(), json.dumps({"lang": lang}))
    except OSError:
        pass
