"""Read a user's Kubernetes manifest with PyYAML's pure-Python safe loader; refuse what could mislead an edit.

Values resolve by the YAML 1.2 core schema (`yes`/`on` stay strings, `0o17` is octal), the schema the emitter in
`yaml_emit` writes for. Nothing but str, int, float, bool, None, list and dict is ever built (no tags, so no
object construction). Each document keeps its composed node, whose start/end marks let `llmkube` rewrite
`spec.extraArgs` in the text and leave every other byte alone.

Refused, each as a ManifestYamlError naming the line:
- anchors and aliases: an edit of one node would show up wherever it is aliased (and `*a` bombs explode);
- tags and `%` directives: a tag changes what a value means; `%TAG` redefines tags;
- explicit `?` keys, non-scalar keys and duplicate keys: which `extraArgs` would be edited is then unclear;
- more than MAX_CHARS characters, MAX_NODES values or MAX_DEPTH levels of nesting: a hostile file ends quickly;
- strings other than `|`/`>` block scalars that span lines, and block indentation indicators (`|2`): the
  first, hand-written reader refused them and its tests pin that; they do not endanger the edit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, Protocol

from yaml.composer import Composer
from yaml.constructor import BaseConstructor
from yaml.error import MarkedYAMLError, YAMLError
from yaml.events import AliasEvent, CollectionStartEvent, NodeEvent, ScalarEvent
from yaml.nodes import MappingNode, Node, ScalarNode
from yaml.parser import Parser
from yaml.reader import Reader, ReaderError
from yaml.resolver import BaseResolver
from yaml.scanner import Scanner

from advisor.deploy.base import DeployError

# An InferenceService manifest is a few KiB; the pure-Python loader reads ~0.5 MB/s on a slow core, and the
# edit reads the text twice, so 256 Ki characters bound a refusal or a result to about a second.
MAX_CHARS = 256 * 1024
# Keys and values: the test fixture (two objects) has 122, a 256 KiB file of such objects ~25000. A value costs
# ~20 µs, so this cap ends a file dense with tiny values (`[1,1,1,…]`) within about 0.7 s.
MAX_NODES = 32_768
# Kubernetes objects nest about ten levels (spec.template.spec.containers[].env[].valueFrom...); 64 leaves room
# and keeps the recursive composer far from Python's recursion limit.
MAX_DEPTH = 64
_TAG = "tag:yaml.org,2002:"
_INDENT_INDICATOR = re.compile(r"[|>][+-]?[1-9]|[|>][1-9]")


class ManifestYamlError(DeployError):
    """The manifest is not valid YAML, or uses YAML this reader refuses."""

    def __init__(self, message: str, line: int | None = None) -> None:
        where = f"line {line}: " if line is not None else ""
        super().__init__(f"manifest {where}{message}",
                         hint="fix the manifest, or run without --manifest to get a patch you can merge yourself")
        self.line = line


@dataclass(frozen=True, slots=True)
class Document:
    """One YAML document: its composed node (marks index into the text) and its plain value."""

    node: Node
    value: object


class _Mark(Protocol):
    line: int  # 0-based


class _Refused(Exception):
    def __init__(self, message: str, mark: _Mark | None) -> None:
        super().__init__(message)
        self.line = mark.line + 1 if mark is not None else None


class _Resolver(BaseResolver):
    pass


_Resolver.yaml_implicit_resolvers = {}  # start empty: BaseResolver's subclasses carry YAML 1.1's
for _kind, _pattern, _first in (  # YAML 1.2.2 §10.3.2 (core schema); int before float, which also matches ints
    ("null", r"(?:~|null|Null|NULL|)\Z", ["~", "n", "N", ""]),
    ("bool", r"(?:true|True|TRUE|false|False|FALSE)\Z", list("tTfF")),
    ("int", r"(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)\Z", list("-+0123456789")),
    ("float", r"(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|"
              r"\.(?:nan|NaN|NAN))\Z", list("-+.0123456789")),
):
    _Resolver.add_implicit_resolver(_TAG + _kind, re.compile(_pattern), _first)


class _Constructor(BaseConstructor):
    yaml_constructors: ClassVar[dict[str | None, object]] = {}

    def _text(self, node: Node) -> str:
        assert isinstance(node, ScalarNode)  # the resolver gives these tags to scalars only
        return self.construct_scalar(node)

    def build_null(self, node: Node) -> None:
        return None

    def build_bool(self, node: Node) -> bool:
        return self._text(node).lower() == "true"

    def build_int(self, node: Node) -> int:
        text = self._text(node)
        try:
            base = 8 if text.startswith("0o") else 16 if text.startswith("0x") else 10
            return int(text[2:] if base != 10 else text, base)
        except ValueError as exc:  # more digits than Python converts (sys.get_int_max_str_digits)
            raise _Refused(f"number too long ({len(text)} digits)", node.start_mark) from exc

    def build_float(self, node: Node) -> float:
        text = self._text(node).lower()
        if text.endswith(".inf"):
            return float("-inf") if text.startswith("-") else float("inf")
        return float("nan") if text == ".nan" else float(text)

    def build_str(self, node: Node) -> str:
        return self._text(node)

    def build_list(self, node: Node) -> object:
        data: list[object] = []
        yield data  # filled after yielding, so deep nesting never recurses here
        data.extend(self.construct_object(child) for child in node.value)

    def build_dict(self, node: Node) -> object:
        data: dict[object, object] = {}
        yield data
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=True)
            if key in data:
                raise _Refused(f"duplicate key {key!r}", key_node.start_mark)
            data[key] = self.construct_object(value_node)


_Constructor.yaml_constructors.update({
    _TAG + "null": _Constructor.build_null, _TAG + "bool": _Constructor.build_bool,
    _TAG + "int": _Constructor.build_int, _TAG + "float": _Constructor.build_float,
    _TAG + "str": _Constructor.build_str, _TAG + "seq": _Constructor.build_list,
    _TAG + "map": _Constructor.build_dict})


class _Loader(Reader, Scanner, Parser, Composer, _Constructor, _Resolver):
    """PyYAML's pure-Python pipeline with the refusals above hooked into the scanner and composer."""

    def __init__(self, text: str) -> None:
        Reader.__init__(self, text)
        Scanner.__init__(self)
        Parser.__init__(self)
        Composer.__init__(self)
        _Constructor.__init__(self)
        _Resolver.__init__(self)
        self.text = text
        self.depth = 0
        self.nodes = 0

    def fetch_key(self) -> None:  # the scanner calls this only for an explicit `?` key indicator
        raise _Refused("explicit '?' keys are not supported", self.get_mark())

    def fetch_directive(self) -> None:
        raise _Refused("YAML directives (%YAML, %TAG) are not supported", self.get_mark())

    def compose_node(self, parent: Node | None, index: int) -> Node | None:
        event = self.peek_event()
        if isinstance(event, AliasEvent) or (isinstance(event, NodeEvent) and event.anchor is not None):
            raise _Refused("anchors and aliases (&name, *name) are not supported", event.start_mark)
        if isinstance(event, ScalarEvent | CollectionStartEvent) and event.tag is not None:
            raise _Refused(f"tags are not supported ({event.tag})", event.start_mark)
        self.depth += 1
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise _Refused(f"holds more than {MAX_NODES} values (pass a file with just the InferenceService)",
                           event.start_mark)
        if self.depth > MAX_DEPTH:
            raise _Refused(f"nested more than {MAX_DEPTH} levels deep", event.start_mark)
        try:
            node = super().compose_node(parent, index)
        finally:
            self.depth -= 1
        self._check(node)
        return node

    def _check(self, node: Node | None) -> None:
        if isinstance(node, ScalarNode):
            if node.style in ("|", ">"):
                if _INDENT_INDICATOR.match(self.text, node.start_mark.index):
                    raise _Refused("block scalar indentation indicators (|2) are not supported", node.start_mark)
            elif node.start_mark.line != node.end_mark.line:
                kind = "a quoted string" if node.style else "a plain string"
                raise _Refused(f"{kind} continues on the next line (not supported; use | or >)", node.start_mark)
        elif isinstance(node, MappingNode):
            for key, _ in node.value:
                if not isinstance(key, ScalarNode):
                    raise _Refused("a key that is a list or mapping is not supported", key.start_mark)


