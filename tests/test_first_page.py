"""A first-time contributor's page, in every section, from a fresh clone: green on the first try.

A `git clone` of this checkout (its last commit, as a contributor's fork has it), then for each section of
its nav: `make page`, the template's sentences and notes replaced by the page's own, as CONTRIBUTING.md's
"A new tip, step by step" asks. Then what `make test` runs that reads the content (the notebooks written
again, then the modules of :data:`CONTENT` in its fast lane: the whole suite cannot run inside one of its
own tests), and the strict build (`make build`), which runs the twin and wording checks too. Nothing else
is touched: no test in the clone reads a fixed shape of the content.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from mkdocs_examples import yaml_files

pytestmark = pytest.mark.slow
ROOT = Path(__file__).parent.parent

# The fast lane's modules that read the site's pages, examples, notebooks or nav: what a new page can break
CONTENT = [
    "tests/test_comments.py", "tests/test_content.py", "tests/test_coverage.py", "tests/test_docs.py",
    "tests/test_example_lines.py", "tests/test_keys.py", "tests/test_links.py", "tests/test_notebooks.py",
    "tests/test_tools.py",
]  # fmt: skip

PAGE_EN = """\
# {title}

`torch.arange` counts from zero, and `reshape` lays the numbers out row by row.

## Counting into a shape

/// example | {example}#first
///

The tensor holds the integers 0 to 5 in two rows of three: its shape is `(2, 3)` and its
dtype `torch.int64`, the default for integers.
"""
PAGE_ZH = """\
# {title}

`torch.arange` 从零开始计数，`reshape` 再按行排列这些数。

## 按形状计数

/// example | {example}#first
///

这个张量按两行三列存放整数 0 到 5：形状是 `(2, 3)`，dtype 是整数的默认类型 `torch.int64`。
"""
NOTES = """\
# %% [markdown]
# torch.arange counts from zero; reshape lays the numbers out row by row

# %% [markdown] lang="zh"
# torch.arange 从零开始计数，reshape 按行排列这些数
"""


def sections(root: Path) -> list[str]:
    """The folder of each section of the nav: an entry with pages under it."""
    found = []
    for item in yaml_files.load(root / "mkdocs.yml")["nav"]:
        value = next(iter(item.values())) if isinstance(item, dict) else None
        if isinstance(value, list) and value and isinstance(value[0], str) and "/" in value[0]:
            found.append(value[0].split("/")[0])
    return found


def run(command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PAGE", "TITLE", "TITLE_ZH", "MAKEFLAGS")}
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)  # a contributor's machine


def fill(clone: Path, section: str) -> set[str]:
    """The new page of ``section`` written as its contributor would; the paths it changes."""
    name, title, title_zh = "first-tip", "Counting into a shape", "按形状计数"
    done = run(["make", "-s", "-o", ".venv/.installed", "page", f"PAGE={section}/{name}", f"TITLE={title}",
                f"TITLE_ZH={title_zh}"], clone)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    example = f"{section}/first_tip.py"
    (clone / "docs/en" / section / f"{name}.md").write_text(PAGE_EN.format(title=title, example=example))
    (clone / "docs/zh" / section / f"{name}.md").write_text(PAGE_ZH.format(title=title_zh, example=example))
    source = clone / "examples" / example
    code = source.read_text(encoding="utf-8")
    source.write_text(NOTES + code[code.index("\n# %% first\n") :], encoding="utf-8")
    for lang, line in (("en", "counting into a shape with `torch.arange`."), ("zh", "用 `torch.arange` 按形状计数。")):
        index = clone / "docs" / lang / section / "index.md"
        text = index.read_text(encoding="utf-8")
        placeholder = "one line on what the page shows." if lang == "en" else "用一句话说明本页讲什么。"
        index.write_text(text.replace(placeholder, line), encoding="utf-8")
    pages = {f"docs/{lang}/{section}/{file}" for lang in ("en", "zh") for file in (f"{name}.md", "index.md")}
    notebooks = {f"notebooks/{section}/first_tip.ipynb", f"notebooks/zh/{section}/first_tip.ipynb"}
    return pages | notebooks | {"mkdocs.yml", f"examples/{example}", f"examples/{section}/first_tip.zh.yml"}


def test_a_new_page_in_every_section_of_a_fresh_clone_passes_the_tests_and_the_strict_build(
    tmp_path, real_project
):
    clone = tmp_path / "clone"
    done = subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    (clone / ".venv").symlink_to(ROOT / ".venv")
    found = sections(clone)
    assert "tensors" in found and len(found) > 5
    expected = set().union(*(fill(clone, section) for section in found))

    done = run(["make", "-s", "-o", ".venv/.installed", "notebooks"], clone)  # the step of `make test` before pytest
    assert done.returncode == 0, done.stderr
    changed = run(["git", "status", "--porcelain", "--untracked-files=all"], clone).stdout.splitlines()
    assert {line[3:] for line in changed} == expected  # the page's own files and nothing else

    tests = run([str(ROOT / ".venv/bin/python"), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow",
                 "-x", *CONTENT], clone)  # fmt: skip
    assert tests.returncode == 0, tests.stdout[-4000:]

    shutil.copytree(real_project / ".cache", clone / ".cache")  # content-addressed, filled by real_site
    built = run(["make", "-s", "-o", ".venv/.installed", "build"], clone)
    assert built.returncode == 0, built.stderr[-4000:]
    html = (clone / "site/tensors/first-tip/index.html").read_text(encoding="utf-8")
    assert "tensor([[0, 1, 2],\n        [3, 4, 5]])" in html.replace("&#39;", "'")
    assert "assert x.shape" not in html  # the hidden cell stays hidden
