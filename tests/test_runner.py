"""The runner and its worker pool: what an example's output is, and how it fails."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest
from conftest import Runner
from helpers import alive

from mkdocs_examples.execute.engine import Engine, describe
from mkdocs_examples.results import Options


def cells(outcome):
    return outcome.result.cells


def test_output_of_each_cell_in_order_with_python_c_and_subprocess_output(runner):
    outcome = runner.one(
        """\
        import os, subprocess, sys, warnings
        print("one")
        print("two", file=sys.stderr)
        # %% second
        os.write(1, b"from C level\\n")
        subprocess.run(["echo", "from a subprocess"])
        warnings.warn("careful")
        """
    )
    assert outcome.failure is None
    first, second = cells(outcome)
    assert first.output == "one\ntwo\n"
    assert second.output == "from C level\nfrom a subprocess\nexamples/demo.py:7: UserWarning: careful\n"
    assert outcome.result.env["torch"].startswith("2.")


def test_expected_exception_is_the_output_with_only_the_examples_frames(runner):
    outcome = runner.one(
        """\
        import torch
        # %% tags=["raises-exception"]
        def helper():
            return torch.ones(2) @ torch.ones(3)
        print("before")
        helper()
        # %%
        print("after")
        """
    )
    assert outcome.failure is None
    _, raising, after = cells(outcome)
    assert raising.output == "before\n"
    assert raising.traceback.splitlines() == [
        "Traceback (most recent call last):",
        '  File "examples/demo.py", line 6, in <module>',
        "    helper()",
        '  File "examples/demo.py", line 4, in helper',
        "    return torch.ones(2) @ torch.ones(3)",
        "           ~~~~~~~~~~~~~~^~~~~~~~~~~~~~~",
        "RuntimeError: inconsistent tensor size, expected tensor [2] and src [3] to have the same "
        "number of elements, but got 2 and 3 elements respectively",
    ]
    assert after.output == "after\n"


def test_unexpected_exception_stops_the_example_and_names_file_and_line(runner):
    outcome = runner.one('x = 1\n# %%\nprint("ran")\nraise ValueError("boom")\n# %%\nprint("never")\n')
    assert outcome.failure.kind == "exception"
    assert len(cells(outcome)) == 2
    message = describe(outcome)
    assert message.startswith("examples/demo.py:4: unexpected exception")
    assert "ValueError: boom" in message


def test_cell_tagged_raises_exception_that_does_not_raise_fails(runner):
    outcome = runner.one('x = 1\n\n# %% quiet tags=["raises-exception"]\nprint("fine")\n')
    assert describe(outcome) == "examples/demo.py:4: the cell is tagged raises-exception but raised nothing"


def test_syntax_error_points_at_its_line(runner):
    outcome = runner.one("x = 1\n# %%\ny = (\n")
    assert describe(outcome).startswith("examples/demo.py:3: unexpected exception")
    assert "SyntaxError" in describe(outcome)


@pytest.mark.parametrize(
    ("code", "words"),
    [
        ("import sys\nsys.exit(3)\n", "examples/demo.py:2: the example called sys.exit()"),
        ("import os\nos._exit(0)\n", "examples/demo.py:2: the example's process exited with code 0 before its end"),
        ("import os\nos.abort()\n", "examples/demo.py:2: the example's process crashed (SIGABRT)"),
        ("import ctypes\nctypes.string_at(0)\n", "examples/demo.py:2: the example's process crashed (SIGSEGV)"),
    ],
)
def test_exits_and_crashes_are_failures_with_a_line(runner, code, words):
    outcome = runner.one(code)
    assert describe(outcome).startswith(words)


def test_timeout_kills_the_process_group_and_names_the_line(runner):
    outcome = runner.one(
        """\
        import subprocess, sys, time
        child = subprocess.Popen(["sh", "-c", f"exec sleep 60.{time.time_ns() % 10**6:06}"])
        print(child.args[-1].split()[-1])  # its pid is its PID namespace's: it says its mark instead
        # %%
        while True:
            time.sleep(0.01)
        """
    )
    message = describe(outcome)
    assert message.startswith("examples/demo.py:6: timed out after 3 s")
    mark = f"sleep\0{cells(outcome)[0].output.strip()}"
    assert not _poll(lambda: alive(mark), within=5), "the example's own subprocess outlived the timeout"


def _poll(check, within: float):
    """``check()`` once it is falsy, or its last value after ``within`` seconds."""
    deadline = time.monotonic() + within
    while (value := check()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return value


def test_examples_do_not_leak_state_into_each_other(runner, tmp_path):
    runner.write(
        "a.py",
        """\
        import os, torch
        torch.set_default_dtype(torch.float64)
        open("written-by-a.txt", "w").write("x")
        os.chdir("/usr")  # a folder every example sees
        os.environ["LEAK"] = "1"
        torch.manual_seed(123)
        """,
    )
    runner.write(
        "b.py",
        """\
        import os, torch
        print(torch.get_default_dtype(), os.getcwd() == "/usr", "LEAK" in os.environ, os.listdir("."))
        print(torch.randn(2))
        """,
    )
    assert runner.run("a.py")["a.py"].failure is None
    first = runner.run("b.py")["b.py"]
    assert first.result.cells[0].output.splitlines()[0] == "torch.float32 False False []"
    runner.engine._memory.clear()  # run b again: seeded, so the same numbers
    again = runner.run("b.py")["b.py"]
    assert again.origin == "run"
    assert again.result.cells[0].output == first.result.cells[0].output


def test_each_example_starts_in_a_fresh_empty_working_directory(runner):
    outcome = runner.one('import os\nprint(os.listdir("."), os.getcwd() != "/")\nopen("f", "w").close()\n')
    assert cells(outcome)[0].output == "[] True\n"


def test_terminal_colours_are_removed_from_output_and_tracebacks(runner):
    outcome = runner.one(
        """\
        print("\\033[1mbold\\033[0m and \\033[31;1mred\\033[0m")
        # %% tags=["raises-exception"]
        raise ValueError("\\033[1mtrust the source\\033[0m")
        """
    )
    printed, raised = cells(outcome)
    assert printed.output == "bold and red\n"
    assert raised.traceback.endswith("ValueError: trust the source\n")


def test_huge_output_is_cut_and_says_how_much(runner):
    outcome = runner.one('print("x" * 5000)\n')
    cell = cells(outcome)[0]
    assert len(cell.output) == 2000
    assert cell.truncated == 5001 - 2000


@pytest.fixture(scope="module")
def roomy(tmp_path_factory) -> Runner:
    """The `runner`'s options with time to import matplotlib and encode megabytes of figures on a busy machine."""
    root = tmp_path_factory.mktemp("roomy")
    engine = Engine(root, None, options=Options(max_output=2000), preload=[], jobs=2, timeout=30)
    yield Runner(root, engine)
    engine.close()


