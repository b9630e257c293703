"""The one way the engine reads JSON back: :func:`loads`, then :func:`validate` against a JSON Schema.

Results (the forked child's record, the cache), recordings (committed by pull requests) and
output snapshots are all read this way, against the schemas in ``schemas/``, before any
dataclass is built from them. A file that does not match is refused as a whole with a
:class:`JSONError` naming the JSON path (``cells[3].output[2]: expected a string, found null``).

The validator implements the subset of JSON Schema draft 2020-12 that those schemas use:
``type`` (a name or a list), ``properties``, ``required``, ``additionalProperties``,
``propertyNames``, ``maxProperties``, ``items``, ``maxItems``, ``enum``/``const`` (of plain
values), ``pattern``, ``maxLength``, ``minimum``/``maximum``, ``$ref`` (within a document or
to another of the package's documents) and ``$defs``, plus the annotations (``title``,
``description``...). A schema using any other keyword is refused with :class:`SchemaError`,
so that no keyword is ever silently ignored. Two details follow ECMA-262, which the standard
names for ``pattern``, rather than Python's ``re``: ``\\d`` and ``\\w`` are ASCII only, and a
final ``$`` is the end of the string (Python's also matches before a final newline).

A schema is compiled once into nested closures; checking a value costs a few function calls
per JSON value, and the JSON path of an error is assembled only when there is one. This
module imports nothing of the engine (the forked child and the cache use it) and no MkDocs.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urljoin

DRAFT = "https://json-schema.org/draft/2020-12/schema"
MAX_DEPTH = 32  # JSON nested deeper than this is refused by loads(); the engine's own files nest 6 deep
SCHEMAS = Path(__file__).parent / "schemas"  # the package's schemas: <name>.schema.json

Check = Callable[[Any], None]


class JSONError(ValueError):
    """JSON text that cannot be parsed, or a value that does not match its schema; says where."""

    def __init__(self, message: str, path: Iterable[str | int] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.path = list(path)  # outermost first: ["cells", 3, "output", 2]

    def __str__(self) -> str:
        where = json_path(self.path)
        return f"{where}: {self.message}" if where else self.message


class SchemaError(Exception):
    """A schema this validator cannot apply faithfully: a bug of the engine, never of the input."""


def json_path(path: Iterable[str | int]) -> str:
    """``["cells", 3, "output"]`` as ``cells[3].output``; keys that are not plain words in brackets."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", part):
            out += f".{part}" if out else part
        else:
            out += f"[{_short(part)}]"
    return out


# --- parsing --------------------------------------------------------------------------------


class _NonFinite:
    """Stands for NaN or ±Infinity while parsing, so that the error can name where it was."""

    def __init__(self, text: str) -> None:
        self.text = text


