"""A clean build elsewhere gives the same bytes as the real site, sitemaps aside.

Nothing of the building machine may reach a page: no object addresses, process ids,
temporary folder names, paths of the project or of the virtualenv. The real site (built
once per test run, `real_site`, from a copy of this checkout and its caches) is compared with
a build of a copy of the project that differs in everything that could leak: the project
folder, the output folder, the virtualenv's path (reached through a link where this Python
runs from one), the hash seed, and the examples themselves, which run afresh (cache off).
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import copy_project

from mkdocs_examples.source.cells import read_example

ROOT = Path(__file__).parent.parent
SITEMAPS = {"sitemap.xml", "sitemap.xml.gz"}  # they carry the build date
TEXT_FILES = {".html", ".json", ".xml", ".js", ".css", ".txt"}


def _copy_site(into: Path, real_project: Path) -> Path:
    """The project's sources under ``into``, with the examples cache turned off; its mkdocs.yml."""
    copy_project(into)
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    # `!!python/...` tags need MkDocs' own loader; the edit is a line under the plugin entry
    entry = re.search(r"^(\s*)- examples:[ \t]*\n", text, re.MULTILINE)
    assert entry, "mkdocs.yml has no `- examples:` plugin entry with options"
    indent = entry[1] + "    "
    text = text[: entry.end()] + f"{indent}cache: false\n" + text[entry.end() :]
    # every example runs afresh, on cores that the browser tests share meanwhile: twice the site's time for
    # each, which a page never shows
    head, options = text[: entry.end()], text[entry.end() :]  # the `timeout:` after the entry: its own
    options, found = re.subn(r"^(\s+timeout:[ \t]*)(\d+)", lambda m: f"{m[1]}{2 * int(m[2])}", options, count=1,
                             flags=re.MULTILINE)  # fmt: skip
    assert found, "mkdocs.yml's examples entry sets no `timeout`"
    text = head + options
    config = into / "mkdocs.yml"
    config.write_text(text, encoding="utf-8")
    # mkdocs-jupyter's renderings are keyed by the notebook's content: a notebook that differs
    # between the builds is rendered afresh, one that does not is the same page either way
    views = real_project / ".cache" / "mkdocs-jupyter"
    if views.is_dir():
        shutil.copytree(views, into / ".cache" / "mkdocs-jupyter")
    return config


def _python(folder: Path) -> str:
    """This interpreter, reached through a link to its virtualenv under ``folder`` when it runs in one."""
    prefix = Path(sys.prefix)
    if sys.prefix == sys.base_prefix or not (prefix / "bin" / "python").exists():
        return sys.executable
    link = folder / "venv"
    link.symlink_to(prefix, target_is_directory=True)
    return str(link / "bin" / "python")