def test_figures_are_captured_as_png(roomy):
    outcome = roomy.one(
        """\
        import matplotlib.pyplot as plt
        plt.plot([1, 2, 3])
        """
    )
    (image,) = cells(outcome)[0].images
    import base64

    assert base64.b64decode(image).startswith(b"\x89PNG")


@pytest.mark.parametrize(
    ("written", "why"),
    [('b"GIF89a" + bytes(100)', "does not match"),  # not a PNG
     ('b"\\x89PNG\\r\\n\\x1a\\n" + bytes(5 << 20)', "characters, more than 6990508")],  # over 5 MiB
)  # fmt: skip
def test_a_figure_a_page_cannot_show_fails_its_cell_by_the_same_check(roomy, written, why):
    outcome = roomy.one(
        f"""\
        import matplotlib.pyplot as plt
        from matplotlib.figure import Figure
        plt.plot([1, 2, 3])
        Figure.savefig = lambda self, buffer, **options: buffer.write({written})
        """
    )
    failure = outcome.failure
    assert failure and failure.kind == "figure" and failure.cell == 0 and failure.line == 1
    assert failure.detail.startswith("figure 1 of this cell cannot be shown: ") and why in failure.detail
    assert "at most 5 MiB: draw it smaller" in describe(outcome)
    assert cells(outcome)[0].images == ()  # what the page cannot show is not kept


# --- what an example shows in all: its text and figures (execute/child/budget.py) ---------------------


# A figure of 2 MiB of PNG, as large as noise makes one, without the time that drawing noise takes
HEAVY_FIGURES = """\
import matplotlib.pyplot as plt
from matplotlib.figure import Figure
Figure.savefig = lambda self, buffer, **options: buffer.write(b"\\x89PNG\\r\\n\\x1a\\n" + bytes(2 << 20))
for _ in range(3):
    plt.figure()
# %% more
for _ in range(3):
    plt.figure()
# %% never
print("never run")
"""


