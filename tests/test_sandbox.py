"""The sandbox's parts one by one: limits, the subreaper path, namespaces, Landlock's rules, the line it logs.

Tests marked Linux-only check what only Linux enforces (src/mkdocs_examples/docs/sandbox.md: "Where it
runs"); the others run the path of every system.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers import alive

from mkdocs_examples import settings
from mkdocs_examples.execute import engine as engine_module
from mkdocs_examples.execute.child import landlock, namespaces, processes
from mkdocs_examples.execute.engine import Engine, describe, sandbox_line
from mkdocs_examples.results import Options, Result

linux_only = pytest.mark.skipif(sys.platform != "linux", reason="Linux-only protection")


def engine_for(tmp_path: Path, monkeypatch, mode: str = "linux", **options) -> Engine:
    """An engine without torch (it starts in a moment), in ``mode``: linux, subreaper (no cgroup) or portable."""
    monkeypatch.setenv("MKDOCS_EXAMPLES_PORTABLE", "1" if mode == "portable" else "0")
    monkeypatch.setenv("MKDOCS_EXAMPLES_CGROUP", "0" if mode == "subreaper" else "1")
    (tmp_path / "examples").mkdir(exist_ok=True)
    return Engine(tmp_path / "examples", None, options=Options(**options), preload=[], jobs=2, timeout=20)


def run(engine: Engine, **sources: str) -> dict:
    for name, source in sources.items():
        (engine.examples_dir / f"{name}.py").write_text(source)
    try:
        return {o.example.path[:-3]: o for o in engine.run([engine.load(f"{n}.py") for n in sources]).values()}
    finally:
        engine.close()


# --- limits, on every system --------------------------------------------------------------


@pytest.mark.parametrize("mode", ["linux", "portable"])
def test_a_file_or_output_past_max_file_size_fails_naming_the_option(tmp_path, monkeypatch, mode):
    engine = engine_for(tmp_path, monkeypatch, mode, max_file_size=1)
    outcomes = run(
        engine,
        writes='open("big", "wb").write(b"x" * (2 << 20))\n',
        prints='print("x" * (2 << 20))\n',
        fine='open("small", "wb").write(b"x" * (512 << 10))\nprint("fine")\n',
    )
    for name in ("writes", "prints"):
        message = describe(outcomes[name])
        assert outcomes[name].failure.kind == "limit", message
        assert message.startswith(f"examples/{name}.py:1: it wrote a file, or printed, past 1 MiB"), message
        assert "`max_file_size`" in message
    assert outcomes["fine"].failure is None, describe(outcomes["fine"])


def test_a_source_past_max_source_is_refused_without_running(tmp_path, monkeypatch):
    engine = engine_for(tmp_path, monkeypatch, max_source=1000)
    outcomes = run(engine, large="x = 1\n" + "# padding\n" * 200, small="print('ok')\n")
    message = describe(outcomes["large"])
    assert outcomes["large"].failure.kind == "limit", message
    assert message.startswith("examples/large.py: the example is 2 KiB, more than the plugin option `max_source`")
    assert engine.executed == ["small.py"]  # never run


def test_memory_is_not_limited_on_cuda_where_cuda_reserves_address_space(monkeypatch):
    import resource

    from mkdocs_examples.execute.child import sandbox

    limits: dict[int, tuple[int, int]] = {}
    monkeypatch.setattr(resource, "setrlimit", lambda which, value: limits.__setitem__(which, value))
    sandbox.apply_limits(Options(device="cuda", max_memory=100, max_file_size=7))
    assert limits == {resource.RLIMIT_FSIZE: (7 << 20, 7 << 20)}
    sandbox.apply_limits(Options(device="cpu", max_memory=100, max_file_size=0))
    assert limits[resource.RLIMIT_DATA] == (100 << 20, 100 << 20)


# Its /tmp and /dev/shm each hold half of max_memory (Landlock lets it write to /dev/shm only): it fills
# /dev/shm a MiB at a time until that is full, keeps what it wrote, then shares anonymous memory, which
# RLIMIT_DATA does not count
SHARED_MEMORY = """\
import errno, os
print([os.statvfs(folder).f_blocks * os.statvfs(folder).f_frsize >> 20 for folder in ("/tmp", "/dev/shm")])
written = 0
try:
    with open("/dev/shm/fill", "wb") as file:
        for _ in range(512):
            file.write(bytes(1 << 20))
            file.flush()
            written += 1
