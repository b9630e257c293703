"""The pool's reading of what a child recorded, and of what a worker answers, without running examples."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mkdocs_examples.execute import pool as pool_module
from mkdocs_examples.execute.engine import Outcome, describe
from mkdocs_examples.execute.pool import Pool, PoolError
from mkdocs_examples.execute.verdict import collect as _collect
from mkdocs_examples.results import Options
from mkdocs_examples.source.cells import Example, parse_cells

SOURCE = "print(1)\n"
EXAMPLE = Example("a.py", Path("/x/a.py"), SOURCE, parse_cells(SOURCE))


def collect(tmp_path: Path, lines: list[str], returncode: int, example: Example = EXAMPLE, leftover=()):
    record = tmp_path / "record.jsonl"
    record.write_text("".join(line + "\n" for line in lines))
    done = {"returncode": returncode, "timed_out": False, "seconds": 0.1, "leftover": list(leftover)}
    return _collect(example, record, tmp_path / "faults", done, 10, Options())


CELL = {"cell": 0, "output": "1\n", "truncated": 0, "images": [], "traceback": None, "skipped": None, "seconds": 0.0}


def events(*names: str) -> list[str]:
    return [json.dumps({"event": "cell", **CELL} if name == "cell" else {"event": name}) for name in names]


def test_a_record_that_cannot_be_read_is_not_called_an_early_exit(tmp_path):
    result = collect(tmp_path, ["{not json", *events("end")], returncode=0)
    assert result.failure and result.failure.kind == "record"
    message = describe(Outcome(EXAMPLE, result, "run"))
    assert "could not read what it recorded, or not believe it" in message and "line 1 of its record" in message


def test_a_record_cut_short_by_a_crash_is_a_crash(tmp_path):
    result = collect(tmp_path, ['{"event": "start", "cell": 0}', '{"event": "ce'], returncode=-9)
    assert result.failure and result.failure.kind == "crash"


def test_a_whole_record_is_a_result(tmp_path):
    result = collect(tmp_path, ['{"event": "start", "cell": 0}', *events("cell", "end")], returncode=0)
    assert result.failure is None and result.cells[0].output == "1\n"


def test_a_recorded_image_that_is_not_a_png_is_refused_with_its_path(tmp_path):
    gif = {**CELL, "images": ["R0lGODlhAQABAAAAADs="]}  # base64 of a GIF, as an example could write into its record
    lines = ['{"event": "start", "cell": 0}', json.dumps({"event": "cell", **gif}), *events("end")]
    result = collect(tmp_path, lines, returncode=0)
    assert result.failure and result.failure.kind == "record" and not result.cells
    assert "line 2 of its record" in result.failure.detail and "images[0]: " in result.failure.detail
    assert "expected a PNG image in base64" in result.failure.detail


def test_nan_in_a_record_is_refused_with_its_path(tmp_path):
    cell = json.dumps({"event": "cell", **CELL}).replace('"seconds": 0.0', '"seconds": NaN')
    lines = ['{"event": "start", "cell": 0}', cell, *events("end")]
    result = collect(tmp_path, lines, returncode=0)
    assert result.failure and result.failure.kind == "record"
    assert "seconds: NaN is not a number JSON allows" in result.failure.detail


# --- the record does not make the verdict: the parent checks it against the example -----------

TWO = "print(1)\n# %% tags=[\"raises-exception\"]\nraise ValueError\n"
TWO_CELLS = Example("b.py", Path("/x/b.py"), TWO, parse_cells(TWO))


def cell(index: int, **fields) -> str:
    return json.dumps({"event": "cell", **CELL, "cell": index, **fields})


def test_a_record_that_skips_cells_is_not_a_result(tmp_path):
    result = collect(tmp_path, ['{"event": "start", "cell": 0}', cell(0), *events("end")], 0, TWO_CELLS)
    assert result.failure and result.failure.kind == "record"
    assert "1 of its 2 cells recorded, and no failure" in describe(Outcome(TWO_CELLS, result, "run"))


def test_a_cell_tagged_raises_exception_that_shows_none_fails_whatever_the_record_says(tmp_path):
    lines = ['{"event": "start", "cell": 0}', cell(0), '{"event": "start", "cell": 1}', cell(1), *events("end")]
    result = collect(tmp_path, lines, 0, TWO_CELLS)
    assert result.failure and result.failure.kind == "no-exception" and result.failure.cell == 1


def test_a_cell_skipped_without_its_tag_is_not_believed(tmp_path):
    lines = ['{"event": "start", "cell": 0}', cell(0, skipped="requires-cuda"), *events("end")]
    result = collect(tmp_path, lines, 0)
    assert result.failure and result.failure.kind == "record"


def test_an_end_in_the_record_of_a_process_that_exited_with_an_error_is_not_believed(tmp_path):
    result = collect(tmp_path, ['{"event": "start", "cell": 0}', *events("cell", "end")], returncode=3)
    assert result.failure and result.failure.kind == "early-exit"


def test_a_cell_past_a_bound_of_the_options_fails_whatever_the_record_says(tmp_path):
    figure = "iVBORw0KGgo" + "A" * 9  # a PNG in base64, as small as the schema takes one
    lines = ['{"event": "start", "cell": 0}', cell(0, images=[figure] * 11), *events("end")]
    result = collect(tmp_path, lines, 0)  # no failure recorded: the parent counts the figures itself
    assert result.failure and result.failure.kind == "limit" and result.failure.cell == 0
    assert "`max_figures`" in result.failure.detail


def test_a_limit_the_record_claims_and_the_output_is_within_is_not_believed(tmp_path):
    claimed = json.dumps({"event": "failure", "kind": "limit", "cell": 0, "line": 1, "traceback": None,
                          "returncode": None, "timeout": None, "detail": "past max_output_bytes"})  # fmt: skip
    result = collect(tmp_path, ['{"event": "start", "cell": 0}', cell(0), claimed, *events("end")], 0)
    assert result.failure and result.failure.kind == "record"
    assert "cell 0 is said to go past a limit of the options, and does not" in result.failure.detail


def test_processes_left_running_fail_an_example_that_otherwise_passed(tmp_path):
    lines = ['{"event": "start", "cell": 0}', *events("cell", "end")]
    result = collect(tmp_path, lines, 0, leftover=["4242 (sleep 300)"])
    assert result.failure and result.failure.kind == "leftover"
    assert "were still running after it ended, and were killed: 4242 (sleep 300)" in result.failure.detail


# --- what a worker answers: only what fits is believed --------------------------------------------

FAKE = """
import json, os, subprocess, sys, tempfile, time
scratch = tempfile.mkdtemp(prefix="mkx-")
def say(message):
    print(message if isinstance(message, str) else json.dumps(message), flush=True)