def test_figures_past_max_figures_bytes_fail_naming_the_cell_the_figure_and_the_option(roomy):
    outcome = roomy.one(HEAVY_FIGURES)
    failure = outcome.failure
    assert failure is not None, [len(c.images) for c in cells(outcome)]  # every figure was kept
    assert (failure.kind, failure.cell, len(cells(outcome))) == ("limit", 1, 2)  # it stopped there
    assert describe(outcome) == (
        "examples/demo.py:7: figure 1 of this cell brings its figures to 8.0 MiB, past the plugin option "
        "`max_figures_bytes` (8.0 MiB): draw fewer or smaller figures (figsize, dpi), or raise the option"
    )


def test_a_cell_that_shows_more_than_max_figures_fails_naming_the_figure_and_the_option(roomy):
    outcome = roomy.one(
        """\
        import matplotlib.pyplot as plt
        from matplotlib.figure import Figure
        Figure.savefig = lambda self, buffer, **options: buffer.write(b"\\x89PNG\\r\\n\\x1a\\n")
        for _ in range(30):
            plt.figure()
        """
    )
    failure = outcome.failure
    assert failure is not None, [len(c.images) for c in cells(outcome)]
    assert failure.kind == "limit" and len(cells(outcome)[0].images) == 11  # not all 30 encoded
    assert describe(outcome).startswith(
        "examples/demo.py:1: this cell shows more than 10 figures (figure 11 is one too many for the plugin "
        "option `max_figures`)"
    )


def test_cells_whose_output_adds_up_past_max_output_bytes_stop_the_example(roomy):
    outcome = roomy.one("".join(f"# %% cell{n}\nprint('x' * 2000)\n" for n in range(300)))  # 2000 shown each
    failure = outcome.failure
    assert failure is not None, f"{len(cells(outcome))} cells of 2000 characters shown"
    assert (failure.kind, failure.cell, len(cells(outcome))) == ("limit", 131, 132)  # 264,000 bytes by then
    assert describe(outcome) == (
        "examples/demo.py:264: its cells' output adds up to 258 KiB by this cell, past the plugin option "
        "`max_output_bytes` (256 KiB): print less (a shape, a summary, a few rows), or raise the option"
    )


def test_requires_cuda_cells_are_skipped_on_cpu(runner):
    outcome = runner.one('x = 1\n# %% tags=["requires-cuda"]\nimport torch\ntorch.ones(1, device="cuda")\n')
    assert outcome.failure is None
    assert cells(outcome)[1].skipped == "requires-cuda"


def test_an_example_that_imports_torch_itself_is_seeded_and_named(tmp_path):
    from mkdocs_examples.execute.engine import Engine
    from mkdocs_examples.results import Options

    (tmp_path / "a.py").write_text(
        "import torch, numpy\nprint(torch.randn(2), numpy.random.rand(), torch.get_num_threads())\n"
    )
    engine = Engine(tmp_path, None, options=Options(seed=3), preload=[], jobs=1)
    try:
        first = engine.run([engine.load("a.py")])["a.py"]
        engine._memory.clear()
        second = engine.run([engine.load("a.py")])["a.py"]
    finally:
        engine.close()
    assert first.failure is None and first.result.cells[0].output == second.result.cells[0].output
    assert first.result.cells[0].output.rstrip().endswith(" 1")  # one thread, as when preloaded
    assert first.result.env["torch"].startswith("2.")  # the provenance names torch


def test_sockets_beneath_the_examples_temporary_folder_fit_even_when_tmpdir_is_long(tmp_path, monkeypatch):
    from mkdocs_examples.execute.engine import Engine
    from mkdocs_examples.results import Options

    long = tmp_path / ("d" * 60)  # like macOS's /var/folders/…/T/, and longer
    long.mkdir()
    monkeypatch.setenv("TMPDIR", str(long))
    (tmp_path / "ex").mkdir()
    (tmp_path / "ex" / "a.py").write_text(
        "import multiprocessing as mp\nwith mp.Manager() as m:\n    print(m.list([1, 2]))\n"
    )
    engine = Engine(tmp_path / "ex", None, options=Options(), preload=[], jobs=1, timeout=30)
    try:
        outcome = engine.run([engine.load("a.py")])["a.py"]
    finally:
        engine.close()
    assert outcome.failure is None, outcome.failure
    assert outcome.result.cells[0].output == "[1, 2]\n"


def test_warnings_show_as_under_python_once_per_line_and_deprecations_of_main(runner):
    outcome = runner.one(
        """\
        import warnings
        for _ in range(3):
            warnings.warn("careful", UserWarning)
        warnings.warn("old", DeprecationWarning)
        """
    )
    output = cells(outcome)[0].output
    assert output.count("UserWarning: careful") == 1 and "DeprecationWarning: old" in output, output


