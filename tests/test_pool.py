"""The pool's reading of what a child recorded, without running anything."""

from __future__ import annotations

import json
from pathlib import Path

from mkdocs_examples.execute.engine import Outcome, describe
from mkdocs_examples.execute.verdict import collect as _collect
from mkdocs_examples.results import Options
from mkdocs_examples.source.cells import Example, parse_cells

SOURCE = "print(1)\n"
EXAMPLE = Example("a.py", Path("/x/a.py"), SOURCE, parse_cells(SOURCE))


def collect(tmp_path: Path, lines: list[str], returncode: int):
    record = tmp_path / "record.jsonl"
    record.write_text("".join(line + "\n" for line in lines))
    done = {"returncode": returncode, "timed_out": False, "seconds": 0.1, "leftover": []}
    return _collect(EXAMPLE, record, tmp_path / "faults", done, 10, Options())


CELL = {"cell": 0, "output": "1\n", "truncated": 0, "images": [], "traceback": None, "skipped": None, "seconds": 0.0}


def events(*names: str) -> list[str]:
    return [json.dumps({"event": "cell", **CELL} if name == "cell" else {"event": name}) for name in names]


def test_a_record_that_cannot_be_read_is_not_called_an_early_exit(tmp_path):
    result = collect(tmp_path, ["{not json", *events("end")], returncode=0)
    assert result.failure and result.failure.kind == "record"
    message = describe(Outcome(EXAMPLE, result, "run"))
    assert "could not read what it recorded" in message and "line 1 of its record" in message


def test_a_record_cut_short_by_a_crash_is_a_crash(tmp_path):
    result = collect(tmp_path, ['{"event": "start", "cell": 0}', '{"event": "ce'], returncode=-9)
    assert result.failure and result.failure.kind == "crash"


def test_a_whole_record_is_a_result(tmp_path):
    result = collect(tmp_path, ['{"event": "start", "cell": 0}', *events("cell", "end")], returncode=0)
    assert result.failure is None and result.cells[0].output == "1\n"
