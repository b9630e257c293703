"""Examples written by a careless or hostile contributor: the build names them and survives.

Each test runs twice: with the Linux protections (Landlock, subreaper, parent-death signal)
and with them forced off, the path macOS takes (MKDOCS_EXAMPLES_PORTABLE=1).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers import alive

from mkdocs_examples.execute import pool
from mkdocs_examples.execute.engine import Engine, describe, sandbox_line
from mkdocs_examples.results import Options


@pytest.fixture(scope="module", params=["linux", "portable"])
def project(request, tmp_path_factory):
    """A project folder with docs/ and examples/, and one engine (two workers at once) for it."""
    root = tmp_path_factory.mktemp(request.param)
    (root / "docs").mkdir()
    (root / "docs" / "index.md").write_text("# Home\n")
    (root / "examples").mkdir()
    old = os.environ.get("MKDOCS_EXAMPLES_PORTABLE")
    os.environ["MKDOCS_EXAMPLES_PORTABLE"] = "1" if request.param == "portable" else "0"
    hung, pool.HUNG = pool.HUNG, 3.0  # a stopped worker is given up on sooner than in a real build
    engine = Engine(
        root / "examples", None, options=Options(), preload=[], jobs=2, timeout=2, watch=[root / "docs"]
    )
    try:
        engine.pool.start()  # the worker reads the variable when it starts
        yield root, engine, request.param
    finally:
        engine.close()
        pool.HUNG = hung
        if old is None:
            del os.environ["MKDOCS_EXAMPLES_PORTABLE"]
        else:
            os.environ["MKDOCS_EXAMPLES_PORTABLE"] = old


def run(project, source: str, path: str = "hostile.py", *others: str):
    root, engine, _ = project
    file = root / "examples" / path
    file.write_text(textwrap.dedent(source))
    engine._memory.clear()
    outcomes = engine.run([engine.load(path), *(engine.load(p) for p in others)])
    return outcomes


def one(project, source: str):
    return run(project, source)["hostile.py"]


def landlock(project) -> int:
    """The Landlock ABI the worker applies to each example: 0 without Landlock (macOS, portable mode).

    What Linux enforces depends on the kernel and the user (src/mkdocs_examples/docs/sandbox.md: "Where it
    runs"); these tests check what the worker says it enforces, and on a machine without it, that it says so.
    """
    _, engine, _ = project
    engine.pool.ready()
    return engine.pool.sandbox["landlock"]


def isolated(project) -> bool:
    """Whether each example gets a network namespace of its own here."""
    _, engine, _ = project
    engine.pool.ready()
    return engine.pool.sandbox["network"] is None


def namespaced(project) -> bool:
    """Whether each example gets mount, PID, IPC and UTS namespaces of its own here."""
    _, engine, _ = project
    engine.pool.ready()
    return "namespaces" not in (engine.pool.sandbox["missing"] or {})


def other(project, name: str = "fine.py") -> str:
    root, _, _ = project
    (root / "examples" / name).write_text("import time\ntime.sleep(0.3)\nprint('fine')\n")
    return name


@pytest.mark.parametrize(
    "attack",
    [
        "os.kill(os.getppid(), signal.SIGKILL)",
        "os.killpg(os.getpgid(os.getppid()), signal.SIGKILL)",
        "os.kill(os.getppid(), signal.SIGTERM)",
        "os.kill(os.getppid(), signal.SIGSTOP)",
    ],
)
def test_an_example_that_signals_the_worker_is_named_and_the_others_still_run(project, attack):
    outcomes = run(project, f"import os, signal, time\n{attack}\ntime.sleep(30)\n", "hostile.py", other(project))
    hostile, fine = outcomes["hostile.py"], outcomes["fine.py"]
    assert fine.failure is None and fine.result.cells[0].output == "fine\n"
    message = describe(hostile)
    assert message.startswith("examples/hostile.py"), message
    if namespaced(project) and "killpg" in attack:  # its parent's group is not in its PID namespace: 0, its own
        assert message == "examples/hostile.py:1: the example's process crashed (SIGKILL)", message
    elif landlock(project) >= 6:  # Landlock's signal scope refuses the signal itself
        assert "PermissionError" in message and "hostile.py:2" in message
    else:
        assert "must not kill, stop or signal the process that runs it" in message


def test_a_process_an_example_leaves_running_fails_it_by_name_and_is_killed(project):
    marker = f"orphan-{project[2]}-{time.time_ns()}"
    outcome = one(
        project,
        f"""\
        import subprocess, sys
        sleep = [sys.executable, "-c", "import time; time.sleep(300)"]
        subprocess.Popen([*sleep, "{marker}-group"])
        subprocess.Popen(["setsid", *sleep, "{marker}-session"])
        import time
        time.sleep(0.5)  # both are running when the example ends
        print("started")
        """,
    )
    message = describe(outcome)
    assert outcome.failure is not None and outcome.failure.kind == "leftover", message
    assert message.startswith("examples/hostile.py: processes it started were still running after it ended")
    assert not _poll(lambda: alive(f"{marker}-group")), "a process in the example's group outlived it"
    if project[2] == "linux":  # a cgroup, or the worker as subreaper, finds what left the group by setsid
        assert f"{marker}-group" in message and f"{marker}-session" in message
        assert not _poll(lambda: alive(f"{marker}-session"))
    else:  # on macOS it escapes: shown here, so that the Linux check above is known to be real
        assert "processes in its process group" in message
        assert alive(f"{marker}-session")
        for pid in alive(f"{marker}-session"):
            os.kill(pid, 9)


def _poll(check, within: float = 10.0):
    """``check()`` once it is falsy, or its last value after ``within`` seconds."""
    deadline = time.monotonic() + within
    while (value := check()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return value


def test_an_example_cannot_write_into_the_project(project):
    root = project[0]
    target = root / "docs" / "injected.md"
    outcome = one(project, f'open("{target}", "w").write("# injected")\n')
    message = describe(outcome)
    assert outcome.failure is not None
    if landlock(project):  # Landlock refuses the write (namespaces: the docs are not in its view)
        refused = "FileNotFoundError" if namespaced(project) else "PermissionError"
        assert refused in message and "hostile.py:1" in message
        assert not target.exists()
    else:  # detected afterwards, and named
        assert "changed the project while it ran" in message and "injected.md" in message
        target.unlink()


def test_writing_in_the_working_folder_and_temp_files_are_fine(project):
    outcome = one(
        project,
        """\
        import tempfile
        open("out.txt", "w").write("x")
        with tempfile.NamedTemporaryFile() as f:
            f.write(b"y")
        print(open("out.txt").read())
        """,
    )
    assert outcome.failure is None, describe(outcome)


def test_a_timeout_is_reported_as_a_timeout_even_when_the_example_ignores_signals(project):
    outcome = one(
        project,
        """\
        import signal, time
        for s in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM):
            signal.signal(s, signal.SIG_IGN)
        while True:
            time.sleep(0.05)
        """,
    )
    assert outcome.failure.kind == "timeout", describe(outcome)
    assert describe(outcome).startswith("examples/hostile.py:5: timed out after 2 s")


def test_an_example_that_stops_itself_times_out(project):
    outcome = one(project, "import os, signal\nos.kill(os.getpid(), signal.SIGSTOP)\n")
    assert outcome.failure.kind == "timeout", describe(outcome)


def test_control_characters_never_reach_the_output_raw(project):
    outcome = one(
        project,
        r"""
        import sys
        sys.stdout.write("nul\x00 bel\x07 bs\x08 \x1b]0;title\x07\x1b[31mred\x1b[0m \x9b end\n")
        sys.stdout.write("progress 10%\rprogress 100%\n")
        # %% tags=["raises-exception"]
        raise ValueError("\x1b[2Jclear\x00")
        """,
    )
    printed, raised = outcome.result.cells
    assert printed.output == "nul␀ bel␇ bs␈ red \ufffd end\nprogress 100%\n"
    assert raised.traceback.endswith("ValueError: clear␀\n")
    for text in (printed.output, raised.traceback):
        assert not [c for c in text if ord(c) < 32 and c not in "\n\t"]


def test_examples_run_as_a_real_main_module(project):
    outcome = one(
        project,
        """\
        import pickle
        class Point:
            def __init__(self, x):
                self.x = x
        restored = pickle.loads(pickle.dumps(Point(3)))
        print(type(restored).__module__, restored.x)
        """,
    )
    assert outcome.failure is None, describe(outcome)
    assert outcome.result.cells[0].output == "__main__ 3\n"


def test_spawn_workers_find_the_examples_classes(project):
    outcome = one(
        project,
        """\
        import multiprocessing as mp

        def square(x):
            return x * x

        if __name__ == "__main__":
            with mp.get_context("spawn").Pool(2) as pool:
                print(pool.map(square, [1, 2, 3]))
        """,
    )
    assert outcome.failure is None, describe(outcome)
    assert outcome.result.cells[0].output == "[1, 4, 9]\n"


def test_the_os_exit_patch_stays_in_the_example_process(project):
    outcome = one(
        project,
        """\
        import os
        pid = os.fork()
        if pid == 0:
            os._exit(0)  # the forked child: no stack written, a plain exit
        os.waitpid(pid, 0)
        os._exit(3)
        """,
    )
    assert outcome.failure.kind == "early-exit"
    assert describe(outcome).startswith("examples/hostile.py:6:")
    assert outcome.failure.traceback.count("most recent call first") == 1


def test_a_preloaded_module_that_prints_does_not_break_the_worker(tmp_path, monkeypatch):
    (tmp_path / "noisy.py").write_text('print("hello from an import")\n')
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    (tmp_path / "ex").mkdir()
    (tmp_path / "ex" / "a.py").write_text("print('a')\n")
    engine = Engine(tmp_path / "ex", None, options=Options(), preload=["noisy"], jobs=1)
    try:
        (outcome,) = engine.run([engine.load("a.py")]).values()
    finally:
        engine.close()
    assert outcome.failure is None and outcome.result.cells[0].output == "a\n"


def test_an_interrupted_batch_leaves_the_pool_usable(project):
    _, engine, _ = project
    names = [other(project, f"n{i}.py") for i in range(3)]
    examples = [engine.load(n) for n in names]
    for _ in engine.pool.run(examples, Options(), timeout=2, parallel=2):
        break  # the consumer stops after the first result
    results = dict(engine.pool.run(examples, Options(), timeout=2, parallel=2))
    assert [r.cells[0].output for r in results.values()] == ["fine\n"] * 3


@pytest.mark.parametrize("how", ["SIGKILL", "SIGINT"])
def test_nothing_outlives_a_build_that_is_killed(tmp_path, how):
    marker = f"killed-build-{how}-{time.time_ns()}"
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n\n/// example | slow.py\n///\n")
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "slow.py").write_text(
        f"import subprocess, sys, time\n"
        f'subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", "{marker}"])\ntime.sleep(300)\n'
    )
    (tmp_path / "mkdocs.yml").write_text(  # whatever this module's fixture left MKDOCS_EXAMPLES_PORTABLE at
        "site_name: t\nplugins:\n  - examples:\n      require_sandbox: never\n"
        "markdown_extensions: [admonition, pymdownx.superfences, pymdownx.highlight]\n"
    )
    # As a terminal starts it: Ctrl-C raises KeyboardInterrupt. A process inherits an ignored SIGINT
    # across exec, and something earlier in a full test run can leave this one's ignored: then the
    # build rightly ignores Ctrl-C, as any program started under `nohup` or with `&` does
    terminal = "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    terminal += "sys.argv = ['mkdocs', 'build', '-q']; runpy.run_module('mkdocs', run_name='__main__')"
    build = subprocess.Popen(
        [sys.executable, "-c", terminal], cwd=tmp_path, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while not alive(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert alive(marker), "the example never started"
    os.killpg(build.pid, 9 if how == "SIGKILL" else 2)  # kill -9, or Ctrl-C to the terminal's group
    build.wait(timeout=20)
    deadline = time.monotonic() + 10
    while alive(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(marker), f"the example's process outlived the build ({how})"
    workers = lambda: [p for p in alive("mkdocs_examples.execute.child.worker") if _cwd(p) == str(tmp_path)]  # noqa: E731
    while workers() and time.monotonic() < deadline:  # it ends its example's processes first, then itself
        time.sleep(0.1)
    assert not workers(), "the worker outlived the build"


def _cwd(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return None


def test_the_workers_scratch_folder_goes_with_it(tmp_path):
    (tmp_path / "a.py").write_text("open('x', 'w').write('x')\n")
    engine = Engine(tmp_path, None, options=Options(), preload=[], jobs=1)
    engine.run([engine.load("a.py")])
    scratch = Path(engine.pool.info["scratch"])
    assert scratch.is_dir() and not any(scratch.iterdir())  # nothing left per example
    engine.close()
    assert not scratch.exists()


def test_examples_that_finished_before_the_worker_was_lost_are_not_run_again(project):
    root, engine, _ = project
    (root / "examples" / "quick.py").write_text("print('quick')\n")
    engine.executed.clear()
    outcomes = run(project, "import os, signal, time\ntime.sleep(0.5)\nos.kill(os.getppid(), signal.SIGKILL)\n",
                   "hostile.py", "quick.py")  # fmt: skip
    assert outcomes["quick.py"].result.cells[0].output == "quick\n"
    assert engine.executed.count("quick.py") == 1
    assert outcomes["hostile.py"].failure is not None


def test_without_fork_the_engine_says_what_to_use(tmp_path, monkeypatch):
    from mkdocs_examples.execute.pool import Pool, PoolError

    monkeypatch.delattr(os, "fork")  # as on Windows
    with pytest.raises(PoolError, match="Windows cannot fork: build the site in WSL"):
        Pool([]).start()


# --- what the review's probes did, as a stranger's pull request ---------------------------------


FORGED = {  # lines a worker would send, for ids around any the pool may have given
    "done": 'json.dumps({"id": n, "returncode": 0, "timed_out": False, "seconds": 0.1, "leftover": [], "oom": 0})',
    "pid": 'json.dumps({"id": n, "pid": os.getppid()})',
    "garbage": '"this is not an answer"',
}


@pytest.mark.parametrize("forged", sorted(FORGED))
def test_an_example_cannot_write_to_the_pool(project, forged):
    _, engine, _ = project
    engine.pool.ready()
    worker = engine.pool.info["pid"]
    source = f"""\
        import json, os
        written = 0
        for fd in range(3, 1024):
            for n in range(0, 2000):
                try:
                    os.write(fd, ({FORGED[forged]} + "\\n").encode())
                    written += 1
                except OSError:
                    break
        print("written", written)
        """
    outcomes = run(project, source, "hostile.py", other(project))
    fine = outcomes["fine.py"]
    assert fine.failure is None and fine.result.cells[0].output == "fine\n", describe(fine)
    assert engine.pool.info["pid"] == worker, "the worker was lost"
    hostile = outcomes["hostile.py"]  # it may spoil its own record, nothing else
    assert hostile.failure is None or hostile.failure.kind == "record", describe(hostile)


def test_heartbeats_an_example_forges_do_not_keep_the_worker_it_stopped_alive(project):
    start = time.monotonic()
    outcome = one(
        project,
        """\
        import json, os, signal, time
        try:
            os.kill(os.getppid(), signal.SIGSTOP)  # where signals are not scoped (macOS, Linux < 6.12)
        except PermissionError:
            raise SystemExit("refused")
        tick = (json.dumps({"tick": True}) + "\\n").encode()
        while time.monotonic() < start + 40:  # the pool gives up on a silent worker after 3 s
            for fd in range(3, 1024):
                try:
                    os.write(fd, tick)
                except OSError:
                    pass
            time.sleep(0.2)
        """.replace("start + 40", f"{time.monotonic()} + 40"),
    )
    message = describe(outcome)
    if landlock(project) >= 6:
        assert "the example called sys.exit()" in message
    else:  # it stopped the worker, and its heartbeats never reached the pool: found, and named
        assert "the worker stopped answering" in message and "must not kill, stop or signal" in message
        assert time.monotonic() - start < 30, "forged heartbeats kept a stopped worker alive"


def _wait_for(path: Path) -> str:
    """An example's line that waits until ``path`` exists, at most 10 s (``time.sleep`` returns None)."""
    return f"any(os.path.exists({str(path)!r}) or time.sleep(0.01) for _ in range(1000))"


