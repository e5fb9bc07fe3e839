"""A minimal YAML reader for the subset Kubernetes manifests use (no PyYAML dependency).

Supported: several documents (`---`), block mappings and sequences (including `- key: value` items),
comments, plain / single-quoted / double-quoted scalars on one line, flow collections (`[a, "b"]`,
`{k: v}`) on one line, and block scalars (`|`, `>` with `-`/`+` chomping). Plain scalars resolve by the
YAML 1.2 core schema (`yes`/`on` stay strings). Anything else — anchors, aliases, tags, `?` keys,
quoted or plain scalars spanning lines, tabs in indentation, indentation indicators — raises
YamlSubsetError naming the line, so a manifest is never half-understood.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from advisor.deploy.base import DeployError
from advisor.deploy.yaml_scalars import double_quoted, resolve, single_quoted


class YamlSubsetError(DeployError):
    """The text uses YAML this reader does not support, or is not valid YAML."""

    def __init__(self, message: str, line: int | None = None) -> None:
        where = f"line {line}: " if line is not None else ""
        super().__init__(f"manifest {where}{message}",
                         hint="spec-advisor reads plain block-style YAML (maps, lists, scalars, comments); "
                              "without --manifest it prints a patch you can merge yourself")
        self.line = line


@dataclass(frozen=True, slots=True)
class Document:
    """One YAML document: its value and the 0-based raw line range [start, end) it spans."""

    start: int
    end: int
    value: object


@dataclass(frozen=True, slots=True)
class _Line:
    no: int            # 1-based, for messages
    indent: int
    text: str          # comment-stripped content ("-" for a sequence-entry marker)
    block: str | None  # the folded/literal text when the value is a block scalar


_BLOCK = re.compile(r"([|>])([+-]?)")
_DOC_START = re.compile(r"---(?:\s+#.*)?\s*")


def strip_comment(line: str, no: int) -> str:
    """The line without its comment; quotes are honoured only where a quoted scalar can start."""
    quote = ""
    prev = ""  # previous non-space character outside quotes
    i = 0
    while i < len(line):
        ch = line[i]
        if quote == '"':
            if ch == "\\":
                i += 1
            elif ch == '"':
                quote = ""
        elif quote == "'":
            if ch == "'" and line[i + 1:i + 2] == "'":
                i += 1
            elif ch == "'":
                quote = ""
        elif ch in "\"'" and (prev in ("", "-", ":", "[", "{", ",", "?")):
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i].rstrip()
        if not quote and not ch.isspace():
            prev = ch
        i += 1
    if quote:
        raise YamlSubsetError("a quoted string continues on the next line (not supported)", no)
    return line.rstrip()


def split_key(text: str, no: int) -> tuple[str, str] | None:
    """`key: rest` → (key, rest); None when the text is not a mapping entry."""
    if text.startswith("? ") or text == "?":
        raise YamlSubsetError("complex '?' keys are not supported", no)
    if text and text[0] in "\"'":
        parse = double_quoted if text[0] == '"' else single_quoted
        key, end = parse(text, 0, no)
        rest = text[end:].lstrip()
        if rest.startswith(":") and (len(rest) == 1 or rest[1] == " "):
            return key, rest[1:].strip()
        return None
    if text and text[0] in "[{":
        return None
    match = re.search(r":(?: |$)", text)
    if match is None or match.start() == 0:
        return None
    return text[:match.start()].rstrip(), text[match.end():].strip()


def _block_text(body: list[str], style: str, chomp: str) -> str:
    trailing = 0
    while body and body[-1] == "":
        body.pop()
        trailing += 1
    if style == "|":
        text = "\n".join(body)
    else:  # folded: a break between two ordinary lines becomes a space (YAML 1.2 §8.1.3)
        parts: list[str] = []
        for i, line in enumerate(body):
            parts.append(line)
            if i + 1 < len(body):
                nxt = body[i + 1]
                normal = line and not line[0].isspace()
                if normal and nxt and not nxt[0].isspace():
                    parts.append(" ")
                elif not (normal and nxt == ""):
                    parts.append("\n")
        text = "".join(parts)
    if chomp == "-" or not body:
        return text if chomp != "+" else text + "\n" * trailing
    return text + "\n" + ("\n" * trailing if chomp == "+" else "")


def _lines(raw: list[str], first_no: int) -> list[_Line]:
    out: list[_Line] = []
    i = 0
    while i < len(raw):
        no, line = first_no + i, raw[i]
        i += 1
        stripped = line.lstrip(" ")
        if stripped.startswith("\t") and stripped.strip():
            raise YamlSubsetError("tab used for indentation", no)
        text = strip_comment(stripped, no)
        if not text:
            continue
        indent = len(line) - len(stripped)
        while text == "-" or text.startswith("- "):  # "- a: b" → an entry marker plus "a: b" two further in
            out.append(_Line(no, indent, "-", None))
            rest = text[1:]
            indent += 1 + len(rest) - len(rest.lstrip(" "))
            text = rest.lstrip(" ")
            if not text:
                break
        if not text:
            continue
        kv = split_key(text, no)
        value = kv[1] if kv else text
        block: str | None = None
        if value and value[0] in "|>":
            match = _BLOCK.fullmatch(value)
            if match is None:
                raise YamlSubsetError(f"block scalar header {value!r} is not supported", no)
            body, i = _block_body(raw, i, indent, first_no)
            block = _block_text(body, match.group(1), match.group(2))
        out.append(_Line(no, indent, text, block))
    return out


def _block_body(raw: list[str], i: int, parent: int, first_no: int) -> tuple[list[str], int]:
    body: list[str] = []
    content: int | None = None
    while i < len(raw):
        line = raw[i]
        if not line.strip():
            body.append("")
            i += 1
            continue
        indent = len(line) - len(line.lstrip(" "))
        if indent <= parent:
            break
        if content is None:
            content = indent
        elif indent < content:
            raise YamlSubsetError("block scalar line is less indented than its first line", first_no + i)
        body.append(line[content:])
        i += 1
    return body, i


class _Parser:
    def __init__(self, lines: list[_Line]) -> None:
        self.lines = lines

    def node(self, i: int) -> tuple[object, int]:
        line = self.lines[i]
        if line.text == "-":
            return self.seq(i, line.indent)
        if split_key(line.text, line.no) is not None:
            return self.map(i, line.indent)
        return self.inline(line), i + 1

    def inline(self, line: _Line) -> object:
        if line.block is not None:
            return line.block
        kv = split_key(line.text, line.no)
        return value_of(kv[1] if kv else line.text, line.no)

    def map(self, i: int, indent: int) -> tuple[dict[object, object], int]:
        out: dict[object, object] = {}
        lines = self.lines
        while i < len(lines) and lines[i].indent == indent and lines[i].text != "-":
            line = lines[i]
            kv = split_key(line.text, line.no)
            if kv is None:
                raise YamlSubsetError(f"expected 'key: value', found {line.text!r}", line.no)
            key = kv[0] if line.text[0] in "\"'" else resolve(kv[0])
            if key in out:
                raise YamlSubsetError(f"duplicate key {kv[0]!r}", line.no)
            i += 1
            value: object = None
            if kv[1] or line.block is not None:
                value = self.inline(line)
            elif i < len(lines) and lines[i].indent > indent:
                value, i = self.node(i)
            elif i < len(lines) and lines[i].indent == indent and lines[i].text == "-":
                value, i = self.seq(i, indent)
            out[key] = value
        return out, i

    def seq(self, i: int, indent: int) -> tuple[list[object], int]:
        out: list[object] = []
        lines = self.lines
        while i < len(lines) and lines[i].indent == indent and lines[i].text == "-":
            i += 1
            value: object = None
            if i < len(lines) and lines[i].indent > indent:
                value, i = self.node(i)
            out.append(value)
        return out, i


def value_of(text: str, no: int) -> object:
    """One inline value: quoted or plain scalar, or a one-line flow collection."""
    from advisor.deploy.yaml_flow import flow_value  # flow parsing lives apart to keep files small

    if not text:
        return None
    if text[0] in "&*!%@`":
        raise YamlSubsetError(f"anchors, aliases, tags and directives are not supported ({text[:20]!r})", no)
    if text[0] in "\"'[{":
        value, end = flow_value(text, 0, no)
        if text[end:].strip():
            raise YamlSubsetError(f"unexpected text after a value: {text[end:].strip()!r}", no)
        return value
    if re.search(r": |:$", text):
        raise YamlSubsetError("a plain value may not contain ': ' (quote it)", no)
    return resolve(text)


def load_documents(text: str) -> list[Document]:
    """Every document with its line range; an empty implicit first document is left out."""
    raw = text.removeprefix("\ufeff").splitlines()  # a UTF-8 BOM is not part of the first key
    docs: list[Document] = []
    start, explicit = 0, False
    for idx in range(len(raw) + 1):
        at_end = idx == len(raw)
        if not at_end:
            line = raw[idx]
            if line.startswith("%"):
                raise YamlSubsetError("YAML directives are not supported", idx + 1)
            if line.startswith("---") and not _DOC_START.fullmatch(line):
                raise YamlSubsetError("content on the '---' line is not supported", idx + 1)
            if not (_DOC_START.fullmatch(line) or line.rstrip() == "..."):
                continue
        lines = _lines(raw[start:idx], start + 1)
        if lines or explicit:
            value: object = None
            if lines:
                value, used = _Parser(lines).node(0)
                if used < len(lines):
                    bad = lines[used]
                    raise YamlSubsetError(f"unexpected indentation or content: {bad.text!r}", bad.no)
            docs.append(Document(start, idx, value))
        if not at_end:
            explicit = raw[idx].startswith("---")
            start = idx + 1
    return docs


def load_all(text: str) -> list[object]:
    """The values of every document (like PyYAML's safe_load_all for the supported subset)."""
    return [d.value for d in load_documents(text)]
