"""The engine as a package for other sites: its wheel alone, with the dependencies it declares, builds a site.

The wheel is built from a copy of the sources, installed into a fresh virtualenv with
nothing else (no torch, no requirements.txt; pip takes the declared dependencies from its
index or its cache), and that virtualenv's MkDocs builds a tiny site with the plain
`mkdocs` theme: one example that prints, one cell that raises.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent

MKDOCS_YML = """\
site_name: Elsewhere
theme:
  name: mkdocs
plugins:
  - examples:
      timeout: 30
markdown_extensions:
  - admonition
  - pymdownx.highlight
  - pymdownx.superfences
"""

EXAMPLE = """\
# %% greet
words = ["engine", "on", "another", "site"]
print(" ".join(words), len(words))

# %% divide tags=["raises-exception"]
1 / (len(words) - 4)

# %% checks tags=["remove-cell"]
assert len(words) == 4
"""

PAGE = """\
# Another site

/// example | greet.py
///
"""


def _run(command: list[str], cwd: Path) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout + done.stderr


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    """A fresh virtualenv holding only the engine's wheel and what the wheel declares."""
    base = tmp_path_factory.mktemp("package")
    sources = base / "sources"  # a copy, so that building leaves no build/ or egg-info in the project
    sources.mkdir()
    for name in ("pyproject.toml", "LICENSE"):  # the readme, src/mkdocs_examples/README.md, comes with src/
        shutil.copy2(ROOT / name, sources / name)
    shutil.copytree(ROOT / "src", sources / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", str(sources), "-w", str(base / "dist")], base)
    (wheel,) = (base / "dist").glob("mkdocs_examples-*.whl")

    env = base / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(env)], base)
    python = env / "bin" / "python"
    # this pip installs into the new environment: no pip of its own needed there
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", str(wheel)], base)
    return env


def test_the_wheel_declares_what_a_reusable_package_needs():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = {dep.split("<")[0].split(">")[0].split("=")[0].strip() for dep in project["dependencies"]}
    assert names == {"cryptography", "mkdocs", "pymdown-extensions"}  # cryptography: recordings' signatures
    assert all("," in dep for dep in project["dependencies"])  # a range: lower and upper bound
    assert project["license"] == "MIT" and "MIT License" in (ROOT / "LICENSE").read_text(encoding="utf-8")
    readme = (ROOT / project["readme"]).read_text(encoding="utf-8")
    assert "## Using the engine on another site" in readme and "| `preload` | `[]` |" in readme
    assert project["urls"]["Repository"] == "https://github.com/pytorch-tips/pytorch-tips"


def test_only_the_wheel_and_its_dependencies_are_installed(venv):
    python = str(venv / "bin" / "python")
    listed = _run([sys.executable, "-m", "pip", "--python", python, "list", "--format=freeze"], venv)
    installed = {line.split("==")[0].lower() for line in listed.splitlines() if "==" in line}
    assert "mkdocs-examples" in installed and "mkdocs" in installed and "pymdown-extensions" in installed
    assert not installed & {"torch", "numpy", "mkdocs-material", "mkdocs-static-i18n", "jupytext"}
    where = _run([python, "-c", "import mkdocs_examples; print(mkdocs_examples.__file__)"], venv)
    assert where.strip().startswith(str(venv))  # the installed wheel, not this project's src/
    check = "from mkdocs_examples.publish import notebook_views as v; print(v.ASSET.is_file(), v.ASSET)"
    shipped = _run([python, "-c", check], venv).split()
    assert shipped[0] == "True" and shipped[1].startswith(str(venv))  # the views' stylesheet, a package asset
    picker = "import mkdocs_examples.mkdocs.plugin as p; print([(p.PACKAGE / a).is_file() " \
        "for a in p.PICKER] == [True, True])"
    assert _run([python, "-c", picker], venv).strip() == "True"  # the torch picker's script and stylesheet