say({"ready": True, "cuda": False, "pid": os.getpid(), "scratch": scratch})
ids = [job["id"] for job in json.loads(sys.stdin.readline())["jobs"]]
child = subprocess.Popen(["sleep", "60"])
def end(n):
    return {"id": n, "returncode": 0, "timed_out": False, "seconds": 0.1, "leftover": [], "oom": 0}
%s
sys.stdin.read()  # until the pool closes it, as the worker does
"""


class FakePool(Pool):
    """A pool whose worker is a script that answers as ``script`` says."""

    def __init__(self, script: str) -> None:
        super().__init__([])
        self.script, self.starts = script, 0

    def start(self) -> None:
        if self._proc is None or self._proc.poll() is not None:
            self.starts += 1
            self._proc = subprocess.Popen(
                [sys.executable, "-c", FAKE % self.script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                start_new_session=True,
            )  # fmt: skip
            self._buffer, self.info = b"", {}


def examples(*names: str) -> list[Example]:
    return [Example(name, Path("/x", name), SOURCE, parse_cells(SOURCE)) for name in names]


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setattr(pool_module, "HUNG", 3.0)
    monkeypatch.setattr(pool_module, "SLACK", 0.5)
    pools: list[FakePool] = []

    def make(script: str) -> FakePool:
        pools.append(FakePool(script))
        return pools[-1]

    yield make
    for pool in pools:
        pool.close()


def test_an_answer_about_an_example_not_in_flight_is_a_clear_error_naming_the_worker(fake):
    pool = fake("say(end(max(ids) + 1000))")
    not_in_flight = r"the worker \(pid \d+\) sent an answer about an example that is not in flight"
    with pytest.raises(PoolError, match=not_in_flight):
        list(pool.run(examples("a.py"), Options(), timeout=1, parallel=1))


def test_an_example_ended_twice_is_believed_once_and_every_example_gets_a_result(fake):
    pool = fake("say({'id': ids[0], 'pid': child.pid}); say(end(ids[0])); say(end(ids[0]))")
    results = list(pool.run(examples("a.py", "b.py"), Options(), timeout=1, parallel=2))
    assert sorted(example.path for example, _ in results) == ["a.py", "b.py"]
    assert pool.starts == 2  # the worker that answered twice was not used again


def test_a_pid_that_is_not_a_child_of_the_worker_is_never_killed(fake):
    victim = subprocess.Popen(["sleep", "60"], start_new_session=True)  # as if the user's editor
    try:
        pool = fake(f"say({{'id': ids[0], 'pid': {victim.pid}}})")
        with pytest.raises(PoolError, match="a process that is not an example's"):
            list(pool.run(examples("a.py"), Options(), timeout=1, parallel=1))
        assert victim.poll() is None, "the pool killed a process the worker named"
    finally:
        victim.kill()
        victim.wait()


def test_heartbeats_do_not_keep_a_batch_alive_past_its_timeouts(fake):
    pool = fake("say({'id': ids[0], 'pid': child.pid})\nfor _ in range(300):\n    say({'tick': True}); time.sleep(0.1)")
    start = time.monotonic()
    ((_, result),) = pool.run(examples("a.py"), Options(), timeout=1, parallel=1)
    assert result.failure and result.failure.kind == "worker"
    assert "the worker did not end a.py within its timeout" in result.failure.detail
    assert time.monotonic() - start < 20  # the fake worker ticks for 30 s


def test_a_line_that_is_not_an_answer_is_a_clear_error_naming_the_worker(fake):
    pool = fake("say('Traceback (most recent call last): not an answer')")
    with pytest.raises(PoolError, match=r"the worker \(pid \d+\) sent a line that is not an answer: b'Traceback"):
        list(pool.run(examples("a.py"), Options(), timeout=1, parallel=1))


def test_each_run_says_where_its_seconds_went_and_the_cache_keeps_none_of_it(tmp_path):
    from mkdocs_examples.execute.cache import Cache
    from mkdocs_examples.execute.engine import Engine
    from mkdocs_examples.results import Result

    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "a.py").write_text("import time\ntime.sleep(0.2)\nprint(1)\n")
    (tmp_path / "examples" / "b.py").write_text("print(2)\n")
    engine = Engine(tmp_path / "examples", tmp_path / "cache", options=Options(), preload=[], jobs=1, timeout=20)
    try:
        outcomes = engine.run([engine.load("a.py"), engine.load("b.py")])
    finally:
        engine.close()
    first, second = outcomes["a.py"].result, outcomes["b.py"].result
    for result in (first, second):
        assert set(result.phases) == set(pool_module.PHASES), result.phases
        assert all(value >= 0 for value in result.phases.values()), result.phases
        inside = sum(result.phases[name] for name in ("fork", "sandbox", "runner")) + result.cells[0].seconds
        assert inside <= result.seconds + result.phases["fork"] + 0.05  # the worker's seconds start at the fork
    assert first.cells[0].seconds >= 0.2 and first.phases["cpu"] < 0.2  # asleep: wall time, not CPU
    assert second.phases["wait"] >= first.cells[0].seconds  # one slot: b waited for a
    stored = [json.loads(p.read_text())["result"] for p in (tmp_path / "cache").rglob("*.json")]
    assert len(stored) == 2 and all("phases" not in entry for entry in stored)
    assert Cache(tmp_path / "cache", tmp_path / "examples").get(next(iter(engine._memory)))[0].phases == {}
    assert Result.from_json(stored[0]).phases == {}


@pytest.mark.parametrize("build, worker", [
    (None, "glibc.malloc.hugetlb=1"),
    ("glibc.malloc.arena_max=2", "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1"),
    ("glibc.malloc.hugetlb=0", "glibc.malloc.hugetlb=0"),  # the build's choice stands
])  # fmt: skip
def test_the_worker_keeps_the_builds_glibc_tunables_and_asks_for_huge_pages(monkeypatch, build, worker):
    if build is None:
        monkeypatch.delenv("GLIBC_TUNABLES", raising=False)
    else:
        monkeypatch.setenv("GLIBC_TUNABLES", build)
    assert pool_module._tunables() == worker