except OSError as error:
    print(errno.errorcode[error.errno], "after", written, "MiB")
# %%
import mmap
shared = mmap.mmap(-1, 512 << 20, mmap.MAP_SHARED)
for at in range(0, 512 << 20, 4096):
    shared[at] = 1
print("512 MiB shared")
"""


def memory_cgroup(engine: Engine) -> None:
    """Skip, saying why, where the worker found no memory cgroup; the build names what is missing then."""
    engine.pool.ready()
    why = (engine.pool.sandbox["missing"] or {}).get("memory")
    if why is not None:
        assert "missing protection `memory`" in sandbox_line(engine.pool.sandbox)
        engine.close()
        pytest.skip(f"no memory cgroup here, and the build says so: {why}")


@linux_only
def test_shared_memory_and_files_in_tmp_and_dev_shm_count_against_max_memory(tmp_path, monkeypatch):
    engine = engine_for(tmp_path, monkeypatch, max_memory=256)
    memory_cgroup(engine)
    namespaced = "namespaces" not in (engine.pool.sandbox["missing"] or {})
    outcomes = run(engine, shared=SHARED_MEMORY, fine="print(bytes(64 << 20)[:1])\n")
    shared = outcomes["shared"]
    assert shared.failure is not None, [cell.output for cell in shared.result.cells]  # it got its memory
    message = describe(shared)
    assert shared.failure.kind == "limit", message
    assert message.startswith("examples/shared.py:13: it exceeded max_memory (256 MiB), and the kernel killed one")
    assert "shared memory and the files in its /tmp and /dev/shm" in message and "`max_memory`" in message
    if namespaced:  # its own /tmp and /dev/shm, of half max_memory each: full before the memory is
        assert shared.result.cells[0].output == "[128, 128]\nENOSPC after 128 MiB\n"
    assert outcomes["fine"].failure is None, describe(outcomes["fine"])


@linux_only
def test_its_own_tmp_and_dev_shm_hold_half_of_max_memory_each(tmp_path, monkeypatch):
    engine = engine_for(tmp_path, monkeypatch, max_memory=256)
    engine.pool.ready()
    if why := (engine.pool.sandbox["missing"] or {}).get("namespaces"):
        engine.close()
        pytest.skip(f"no /tmp or /dev/shm of its own here, and the build says so: {why}")
    outcome = run(engine, fills=SHARED_MEMORY.partition("# %%")[0])["fills"]
    assert outcome.failure is None, describe(outcome)
    assert outcome.result.cells[0].output == "[128, 128]\nENOSPC after 128 MiB\n"


def test_the_memory_controller_is_enabled_from_the_nearest_cgroup_that_offers_it_never_from_the_root(tmp_path):
    # A cgroup v2 tree as CI's .github/sandbox.sh leaves it: /examples enables pids only for its children,
    # and the worker's limits live in /examples/mkdocs-examples-<pid>; plain files stand for the kernel's
    def folder(path: Path, offered: str, root: bool = False) -> Path:
        path.mkdir(parents=True)
        (path / "cgroup.controllers").write_text(offered)
        (path / "cgroup.subtree_control").write_text("")
        if not root:
            (path / "cgroup.events").write_text("populated 0\n")
        return path

    root = folder(tmp_path / "cgroup", "cpu memory pids", root=True)
    examples = folder(root / "examples", "cpu memory pids")
    base = folder(examples / "mkdocs-examples-1", "pids")
    assert processes._enable(base, "memory")
    assert [(f / "cgroup.subtree_control").read_text() for f in (examples, base)] == ["+memory", "+memory"]
    assert not processes._enable(base, "hugetlb")  # offered by none below the root: never enabled there
    assert (root / "cgroup.subtree_control").read_text() == ""


@linux_only
def test_a_worker_the_pool_kills_leaves_none_of_its_cgroups(tmp_path, monkeypatch):
    engine = engine_for(tmp_path, monkeypatch)
    info = engine.pool.ready()
    folders = [Path(f) for f in [info["cgroup"], *info["limits"]] if f]
    assert all(folder.is_dir() for folder in folders), folders
    engine.pool._discard([])  # as when the worker is lost: killed, with no time to clean up
    assert [folder for folder in folders if folder.exists()] == []


@linux_only
def test_a_worker_removes_the_cgroups_of_workers_killed_with_their_build(tmp_path, monkeypatch):
    engine = engine_for(tmp_path, monkeypatch)
    info = engine.pool.ready()
    folders = [Path(f) for f in [info["cgroup"], *info["limits"]] if f]
    if not folders:
        engine.close()
        pytest.skip("no cgroup here to leave behind")
    gone = subprocess.Popen(["true"])
    gone.wait()  # a worker's pid that no process has any more
    left = [folder.parent / f"mkdocs-examples-{gone.pid}" for folder in folders]
    for folder in left:
        (folder / "example-3").mkdir(parents=True)  # as a worker and its build killed together leave them
    engine.pool._discard([])
    try:
        busy = subprocess.Popen(["sleep", "60"])  # a cgroup with a process in it stays
        held = folders[0].parent / f"mkdocs-examples-{gone.pid + 1}"
        held.mkdir()
        if os.path.exists(f"/proc/{gone.pid + 1}"):
            held.rmdir()
            held = None
        else:
            (held / "cgroup.procs").write_text(str(busy.pid))
        engine.pool.ready()  # a new worker
        assert [folder for folder in left if folder.exists()] == []
        assert held is None or held.is_dir()
    finally:
        engine.close()
        busy.kill()
        busy.wait()
        if held is not None:
            processes.Cgroups.remove(held)  # once the killed process has left it


def test_without_a_memory_cgroup_a_required_memory_limit_stops_the_run(tmp_path, monkeypatch):
    engine = engine_for(tmp_path, monkeypatch, "portable")  # the path of macOS: no cgroup at all
    engine.required = frozenset({"memory"})
    with pytest.raises(engine_module.EngineError, match=r"refuses `memory`: .*`sandbox_optional: \[memory\]`"):
        run(engine, one="print(1)\n")
    engine = engine_for(tmp_path, monkeypatch, "portable", max_memory=0)  # no limit asked for: none missing
    engine.required = frozenset({"memory"})
    outcome = run(engine, one="print(1)\n")["one"]
    assert outcome.failure is None and "memory" in outcome.result.protections


# --- processes an example leaves running ----------------------------------------------------


@linux_only
def test_without_a_cgroup_the_worker_finds_what_each_example_left_and_names_that_example(tmp_path, monkeypatch):
    engine = engine_for(tmp_path, monkeypatch, "subreaper")
    marker = f"left-{time.time_ns()}"
    daemon = (
        "import os, subprocess, sys, time\n"
        "if os.fork() == 0:  # a double fork: the daemon's parent ends at once\n"
        "    os.setsid()\n"
        "    subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)', '{marker}'])\n"
        "    os._exit(0)\n"
        "os.wait()  # the daemon's parent has ended: the daemon runs, re-parented, when the example ends\n"
        "time.sleep(0.2)\n"
    )
    outcomes = run(
        engine,
        a=daemon.format(marker=f"{marker}-a"),
        b=daemon.format(marker=f"{marker}-b"),
        fine="import time\ntime.sleep(0.2)\n",
    )
    assert "subreapers" in engine.pool.sandbox["processes"]
    for name in ("a", "b"):
        assert outcomes[name].failure is not None, outcomes
        message = describe(outcomes[name])
        assert outcomes[name].failure.kind == "leftover", message
        assert f"{marker}-{name}" in message, message
    assert outcomes["fine"].failure is None
    deadline = time.monotonic() + 10
    while alive(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(marker)


@pytest.mark.parametrize("mode", ["linux", "subreaper", "portable"])
def test_dataloader_workers_and_multiprocessing_pools_are_not_counted_as_left_behind(tmp_path, monkeypatch, mode):
    engine = engine_for(tmp_path, monkeypatch, mode)
    outcomes = run(
        engine,
        pool=(
            "import multiprocessing as mp\n"
            "p = mp.get_context('fork').Pool(2)  # never closed: Python ends it at exit, and so does the runner\n"
            "print(p.map(abs, [-1, -2]))\n"
            "q = mp.get_context('spawn').Process(target=print, daemon=True)\nq.start()\n"
        ),
    )
    assert outcomes["pool"].failure is None, describe(outcomes["pool"])


@linux_only
def test_a_group_whose_processes_have_all_ended_has_nothing_left_though_no_one_reaped_them():
    # In portable mode a process an example started and that ended after it is a zombie until its
    # new parent reaps it; a container's init may take seconds, and the example was failed for it
    ended = subprocess.Popen(["true"], start_new_session=True)
    running = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        deadline = time.monotonic() + 10
        while processes.stat_fields(ended.pid)[:1] != ["Z"] and time.monotonic() < deadline:
            time.sleep(0.01)
        assert processes.stat_fields(ended.pid)[:1] == ["Z"]  # ended, and not reaped: we have not waited
        assert not processes.group_alive(ended.pid)
        assert processes.group_alive(running.pid)
    finally:
        running.kill()
        running.wait()
        ended.wait()
    assert not processes.group_alive(ended.pid) and not processes.group_alive(running.pid)


# --- the example's processes ------------------------------------------------------------------


def _children(parent: int) -> dict[int, list[str]]:
    """The processes whose parent is ``parent``: their pid in each PID namespace, outermost first (NSpid)."""
    found = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            status = dict(line.split(":\t", 1) for line in Path(f"/proc/{entry}/status").read_text().splitlines())
        except (OSError, ValueError):
            continue
        if status.get("PPid", "").strip() == str(parent):
            found[int(entry)] = status["NSpid"].split()
    return found


@linux_only
def test_the_workers_child_is_the_first_process_of_the_examples_namespaces(tmp_path, monkeypatch):
    """No copy of the worker between the worker and its example's init: one fork and one exit per example
    fewer, each of a process of torch's size in a real build."""
    engine = engine_for(tmp_path, monkeypatch)
    seen: dict[int, list[str]] = {}
    done = threading.Event()

    def watch() -> None:
        while not done.wait(0.02):
            if worker := engine.pool.info.get("pid"):
                seen.update(_children(worker))

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        outcome = run(engine, slow="import time\ntime.sleep(1.5)\n")["slow"]
    finally:
        done.set()
        watcher.join()
    assert outcome.failure is None, describe(outcome)
    assert seen and all(len(ids) >= 2 and ids[-1] == "1" for ids in seen.values()), seen


