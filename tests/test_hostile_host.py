"""Examples that probe the host: its disk and its load. The build names them, cleans up and goes on.

Each test runs twice, as tests/test_hostile.py's do: with the Linux protections, and with them forced
off, the path macOS takes (MKDOCS_EXAMPLES_PORTABLE=1).
"""

from __future__ import annotations

import json
import os
import re
import sys
import textwrap
from pathlib import Path

import pytest

from mkdocs_examples.execute.child import masks, scratch
from mkdocs_examples.execute.engine import Engine, describe
from mkdocs_examples.results import Options


@pytest.fixture(scope="module", params=["linux", "portable"])
def project(request, tmp_path_factory):
    """An examples folder and one engine (two examples at once, no torch) for it."""
    root = tmp_path_factory.mktemp(request.param)
    (root / "examples").mkdir()
    old = os.environ.get("MKDOCS_EXAMPLES_PORTABLE")
    os.environ["MKDOCS_EXAMPLES_PORTABLE"] = "1" if request.param == "portable" else "0"
    # the deep tree's example takes seconds (Landlock walks up its folders at each step): room for a loaded machine
    engine = Engine(root / "examples", None, options=Options(), preload=[], jobs=2, timeout=120)
    try:
        engine.pool.start()  # the worker reads the variable when it starts
        yield root, engine, request.param
    finally:
        engine.close()
        if old is None:
            del os.environ["MKDOCS_EXAMPLES_PORTABLE"]
        else:
            os.environ["MKDOCS_EXAMPLES_PORTABLE"] = old


def run(project, source: str, path: str = "hostile.py", *others: str, options: Options | None = None):
    """Run ``source`` as ``path``, then ``others``; with ``options`` instead of the engine's (the defaults)."""
    root, engine, _ = project
    (root / "examples" / path).write_text(textwrap.dedent(source))
    engine._memory.clear()
    kept, engine.options = engine.options, options or engine.options
    try:
        return engine.run([engine.load(path), *(engine.load(p) for p in others)])
    finally:
        engine.options = kept


SMALL = Options(max_files=1000, max_folder_size=8, max_memory=32)  # /tmp and /dev/shm: 16 MiB each


# Tests of what only an example with namespaces of its own gets (a folder in memory, its own /proc)
LINUX = pytest.mark.parametrize("project", ["linux"], indirect=True)


def namespaced(project) -> bool:
    """Whether each example gets mount, PID, IPC and UTS namespaces of its own here."""
    _, engine, _ = project
    engine.pool.ready()
    return "namespaces" not in (engine.pool.sandbox["missing"] or {})


def fine(project) -> str:
    (project[0] / "examples" / "fine.py").write_text("print('fine')\n")
    return "fine.py"


def left(project) -> list[str]:
    """The folders of examples the worker's scratch folder still holds."""
    _, engine, _ = project
    return [entry.name for entry in Path(engine.pool.info["scratch"]).iterdir() if entry.name.isdigit()]


# --- its folder, removed at any depth --------------------------------------------------------

DEEP = """\
import os
fd = os.open(".", os.O_RDONLY)
for _ in range(5000):  # deeper than any path: made one folder at a time, from the one above
    os.mkdir("d", dir_fd=fd)
    below = os.open("d", os.O_RDONLY, dir_fd=fd)
    os.close(fd)
    fd = below
os.chmod(fd, 0)  # and the deepest one unreadable
print("deep")
"""


def test_a_tree_thousands_of_folders_deep_is_removed_and_the_next_example_runs(project):
    outcomes = run(project, DEEP, "hostile.py", fine(project))
    assert outcomes["fine.py"].failure is None, describe(outcomes["fine.py"])
    hostile = outcomes["hostile.py"]
    assert hostile.failure is None, describe(hostile)
    assert hostile.result.cells[0].output == "deep\n"
    assert left(project) == []