def loads(text: str, *, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value of ``text``; :class:`JSONError` for text that is not strict JSON.

    Python's :func:`json.loads` accepts ``NaN``, ``Infinity`` and ``-Infinity`` (and turns
    ``1e999`` into infinity): none is JSON, and a ``NaN`` compares false with everything, so
    here each is refused, with its path. So is nesting deeper than ``max_depth``.
    """
    found: list[_NonFinite] = []

    def constant(name: str) -> _NonFinite:
        found.append(_NonFinite(name))
        return found[-1]

    def number(literal: str) -> float | _NonFinite:
        value = float(literal)
        return value if math.isfinite(value) else constant(literal)

    try:
        value = json.loads(text, parse_constant=constant, parse_float=number)
    except json.JSONDecodeError as error:
        raise JSONError(f"not JSON: {error.msg} (line {error.lineno}, column {error.colno})") from None
    except RecursionError:
        raise JSONError(f"not JSON this engine reads: nested deeper than {max_depth} levels") from None
    _check_depth(value, max_depth)
    if found:
        path = _find(value, found[0])
        raise JSONError(f"{found[0].text} is not a number JSON allows (JSON numbers are finite)", path)
    return value


def _check_depth(value: Any, limit: int) -> None:
    """Refuse ``value`` if it nests deeper than ``limit``: one pass over its containers, level by level."""
    level = [value] if isinstance(value, (dict, list)) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            raise JSONError(f"not JSON this engine reads: nested deeper than {limit} levels")
        inner = []
        for container in level:
            for item in container.values() if isinstance(container, dict) else container:
                if isinstance(item, (dict, list)):
                    inner.append(item)
        level = inner


def _find(value: Any, target: object) -> list[str | int]:
    """The path of ``target`` inside ``value`` (whose depth is already bounded)."""
    if value is target:
        return []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        if item is target or isinstance(item, (dict, list)):
            path = _find(item, target)
            if item is target or path:
                return [key, *path]
    return []


# --- schemas --------------------------------------------------------------------------------

_ANNOTATIONS = {"$schema", "$id", "$defs", "$comment", "title", "description", "examples", "default"}
_FAMILIES = {  # the keywords that apply to one type of value, each family compiled into one function
    "object": ("properties", "required", "additionalProperties", "propertyNames", "maxProperties"),
    "array": ("items", "maxItems"),
    "string": ("pattern", "maxLength"),
    "number": ("minimum", "maximum"),
}
_KEYWORDS = {"$ref", "type", "enum", "const", *(k for keywords in _FAMILIES.values() for k in keywords)}
_ARTICLES = {"null": "null", "boolean": "a boolean", "integer": "an integer", "number": "a number",
             "string": "a string", "array": "an array", "object": "an object"}  # fmt: skip


def _is(name: str, value: Any) -> bool:
    """Whether ``value`` is of the JSON type ``name``."""
    if name in ("integer", "number"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        # JSON Schema counts 1.0 as an integer; readers convert with int()
        return name == "number" or isinstance(value, int) or value.is_integer()
    python = {"null": type(None), "boolean": bool, "string": str, "array": list, "object": dict}[name]
    return isinstance(value, python)


def _kind(value: Any) -> str:
    """What ``value`` is, in JSON's words."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    return {float: "a number", str: "a string", list: "an array", dict: "an object"}.get(type(value), "a value")


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else f"{text[:57]}…"


def _same(a: Any, b: Any) -> bool:
    """JSON equality of plain values: ``true`` is not ``1``, ``1`` is ``1.0``, ``"1"`` is neither."""
    if isinstance(a, (bool, str)) or a is None or isinstance(b, (bool, str)) or b is None:
        return type(a) is type(b) and a == b
    return bool(a == b)


class _Node:
    """One schema object being compiled: its keywords, and how its errors read."""

    def __init__(self, schema: dict[str, Any], base: str) -> None:
        self.schema, self.base = schema, base
        self.title = schema.get("title")
        names = schema.get("type")
        self.types: list[str] | None = None if names is None else names if isinstance(names, list) else [names]
        if self.types is not None and (not self.types or any(n not in _ARTICLES for n in self.types)):
            raise SchemaError(f"in {base}: unknown type {names!r}")

    def error(self, message: str) -> JSONError:
        return JSONError(f"{message} (expected {self.title})" if self.title else message)

    def strict(self, family: str) -> tuple[str | None, bool]:
        """The type error to raise when a value is not of ``family``, if the node's type says so; null allowed."""
        if self.types is None:
            return None, False
        others = [n for n in self.types if n != "null"]
        if others == [family] or (family == "number" and others == ["integer"]):
            return "expected " + " or ".join(_ARTICLES[n] for n in self.types), "null" in self.types
        return None, False