# In a fresh interpreter (one thread, as the worker): is the first process of an example's namespaces born in
# the example's cgroup v2, before any code of its own runs?
BORN_IN = """\
import os, sys
from mkdocs_examples.execute.child import namespaces, processes
if namespaces.prepare() is not None or not namespaces.can_clone():
    sys.exit("no namespaces: " + str(namespaces.prepare()))
cgroups, why = processes.Cgroups.create()
if cgroups is None:
    sys.exit("no cgroup v2: " + why)
folder = cgroups.make("example-0")
try:
    read, write = os.pipe()
    pid = namespaces.clone(folder)
    if pid == 0:
        os.write(write, open("/proc/self/cgroup").read().encode())
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    print([line for line in os.read(read, 4096).decode().splitlines() if line.startswith("0::")])
finally:
    cgroups.close()
"""


@linux_only
def test_the_first_process_of_an_examples_namespaces_is_born_in_its_cgroup():
    """It starts there (clone3's CLONE_INTO_CGROUP): no move into it, which waits for the kernel's sync."""
    done = subprocess.run([sys.executable, "-c", BORN_IN], capture_output=True, text=True, timeout=60)
    if done.returncode and done.stderr.startswith("no "):
        pytest.skip(done.stderr)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("/example-0']"), done.stdout