def test_a_folder_that_cannot_be_removed_in_time_fails_its_example_by_name(project, monkeypatch):
    monkeypatch.setattr(scratch, "WITHIN", 0.0)  # as a folder too large to remove within the time would
    outcomes = run(project, "for n in range(600):\n    open(f'f{n}', 'w').close()\n", "hostile.py", fine(project))
    assert outcomes["fine.py"].failure is None, describe(outcomes["fine.py"])
    if namespaced(project):  # its folder was in memory, gone with it: nothing to remove
        assert outcomes["hostile.py"].failure is None, describe(outcomes["hostile.py"])
        return
    message = describe(outcomes["hostile.py"])
    assert outcomes["hostile.py"].failure.kind == "leftover", message
    assert message.startswith("examples/hostile.py: the folder it wrote in could not be removed after it ended (not ")
    assert "`max_files`" in message
    monkeypatch.undo()
    for name in left(project):  # what a build leaves: the worker removes it as it ends
        assert scratch.remove(Path(project[1].pool.info["scratch"], name)).failed is None


def test_the_removal_follows_no_link_and_opens_what_was_made_unreadable(tmp_path):
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "kept").write_text("x")
    box = tmp_path / "box"
    (box / "locked" / "inner").mkdir(parents=True)
    (box / "locked" / "inner" / "file").write_text("12345")
    (box / "link").symlink_to(tmp_path / "outside")
    (box / "locked" / "inner").chmod(0o500)
    (box / "locked").chmod(0)
    removed = scratch.remove(box)
    assert (removed.failed, removed.entries, removed.size, box.exists()) == (None, 5, 5, False)
    assert (tmp_path / "outside" / "kept").read_text() == "x"


# --- files and bytes --------------------------------------------------------------------------

MANY = """\
import os
for n in range(150_000):
    open(f"f{n}", "w").close()
print("made", n + 1)
"""


@LINUX
def test_an_example_that_makes_a_hundred_and_fifty_thousand_files_is_stopped_and_named(project):
    assert namespaced(project), "this system gives examples no namespaces of their own"
    outcomes = run(project, MANY, "hostile.py", fine(project), options=SMALL)
    assert outcomes["fine.py"].failure is None, describe(outcomes["fine.py"])
    message = describe(outcomes["hostile.py"])
    assert outcomes["hostile.py"].failure.kind == "limit", message
    assert message.startswith("examples/hostile.py:3: a folder it writes in is full: its own folder (its working"), (
        message
    )
    assert "1000 files and folders of 8 MiB in all (plugin options `max_files` and `max_folder_size`)" in message
    assert "[Errno 28] No space left on device" in message
    assert left(project) == []


def test_without_a_folder_in_memory_what_an_example_leaves_past_the_limits_is_named(project):
    outcomes = run(project, MANY.replace("150_000", "1500"), "hostile.py", fine(project), options=SMALL)
    assert outcomes["fine.py"].failure is None, describe(outcomes["fine.py"])
    message = describe(outcomes["hostile.py"])
    assert outcomes["hostile.py"].failure.kind == "limit", message
    if namespaced(project):
        assert message.startswith("examples/hostile.py:3: a folder it writes in is full"), message
    else:
        held = re.match(r"examples/hostile.py: its own folder held (\d+) files and folders of 0 MiB when it", message)
        assert held and 1500 <= int(held[1]) < 1500 + 64, message
    assert left(project) == []


@pytest.mark.parametrize("where", ["its folder", "/dev/shm"])  # (/tmp: Landlock lets it write in neither)
@LINUX
def test_bytes_past_max_folder_size_or_half_max_memory_fail_naming_the_options(project, where):
    assert namespaced(project), "this system gives examples no namespaces of their own"
    folder = {"its folder": ".", "/dev/shm": "/dev/shm"}[where]
    source = f"for n in range(32):\n    open('{folder}/f' + str(n), 'wb').write(bytes(1 << 20))\n"
    outcomes = run(project, source, options=SMALL)
    message = describe(outcomes["hostile.py"])
    assert outcomes["hostile.py"].failure.kind == "limit", message
    assert message.startswith("examples/hostile.py:2: a folder it writes in is full"), message
    assert "8 MiB in all" in message and "half of `max_memory`" in message