def _files(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def _first_difference(a: bytes, b: bytes) -> str:
    """Where two files first differ: the text around it in each, tags left out."""
    text_a, text_b = a.decode(errors="replace"), b.decode(errors="replace")
    at = next((i for i, (x, y) in enumerate(zip(text_a, text_b, strict=False)) if x != y), min(len(a), len(b)))
    return "\n".join(f"    {_text(text[max(0, at - 120) : at + 120])!r}" for text in (text_a, text_b))


def _text(part: str) -> str:
    return html.unescape(re.sub(r"<[^>]*>", "", part))


@pytest.fixture(scope="module")
def two_builds(real_site, real_project, tmp_path_factory, cores) -> tuple[tuple[Path, Path], list[str]]:
    """The real site and a clean build elsewhere, and the paths of the building machine that must not appear."""
    folder = tmp_path_factory.mktemp("reproducible") / "second-build-elsewhere"
    config = _copy_site(folder / "project", real_project)
    # TMPDIR stays as it is: the engine makes its own temporary folders under it, with names
    # that differ between builds anyway, and a deep one breaks DataLoader workers (AF_UNIX
    # socket paths are limited to 107 bytes)
    seed = str(int(os.environ.get("PYTHONHASHSEED", "0").replace("random", "0")) + 1)
    env = dict(os.environ, PYTHONHASHSEED=seed, NO_MKDOCS_2_WARNING="1")
    build = ["build", "--strict", "--quiet", "-f", str(config), "-d", str(folder / "site")]
    with cores.held(cores.count):  # the engine runs an example on each core (`jobs`: 0)
        done = subprocess.run([_python(folder), "-m", "mkdocs", *build], env=env, cwd=folder,
                              capture_output=True, text=True, timeout=1800)  # fmt: skip  (every example afresh)
    assert done.returncode == 0, f"mkdocs build failed:\n{(done.stdout + done.stderr)[-5000:]}"
    real, _ = real_site
    machine = {str(folder.parent), str(real.parent), str(ROOT.resolve()), str(Path.home()), str(folder),
               str(real_project)}  # fmt: skip
    if sys.prefix != sys.base_prefix:  # a virtualenv's folder; /usr would match a page's prose
        machine |= {sys.prefix, os.path.realpath(sys.prefix)}
    return (real, folder / "site"), sorted(p for p in machine if p != "/")


def _mentions(text: str, path: str) -> bool:
    """Whether ``path`` is in ``text`` as a path of its own, not the tail of a longer one."""
    # the substring first: a pattern that starts with a lookbehind is tried at every position of the
    # text, and the two sites hold some 40 MB of it (5.6 CPU-seconds for the whole scan, now 0.2)
    return path in text and re.search(rf"(?<![\w.~/-]){re.escape(path)}(?![\w.-])", text) is not None


def test_a_path_is_found_on_its_own_and_not_as_part_of_a_longer_one():
    assert _mentions("File /tmp/b/project/x.py, line 1", "/tmp/b/project")
    assert _mentions('"/tmp/b/project"', "/tmp/b/project") and _mentions("(/tmp/b/project)", "/tmp/b/project")
    assert not _mentions("/tmp/b/project-2/x.py /tmp/b/project.txt", "/tmp/b/project")  # other files
    assert not _mentions("/home/u/tmp/b/project/x.py", "/tmp/b/project")  # the tail of a longer path
    assert not _mentions("nothing here", "/tmp/b/project")


def _measuring() -> list[str]:
    """The examples with a cell tagged `varies` (a timing), as pages name them: performance/compile.py."""
    found = []
    for file in sorted((ROOT / "examples").rglob("*.py")):
        example = read_example(ROOT / "examples", file.relative_to(ROOT / "examples").as_posix())
        if any(cell.has("varies") for cell in example.cells):
            found.append(example.path)
    return found


def _shows(text: bytes, measuring: list[str]) -> bool:
    """Whether a built file shows one of the ``measuring`` examples (its page, download or view): it names the
    example's file, or its comments' translation (the edit button of a Chinese view)."""
    return any(f"examples/{path.removesuffix('.py')}.".encode() in text for path in measuring)


def test_a_clean_build_elsewhere_gives_the_same_pages_as_the_real_site(two_builds):
    (first, second), _ = two_builds
    a, b = _files(first), _files(second)
    assert sorted(a) == sorted(b), f"the two builds wrote different files: {sorted(set(a) ^ set(b))[:10]}"
    # A measurement differs on every run, and not only in its numbers: a profiler's table aligns its
    # columns to the widest time and keeps the slowest rows. The files that show one are not compared
    # (test_no_path_of_the_building_machine_on_any_page still reads them); every other file is
    measuring = _measuring()
    assert measuring, "no example has a cell tagged varies: compare every file again"
    differ = [name for name in a if a[name] != b[name] and Path(name).name not in SITEMAPS
              and not (_shows(a[name], measuring) and _shows(b[name], measuring))]  # fmt: skip
    report = "\n".join(f"{name}:\n{_first_difference(a[name], b[name])}" for name in differ[:10])
    assert not differ, f"{len(differ)} files differ between the two builds:\n{report}"


def test_no_path_of_the_building_machine_on_any_page(two_builds):
    sites, machine = two_builds
    found = []
    for site in sites:
        for file in sorted(site.rglob("*")):
            if file.suffix in TEXT_FILES and file.name not in SITEMAPS:
                text = file.read_text(encoding="utf-8", errors="replace")
                found += [f"{file.relative_to(site)}: {path}" for path in machine if _mentions(text, path)]
    assert not found, "paths of the building machine on pages:\n" + "\n".join(found[:20])