@linux_only
@pytest.mark.parametrize("how", ["SIGABRT", "SIGSEGV"])
def test_an_example_killed_by_a_signal_is_a_crash_named_by_that_signal(tmp_path, monkeypatch, how):
    source = f"import os, signal\nos.kill(os.getpid(), signal.{how})\n"
    outcome = run(engine_for(tmp_path, monkeypatch), crash=source)["crash"]
    assert outcome.result.failure and outcome.result.failure.kind == "crash", describe(outcome)
    assert outcome.result.failure.returncode == -getattr(signal, how) and how in describe(outcome)


# --- the network ----------------------------------------------------------------------------


@linux_only
def test_torch_distributed_on_gloo_works_over_the_examples_own_loopback(tmp_path, monkeypatch):
    engine = engine_for(tmp_path, monkeypatch)
    source = """\
import os
import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def work(rank):
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:29512", rank=rank, world_size=2)
    x = torch.tensor([rank + 1.0])
    dist.all_reduce(x)
    assert x.item() == 3.0
    dist.destroy_process_group()


if __name__ == "__main__":  # forked, not spawned: two fresh Pythons importing torch cost seconds each
    mp.start_processes(work, nprocs=2, start_method="fork")
    print("all_reduce over 127.0.0.1 done")
"""
    outcome = run(engine, gloo=source)["gloo"]
    assert outcome.failure is None, describe(outcome)
    *warnings, last = outcome.result.cells[0].output.splitlines()
    assert last == "all_reduce over 127.0.0.1 done"
    # c10d looks up the peer's name, and with no DNS in the namespace it says so
    # (src/mkdocs_examples/docs/sandbox.md: "Where it runs")
    assert all("The hostname of the client socket cannot be retrieved" in line for line in warnings), warnings


