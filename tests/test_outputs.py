"""`run --snapshot` and `diff`: which outputs a change moved, cell by cell, for a pull request's summary."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from mkdocs_examples.cli import main
from mkdocs_examples.publish import outputs

FIXTURE = Path(__file__).parent / "site"

BEFORE = """\
# %% setup
x = list(range(4))

# %% doubled
print([v * 2 for v in x])

# %% same
print("unchanged")

# %% fails tags=["raises-exception"]
x[10]

# %% checks tags=["remove-cell"]
assert sum(x) == 6
"""

# `doubled` prints more, a line above `fails` moves its traceback's line number, and a cell is new
AFTER = """\
# %% setup
x = list(range(4))

# %% doubled
print([v * 2 for v in x])
print([v * 3 for v in x])

# %% same
print("unchanged")

# %% fails tags=["raises-exception"]
x[10]

# %% checks tags=["remove-cell"]
assert sum(x) == 6

# %% added
print("new cell")
"""


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def two_commits(tmp_path_factory) -> tuple[Path, Path]:
    """Snapshots of two commits of the fixture site: the second edits one example and adds one."""
    repo = tmp_path_factory.mktemp("repo") / "site"
    shutil.copytree(FIXTURE, repo)
    (repo / "examples" / "three.py").write_text(BEFORE)
    (repo / "docs" / "en" / "index.md").write_text("# Fixture\n\n/// example | three.py#doubled\n///\n")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    snaps = tmp_path_factory.mktemp("snapshots")
    config = str(repo / "mkdocs.yml")
    assert main(["run", "-f", config, "--snapshot", str(snaps / "old.json")]) == 0
    (repo / "examples" / "three.py").write_text(AFTER)
    (repo / "examples" / "four.py").write_text(
        "# %% shown\nprint('four')\n\n# %% shown-checks tags=[\"remove-cell\"]\nprint('hidden')\n"
    )
    with (repo / "docs" / "zh" / "index.md").open("a") as page:
        page.write("\n/// example | four.py#shown\n///\n")
    git(repo, "add", ".")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "change")
    assert main(["run", "-f", config, "--snapshot", str(snaps / "new.json")]) == 0
    return snaps / "old.json", snaps / "new.json"


def test_the_diff_names_exactly_the_changed_cells(two_commits):
    old, new = (outputs.read(f) for f in two_commits)
    changed = {(c.example, c.cell): c for c in outputs.changes(old, new)}
    assert set(changed) == {("three.py", "doubled"), ("three.py", "fails")}
    assert changed["three.py", "doubled"].diff[1:] == [" [0, 2, 4, 6]\n", "+[0, 3, 6, 9]\n"]
    assert changed["three.py", "fails"].renumbered and not changed["three.py", "doubled"].renumbered


def test_the_report_shows_diffs_pages_new_examples_and_what_ran(two_commits, capsys):
    assert main(["diff", *map(str, two_commits), "--base", "main (abc1234)"]) == 0
    text = capsys.readouterr().out
    assert "## Outputs compared with main (abc1234)" in text
    assert "The output of 1 cell of 1 example changed; new: `four.py`; in 1 other cell only line numbers moved." in text
    assert "```diff\n@@ -1 +1,2 @@\n [0, 2, 4, 6]\n+[0, 3, 6, 9]\n```" in text
    assert "Shown on `en/index.md`." in text
    assert "Only line numbers moved (in tracebacks or warnings): `fails`." in text
    assert "`same`" not in text and "`added`" not in text  # unchanged, and not in the base
    # only the edited and the new example ran: the others came from the cache the first run filled
    assert "Ran (new, changed, or not in this runner's cache): `four.py`, `three.py`" in text


def test_a_new_example_lists_its_pages_linked_into_the_preview_and_what_they_show(two_commits, capsys):
    assert main(["diff", *map(str, two_commits), "--preview", "https://previews.example/pr-7/"]) == 0
    text = capsys.readouterr().out
    new = text[text.index("### `four.py` (new)") :]
    assert "Shown on [`zh/index.md`](https://previews.example/pr-7/zh/)." in new
    assert "<summary><code>shown</code> (line 2)</summary>\n\n```\nfour\n```" in new
    assert "hidden" not in new  # a hidden check shows nothing
    assert main(["diff", *map(str, two_commits)]) == 0  # without a preview: the pages by name
    assert "Shown on `zh/index.md`." in capsys.readouterr().out
    assert outputs.page_url("https://p.example/x", "en/tensors/one-hot.md", "en") == "https://p.example/x/tensors/one-hot/"
    assert outputs.page_url("https://p.example/x/", "zh/tensors/index.md", "en") == "https://p.example/x/zh/tensors/"


def test_recordings_made_stale_by_the_change_are_listed(two_commits, tmp_path, capsys):
    old = json.loads(two_commits[0].read_text())
    folder = tmp_path / "cuda"
    folder.mkdir()
    for path in ("three.py", "one.py"):  # three.py changes in the new snapshot, one.py does not
        (folder / path.replace(".py", ".json")).write_text(json.dumps(_recording(path, old["examples"][path])))
    assert main(["diff", *map(str, two_commits), "--recordings", str(folder)]) == 0
    text = capsys.readouterr().out
    assert "This change makes cells of these CUDA recordings stale" in text
    cuda = text.split("## CUDA recordings")[1]
    assert "`three.py`" in cuda and "`one.py`" not in cuda


def test_the_recordings_folder_of_the_site_lists_only_cuda_environments_made_stale(two_commits, tmp_path, capsys):
    old = json.loads(two_commits[0].read_text())
    root = tmp_path / "recordings"
    for name, device, torch in (("cuda-torch2.11.0-py3.12", "cuda", "2.11.0+cu130"),
                                ("cpu-torch2.14.1-py3.11", "cpu", "2.14.1+cu130")):  # fmt: skip
        (root / name).mkdir(parents=True)
        made = _recording("three.py", old["examples"]["three.py"])
        made["env"] = {"device": device, "torch": torch, "python": name[-4:] + ".1"}
        (root / name / "three.json").write_text(json.dumps(made))
        manifest = {"schema": 1, "id": name, "device": device, "torch": torch, "python": name[-4:] + ".1"}
        (root / name / "environment.json").write_text(json.dumps(manifest))
    assert main(["diff", *map(str, two_commits), "--recordings", str(root)]) == 0
    cuda = capsys.readouterr().out.split("## CUDA recordings")[1]
    assert cuda.count("`three.py`") == 1  # the CUDA environment's; the CPU one of torch 2.14.1 is no CUDA recording


def _recording(path: str, example: dict) -> dict:
    return {
        "schema": 2, "example": path, "scheme": "tokens-1", "keys": example["keys"], "lines": {},
        "recorded": "2026-11-22T00:00:00Z",
        "seconds": 0.1, "env": {"device": "cuda"},
        "cells": [{"cell": 0, "name": None, "output": [], "traceback": None, "images": [], "truncated": 0,
                   "skipped": None, "seconds": 0.0}],
    }  # fmt: skip


@pytest.mark.parametrize(
    "break_it",
    [
        lambda d: d.update(schema=2),
        lambda d: d["examples"].update({"../x.py": d["examples"]["one.py"]}),
        lambda d: d["examples"]["one.py"]["cells"][0].update(name="</code><script>"),
        lambda d: d["examples"]["one.py"]["cells"][0].update(output="not a list of lines"),
        lambda d: d["examples"]["one.py"].update(pages=["en/x.md`<b>"]),
        lambda d: d["examples"]["one.py"].pop("keys"),
    ],
)
def test_a_snapshot_of_the_wrong_shape_is_refused_naming_the_file(two_commits, tmp_path, capsys, break_it):
    data = json.loads(two_commits[0].read_text())
    break_it(data)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    assert main(["diff", str(bad), str(two_commits[1])]) == 2
    assert f"{bad}: not a readable snapshot" in capsys.readouterr().err


def test_a_fence_is_longer_than_any_backticks_in_the_output():
    assert outputs._fence(["````\n"]) == ["`````", "````", "`````"]
