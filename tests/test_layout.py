"""The engine's layout keeps its promises: what runs in the worker never imports MkDocs, and the public API resolves."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import mkdocs_examples

PACKAGE = Path(mkdocs_examples.__file__).parent


def test_the_child_side_never_imports_mkdocs_or_markdown():
    check = (
        "import sys, mkdocs_examples.execute.child.worker, mkdocs_examples.execute.child.runner; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'mkdocs', 'markdown', 'pymdownx', 'yaml', 'jinja2'}))"
    )
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_public_api_resolves_and_is_typed():
    for name in mkdocs_examples.__all__:
        assert getattr(mkdocs_examples, name) is not None, name
    assert mkdocs_examples.ExamplesPlugin.__module__ == "mkdocs_examples.mkdocs.plugin"
    assert (PACKAGE / "py.typed").exists()


def test_every_subpackage_says_what_it_holds():
    # folders of files the package reads or ships, no code
    data = ("__pycache__", "assets", "docs", "schemas", "search_assets")
    folders = [p for p in PACKAGE.rglob("*") if p.is_dir() and p.name not in data]
    assert {p.relative_to(PACKAGE).as_posix() for p in folders} == {
        "source", "execute", "execute/child", "render", "publish", "recordings", "mkdocs", "site",
    }  # fmt: skip
    for folder in folders:
        init = (folder / "__init__.py").read_text()
        assert init.startswith('"""'), f"{folder.name}/__init__.py: one docstring saying what lives there"


def test_all_lists_exactly_the_lazily_imported_names():
    assert set(mkdocs_examples.__all__) == {"__version__", *mkdocs_examples._PUBLIC}