def test_where_no_network_namespace_can_be_made_the_build_says_so_once(monkeypatch):
    def refused(flags: int) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(namespaces, "_unshare", refused)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    why = namespaces.prepare()
    assert why and why.startswith("no user namespace with a network of its own can be made here")
    line = sandbox_line({"landlock": 7, "network": why, "processes": "subreapers"})
    assert "network NOT isolated (no user namespace" in line
    assert "network: own loopback only" in sandbox_line({"landlock": 5, "network": None, "processes": "x"})


def test_the_sandbox_line_is_said_once_per_engine(tmp_path, monkeypatch):
    engine = engine_for(tmp_path, monkeypatch, "portable")
    assert engine.sandbox_note() is None  # nothing ran: the worker has not said what it enforces
    run(engine, one="print(1)\n")
    note = engine.sandbox_note()
    assert note and note.startswith("examples run sandboxed: namespaces NOT isolated; files NOT confined (no Landlock")
    assert "network NOT isolated" in note
    assert engine.sandbox_note() is None


def test_a_required_protection_the_system_refuses_stops_the_run_before_any_example(tmp_path, monkeypatch):
    engine = engine_for(tmp_path, monkeypatch, "portable")  # the path of macOS: none of Linux's protections
    engine.required = frozenset({"network", "landlock"})
    with pytest.raises(engine_module.EngineError) as refused:
        run(engine, one="print(1)\n")
    message = str(refused.value)
    assert "the sandbox is required here" in message and "No example was run" in message
    assert "`sandbox_optional: [landlock, network]`" in message
    assert engine.executed == []


def test_without_the_requirement_a_missing_protection_is_said_once_and_fails_nothing(tmp_path, monkeypatch):
    engine = engine_for(tmp_path, monkeypatch, "portable")
    outcome = run(engine, one="print(1)\n")["one"]
    assert outcome.failure is None and outcome.result.protections == ()  # what it ran under: nothing of Linux's
    note = engine.sandbox_note()
    assert note and "missing protection `landlock`" in note and "`require_sandbox: always`" in note


@linux_only
def test_a_cached_result_made_without_a_required_protection_runs_again(tmp_path, monkeypatch):
    cache = tmp_path / "cache"

    def engine(mode: str, required: frozenset[str] = frozenset()) -> Engine:
        made = engine_for(tmp_path, monkeypatch, mode)
        made.cache = engine_module.Cache(cache, made.examples_dir.resolve())
        made.required = required
        return made

    assert run(engine("portable"), one="print(1)\n")["one"].origin == "run"  # cached, made without protections
    assert run(engine("linux"), one="print(1)\n")["one"].origin == "cache"  # nothing required: reused
    strict = engine("linux", frozenset(settings.PROTECTIONS))
    rerun = run(strict, one="print(1)\n")["one"]
    assert rerun.origin == "run" and set(rerun.result.protections) == set(settings.PROTECTIONS)
    assert run(engine("linux", frozenset(settings.PROTECTIONS)), one="print(1)\n")["one"].origin == "cache"


@pytest.mark.parametrize(("require", "ci", "required"), [
    ("ci", "true", set(settings.PROTECTIONS) - {"network"}), ("ci", "", set()), ("ci", "0", set()),
    ("always", "", set(settings.PROTECTIONS) - {"network"}), ("never", "true", set()),
])  # fmt: skip
def test_the_sandbox_is_required_under_ci_unless_the_site_says_otherwise(require, ci, required):
    config = settings.Settings.from_mapping({"require_sandbox": require, "sandbox_optional": ["network"]})
    assert config.required_protections({"CI": ci}) == required


