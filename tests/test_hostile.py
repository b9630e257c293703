"""Examples written by a careless or hostile contributor: the build names them and survives.

Each test runs twice: with the Linux protections (Landlock, subreaper, parent-death signal)
and with them forced off, the path macOS takes (MKDOCS_EXAMPLES_PORTABLE=1).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from mkdocs_examples.execute import pool
from mkdocs_examples.execute.engine import Engine, describe
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
    slack, pool.SLACK = pool.SLACK, 3.0
    engine = Engine(
        root / "examples", None, options=Options(), preload=[], jobs=2, timeout=2, watch=[root / "docs"], project=root
    )
    try:
        engine.start()  # the worker reads the variable when it starts
        yield root, engine, request.param
    finally:
        engine.close()
        pool.HUNG, pool.SLACK = hung, slack
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


def alive(marker: str) -> list[int]:
    """Processes whose command line contains ``marker``."""
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if marker in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(pid))
            except OSError:
                pass
    return found


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
    if project[2] == "linux":  # Landlock's signal scope refuses the signal itself
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
    root, _, mode = project
    target = root / "docs" / "injected.md"
    outcome = one(project, f'open("{target}", "w").write("# injected")\n')
    message = describe(outcome)
    assert outcome.failure is not None
    if mode == "linux":  # Landlock refuses the write
        assert "PermissionError" in message and "hostile.py:1" in message
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
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: t\nplugins: [examples]\n"
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
