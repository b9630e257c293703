"""The one way this project reads YAML files (mkdocs.yml and the like): safely, whatever tags they hold.

mkdocs.yml may hold ``!!python/name:...`` or ``!!python/object/apply:...`` (a slugify
function for the table of contents) and ``!ENV`` tags. Only MkDocs should act on them:
the full loader (``yaml.Loader``) would import and call what a tag names. This loader is
PyYAML's safe one, reading every tagged value as ``None`` without importing anything, so a
tool or the command line can read the site's plain settings (``docs_dir``, ``nav``, the
plugins' options) even where the packages the tags name are not installed.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]


class _Lenient(yaml.SafeLoader):
    """PyYAML's safe loader; a value with a tag it does not know (``!!python/...``, ``!ENV``) reads as None."""


_Lenient.add_multi_constructor("", lambda loader, suffix, node: None)


def loads(text: str, name: str = "<text>") -> Any:
    """The data of YAML ``text``; :class:`ValueError` naming ``name`` and the line when it is not valid YAML."""
    try:
        return yaml.load(text, Loader=_Lenient)  # a SafeLoader
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{name}:{mark.line + 1}" if mark is not None else name
        problem = getattr(error, "problem", None) or str(error)
        raise ValueError(f"{where}: not valid YAML ({problem}); fix the file") from None


def load(path: Path) -> Any:
    """The data of the YAML file ``path`` (see :func:`loads`)."""
    return loads(path.read_text(encoding="utf-8"), str(path))


class KeyLines:
    """Where each key of a YAML mapping is (:func:`key_lines`)."""

    def __init__(self) -> None:
        self.first: dict[str, int] = {}  # a key: the line of its first entry, 1-based
        self.duplicates: list[tuple[str, int]] = []  # a key written again, and the line


def key_lines(text: str, name: str = "<text>") -> KeyLines:
    """The line of each key of the top-level mapping in YAML ``text``, and the keys written twice, which
    :func:`loads` reads as the last one silently; :class:`ValueError` as there."""
    try:
        node = yaml.compose(text, Loader=_Lenient)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{name}:{mark.line + 1}" if mark is not None else name
        problem = getattr(error, "problem", None) or str(error)
        raise ValueError(f"{where}: not valid YAML ({problem}); fix the file") from None
    found = KeyLines()
    for key, _ in node.value if isinstance(node, yaml.MappingNode) else []:
        value, line = str(key.value), key.start_mark.line + 1
        if value in found.first:
            found.duplicates.append((value, line))
        else:
            found.first[value] = line
    return found


def without_keys(text: str, keys: Collection[str]) -> str:
    """YAML ``text`` written anew without the mapping keys ``keys``, at any depth, nor what they hold.

    Composed, not loaded: tags (``!ENV``, ``!!python/...``) and anchors stay as written, nothing acts
    on them; comments and layout go (two texts that differ only there give the same YAML).
    """
    document = yaml.compose(text, Loader=yaml.SafeLoader)
    if document is None:
        return ""
    _drop(document, frozenset(keys), set())
    return str(yaml.serialize(document))


def _drop(node: Any, keys: frozenset[str], seen: set[int]) -> None:
    if id(node) in seen:  # an alias of a node already done
        return
    seen.add(id(node))
    if isinstance(node, yaml.MappingNode):
        node.value = [(k, v) for k, v in node.value if not (isinstance(k, yaml.ScalarNode) and k.value in keys)]
        children = [child for pair in node.value for child in pair]
    else:
        children = node.value if isinstance(node, yaml.SequenceNode) else []
    for child in children:
        _drop(child, keys, seen)