class Validator:
    """Compiled schemas, found by their ``$id``; :meth:`check` applies one to a value."""

    def __init__(self, documents: Iterable[dict[str, Any]]) -> None:
        self.documents: dict[str, dict[str, Any]] = {}
        for document in documents:
            if document.get("$schema") != DRAFT or not isinstance(document.get("$id"), str):
                raise SchemaError(f"a schema must name {DRAFT} as its $schema and have an $id")
            self.documents[document["$id"]] = document
        self._compiled: dict[str, Check | None] = {}
        self._pending: dict[str, list[Check | None]] = {}  # refs being compiled (a schema may refer to itself)

    def check(self, value: Any, uri: str) -> None:
        """Raise :class:`JSONError` unless ``value`` matches the schema at ``uri`` (with a JSON pointer fragment)."""
        check = self.compiled(uri)
        if check is not None:
            check(value)

    def compiled(self, uri: str) -> Check | None:
        """The schema at ``uri`` as one function raising :class:`JSONError`; None when it accepts everything."""
        if uri in self._compiled:
            return self._compiled[uri]
        if uri in self._pending:  # a reference back into a schema being compiled: look it up when used
            return _later(self._pending[uri])
        document_uri, fragment = urldefrag(uri)
        if document_uri not in self.documents:
            raise SchemaError(f"$ref {uri}: no schema has the $id {document_uri}")
        schema: Any = self.documents[document_uri]
        if fragment and not fragment.startswith("/"):
            raise SchemaError(f"$ref {uri}: only JSON pointers are implemented, not anchors")
        for token in fragment.split("/")[1:]:
            token = token.replace("~1", "/").replace("~0", "~")
            if not isinstance(schema, dict) or token not in schema:
                raise SchemaError(f"$ref {uri}: nothing at {fragment}")
            schema = schema[token]
        slot: list[Check | None] = [None]
        self._pending[uri] = slot
        slot[0] = check = self._compile(schema, document_uri, root=not fragment)
        del self._pending[uri]
        self._compiled[uri] = check
        return check

    def _compile(self, schema: Any, base: str, *, root: bool = False) -> Check | None:
        if schema is True or schema == {}:
            return None
        if schema is False:
            return _fail("not allowed here")
        if not isinstance(schema, dict):
            raise SchemaError(f"in {base}: a schema must be an object or a boolean, not {_short(schema)}")
        unknown = set(schema) - _ANNOTATIONS - _KEYWORDS
        if unknown:
            raise SchemaError(f"in {base}: {', '.join(sorted(unknown))}: not implemented by this validator")
        if not root and ("$id" in schema or "$schema" in schema):
            raise SchemaError(f"in {base}: $id and $schema belong at the top of a document only")
        node = _Node(schema, base)
        checks = [self.compiled(urljoin(base, schema["$ref"]))] if "$ref" in schema else []
        typed = False  # whether a family's function checks the node's type
        for family, keywords in _FAMILIES.items():
            if any(k in schema for k in keywords):
                expected, nullable = node.strict(family)
                typed = typed or expected is not None
                checks.append(_BUILDERS[family](self, node, expected, nullable))
        if node.types is not None and not typed:
            checks.append(_type(node))
        if "enum" in schema or "const" in schema:
            checks.append(_enum(node))
        found = [c for c in checks if c is not None]
        return found[0] if len(found) == 1 else _all(found) if found else None


def _later(slot: list[Check | None]) -> Check:
    def deferred(value: Any) -> None:
        if slot[0] is not None:
            slot[0](value)

    return deferred


def _all(checks: list[Check]) -> Check:
    def every(value: Any) -> None:
        for check in checks:
            check(value)

    return every


def _fail(message: str) -> Check:
    def fail(value: Any) -> None:
        raise JSONError(message)

    return fail


def _type(node: _Node) -> Check:
    names = node.types or []
    expected = "expected " + " or ".join(_ARTICLES[n] for n in names)

    def typed(value: Any) -> None:
        if not any(_is(name, value) for name in names):
            raise node.error(f"{expected}, found {_kind(value)}")

    return typed


def _object(validator: Validator, node: _Node, expected: str | None, nullable: bool) -> Check:
    schema, base = node.schema, node.base
    properties = {key: validator._compile(sub, base) for key, sub in schema.get("properties", {}).items()}
    required = list(schema.get("required", []))
    additional = schema.get("additionalProperties", True)
    closed = additional is False
    others = None if closed else validator._compile(additional, base)
    names = validator._compile(schema["propertyNames"], base) if "propertyNames" in schema else None
    most = schema.get("maxProperties")
    known = ", ".join(properties)

    def checked(value: Any) -> None:
        if not isinstance(value, dict):
            if expected and not (nullable and value is None):
                raise node.error(f"{expected}, found {_kind(value)}")
            return
        if most is not None and len(value) > most:
            raise node.error(f"{len(value)} keys, more than {most}")
        for key in required:
            if key not in value:
                raise node.error(f"missing key {_short(key)}")
        for key, item in value.items():
            if names is not None:
                try:
                    names(key)
                except JSONError as error:
                    raise node.error(f"key {_short(key)}: {error.message}") from None
            if key in properties:
                check = properties[key]
            elif closed:
                raise node.error(f"unexpected key {_short(key)} (the keys are: {known})")
            else:
                check = others
            if check is not None:
                _within(check, item, key)

    return checked


def _within(check: Check, value: Any, at: str | int) -> None:
    """``check(value)`` for the member ``at`` of an object or array: an error names its path from there."""
    try:
        check(value)
    except JSONError as error:
        error.path.insert(0, at)
        raise