def test_the_manual_pages_the_readme_links_come_with_the_wheel(venv):
    readme = (ROOT / "src" / "mkdocs_examples" / "README.md").read_text(encoding="utf-8")
    linked = sorted(set(re.findall(r"src/mkdocs_examples/(docs/[\w-]+\.md)", readme)))
    assert linked, "the README links the manual's pages under docs/"
    check = f"import mkdocs_examples, pathlib; d = pathlib.Path(mkdocs_examples.__file__).parent; " \
        f"print(all((d / p).is_file() for p in {linked!r}))"
    assert _run([str(venv / "bin" / "python"), "-c", check], venv).strip() == "True"


def test_the_site_plugins_and_their_assets_come_with_the_wheel(venv):
    """Each site plugin is an entry point of MkDocs' plugins, and the files examples-search writes into a site
    are in the package."""
    check = (
        "from importlib.metadata import entry_points; from mkdocs_examples.site import search; "
        "found = {e.name: e.load().__name__ for e in entry_points(group='mkdocs.plugins') if e.name.startswith('ex')}; "
        "print(sorted(found.items()), all((search.ASSETS / n).is_file() for n in ('worker.js', 'input.js')))"
    )
    plugins = [("examples", "ExamplesPlugin"), ("examples-cjk", "CJKPlugin"), ("examples-csp", "CSPPlugin"),
               ("examples-page-html", "PageHTMLPlugin"), ("examples-pages", "PagesPlugin"),
               ("examples-render-cache", "RenderCachePlugin"), ("examples-search", "SearchPlugin"),
               ("examples-serve", "ServePlugin")]  # fmt: skip
    assert _run([str(venv / "bin" / "python"), "-c", check], venv).strip() == f"{plugins} True"


def test_a_site_with_the_plain_theme_builds_strict_with_the_installed_engine(venv, tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "examples").mkdir()
    (tmp_path / "mkdocs.yml").write_text(MKDOCS_YML)
    (tmp_path / "docs" / "index.md").write_text(PAGE)
    (tmp_path / "examples" / "greet.py").write_text(EXAMPLE)

    log = _run([str(venv / "bin" / "python"), "-m", "mkdocs", "build", "--strict"], tmp_path)

    page = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "engine on another site 4" in page  # what the first cell printed
    assert "ZeroDivisionError" in page and "division by zero" in page  # the raising cell's traceback
    assert "assert len(words)" not in page  # the hidden cell
    assert "mkdocs_examples.css" in page and (tmp_path / "site" / "assets" / "mkdocs_examples.css").exists()
    assert "WARNING" not in log
    downloads = tmp_path / "site" / "downloads"  # the example as a script and as a notebook with outputs
    assert 'print(" ".join(words), len(words))' in (downloads / "greet.py").read_text(encoding="utf-8")
    assert "engine on another site 4" in (downloads / "greet.ipynb").read_text(encoding="utf-8")

    runs = _run([str(venv / "bin" / "python"), "-m", "mkdocs_examples", "run", "--show"], tmp_path)
    assert "engine on another site 4" in runs and "1 example in" in runs


def test_a_site_with_the_plain_theme_keeps_its_renders_where_examples_render_cache_says(venv, tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "examples").mkdir()
    options = "{folder: .renders, packages: [mkdocs, markdown, pymdown-extensions, pygments]}"
    listed = f"  - examples-serve\n  - examples-render-cache: {options}\nmarkdown_extensions:\n"
    (tmp_path / "mkdocs.yml").write_text(MKDOCS_YML.replace("markdown_extensions:\n", listed))
    (tmp_path / "docs" / "index.md").write_text(PAGE)
    (tmp_path / "examples" / "greet.py").write_text(EXAMPLE)
    python = str(venv / "bin" / "python")

    log = _run([python, "-m", "mkdocs", "build", "--strict"], tmp_path)
    assert "WARNING" not in log
    (render,) = (tmp_path / ".renders").glob("*.json")  # the one page's
    written = render.stat().st_mtime_ns
    page = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    _run([python, "-m", "mkdocs", "build", "--strict"], tmp_path)
    assert render.stat().st_mtime_ns == written  # taken from there, not rendered and written again
    again = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "engine on another site 4" in again
    assert again.rsplit("<!--", 1)[0] == page.rsplit("<!--", 1)[0]  # but the theme's comment with the build's time