def test_an_example_that_stops_the_worker_then_behaves_when_run_again_fails(project, tmp_path):
    mode = project[2]
    marker, daemon, started = tmp_path / "ran-once", f"daemon-{mode}-{time.time_ns()}", tmp_path / "slow-started"
    slow = "slow.py"  # running when the worker stops, however loaded the machine: each waits for the other
    (project[0] / "examples" / slow).write_text(
        textwrap.dedent(f"""\
            import os, time
            try:
                open("{started}", "w").close()
                {_wait_for(marker)}  # the hostile example's first run
            except OSError:  # Landlock: neither writes
                pass
            time.sleep(2)
            print("slow")
            """)
    )
    outcomes = run(
        project,
        f"""\
        import os, signal, subprocess, sys, time
        if not os.path.exists("{marker}"):  # the first run: start a daemon, stop the worker
            subprocess.Popen(["setsid", sys.executable, "-c", "import time; time.sleep(300)", "{daemon}"])
            open("{marker}", "w").close()
            {_wait_for(started)}  # slow.py, beside it
            os.kill(os.getppid(), signal.SIGSTOP)
            time.sleep(30)
        print("behaved")
        """,
        "hostile.py",
        slow,
    )
    message = describe(outcomes["hostile.py"])
    assert outcomes["hostile.py"].failure is not None, message
    if landlock(project):  # Landlock: it cannot write the marker (the daemon is found: a cgroup or subreaper)
        assert ("FileNotFoundError" if namespaced(project) else "PermissionError") in message  # (not in its view)
        assert not _poll(lambda: alive(daemon)), "the daemon outlived its example"
    else:  # both ran when the worker stopped; run again, neither stopped it: both fail, each naming the other
        assert "ran beside slow.py; run again one at a time, none of them did it again" in message, message
        assert "ran beside hostile.py" in describe(outcomes["slow.py"])
        # without a cgroup or subreaper it escapes (src/mkdocs_examples/docs/sandbox.md: "Where it runs")
        for pid in alive(daemon):
            os.kill(pid, 9)