def _message(exc: MarkedYAMLError) -> str:
    problem = exc.problem or exc.context or "not valid YAML"
    if "'\\t'" in problem:
        problem = "a tab where YAML needs spaces (indent with spaces, not tabs)"
    if exc.context and exc.problem and exc.context_mark is not None:
        problem += f" ({exc.context} that starts on line {exc.context_mark.line + 1})"
    return problem


def load_documents(text: str, *, max_chars: int = MAX_CHARS) -> list[Document]:
    """Every document with its node and value; a stream of only comments has none."""
    if len(text) > max_chars:
        raise ManifestYamlError(f"is {len(text) // 1024} KiB; spec-advisor reads at most {max_chars // 1024} KiB "
                                "(pass a file with just the InferenceService)")
    try:
        loader = _Loader(text)
        docs: list[Document] = []
        while loader.check_node():
            node = loader.get_node()
            assert node is not None  # check_node() said a document follows
            docs.append(Document(node, loader.construct_document(node)))
        return docs
    except _Refused as exc:
        raise ManifestYamlError(str(exc), exc.line) from None
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise ManifestYamlError(_message(exc), mark.line + 1 if mark else None) from None
    except ReaderError as exc:  # a control character PyYAML will not read
        line = text.count("\n", 0, exc.position) + 1
        raise ManifestYamlError(f"character #x{exc.character:04x} is not allowed in YAML", line) from None
    except YAMLError as exc:  # pragma: no cover - every PyYAML error above carries a mark or a position
        raise ManifestYamlError(" ".join(str(exc).split())) from None


def load_all(text: str, *, max_chars: int = MAX_CHARS) -> list[object]:
    """The plain values of every document (like `yaml.safe_load_all`, with the refusals above)."""
    return [d.value for d in load_documents(text, max_chars=max_chars)]
