from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mkdocs_examples.cli import main

FIXTURE = Path(__file__).parent / "site"


@pytest.fixture
def site(tmp_path, monkeypatch) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "site")
    monkeypatch.chdir(tmp_path / "site")
    return tmp_path / "site"


def test_run_reports_each_example_then_uses_the_cache(site, capsys):
    assert main(["run"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert sorted(line.split()[0] + " " + line.split()[-1] for line in lines[:2]) == ["ok one.py", "ok two.py"]
    assert lines[-1].startswith("2 examples in ") and "2 run, 0 cached, 0 failed" in lines[-1]

    assert main(["run", "examples/two.py", "--show"]) == 0
    out = capsys.readouterr().out
    assert "cached  two.py" in out and "answer: 42" in out and "1 cached" in out


def test_a_failing_example_exits_non_zero_naming_file_and_line(site, capsys):
    (site / "examples" / "bad.py").write_text("x = 1\nassert x == 2, 'the page would be wrong'\n")
    assert main(["run", "examples", "--no-cache"]) == 1
    captured = capsys.readouterr()
    assert "FAILED" in captured.out and "bad.py" in captured.out
    assert "examples/bad.py:2: unexpected exception" in captured.err
    assert "AssertionError: the page would be wrong" in captured.err


def test_comments_leaves_a_translation_it_cannot_read_as_it_is_and_says_where(site, capsys):
    (site / "examples" / "three.py").write_text("x = 1  # one\ny = 2  # two\n")
    broken = "one: 一\ntwo: [二\n"  # a translation that starts with "[" is a YAML list left open
    (site / "examples" / "three.zh.yml").write_text(broken, encoding="utf-8")
    assert main(["comments", "examples/three.py"]) == 1
    said = capsys.readouterr()
    assert "refused: examples/three.zh.yml:3: not valid YAML" in said.err  # where the list is still open
    assert "every comment" not in said.out
    assert (site / "examples" / "three.zh.yml").read_text(encoding="utf-8") == broken


def test_paths_outside_the_examples_folder_are_refused(site, capsys):
    assert main(["run", "docs"]) == 2
    assert "is not inside the examples folder" in capsys.readouterr().err


def test_a_folder_with_a_link_out_of_the_examples_runs_nothing_outside(site, tmp_path, capsys):
    marker = tmp_path / "ran"
    (tmp_path / "outside.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    (site / "examples" / "sub").mkdir()
    (site / "examples" / "sub" / "link.py").symlink_to(tmp_path / "outside.py")
    assert main(["run", "examples"]) == 1
    captured = capsys.readouterr()
    assert "BROKEN" in captured.out and "examples/sub/link.py: is a symlink to" in captured.err
    assert main(["run", "examples/sub/link.py"]) == 1
    assert not marker.exists()


def test_the_summary_counts_one_example_in_the_singular():
    from mkdocs_examples.execute.engine import Outcome, summary
    from mkdocs_examples.results import Result
    from mkdocs_examples.source.cells import Example, parse_cells

    example = Example("a.py", Path("/x/a.py"), "x = 1\n", parse_cells("x = 1\n"))
    assert summary([Outcome(example, Result(), "cache")], 0.1).startswith("1 example in 0.1 s: 0 run, 1 cached")
    assert summary([Outcome(example, Result(), "cache")] * 2, 0.1).startswith("2 examples in ")


def test_recordings_are_merged_only_for_a_device_the_engine_knows(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["merge", "a", "--out", "recordings/mps", "--device", "mps"])
    assert stop.value.code == 2 and "invalid choice: 'mps'" in capsys.readouterr().err


def test_cache_prune_removes_the_entries_of_a_deleted_example_and_keeps_the_others(site, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))  # no store of headers to list
    assert main(["run"]) == 0
    entries = site / ".cache" / "examples"
    kept = sorted(entries.rglob("*.json"))
    assert len(kept) == 2
    (site / "examples" / "three.py").write_text("print(3)\n")
    assert main(["run", "examples/three.py"]) == 0
    three = sorted(set(entries.rglob("*.json")) - set(kept))
    assert len(three) == 1
    (entries / "zz").mkdir()  # not a shard of hex digits: no entry can be there
    (entries / "zz" / ".tmp-x.json").write_text("{")  # what an interrupted write leaves
    capsys.readouterr()

    assert main(["cache", "list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert [line.split()[-1] for line in listed[:3]] == ["one.py", "three.py", "two.py"]
    assert "(no example of this tree can use them" in listed[3] and listed[3].split()[0] == "1"
    assert listed[-1].startswith(".cache/examples: 4 entries, ")

    (site / "examples" / "three.py").unlink()
    assert main(["cache", "prune"]) == 0
    assert capsys.readouterr().out.startswith("removed 2 entries from .cache/examples\n")
    assert sorted(entries.rglob("*.json")) == kept and not (entries / "zz").exists()
    assert not three[0].exists() and (not three[0].parent.exists() or three[0].parent in {k.parent for k in kept})
    assert main(["run"]) == 0 and "2 cached" in capsys.readouterr().out  # what was kept is still used

    (site / "examples" / "one.py").write_text("print('edited')\n")  # an edit: its old entry can never be hit
    assert main(["cache", "prune"]) == 0
    assert len([entry for entry in kept if entry.exists()]) == 1
    capsys.readouterr()
    assert main(["run", "examples/two.py"]) == 0 and "1 cached" in capsys.readouterr().out

    assert main(["cache", "clear"]) == 0
    assert capsys.readouterr().out.endswith(".cache/examples: 0 entries, 0 bytes\n")
    assert entries.is_dir() and not list(entries.rglob("*.json"))


def test_cache_prune_removes_the_headers_built_for_a_torch_that_is_gone(site, capsys, monkeypatch, tmp_path):
    from mkdocs_examples.execute.child import headers

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    store = headers.default_store()
    for name, torch_folder in {"torch-a": str(site), "torch-b": str(tmp_path / "gone"), "torch-c": None}.items():
        (store / name).mkdir(parents=True)
        (store / name / "x.h.gch").write_bytes(b"1234")
        if torch_folder is not None:  # else built before the store said for which torch
            (store / name / headers.TORCH).write_text(torch_folder)
    assert main(["cache", "list"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith(f"{store}: inductor's precompiled headers for 3 ")
    assert main(["cache", "prune"]) == 0
    said = capsys.readouterr().out
    assert f"removed {store / 'torch-b'}" in said and f"removed {store / 'torch-c'}" in said
    assert sorted(p.name for p in store.iterdir()) == ["torch-a"]
    assert main(["cache", "clear"]) == 0 and (store / "torch-a" / "x.h.gch").exists()  # every clone's: kept