def test_each_example_has_its_own_home_temporary_and_configuration_folders(project):
    variables = ["HOME", "TMPDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "MPLCONFIGDIR", "TORCH_HOME"]
    name = f"written-{time.time_ns()}"
    source = f"""\
        import os, tempfile
        for variable in {variables}:
            folder = os.environ.get(variable, os.path.expanduser("~"))
            mine = os.path.dirname(os.getcwd())  # the runner's: its working folder is in its TMPDIR
            shared = "torchinductor_"  # inductor's precompiled headers, shared by the examples of one worker
            found = [n for n in os.listdir(folder) if os.path.join(folder, n) != mine and not n.startswith(shared)]
            print(variable, folder.startswith(tempfile.gettempdir().rsplit("/", 1)[0]), found)
            open(os.path.join(folder, "{name}"), "w").write("x")
        """
    try:
        first, second = (one(project, source) for _ in range(2))
    finally:
        (Path.home() / name).unlink(missing_ok=True)  # what the code before this change wrote
    for outcome in (first, second):
        assert outcome.failure is None, describe(outcome)
        lines = outcome.result.cells[0].output.splitlines()
        assert lines == [f"{variable} True []" for variable in variables]  # its own, and empty


@pytest.mark.parametrize(
    "patch",
    [
        "import builtins\nbuiltins.exec = lambda *args, **kwargs: None",
        "from mkdocs_examples.execute.child import runner\nfrom mkdocs_examples.results import CellResult\n"
        "runner._run_cell = lambda cell, *args, **kwargs: (CellResult(cell.index), None)",
    ],
    ids=["builtins.exec", "runner._run_cell"],
)
def test_patching_the_engine_in_its_process_does_not_pass_a_hidden_check(project, patch):
    outcome = one(project, f'{patch}\n# %% checks tags=["remove-cell"]\nassert 1 + 1 == 3, "the claim is false"\n')
    assert outcome.failure is not None and outcome.failure.kind == "exception", describe(outcome)
    assert "AssertionError: the claim is false" in describe(outcome)


def test_an_example_cannot_rewrite_the_engine_on_disk(project):
    from mkdocs_examples.execute.child import runner

    # Opened for appending, and nothing written: where it is not refused, nothing changes either
    outcome = one(project, f'open("{runner.__file__}", "a").close()\nprint("opened")\n')
    if landlock(project):
        assert ("Read-only file system" if namespaced(project) else "PermissionError") in describe(outcome)
    else:  # macOS: not refused; a change would be detected (the engine is compared before and after)
        assert outcome.failure is None, describe(outcome)


def test_an_example_reads_only_the_examples_python_and_the_system(project, tmp_path):
    root = project[0]
    secret = tmp_path / "token"
    secret.write_text("hunter2")
    (root / ".git").mkdir(exist_ok=True)
    (root / ".git" / "config").write_text("[remote] url = https://user:token@example.com/x\n")
    # The build's state: a cache restored on main but not in a pull request's build (a time bomb could tell
    # them apart), the site, the recordings. And the pages: nothing an example prints may depend on them
    state = {".cache/examples/ab/entry.json": "{}", "site/index.html": "<html>", "recordings/cpu/x.json": "{}"}
    for name, text in state.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / "examples" / "data.txt").write_text("beside the examples")
    refused = [str(secret), f"/proc/{os.getpid()}/environ", str(root / ".git" / "config"),
               str(root / "docs" / "index.md"), *(str(root / name) for name in state)]  # fmt: skip
    allowed = ["/etc/passwd", str(root / "examples" / "data.txt"), os.__file__]
    outcome = one(
        project,
        f"""\
        import os
        for target in {refused + allowed}:
            try:
                open(target).read()
                print("read")
            except OSError as error:
                print(type(error).__name__)
        try:
            os.listdir("{Path.home()}")
            print("listed")
        except OSError as error:
            print(type(error).__name__)
        """,
    )
    assert outcome.failure is None, describe(outcome)
    seen = outcome.result.cells[0].output.split()
    if namespaced(project):  # none of the refused is in its view; the home is refused
        assert seen == ["FileNotFoundError"] * len(refused) + ["read"] * len(allowed) + ["PermissionError"]
    elif landlock(project):  # the refused and the home are refused; the rest is read
        assert seen == ["PermissionError"] * len(refused) + ["read"] * len(allowed) + ["PermissionError"]
    else:
        assert seen == ["read"] * (len(refused) + len(allowed)) + ["listed"]