# --- the host's load ------------------------------------------------------------------------

READ = """\
import json, os, re
for name in {names}:
    try:
        text = open("/proc/" + name).read()
    except OSError as error:
        print(json.dumps([name, type(error).__name__]))
        continue
    figures = sorted(set(re.findall(r"(?<![\\w.:-])\\d+(?:\\.\\d+)?(?![\\w.:])", text)))
    shown = text if name in ("loadavg", "uptime", "meminfo") else [line.split()[:1] for line in text.splitlines()]
    print(json.dumps([name, figures[:3], len(text.splitlines()), shown]))
print(json.dumps(["pressure", os.listdir("/proc/pressure") if os.path.isdir("/proc/pressure") else None]))
"""


@pytest.mark.skipif(sys.platform != "linux", reason="/proc is Linux's")
def test_an_example_reads_no_figure_of_the_hosts_load(project):
    names = [*masks.ZEROED, *masks.FIXED, masks.MEMORY]
    outcome = run(project, READ.format(names=names))["hostile.py"]
    assert outcome.failure is None, describe(outcome)
    seen = {line[0]: line[1:] for line in map(json.loads, outcome.result.cells[0].output.splitlines())}
    host = {name: Path("/proc", name).read_text() for name in names if os.access(Path("/proc", name), os.R_OK)}
    if not namespaced(project):  # the host's own: shown here, so that the checks below are known to be real
        assert seen["loadavg"][2] != masks.FIXED["loadavg"] and seen["stat"][0] != ["0"]
        return
    assert seen["loadavg"][2] == "0.00 0.00 0.00 1/1 1\n" and seen["uptime"][2] == "0.00 0.00\n"
    assert seen["pressure"] == [[] if os.path.isdir("/proc/pressure") else None]
    for name in masks.ZEROED:
        if name in host:  # no figure, in as many lines as the host's
            figures, lines, _ = seen[name]
            assert figures in ([], ["0"]) and lines == len(host[name].splitlines()), (name, figures, lines)
    cpus = [line.split()[0] for line in host["stat"].splitlines() if line.startswith("cpu")]
    assert [name for name, in filter(None, seen["stat"][2]) if name.startswith("cpu")] == cpus  # cpu, cpu0...
    memory = {line.split(":")[0]: line.split(":")[1].split() for line in seen["meminfo"][2].splitlines()}
    limit = str(min(Options().max_memory << 10, int(host["meminfo"].split()[1])))  # kB: max_memory, or the host's
    assert memory["MemTotal"] == memory["MemFree"] == memory["MemAvailable"] == [limit, "kB"]
    assert memory["Cached"] == memory["SwapTotal"] == ["0", "kB"]


@pytest.mark.skipif(sys.platform != "linux", reason="/proc is Linux's")
@LINUX
def test_an_example_cannot_uncover_the_hosts_proc(project):
    assert namespaced(project), "this system gives examples no namespaces of their own"
    outcome = run(
        project,
        """\
        import ctypes, os
        libc = ctypes.CDLL(None, use_errno=True)
        print(libc.umount2(b"/proc/loadavg", 2), os.strerror(ctypes.get_errno()))
        print(libc.mount(b"proc", b"/proc", b"proc", 0, None), os.strerror(ctypes.get_errno()))
        try:
            open("/proc/loadavg", "w").write("1")
        except OSError as error:
            print(type(error).__name__)
        print(open("/proc/loadavg").read().split()[0])
        """,
    )["hostile.py"]
    assert outcome.failure is None, describe(outcome)
    lines = outcome.result.cells[0].output.splitlines()
    assert lines[0].startswith("-1 ") and lines[1].startswith("-1 ")
    assert lines[2:] == ["OSError", "0.00"] or lines[2:] == ["PermissionError", "0.00"], lines
