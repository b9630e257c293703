"""The study notes' topics all have a home: tests/coverage.yml against the notes and the pages."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).parent.parent
# The study notes: a copy in the repository (so that this check runs wherever the tests do, GitHub's
# runners too), kept identical to ../shared/seeds where that exists
NOTES = Path(__file__).parent / "notes"
SEEDS = ROOT.parent / "shared" / "seeds"
COVERAGE = yaml.safe_load((Path(__file__).parent / "coverage.yml").read_text(encoding="utf-8"))

_FENCE = re.compile(r"^\s*(?:>\s*)*(?:[-*]\s+)?```")  # also fences inside quotes and list items
_HEADING = re.compile(r"^\s*(?:\d+\.\s+)?#{1,6}\s+(.+?)\s*#*\s*$")  # also "1. ### title"


def headings(text: str) -> list[str]:
    """The Markdown headings of a note, in order, leaving out `# comments` inside code."""
    found, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and (match := _HEADING.match(line)):
            found.append(match.group(1))
    return found


def notes() -> dict[str, Path]:
    # 003 exists twice: its repaired copy replaces the mis-encoded original
    paths = sorted(NOTES.glob("*.txt"))
    repaired = {p.name.replace(".repaired", "") for p in paths if ".repaired." in p.name}
    return {p.name: p for p in paths if p.name not in repaired}


def test_the_copy_of_the_notes_is_the_notes():
    if not SEEDS.is_dir():
        # .ci/run has the notes beside the clone; a GitHub runner has the repository alone
        if os.environ.get("CI") and os.environ.get("GITHUB_ACTIONS") != "true":
            raise RuntimeError(f"CI must check the copy of the notes: {SEEDS} is missing")
        pytest.skip(f"the study notes are not beside the repo ({SEEDS}): the copy in {NOTES} is checked alone")
    shared = {p.name: p.read_bytes() for p in SEEDS.glob("*.txt")}
    assert {p.name: p.read_bytes() for p in NOTES.glob("*.txt")} == shared, f"copy {SEEDS} into {NOTES} again"


def test_headings_are_recognised_in_and_out_of_code():
    text = "## A\n1. ### B\n```python\n# comment\n```\n- ```py\n# also code\n  ```\n# C #\n"
    assert headings(text) == ["A", "B", "C"]


def test_the_list_names_every_heading_of_every_note_in_order():
    found = {name: headings(path.read_text(encoding="utf-8")) for name, path in notes().items()}
    listed = {name: [e["heading"] for e in entries if "heading" in e] for name, entries in COVERAGE.items()}
    assert listed == found
    assert sum(map(len, found.values())) > 100


def test_every_entry_has_pages_in_both_languages_or_a_reason():
    for note, entries in COVERAGE.items():
        for entry in entries:
            where = f"{note}: {entry.get('heading') or entry.get('topic')!r}"
            assert len(entry) == 2 and {"heading", "topic"} & set(entry) and {"pages", "reason"} & set(entry), where
            if "reason" in entry:
                assert len(entry["reason"]) > 40, f"{where}: say why it is not covered"
                continue
            assert entry["pages"], where
            for page in entry["pages"]:
                for lang in ("en", "zh"):
                    assert (ROOT / "docs" / lang / page).is_file(), f"{where}: docs/{lang}/{page} does not exist"