def test_an_example_has_no_network_but_a_loopback_of_its_own(project):
    import socket

    with socket.socket() as listener:  # a service of the building machine, on its loopback
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        outcome = one(
            project,
            f"""\
            import socket
            try:
                socket.create_connection(("127.0.0.1", {port}), timeout=5).close()
                print("reached the machine's service")
            except OSError as error:
                print(type(error).__name__)
            with socket.socket() as server:  # its own loopback works
                server.bind(("127.0.0.1", 0))
                server.listen()
                socket.create_connection(server.getsockname()).close()
            print([name for _, name in socket.if_nameindex()] == ["lo"])
            """,
        )
    assert outcome.failure is None, describe(outcome)
    reached, interfaces = outcome.result.cells[0].output.splitlines()
    if isolated(project):
        assert (reached, interfaces) == ("ConnectionRefusedError", "True")
    else:  # macOS, or no user namespaces: not isolated, and the build says so
        assert reached == "reached the machine's service"
        assert "network NOT isolated" in sandbox_line(project[1].pool.sandbox)


def test_an_example_past_the_memory_limit_fails_naming_the_option(project):
    # 8 GiB of zeros, over the default 4096 MiB: calloc'd, so without a limit it would cost no memory
    outcome = one(project, "x = bytes(8 << 30)\nprint(len(x))\n")
    message = describe(outcome)
    assert outcome.failure is not None and outcome.failure.kind == "limit", message
    assert message.startswith("examples/hostile.py:1: it ran out of memory") and "`max_memory`" in message