def test_the_command_line_fails_closed_under_ci_and_says_so_elsewhere(tmp_path):
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "one.py").write_text("print(1)\n")
    (tmp_path / "mkdocs.yml").write_text("site_name: x\nplugins:\n  - examples\n")
    command = [sys.executable, "-m", "mkdocs_examples", "run", "-f", str(tmp_path / "mkdocs.yml")]
    env = dict(os.environ, MKDOCS_EXAMPLES_PORTABLE="1")  # the path of macOS: none of Linux's protections
    under_ci = subprocess.run(command, env=dict(env, CI="true"), capture_output=True, text=True, timeout=120)
    assert under_ci.returncode != 0 and "the sandbox is required here" in under_ci.stderr, under_ci.stderr
    assert "ok" not in under_ci.stdout  # nothing ran
    elsewhere = subprocess.run(command, env=dict(env, CI=""), capture_output=True, text=True, timeout=120)
    assert elsewhere.returncode == 0, elsewhere.stderr
    assert "missing protection `landlock`" in elsewhere.stdout


def test_sandbox_optional_names_only_protections_the_engine_knows(tmp_path):
    from mkdocs_examples.settings import load_site

    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: x\nplugins:\n  - examples:\n      sandbox_optional: [namespace]\n")
    with pytest.raises(ValueError, match="sandbox_optional"):
        load_site(config)


@linux_only
def test_an_example_runs_without_capabilities(tmp_path, monkeypatch):
    outcome = run(engine_for(tmp_path, monkeypatch), caps="print(open('/proc/self/status').read())\n")["caps"]
    status = dict(line.split(":", 1) for line in outcome.result.cells[0].output.splitlines() if ":" in line)
    assert {name: status[name].strip() for name in ("CapEff", "CapPrm", "CapBnd", "NoNewPrivs")} == {
        "CapEff": "0000000000000000", "CapPrm": "0000000000000000", "CapBnd": "0000000000000000", "NoNewPrivs": "1",
    }  # fmt: skip


# It renames its own thread through /proc, a write CUDA's driver makes there as it starts
RENAMES = """\
import threading
try:
    with open(f"/proc/self/task/{threading.get_native_id()}/comm", "w") as comm:
        comm.write("renamed")
    print("renamed")
except PermissionError as error:
    print("refused:", error.strerror)
"""


@linux_only
@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_an_example_writes_its_own_proc_only_on_cuda_whose_driver_fails_without(tmp_path, monkeypatch, device):
    monkeypatch.setattr(Engine, "_check_device", lambda self: None)  # no GPU here: the rules are what is tested
    engine = engine_for(tmp_path, monkeypatch, device=device)
    engine.pool.ready()
    missing = engine.pool.sandbox["missing"] or {}
    if "namespaces" in missing or "landlock" in missing:
        engine.close()
        pytest.skip(f"its own /proc needs namespaces and Landlock: {missing}")
    outcome = run(engine, renames=RENAMES)["renames"]
    assert outcome.failure is None, describe(outcome)
    expected = "renamed\n" if device == "cuda" else "refused: Permission denied\n"
    assert outcome.result.cells[0].output == expected


# --- Landlock's rules ------------------------------------------------------------------------


def test_around_grants_everything_but_the_excluded_paths_and_follows_no_link(tmp_path):
    (tmp_path / "keep").mkdir()
    (tmp_path / "keep" / "file").write_text("x")
    (tmp_path / "mixed" / "secret").mkdir(parents=True)
    (tmp_path / "mixed" / "public").write_text("x")
    (tmp_path / "link").symlink_to("/")
    granted = landlock.around(tmp_path, [tmp_path / "mixed" / "secret"])
    assert sorted(granted) == [tmp_path / "keep", tmp_path / "mixed" / "public"]
    assert landlock.around(tmp_path / "keep", [tmp_path / "mixed"]) == [tmp_path / "keep"]


def test_python_is_readable_but_not_the_current_folder_or_the_home(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [str(tmp_path), str(Path.home()), "/", *sys.path])
    readable = landlock.readable_installations()
    assert Path(sys.prefix) in readable and Path(landlock.__file__).parents[2] in readable
    assert not {tmp_path, Path.home(), Path("/")} & set(readable)


