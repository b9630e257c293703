"""Which files a pull request changes that run outside the examples' sandbox, for the summary reviewers read first.

Only an example runs in the sandbox. Everything else a pull request brings runs with the rights of
whoever builds or tests it: the engine and the site's hooks, the templates in ``overrides/``, the
tests and their ``conftest.py``, the tools, the benchmarks, mkdocs.yml, the Makefile, the workflows,
the requirements; scripts and stylesheets under ``docs/`` run in readers' browsers. A reviewer reads
those as code. So the list is everything but what is known to be harmless: the examples, and plain
content (the pages' Markdown, images, the README, the notebooks written from the examples, the
recordings, which are data read through a schema and reported on their own). An SVG is no plain
image: opened by its address, a script in it runs on the site's origin.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePosixPath

IMAGES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".avif", ".ico")
NOT_SANDBOXED = ("conftest.py",)  # in the examples' folder too: pytest imports any conftest.py it meets

HEADING = "### Files that run outside the sandbox"
INTRO = (
    "Only the examples run in the sandbox. These files run with the rights of whoever builds, tests or "
    "deploys the site (the engine, hooks, templates, tests, tools, configuration, workflows), or in "
    "readers' browsers: read them as code, first."
)


def unsandboxed(paths: Iterable[str], *, examples: str = "examples", docs: str = "docs") -> list[str]:
    """The ``paths`` (relative to the repository, as git names them) that run outside the sandbox, sorted, once each."""
    return sorted({path for path in paths if path.strip() and not _harmless(path.strip(), examples, docs)})


def section(paths: Iterable[str], *, examples: str = "examples", docs: str = "docs") -> str:
    """The summary's Markdown section listing them; empty when there is none."""
    found = unsandboxed(paths, examples=examples, docs=docs)
    if not found:
        return ""
    return "\n".join([HEADING, "", INTRO, "", *(f"- `{path}`" for path in found), ""]) + "\n"


def _harmless(path: str, examples: str, docs: str) -> bool:
    name = PurePosixPath(path)
    top = name.parts[0] if name.parts else ""
    suffix = name.suffix.lower()
    if name.name in NOT_SANDBOXED:
        return False
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