# --- what an example sees of the builder (namespaces) ----------------------------------


def test_an_example_cannot_reach_a_unix_socket_the_builder_listens_on(project, tmp_path):
    import socket

    path = tmp_path / "agent.sock"  # where an ssh-agent or a Docker daemon listens (/tmp/ssh-*, /run)
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(path))
        listener.listen()
        listener.settimeout(0.1)
        outcome = one(
            project,
            f"""\
            import socket
            with socket.socket(socket.AF_UNIX) as client:
                try:
                    client.connect("{path}")
                    print("connected")
                except OSError as error:
                    print(type(error).__name__)
            """,
        )
        with contextlib.suppress(TimeoutError):
            listener.accept()[0].close()
    assert outcome.failure is None, describe(outcome)
    if namespaced(project):  # not in its view of the filesystem
        assert outcome.result.cells[0].output == "FileNotFoundError\n"
    else:  # shown here, so that the check above is known to be real
        assert outcome.result.cells[0].output == "connected\n"


def test_an_example_sees_no_kernel_log_and_none_of_the_builders_processes_or_sockets(project, tmp_path):
    import socket

    name = f"builder-{time.time_ns()}.sock"
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(tmp_path / name))
        listener.listen()
        outcome = one(
            project,
            f"""\
            import os
            try:
                os.close(os.open("/dev/kmsg", os.O_WRONLY))
                print("kmsg opened")
            except OSError as error:
                print(type(error).__name__)
            print("{name}" in open("/proc/1/net/unix").read())
            print(len([p for p in os.listdir("/proc") if p.isdigit()]) < 5)
            """,
        )
    assert outcome.failure is None, describe(outcome)
    seen = outcome.result.cells[0].output.splitlines()
    if namespaced(project):  # a minimal /dev, a /proc of its own PID and network namespaces
        assert seen == ["FileNotFoundError", "False", "True"]
    else:
        assert seen[1:] == ["True", "False"]


