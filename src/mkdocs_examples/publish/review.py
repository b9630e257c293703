"""Which files a pull request changes that run outside the examples' sandbox, for the summary reviewers read first.

Only an example runs in the sandbox. Everything else a pull request brings runs with the rights of
whoever builds or tests it: the engine and the site's hooks, the templates in ``overrides/``, the
tests and their ``conftest.py``, the tools, the benchmarks, mkdocs.yml, the Makefile, the workflows,
the requirements; scripts and stylesheets under ``docs/`` run in readers' browsers. A reviewer reads
those as code. So the list is everything but what is known to be harmless: the examples, and plain
content (the pages' Markdown, images, the README, the notebooks written from the examples, the
recordings, which are data read through a schema and reported on their own). An SVG is no plain
image: opened by its address, a script in it runs on the site's origin.

Two kinds of change a content pull request brings are content too, judged by what changed rather
than by the path: lists of words that are plain data (:data:`DATA`: search queries a test runs,
search terms the search index reads; YAML read safely, nothing in them runs), and a change of the
site's configuration that touches only its navigation (:func:`nav_only`: the two configurations,
parsed with their tags as written, are the same without ``nav`` and ``nav_translations``).

A page's Markdown is content, but Markdown publishes its raw HTML and its attribute lists
(``{: key=value }``) as written, into readers' browsers: given the change's checkout, the summary
also lists, page by page, each line that holds some, for a reviewer to read as markup, and each key
of a page's front matter that the build refuses (read as YAML, as the build reads it: escapes such
as ``\\x3c`` are ``<`` there). The checkout is read as text, and a page that is a symbolic link is
named, not followed. Given the change's built site, it lists what the build's last check (examples-csp,
site/built_html.py) finds in each of its HTML files, pages and notebook views alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

import yaml  # type: ignore[import-untyped]

from mkdocs_examples import yaml_files
from mkdocs_examples.site import front_matter
from mkdocs_examples.source.blocks import fenced_lines

IMAGES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".avif", ".ico")
NOT_SANDBOXED = ("conftest.py",)  # in the examples' folder too: pytest imports any conftest.py it meets
# Words as data: read with a safe YAML loader by a test and the search plugin, never run or imported
DATA = ("tests/search_queries.yml", "data/search_terms.yml")
NAVIGATION = ("nav", "nav_translations")  # what only the site's navigation shows: titles and their order

HEADING = "### Files that run outside the sandbox"
INTRO = (
    "Only the examples run in the sandbox. These files run with the rights of whoever builds, tests or "
    "deploys the site (the engine, hooks, templates, tests, tools, configuration, workflows), or in "
    "readers' browsers: read them as code, first."
)


def unsandboxed(
    paths: Iterable[str], *, examples: str = "examples", docs: str = "docs", content: Iterable[str] = ()
) -> list[str]:
    """The ``paths`` (relative to the repository, as git names them) that run outside the sandbox, sorted, once each;
    ``content``: changed paths found to be content by what changed in them (:func:`nav_only`)."""
    known = {path.strip() for path in content}
    return sorted({path.strip() for path in paths
                   if path.strip() and path.strip() not in known and not _harmless(path.strip(), examples, docs)})


def section(
    paths: Iterable[str], *, examples: str = "examples", docs: str = "docs", content: Iterable[str] = ()
) -> str:
    """The summary's Markdown section listing them; empty when there is none."""
    found = unsandboxed(paths, examples=examples, docs=docs, content=content)
    if not found:
        return ""
    return "\n".join([HEADING, "", INTRO, "", *(f"- `{path}`" for path in found), ""]) + "\n"


PAGES_HEADING = "### Raw HTML in the pages"
PAGES_INTRO = (
    "Markdown publishes a page's raw HTML and attribute lists as written, into readers' browsers: "
    "read these lines as markup, not prose."
)
_TAG = re.compile(r"<([A-Za-z][A-Za-z0-9-]*)(?=[\s/>])|<(!--|!\[CDATA\[|\?)")  # an opening tag, a comment...
_ATTRIBUTES = re.compile(r"\{:?[ \t]*(?:[#.][\w-]+[ \t]+)*([A-Za-z_:][\w:.-]*)[ \t]*=[^}\n]*\}")  # {: key=value }
_KEY = re.compile(r"(?:^|[ \t])([A-Za-z_:][\w:.-]*)[ \t]*=")
_CODE_SPAN = re.compile(r"(`+).+?\1")
_MATHS = re.compile(r"(?<![\\$])\$(?!\$).+?(?<![\\$])\$")  # $x$: TeX braces are no attribute list


def raw_html(markdown: str) -> list[tuple[int, str]]:
    """(line, what) for the raw HTML (``<tag>``, ``<!--``) and the attribute lists with attributes in a page,
    outside fenced code, code spans and formulas."""
    skipped, found, maths = fenced_lines(markdown), [], False
    for index, line in enumerate(markdown.splitlines()):
        if line.strip() == "$$":
            maths = not maths
        if index in skipped or maths or line.strip() == "$$":
            continue
        text = _MATHS.sub(" ", _CODE_SPAN.sub(" ", line))
        found += [(index + 1, f"<{m[1].lower()}>" if m[1] else f"<{m[2]}") for m in _TAG.finditer(text)]
        for match in _ATTRIBUTES.finditer(text):
            keys = _KEY.findall(match[0].strip("{}: \t"))
            found.append((index + 1, "{: " + " ".join(f"{key}=…" for key in keys) + " }"))
    return sorted(found)


