"""HTML is read in one module, src/mkdocs_examples/html_parse.py: no other module of the engine (its site plugins
included) or of tools/ applies a regular expression to HTML.

A regular expression over a page breaks on the next change of the markup it assumes (an attribute
more, another order, a line break): the parser module reads elements as a browser does. The check
reads each module's source (its syntax tree) for a pattern given to the ``re`` module that names a
tag (``<div``, ``</pre>``, ``<[^>]+>``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from helpers import ROOT

PARSER = ROOT / "src" / "mkdocs_examples" / "html_parse.py"
FOLDERS = [ROOT / "src", ROOT / "tools"]
FUNCTIONS = {"compile", "sub", "subn", "search", "match", "fullmatch", "findall", "finditer", "split"}
# what a pattern holds that is no tag: a named group (?P<name>...), a look-behind (?<=...), (?<!...)
_NOT_TAGS = re.compile(r"\(\?P<\w+>|\(\?<[=!]")
# a tag: `<` and a letter, `</`, or any tag (`<[^>]`); not a comment (`<!--`), which Markdown has too
_TAG = re.compile(r"<(?:[A-Za-z/]|\[\^>)")


def _pattern(node: ast.expr) -> str | None:
    """The text of a pattern written in the source: a string, or an f-string's fixed parts."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return None


def html_patterns(source: str) -> list[tuple[int, str]]:
    """(line, pattern) for each regular expression of ``source`` (Python) that names an HTML tag."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and node.args and isinstance(node.func, ast.Attribute)):
            continue
        if not (isinstance(node.func.value, ast.Name) and node.func.value.id == "re" and node.func.attr in FUNCTIONS):
            continue
        pattern = _pattern(node.args[0])
        if pattern is not None and _TAG.search(_NOT_TAGS.sub("", pattern)):
            found.append((node.lineno, pattern))
    return found


def test_the_check_finds_a_regular_expression_over_html() -> None:
    source = (
        "import re\n"
        "A = re.compile(r'<div class=\"x\">.*?</div>', re.S)\n"
        "B = re.sub(r'<[^>]+>', '', text)\n"
        "C = re.compile(rf'{A.pattern}|<h[1-6][\\s>]')\n"
        "D = re.compile(r'(?P<name>\\w+)(?<=a)(?<!b)')\n"  # named groups and look-behinds: no tags
        "E = re.compile(r'</?code>')\n"
    )
    assert [line for line, _ in html_patterns(source)] == [2, 3, 4, 6]


def test_no_module_but_the_parser_applies_a_regular_expression_to_html() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: {pattern!r}"
        for folder in FOLDERS
        for path in sorted(folder.rglob("*.py"))
        if path != PARSER
        for line, pattern in html_patterns(path.read_text(encoding="utf-8"))
    ]
    assert not found, "read HTML with mkdocs_examples.html_parse, not a regular expression:\n" + "\n".join(found)


def test_the_parser_module_is_where_it_is_said_to_be() -> None:
    assert PARSER.is_file() and "HTMLParser" in Path(PARSER).read_text(encoding="utf-8")