def test_shared_memory_an_example_leaves_goes_with_it(project):
    key = 0x6D6B0000 + os.getpid() % 0xFFFF
    name = f"mkx-{time.time_ns()}"
    outcome = one(
        project,
        f"""\
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        print(libc.shmget({key}, 4096, 0o1600) >= 0)  # IPC_CREAT; never removed
        open("/dev/shm/{name}", "w").write("left behind")
        """,
    )
    assert outcome.failure is None, describe(outcome)
    assert outcome.result.cells[0].output == "True\n"
    with open("/proc/sysvipc/shm") as table:
        keys = [int(line.split()[0]) for line in table.readlines()[1:]]
    left = (key in keys, os.path.exists(f"/dev/shm/{name}"))
    if namespaced(project):  # its own IPC namespace and /dev/shm: gone with its last process
        assert left == (False, False)
    else:
        assert left == (True, True)
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.shmctl(libc.shmget(key, 0, 0), 0, None)  # IPC_RMID
        os.unlink(f"/dev/shm/{name}")


def test_an_example_starts_enough_processes_for_workers_but_not_hundreds(project):
    # Threads count as processes do (pids.max), and start faster than a machine under load forks
    outcome = one(
        project,
        """\
        import threading
        done, started = threading.Event(), []
        try:
            for _ in range(300):
                started.append(threading.Thread(target=done.wait))
                started[-1].start()
        except RuntimeError as error:
            print(error)
        print(len(started) >= 16, len(started) < 300)
        done.set()
        """,
    )
    assert outcome.failure is None, describe(outcome)
    seen = outcome.result.cells[0].output.splitlines()
    _, engine, _ = project
    if "process-limit" not in engine.pool.sandbox["missing"]:  # pids.max of its cgroup
        assert seen == ["can't start new thread", "True True"]
    else:
        assert seen == ["True False"]


