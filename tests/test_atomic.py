"""A file written whole or not at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from mkdocs_examples import atomic


def test_a_write_replaces_the_file_and_leaves_nothing_beside_it(tmp_path: Path):
    file = tmp_path / "entry.json"
    file.write_text("old", encoding="utf-8")
    atomic.write_text(file, "new: 新")
    assert file.read_text(encoding="utf-8") == "new: 新"
    assert [p.name for p in tmp_path.iterdir()] == ["entry.json"]


def test_a_write_that_fails_keeps_the_old_file_and_removes_its_temporary_file(tmp_path: Path):
    file = tmp_path / "entry.json"
    file.write_text("old", encoding="utf-8")
    with pytest.raises(UnicodeEncodeError):
        atomic.write_text(file, "half \ud800 written")  # a lone surrogate: not UTF-8
    assert file.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["entry.json"]
