"""Read the user's own prompts: plain text, JSONL with prompt/text, or OpenAI-style chat JSONL."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Final, Literal

from advisor.userfile import read_user_file
from advisor.workloads.chat import last_user_text, parse_messages
from advisor.workloads.errors import WorkloadError
from advisor.workloads.model import USER_CATEGORY, Message, Prompt
from advisor.workloads.splits import assign_splits

FileFormat = Literal["text", "jsonl"]
_JSONL_SUFFIXES: Final = frozenset({".jsonl", ".ndjson", ".json"})
_TEXT_SUFFIXES: Final = frozenset({".txt", ".text", ".md"})
# Tab, newline and carriage return are ordinary text; other C0 controls and DEL are almost always a
# binary or corrupted file, and NUL truncates strings in some engines.
_ALLOWED_CONTROLS: Final = frozenset("\t\n\r")


def load_user_prompts(path: str | os.PathLike[str]) -> tuple[Prompt, ...]:
    """Prompts from `path` in file order, with ids, categories and a deterministic split.

    The format follows the suffix (.txt text, .jsonl/.json JSONL), else the first non-blank line: a line
    starting with `{` means JSONL. Nothing is de-duplicated here; pass the result to `dedupe`.
    """
    file = Path(path)
    lines = _read_text(file).split("\n")
    fmt = detect_format(file, lines)
    prompts = _parse_jsonl(file, lines) if fmt == "jsonl" else _parse_text(file, lines)
    if not prompts:
        raise WorkloadError(f"{file} has no prompts: every line is blank")
    _check_unique_ids(file, prompts)
    return assign_splits(prompts)


def detect_format(file: Path, lines: list[str]) -> FileFormat:
    """Which parser to use for `file` (see `load_user_prompts`)."""
    suffix = file.suffix.lower()
    if suffix in _JSONL_SUFFIXES:
        return "jsonl"
    if suffix in _TEXT_SUFFIXES:
        return "text"
    first = next((line.strip() for line in lines if line.strip()), "")
    return "jsonl" if first.startswith("{") else "text"


# A few thousand prompts fit in a few MB; a file far larger is a mistake (a log, a dataset dump).
MAX_PROMPT_FILE_BYTES = 16 * 1024 * 1024


def _read_text(file: Path) -> str:
    if not file.exists():
        raise WorkloadError(f"prompt file not found: {file}", hint="check the path")
    if not file.is_file():
        raise WorkloadError(f"{file} is not a file", hint="give the path of a .txt or .jsonl prompt file")
    try:
        data = read_user_file(file, MAX_PROMPT_FILE_BYTES)
    except OSError as exc:
        raise WorkloadError(f"cannot read {file}: {exc.strerror or exc}") from None
    if len(data) > MAX_PROMPT_FILE_BYTES:
        raise WorkloadError(f"{file} is over {MAX_PROMPT_FILE_BYTES // 1024 // 1024} MB",
                            hint="a prompt set of a few hundred prompts takes well under a megabyte")
    try:
        text = data.decode("utf-8-sig")  # tolerate the BOM some Windows editors write
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise WorkloadError(
            f"{file} is not UTF-8 text (byte 0x{data[exc.start]:02x} on line {line})",
            hint="save the file as UTF-8",
        ) from exc
    if not text.strip():
        raise WorkloadError(f"{file} is empty", hint="put one prompt per line, or one JSON object per line")
    return text


def _parse_text(file: Path, lines: list[str]) -> list[Prompt]:
    prompts: list[Prompt] = []
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if text:
            _check_text(text, f"{file}, line {number}")
            prompts.append(_user_prompt(f"user-{len(prompts) + 1:04d}", USER_CATEGORY, text))
    return prompts


def _parse_jsonl(file: Path, lines: list[str]) -> list[Prompt]:
    prompts: list[Prompt] = []
    for number, line in enumerate(lines, start=1):
        if line.strip():
            prompts.append(_parse_record(line, f"{file}, line {number}", f"user-{len(prompts) + 1:04d}"))
    return prompts


def _parse_record(line: str, where: str, default_id: str) -> Prompt:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise WorkloadError(
            f"{where}: not valid JSON ({exc.msg} at column {exc.colno})",
            hint="JSONL needs one complete JSON object per line",
        ) from exc
    except RecursionError:
        raise WorkloadError(f"{where}: not usable JSON (nested too deeply)") from None
    except ValueError:  # Python refuses integers of more than 4300 digits
        raise WorkloadError(f"{where}: not usable JSON (a number has thousands of digits)") from None
    if not isinstance(record, dict):
        raise WorkloadError(f"{where}: expected a JSON object, got {type(record).__name__}")
    prompt_id = _optional_str(record, "id", where) or default_id
    category = _optional_str(record, "category", where) or USER_CATEGORY
    if "messages" in record:
        messages = parse_messages(record["messages"], where)
        for message in messages:
            _check_text(message.content, where)
        return _user_prompt(prompt_id, category, last_user_text(messages), messages)
    field = "prompt" if "prompt" in record else "text"
    text = record.get(field)
    if not isinstance(text, str) or not text.strip():
        raise WorkloadError(f'{where}: needs a non-empty "prompt" or "text" string, or "messages"')
    _check_text(text, where)
    return _user_prompt(prompt_id, category, text.strip())


def _optional_str(record: dict[str, object], key: str, where: str) -> str | None:
    value = record.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise WorkloadError(f'{where}: "{key}" must be a string')
    return str(value).strip() or None


def _check_text(text: str, where: str) -> None:
    bad = next((c for c in text if (c < " " or c == "\x7f") and c not in _ALLOWED_CONTROLS), None)
    if bad is not None:
        raise WorkloadError(f"{where}: contains the control character U+{ord(bad):04X}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate, which JSON escapes like "\ud800" can produce
        raise WorkloadError(f"{where}: contains an invalid character (lone surrogate)") from exc


def _user_prompt(prompt_id: str, category: str, text: str, messages: tuple[Message, ...] | None = None) -> Prompt:
    # "profile" is a placeholder: load_user_prompts assigns the real split once all prompts are read.
    return Prompt(prompt_id, category, text, "profile", "user", messages)


def _check_unique_ids(file: Path, prompts: list[Prompt]) -> None:
    counts = Counter(p.id for p in prompts)
    repeated = sorted(i for i, n in counts.items() if n > 1)
    if repeated:
        raise WorkloadError(f"{file}: prompt ids must be unique; repeated: {', '.join(repeated)}")