def test_the_compilers_that_cc_and_cxx_name_are_readable_with_their_installation(monkeypatch, tmp_path):
    # inductor compiles with $CXX (read when torch is imported) and Triton with $CC: a compiler
    # installed outside the system's folders (/opt/gcc/bin/g++) runs only if its folder is granted
    for program in ("bin/g++", "bin/gcc", "cc/clang"):
        (tmp_path / program).parent.mkdir(exist_ok=True)
        (tmp_path / program).write_text("#!/bin/sh\n")
        (tmp_path / program).chmod(0o755)
    monkeypatch.setenv("CXX", str(tmp_path / "bin" / "g++"))
    monkeypatch.setenv("CC", str(tmp_path / "cc" / "clang"))
    assert landlock.compilers() == [tmp_path / "cc", tmp_path]
    assert {tmp_path, tmp_path / "cc"} <= set(landlock.readable_installations())
    monkeypatch.setenv("CXX", "no-such-compiler")
    monkeypatch.delenv("CC")
    assert landlock.compilers() == []


# --- the engine -------------------------------------------------------------------------------


def test_an_example_the_pool_never_reports_fails_instead_of_going_missing(tmp_path, monkeypatch):
    engine = engine_for(tmp_path, monkeypatch, "portable")

    def loses_one(self, examples, options, **kwargs):
        yield examples[0], Result()  # and nothing for the second

    monkeypatch.setattr(engine_module.Pool, "run", loses_one)
    outcomes = run(engine, first="x = 1\n", second="x = 2\n")
    assert outcomes["first"].failure is None
    assert "the worker never reported this example's end" in describe(outcomes["second"])


def test_a_helper_that_ends_by_itself_gets_its_own_time_and_nothing_else_does():
    from mkdocs_examples.execute.child.processes import HELPERS, LEFTOVER
    from mkdocs_examples.execute.child.worker import _helpers_time

    shm = "4242 (torch_shm_manager)"
    assert _helpers_time([shm]) == HELPERS["torch_shm_manager"] - LEFTOVER > 0
    assert _helpers_time([shm, "4243 (python3 -c import time; time.sleep(300))"]) == 0.0
    assert _helpers_time(["processes in its process group"]) == 0.0  # the portable path names none


def test_a_helper_is_known_by_the_kernel_s_name_for_it_while_it_exits():
    from mkdocs_examples.execute.child.processes import HELPERS, LEFTOVER
    from mkdocs_examples.execute.child.worker import _helpers_time

    assert _helpers_time(["4242 (torch_shm_manag)"]) == HELPERS["torch_shm_manager"] - LEFTOVER
    assert _helpers_time(["4242"]) == 0.0  # nothing known of it: no extra time
    assert _helpers_time(["4242 (torch)"]) == 0.0  # a name that merely begins like a helper's


def test_an_example_whose_landlock_rules_the_kernel_refuses_does_not_run(tmp_path, monkeypatch):
    from mkdocs_examples.execute.child import sandbox

    monkeypatch.setattr(landlock, "restrict", lambda rules, writable, readable: False)  # in the forked child below
    monkeypatch.setattr(namespaces, "drop_capabilities", lambda: None)
    prepared = sandbox.Prepared(rules=landlock.Rules(abi=7, handled=0, grants=()))
    pid = os.fork()
    if pid == 0:
        try:
            sandbox.enter(prepared, tmp_path, [], Options(), deadline=0.0)
            os._exit(0)
        except OSError as error:
            os._exit(7 if "refused this example's Landlock rules" in str(error) else 1)
        except BaseException:
            os._exit(1)
    assert os.waitpid(pid, 0)[1] >> 8 == 7


def test_the_worker_shuts_down_the_nvml_that_torchs_check_started_before_it_forks_examples(monkeypatch):
    import ctypes

    from mkdocs_examples.execute.child import worker

    calls = []

    class Library:
        def __init__(self, name):
            calls.append(name)

        def nvmlShutdown(self):
            calls.append("nvmlShutdown")
            return 0

    monkeypatch.setattr(ctypes, "CDLL", Library)
    worker.release_nvml()
    assert calls == ["libnvidia-ml.so.1", "nvmlShutdown"]
    source = Path(worker.__file__).read_text(encoding="utf-8")
    check = source.index("cuda = sys.modules[\"torch\"].cuda.is_available()")
    assert source.index("release_nvml()", check) < source.index("self.say(", check)  # before any example forks