def test_examples_of_one_worker_share_inductors_precompiled_headers_and_nothing_else(project):
    root = project[0]
    (root / "examples" / "first.py").write_text(
        "import getpass, os, tempfile\n"
        "headers = os.path.join(tempfile.gettempdir(), f'torchinductor_{getpass.getuser()}', 'precompiled_headers')\n"
        "os.makedirs(headers, exist_ok=True)\n"
        "open(os.path.join(headers, 'built.h.gch'), 'w').write('x')\n"
        "open(os.path.join(tempfile.gettempdir(), 'mine'), 'w').write('x')\n"
    )
    first = run(project, "print(1)\n", "hostile.py", "first.py")["first.py"]
    assert first.failure is None, describe(first)
    outcome = one(
        project,
        """\
        import getpass, os, tempfile
        folder = os.path.join(tempfile.gettempdir(), f"torchinductor_{getpass.getuser()}")
        print(sorted(os.listdir(tempfile.gettempdir())))
        print(os.listdir(os.path.join(folder, "precompiled_headers")) if os.path.isdir(folder) else None)
        """,
    )
    assert outcome.failure is None, describe(outcome)
    listed, headers = outcome.result.cells[0].output.splitlines()
    assert "mine" not in listed  # its TMPDIR is its own
    assert headers == ("['built.h.gch']" if namespaced(project) else "None")