def test_an_example_sees_no_secrets_of_the_environment_that_builds(tmp_path, monkeypatch):
    # but it sees the compiler its torch was configured with when the worker imported it
    from mkdocs_examples.execute.engine import Engine
    from mkdocs_examples.results import Options

    monkeypatch.setenv("MY_SECRET_TOKEN", "hunter2")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "hunter3")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    monkeypatch.setenv("CXX", "g++")
    (tmp_path / "ex").mkdir()
    source = "import os\nprint(sorted(k for k in os.environ if 'SECRET' in k), os.environ['LC_ALL'], os.environ['CXX'])"
    (tmp_path / "ex" / "env.py").write_text(source)
    engine = Engine(tmp_path / "ex", None, options=Options(), preload=[], jobs=1, timeout=30)
    try:
        outcome = engine.run([engine.load("env.py")])["env.py"]
    finally:
        engine.close()
    assert cells(outcome)[0].output == "[] C.UTF-8 g++\n"


def test_the_longest_examples_run_first_as_their_recordings_say(tmp_path):
    from mkdocs_examples.execute.engine import recorded_seconds

    folder = tmp_path / "recordings" / "cpu-torch2.4.1-py3.11" / "section"
    folder.mkdir(parents=True)
    (folder / "slow.json").write_text('{"example": "section/slow.py", "seconds": 9.5}')
    (folder / "fast.json").write_text('{"example": "section/fast.py", "seconds": 0.1}')
    (folder / "junk.json").write_text('{"example": "section/junk.py", "seconds": "a lot"}')  # ignored
    (folder / "broken.json").write_text("{")  # ignored: it only orders the examples
    assert recorded_seconds(tmp_path / "recordings") == {"section/slow.py": 9.5, "section/fast.py": 0.1}
    assert recorded_seconds(tmp_path / "none") == {}


@pytest.mark.parametrize("first, fill, beside", [("sleeps", True, True), ("computes", True, False),
                                                  ("sleeps", False, False)])  # fmt: skip
def test_one_example_more_starts_beside_one_that_waits_and_none_beside_one_that_computes(tmp_path, first, fill, beside):
    """``fill`` (the option ``jobs: 0``): one example more than ``parallel`` runs while a running one
    leaves its core idle (a timeout it shows, a sleep), never beside one that computes, nor with a number of jobs."""
    root = tmp_path / "examples"
    root.mkdir()
    (root / "sleeps.py").write_text("import time\ntime.sleep(1.2)\n")
    spin = "import time\nend = time.monotonic() + 1.2\nwhile time.monotonic() < end:\n    pass\n"
    (root / "computes.py").write_text(spin)
    (root / "quick.py").write_text("print(1)\n")
    engine = Engine(root, None, options=Options(), preload=[], jobs=1, timeout=20)
    try:
        if not engine.pool.ready().get("cgroup"):
            pytest.skip("a running example's CPU time is read from its cgroup v2, which this system does not delegate")
        examples = [engine.load(f"{first}.py"), engine.load("quick.py")]
        results = dict(engine.pool.run(examples, Options(), timeout=20, parallel=1, fill=fill))
    finally:
        engine.close()
    assert all(result.failure is None for result in results.values())
    spans = engine.pool.spans
    assert (spans["quick.py"][1] < spans[f"{first}.py"][1]) is beside, spans


def test_the_workers_heap_is_in_huge_pages_where_glibc_and_the_kernel_offer_them(runner):
    """Each example's processes are copies of the worker: its heap in 2 MiB pages makes each fork and exit
    copy and free a page-table entry per 2 MiB instead of per 4 KiB (pool._tunables)."""
    libc = os.confstr("CS_GNU_LIBC_VERSION") if hasattr(os, "confstr") else None
    thp = Path("/sys/kernel/mm/transparent_hugepage/enabled")
    if not libc or tuple(map(int, libc.split()[1].split(".")[:2])) < (2, 35):
        pytest.skip(f"glibc 2.35 or later has malloc's hugetlb tunable; this is {libc}")
    if not thp.exists() or "[never]" in thp.read_text():
        pytest.skip("the kernel offers no transparent huge pages here")
    smaps = Path(f"/proc/{runner.engine.pool.ready()['pid']}/smaps_rollup").read_text()  # torch preloaded
    huge = int(re.search(r"AnonHugePages:\s+(\d+) kB", smaps)[1])
    assert huge >= 32 << 10, smaps  # kB: torch's import leaves about 100 MB in malloc's heap
