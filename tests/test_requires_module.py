"""Cells that need a module besides torch (``requires-torchvision``): run where it imports, shown from recordings.

The build's CPU torch cannot import PyPI's torchvision, which each release's own environment has: such
a cell is skipped on the build, runs in the release recordings, and the page shows what they printed.
The module these tests need is a helper module of the examples folder, present or not.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from html import unescape
from pathlib import Path

import pytest

from mkdocs_examples.publish.notebooks import notebook, runnable_script
from mkdocs_examples.recordings.store import Published, Recording
from mkdocs_examples.render.checks import differing, render_checks
from mkdocs_examples.render.page import render_example
from mkdocs_examples.results import CellResult, Result
from mkdocs_examples.source.cells import Example, ExampleError, parse_cells
from mkdocs_examples.source.keys import cell_keys

SOURCE = """\
import torch
# %% vision tags=["requires-torchvision"]
import torchvision
print(torchvision.__version__)
# %% after
print("after")
"""
EXAMPLE = Example("d/v.py", Path("/x/d/v.py"), SOURCE, parse_cells(SOURCE))
BUILD_ENV = {"device": "cpu", "torch": "2.13.0+cpu", "python": "3.11.7"}
RELEASE = {"device": "cpu", "torch": "2.14.1+cu130", "python": "3.11.7"}  # test data
BUILT = Result(env=BUILD_ENV, cells=(CellResult(0), CellResult(1, skipped="requires-torchvision"),
                                     CellResult(2, "after\n")))  # fmt: skip


def recorded(output: str) -> Recording:
    cells = (CellResult(0), CellResult(1, output), CellResult(2, "after\n"))
    return Recording(EXAMPLE.path, EXAMPLE.keys, "2026-11-27T10:00:00Z", RELEASE, 1.0, cells,
                     tuple(c.name for c in EXAMPLE.cells))  # fmt: skip


def test_the_tag_names_the_module_and_is_part_of_the_key():
    assert EXAMPLE.cell("vision").module == "torchvision"
    assert EXAMPLE.cell("after").module is None
    plain = cell_keys("d/v.py", [("x = 1\n", ())])
    assert cell_keys("d/v.py", [("x = 1\n", ("requires-torchvision",))]) != plain
    assert cell_keys("d/v.py", [("x = 1\n", ("remove-cell",))]) == plain


def test_the_hidden_check_right_after_such_a_cell_needs_the_module_too():
    cells = parse_cells('# %% a tags=["requires-torchvision"]\nx = 1\n# %% a-checks tags=["remove-cell"]\n'
                        "assert x\n# %% shown\nprint(2)\n")  # fmt: skip
    assert [c.module for c in cells] == ["torchvision", "torchvision", None]
    assert cells[1].tags == ("remove-cell",)  # untagged: its key is the one its source and tags make


def test_a_tag_that_names_no_module_or_two_requirements_are_refused():
    with pytest.raises(ExampleError, match="unknown tag 'requires-torch-vision'"):
        parse_cells('# %% tags=["requires-torch-vision"]\nx = 1\n', "examples/a.py")
    with pytest.raises(ExampleError, match="one requires- tag"):
        parse_cells('# %% tags=["requires-cuda", "requires-torchvision"]\nx = 1\n', "examples/a.py")


def test_the_cell_is_skipped_where_the_module_does_not_import_and_runs_where_it_does(runner):
    missing = runner.one('x = 1\n# %% tags=["requires-absent_module"]\nimport absent_module\ny = 2\n'
                         '# %% tags=["remove-cell"]\nassert y == 2\n# %%\nprint(x)\n')  # fmt: skip
    assert missing.failure is None
    assert [c.skipped for c in missing.result.cells] == [None, "requires-absent_module", "requires-absent_module", None]
    assert missing.result.cells[3].output == "1\n"  # the cells after it and its check run
    assert missing.result.depends["dist:absent_module"] == "not installed"  # installing it runs the example again
    (runner.root / "present_module.py").write_text("NAME = 'here'\n")
    found = runner.one('# %% tags=["requires-present_module"]\nimport present_module\nprint(present_module.NAME)\n')
    assert found.failure is None and found.result.cells[0].skipped is None
    assert found.result.cells[0].output == "here\n"


def test_a_module_that_fails_to_import_skips_the_cell(runner):
    (runner.root / "broken_module.py").write_text("raise RuntimeError('operator torchvision::nms does not exist')\n")
    outcome = runner.one('# %% tags=["requires-broken_module"]\nimport broken_module\n')
    assert outcome.failure is None and outcome.result.cells[0].skipped == "requires-broken_module"


def test_the_page_shows_what_a_release_with_the_module_printed():
    site = {"torch": BUILD_ENV["torch"], "python": BUILD_ENV["python"]}
    published = (Published.holding("cpu", recorded("0.29.1\n"), EXAMPLE, site),)
    md = unescape(render_example(EXAMPLE, BUILT, "vision", lang="en", limit=100, published=published))
    assert "0.29.1" in md and "torch 2.14.1" in md
    assert "needs torchvision" not in md


def test_without_a_recording_the_page_says_the_cell_needs_the_module():
    for lang, words in (("en", "This cell needs torchvision"), ("zh", "此单元需要 torchvision")):
        md = unescape(render_example(EXAMPLE, BUILT, "vision", lang=lang, limit=100))
        assert words in md and "data-search-exclude" in md


def test_downloads_import_the_module_first_and_say_what_to_install_without_it(tmp_path):
    script = runnable_script(EXAMPLE)
    assert "try:\n    import torchvision" in script and "pip install torchvision" in script
    file = tmp_path / "v.py"
    file.write_text(script.replace("import torchvision", "import absent_module"))
    ran = subprocess.run([sys.executable, str(file)], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert "pip install torchvision" in ran.stdout and ran.stdout.rstrip().endswith("after")


def test_the_notebook_carries_the_recorded_output_and_says_where_it_comes_from():
    nb = notebook(EXAMPLE, BUILT, recorded("0.29.1\n"))
    vision = next(c for c in nb["cells"] if c.get("id") == "vision")
    assert "0.29.1\n" in "".join(o.get("text", "") for o in vision["outputs"])
    missing = notebook(EXAMPLE, BUILT, None)
    assert any("needs torchvision" in "".join(c["source"]) for c in missing["cells"] if c["cell_type"] == "markdown")


def test_the_checks_line_names_the_releases_that_ran_the_cells_the_build_could_not():
    line = unescape(render_checks(BUILD_ENV, {EXAMPLE.path: [recorded("0.29.1\n")]}, "examples", lang="en",
                                  lacking={EXAMPLE.path: "torchvision"}))  # fmt: skip
    assert "The cells that need torchvision were checked on torch 2.14.1: the build's torch 2.13.0 cannot" in line
    zh = unescape(render_checks(BUILD_ENV, {EXAMPLE.path: [recorded("0.29.1\n")]}, "examples", lang="zh",
                                lacking={EXAMPLE.path: "torchvision"}))  # fmt: skip
    assert "需要 torchvision 的单元在 torch 2.14.1 上检验过" in zh
    plain = unescape(render_checks(BUILD_ENV, {EXAMPLE.path: [recorded("0.29.1\n")]}, "examples", lang="en"))
    assert "torchvision" not in plain


def test_a_cell_the_build_skipped_is_no_difference_between_releases():
    assert differing(EXAMPLE, BUILT, [recorded("0.29.1\n")]) == set()
    assert differing(EXAMPLE, BUILT, [replace(recorded("0.29.1\n"), cells=(CellResult(0), CellResult(1, "0.29.1\n"),
                                                                           CellResult(2, "later\n")))]) == {"2.14.1"}