def _array(validator: Validator, node: _Node, expected: str | None, nullable: bool) -> Check:
    items = validator._compile(node.schema["items"], node.base) if "items" in node.schema else None
    most = node.schema.get("maxItems")

    def checked(value: Any) -> None:
        if not isinstance(value, list):
            if expected and not (nullable and value is None):
                raise node.error(f"{expected}, found {_kind(value)}")
            return
        if most is not None and len(value) > most:
            raise node.error(f"{len(value)} items, more than {most}")
        if items is not None:
            for index, item in enumerate(value):
                _within(items, item, index)

    return checked


def _string(validator: Validator, node: _Node, expected: str | None, nullable: bool) -> Check:
    most = node.schema.get("maxLength")
    source = node.schema.get("pattern")
    pattern = None
    if source is not None:
        # ECMA-262's `$` (without the m flag) is the end of the string; Python's `$` also
        # matches before a final newline, so a trailing `$` becomes `\Z`
        translated = source[:-1] + r"\Z" if source.endswith("$") and not source.endswith("\\$") else source
        pattern = re.compile(translated, re.ASCII)

    def checked(value: Any) -> None:
        if not isinstance(value, str):
            if expected and not (nullable and value is None):
                raise node.error(f"{expected}, found {_kind(value)}")
            return
        if most is not None and len(value) > most:
            raise node.error(f"{len(value)} characters, more than {most}")
        if pattern is not None and not pattern.search(value):
            raise node.error(f"{_short(value)} does not match {source}")

    return checked


def _number(validator: Validator, node: _Node, expected: str | None, nullable: bool) -> Check:
    low, high = node.schema.get("minimum"), node.schema.get("maximum")
    integer = node.types is not None and "number" not in node.types  # a strict check of integers

    def checked(value: Any) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            if expected and not (nullable and value is None):
                raise node.error(f"{expected}, found {_kind(value)}")
            return
        if expected and integer and not (isinstance(value, int) or value.is_integer()):
            raise node.error(f"{expected}, found {value!r}")
        if low is not None and value < low:
            raise node.error(f"{value!r} is less than {low}")
        if high is not None and value > high:
            raise node.error(f"{value!r} is more than {high}")

    return checked


def _enum(node: _Node) -> Check:
    schema = node.schema
    if "enum" in schema and "const" in schema:
        raise SchemaError(f"in {node.base}: enum and const together are not implemented")
    allowed = list(schema["enum"]) if "enum" in schema else [schema["const"]]
    if any(isinstance(v, (dict, list)) for v in allowed):
        raise SchemaError(f"in {node.base}: enum and const of objects or arrays are not implemented")
    strings = {v for v in allowed if isinstance(v, str)}  # the common case, looked up at once
    others = [v for v in allowed if not isinstance(v, str)]
    shown = " or ".join(_short(v) for v in allowed) or "nothing"

    def checked(value: Any) -> None:
        if isinstance(value, str):
            if value in strings:
                return
        elif not isinstance(value, (dict, list)) and any(_same(value, v) for v in others):
            return
        raise node.error(f"expected {shown}, found {_short(value)}")

    return checked


_BUILDERS: dict[str, Callable[[Validator, _Node, str | None, bool], Check]] = {
    "object": _object, "array": _array, "string": _string, "number": _number,
}  # fmt: skip


# --- the package's schemas ------------------------------------------------------------------

# Every schema's $id is this address followed by its file name, where GitHub serves the file
BASE = "https://raw.githubusercontent.com/pytorch-tips/pytorch-tips/main/src/mkdocs_examples/schemas/"


@functools.cache
def package_schemas() -> Validator:
    """The schemas shipped in ``schemas/``, compiled on first use."""
    documents = [json.loads(file.read_text(encoding="utf-8")) for file in sorted(SCHEMAS.glob("*.schema.json"))]
    return Validator(documents)


@functools.cache
def _package_check(ref: str) -> Check | None:
    return package_schemas().compiled(urljoin(BASE, ref))


def validate(value: Any, ref: str) -> Any:
    """``value``, once checked against the package's schema ``ref``: a file name, with an optional
    JSON pointer (``recording.schema.json``, ``result.schema.json#/$defs/cell``).

    :class:`JSONError` naming the path of the first part that does not match.
    """
    check = _package_check(ref)
    if check is not None:
        check(value)
    return value