def pages_section(paths: Iterable[str], checkout: Path, *, docs: str = "docs") -> str:
    """The summary's Markdown section naming, for each changed page of ``checkout`` (the change's files), the
    lines with raw HTML; empty when there is none."""
    items = []
    for path in sorted({p.strip() for p in paths if p.strip()}):
        name = PurePosixPath(path)
        if not (_under(name, docs) and name.suffix.lower() == ".md"):
            continue
        file = checkout / path
        if file.is_symlink():
            items.append(f"- `{path}`: a symbolic link, not read")
        elif file.is_file() and (found := raw_html(file.read_text(encoding="utf-8", errors="replace"))):
            items.append(f"- `{path}`: " + ", ".join(f"line {line} `{what}`" for line, what in found))
    return "\n".join([PAGES_HEADING, "", PAGES_INTRO, "", *items, ""]) + "\n" if items else ""


FRONT_HEADING = "### Front matter the build refuses"
FRONT_INTRO = (
    "The theme prints a page's front matter into every page's `<head>` and navigation as it is: a value with "
    "markup, a key a page may not set or a template of its own fails the strict build (examples-page-html)."
)


def front_matter_section(paths: Iterable[str], checkout: Path, *, docs: str = "docs") -> str:
    """The summary's Markdown section naming, for each changed page of ``checkout``, each key of its front matter
    (read as YAML, as the build reads it) that the build refuses; empty when there is none."""
    items = []
    for path in _pages(paths, checkout, docs):
        source = (checkout / path).read_text(encoding="utf-8", errors="replace")
        try:
            found = front_matter.check(front_matter.read(source, path))
        except ValueError as error:  # the build cannot read it either
            items.append(f"- `{path}`: {error}")
            continue
        items += [
            f"- `{path}`{f' line {line}' if (line := front_matter.line(source, f.key)) else ''}: {f.message}"
            for f in found
        ]
    return "\n".join([FRONT_HEADING, "", FRONT_INTRO, "", *items, ""]) + "\n" if items else ""


BUILT_HEADING = "### What the built site holds that the site refuses"
BUILT_INTRO = (
    "The pull request's built site (its pages, notebook views, error index, 404 pages), read as a browser reads "
    "it by the check a strict build runs last (examples-csp): the policy first in every `<head>`, no element "
    "or attribute that scripts the site, no inline script the theme's templates do not write."
)


def built_section(site: Path, folders: Iterable[Path]) -> str:
    """The summary's Markdown section naming each HTML file of the built ``site`` (data: read, never run, links
    not followed) that the post-build check refuses, with what it finds; ``folders``: the base's templates.
    Needs MkDocs (the check reads attributes as examples-page-html does): imported here, not by the CLI."""
    from mkdocs_examples.site import built_html

    scripts = built_html.theme_scripts(folders)
    items = []
    for file in built_html.html_files(site):
        problems = built_html.check(file.read_text(encoding="utf-8", errors="replace"), scripts)
        if problems:
            shown = "; ".join(p.replace("`", "'") for p in problems[:5])
            more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
            items.append(f"- `{file.relative_to(site).as_posix()}`: {shown}{more}")
    return "\n".join([BUILT_HEADING, "", BUILT_INTRO, "", *items, ""]) + "\n" if items else ""


def _pages(paths: Iterable[str], checkout: Path, docs: str) -> list[str]:
    """The changed pages' paths that are files of ``checkout`` (a symbolic link is not read)."""
    found = []
    for path in sorted({p.strip() for p in paths if p.strip()}):
        name = PurePosixPath(path)
        file = checkout / path
        if _under(name, docs) and name.suffix.lower() == ".md" and file.is_file() and not file.is_symlink():
            found.append(path)
    return found


def nav_only(base: str, head: str) -> bool:
    """Whether two texts of the site's configuration (mkdocs.yml) differ at most in their navigation: equal once
    parsed without :data:`NAVIGATION`, their tags (``!!python/name:``, ``!ENV``) compared as written, never acted
    on. Comments and layout count for nothing; a text that is not valid YAML is no navigation change."""
    try:
        return yaml_files.without_keys(base, NAVIGATION) == yaml_files.without_keys(head, NAVIGATION)
    except yaml.YAMLError:
        return False


def _harmless(path: str, examples: str, docs: str) -> bool:
    name = PurePosixPath(path)
    top = name.parts[0] if name.parts else ""
    suffix = name.suffix.lower()
    if name.name in NOT_SANDBOXED:
        return False
    if path in DATA:
        return True
    if _under(name, examples):
        return True
    if _under(name, docs):
        return suffix == ".md" or suffix in IMAGES
    if len(name.parts) == 1:  # the repository's own README, CONTRIBUTING, LICENSE
        return suffix == ".md" or name.name == "LICENSE"
    if top == "notebooks":  # written from the examples; tests/test_notebooks.py checks each against its example
        return suffix == ".ipynb"
    if top == "recordings":
        return suffix == ".json"
    return False


def _under(path: PurePosixPath, folder: str) -> bool:
    parts = PurePosixPath(folder.strip("/")).parts
    return bool(parts) and path.parts[: len(parts)] == parts and len(path.parts) > len(parts)