HEADERS = """\
import getpass, os, tempfile
folder = os.path.join(tempfile.gettempdir(), f"torchinductor_{getpass.getuser()}", "precompiled_headers")
built = os.path.join(folder, "built.h.gch")
print(sorted(n for n in os.listdir(folder) if n != "locks") if os.path.isdir(folder) else None)
print(open(built, "rb").read() if os.path.exists(built) else None)
attempts = {
    "write": lambda: open(built, "r+b").write(b"poisoned"),
    "truncate": lambda: os.truncate(built, 0),
    "chmod": lambda: os.chmod(built, 0o777),
    "remove": lambda: os.remove(built),
    "rename": lambda: os.rename(built, built + ".old"),
    "replace": lambda: os.replace(os.path.join(folder, "built.h"), built),
}
for name, attempt in attempts.items():
    try:
        attempt()
    except OSError as error:
        print(name, "refused")
    else:
        print(name, "done")
"""


@pytest.mark.skipif(sys.platform != "linux", reason="the store is used with mount namespaces only")
def test_examples_see_the_headers_the_worker_built_and_cannot_change_them(tmp_path):
    import torch

    from mkdocs_examples.execute.child import headers

    store = tmp_path / "store"
    folder = store / headers._key(str(torch.__version__), os.path.dirname(os.path.abspath(torch.__file__)))
    folder.mkdir(parents=True)
    (folder / "built.h").write_text("#include <torch/csrc/inductor/cpp_prefix.h>\n")
    (folder / "built.h.gch").write_bytes(b"trusted")
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "hostile.py").write_text(HEADERS)
    engine = Engine(tmp_path / "examples", None, options=Options(), preload=["torch"], jobs=2, timeout=60,
                    headers=store)  # fmt: skip
    try:
        runs = []
        for _ in range(2):  # the second sees what the first left
            engine._memory.clear()
            runs.append(engine.run([engine.load("hostile.py")])["hostile.py"])
        namespaced = "namespaces" not in engine.pool.sandbox["missing"]
    finally:
        engine.close()
    for outcome in runs:
        assert outcome.failure is None, describe(outcome)
    lines = runs[0].result.cells[0].output.splitlines()
    if namespaced:
        assert lines[:2] == ["['built.h', 'built.h.gch']", "b'trusted'"]
        refused = ("write", "truncate", "chmod", "remove", "rename", "replace")
        assert lines[2:] == [f"{name} refused" for name in refused]
        assert runs[1].result.cells[0].output == runs[0].result.cells[0].output  # the first changed nothing
    else:  # no folder of the worker's: each example's TMPDIR is its own, empty
        assert lines[:2] == ["None", "None"]
    assert (folder / "built.h.gch").read_bytes() == b"trusted"
    assert (folder / "built.h.gch").stat().st_mode & 0o777 != 0o777
