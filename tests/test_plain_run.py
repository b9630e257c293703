"""Every example, as a reader runs it: the runnable download, `python example.py`, with more than one seed.

The runnable form (what the site offers for download) lets a cell that raises on purpose
print its traceback and go on, so the whole example runs; nothing else may fail, whatever
the seeds or the hash seed. Each pass forks every example from an interpreter that has
imported the site's `preload` modules once, as the engine's worker does (seconds instead of
the minutes that a fresh interpreter per example costs), in the engine's sandbox (an example
is a stranger's code, and CI's tests run a pull request's), and runs it with `runpy` as
`__main__`, as `python script` would. Each pass seeds random, numpy and
torch with one of SEEDS and has its own hash seed: fixed, so that the test gives the same
answer on every run, and as large as the 64-bit seeds an unseeded torch picks for itself
(one of those once overflowed a DataLoader's collate).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import tokenize
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import Cores

from mkdocs_examples.execute.engine import Engine
from mkdocs_examples.publish.notebooks import runnable_script
from mkdocs_examples.results import Result
from mkdocs_examples.settings import load_site
from mkdocs_examples.source.cells import Example, read_example

ROOT = Path(__file__).parent.parent
EXAMPLES = ROOT / "examples"
# The largest seed, over int64 as those an unseeded torch picks (one overflowed a DataLoader's collate), with its
# own hash seed: one pass, as every pass reruns every example (minutes of CI's CPU). An ordinary seed is the site's
# own, with which the downloaded scripts run below, with another hash seed; the notebook test
# (tests/test_notebooks_run.py) runs each example again, unseeded
pytestmark = pytest.mark.slow  # minutes of CPU: the slow lane, beside `make test`

SEEDS = (2**64 - 1,)
# A pass's own bound, for a driver that hangs between scripts (each script has twice the site's `timeout`):
# a pass of every example takes minutes of one core, and the rest of the slow lane shares the cores
PASS_TIMEOUT = 1800
SEED = "random.seed(seed); numpy.random.seed(seed % 2**32); torch.manual_seed(seed)"

# gloo's handshake between two processes forked on one loopback failed once in CI ("Connection closed by peer"
# in init_process_group, from a rank still alive), where the same page's earlier launches had connected; it did
# not recur here in 1,500 launches, two and six jobs at a time. A script that fails with it runs once more, and
# a second failure, of any kind, fails the test
GLOO_FLAKE = "Gloo connectFullMesh failed"

# One interpreter imports torch once, then forks a child per script (argv), each in a folder of its
# own and seeded, and kills one that runs longer than SCRIPT_TIMEOUT seconds (twice the site's
# `timeout` for an example: the pass shares the cores with the rest of the slow lane); prints
# "TRIED" and the module names its imports looked for, "RETRIED path" for a script that failed as
# GLOO_FLAKE says and ran again, then "FAIL path" for each failure
DRIVER = f"GLOO_FLAKE = {GLOO_FLAKE!r}\n" + r"""
import importlib, os, random, runpy, signal, sys, tempfile, time, traceback
from pathlib import Path
from mkdocs_examples.execute.child import sandbox
from mkdocs_examples.results import Options
# Examples are a stranger's code: each runs in the engine's sandbox (prepared while one thread)
prepared = sandbox.prepare([Path(sys.argv[1]).parent])
scratch = tempfile.mkdtemp(prefix="plain-run-")
tried = set()  # every top-level module name the imports below look for, found or not
class Spy:
    def find_spec(self, name, path=None, target=None):
        tried.add(name.partition(".")[0])
sys.meta_path.insert(0, Spy())
import numpy, torch
for name in os.environ["PRELOAD"].split():
    importlib.import_module(name)
print("TRIED", *sorted(tried), flush=True)
import gc; gc.collect(); gc.freeze()  # as the engine's worker: no child's collection walks (and copies) all that
seed = int(os.environ["SEED"])
def passes(script):
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            log = os.open(f"{script}.{seed}.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(log, 1); os.dup2(log, 2)
            folder = Path(tempfile.mkdtemp(dir=scratch))
            (folder / "box").mkdir()
            sandbox.confine(prepared, folder, Options(), deadline=time.monotonic() + 600)  # as the engine's worker
            os.chdir(os.environ["TMPDIR"])
            random.seed(seed); numpy.random.seed(seed % 2**32); torch.manual_seed(seed)
            sys.argv = [script]
            runpy.run_path(script, run_name="__main__")
            code = 0
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stdout.flush(); sys.stderr.flush()
            os._exit(code)
    timeout = float(os.environ["SCRIPT_TIMEOUT"])
    end = time.monotonic() + timeout
    while (ended := os.waitpid(pid, os.WNOHANG))[0] == 0:
        if time.monotonic() > end:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            with open(f"{script}.{seed}.log", "a") as log:
                log.write(f"\ntimed out after {timeout:.0f} s (twice the site's `timeout` for an example)\n")
            return False
        time.sleep(0.05)
    return ended[1] == 0
for script in sys.argv[1:]:
    ok = passes(script)
    if not ok and GLOO_FLAKE in Path(f"{script}.{seed}.log").read_text(errors="replace"):
        print("RETRIED", script, flush=True)  # once: a second failure is the script's
        ok = passes(script)
    if not ok:
        print("FAIL", script, flush=True)
"""


def scripts(folder: Path) -> list[Path]:
    """The runnable form of every example, written into ``folder``."""
    written = []
    for file in sorted(EXAMPLES.rglob("*.py")):
        path = file.relative_to(EXAMPLES).as_posix()
        script = folder / path.replace("/", "-")
        script.write_text(runnable_script(read_example(EXAMPLES, path)))
        written.append(script)
    return written


def env(seed: int) -> dict[str, str]:
    config = load_site(ROOT / "mkdocs.yml").config
    preload = " ".join(config.preload)
    # One thread each, as the site runs them: passes side by side on two cores, each with torch's
    # default of a thread per core, spin in OpenMP and took three times as long
    threads = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    return dict(os.environ, PYTHONHASHSEED=str(seed % 2**32), SEED=str(seed), MPLBACKEND="Agg", PRELOAD=preload,
                SCRIPT_TIMEOUT=str(2 * config.timeout), **threads)  # fmt: skip


def forked(batch: tuple[int, list[Path]], cores: Cores | None = None) -> tuple[list[str], set[str]]:
    """Run a batch of scripts, one at a time, in one driver: on a core of its own where ``cores`` are shared."""
    with cores.held(1) if cores else contextlib.nullcontext():
        return _forked(batch)


def _forked(batch: tuple[int, list[Path]]) -> tuple[list[str], set[str]]:
    seed, batch_scripts = batch
    driver = subprocess.Popen(
        [sys.executable, "-c", DRIVER, *map(str, batch_scripts)], env=env(seed), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        stdout, stderr = driver.communicate(timeout=PASS_TIMEOUT)
    except subprocess.TimeoutExpired:  # reaped here, its pipes closed: not left to warn in another test
        os.killpg(driver.pid, signal.SIGKILL)
        driver.communicate()
        raise
    finally:  # whatever the examples started ends with the test
        with contextlib.suppress(ProcessLookupError):
            os.killpg(driver.pid, signal.SIGKILL)
    done = subprocess.CompletedProcess(driver.args, driver.returncode, stdout, stderr)
    failed = [Path(line.split(" ", 1)[1]) for line in done.stdout.splitlines() if line.startswith("FAIL ")]
    tried = {name for line in done.stdout.splitlines() if line.startswith("TRIED ") for name in line.split()[1:]}
    return [f"{f.name} (seed {seed}):\n{Path(f'{f}.{seed}.log').read_text()[-3000:]}" for f in failed] + (
        [f"the forked pass with seed {seed} failed:\n{done.stderr[-3000:]}"] if done.returncode else []
    ), tried


def test_every_example_runs_to_its_end_as_a_plain_script(tmp_path, cores):
    written = scripts(tmp_path)
    assert len(written) > 40
    with ThreadPoolExecutor(max_workers=len(SEEDS)) as pool:
        batches = [(seed, written) for seed in SEEDS]  # one interpreter (one hash seed) per pass
        passes = list(pool.map(forked, batches, [cores] * len(batches)))
    failures = [f for found, _ in passes for f in found]
    assert not failures, "\n\n".join(failures)
    # `python cuda.py`, the download of an example once named errors/cuda.py, put itself first on
    # sys.path: torch's `import cuda.bindings` found the script, which imported torch half-initialised
    tried = set.union(*(names for _, names in passes))
    assert "torch" in tried  # the driver saw the imports
    examples = [f.relative_to(ROOT).as_posix() for f in EXAMPLES.rglob("*.py")]
    shadowing = sorted(path for path in examples if Path(path).stem in tried)
    assert not shadowing, (f"{', '.join(shadowing)}: run as a download (`python name.py`), the script's name "
                           "hides a module that importing torch looks for: rename the example")


def code(script: Path) -> list[tuple[int, str]]:
    """What Python compiles of ``script``: its tokens, the file decoded as Python decodes it (its `coding:` cookie,
    a carriage return ending a line as a newline does), comments and blank lines left out. Two scripts with the
    same code print the same."""
    data = script.read_bytes()
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    text = data.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")
    skipped = (tokenize.COMMENT, tokenize.NL)
    return [(token.type, token.string) for token in tokenize.generate_tokens(io.StringIO(text).readline)
            if token.type not in skipped]  # fmt: skip


def test_scripts_that_differ_in_comments_alone_have_the_same_code(tmp_path):
    one, two, other = (tmp_path / name for name in ("one.py", "two.py", "other.py"))
    one.write_text("x = 1  # one\nprint(x)\n")
    two.write_text("# -*- coding: utf-8 -*-\nx = 1  # 一\n\n# 二\nprint(x)\n", encoding="utf-8")
    other.write_text("x = 1\nprint('x')\n")
    assert code(one) == code(two) != code(other)
    hidden = tmp_path / "hidden.py"  # a translated comment whose carriage return starts a line of code
    hidden.write_bytes(b"x = 1  # one\rx = 2\nprint(x)\n")
    assert code(hidden) != code(one)
    latin = tmp_path / "latin.py"  # decoded by its cookie, as Python decodes it
    latin.write_bytes("# -*- coding: latin-1 -*-\nx = 1\nprint('é')\n".encode("latin-1"))
    assert any(token == "'é'" for _, token in code(latin))


def test_each_downloaded_script_prints_what_its_page_shows(real_site, real_project, tmp_path, cores):
    """What a reader runs is what ran: each `.py` download, in each language, run with `python` as a reader runs
    it (in the sandbox, seeded as the engine seeds), prints each line that the page shows its cells printed, in
    order. A download that decodes otherwise than the engine read it (a `coding:` cookie, a hidden line in a
    translated comment) prints something else, and fails here. A Chinese download whose code is the English
    one's, its comments aside (`code`), prints what the English one prints: only the others run again."""
    site, _ = real_site
    config = load_site(real_project / "mkdocs.yml").config
    engine = Engine.from_config(config, real_project, execute=False)  # the results the pages show: from the cache
    try:
        examples = [engine.load(p.relative_to(EXAMPLES).as_posix()) for p in sorted(EXAMPLES.rglob("*.py"))]
        outcomes = engine.run(examples)
    finally:
        engine.close()
    batches: dict[str, list[Path]] = {}
    for lang, prefix in (("en", ""), ("zh", "zh/")):
        folder = tmp_path / lang
        folder.mkdir()
        for example in examples:
            download = site / prefix / "downloads" / example.path
            assert download.read_text(encoding="utf-8").startswith("# -*- coding: utf-8 -*-\n"), download
            shutil.copy(download, folder / example.path.replace("/", "-"))
        batches[lang] = [folder / e.path.replace("/", "-") for e in examples]
    same = {script.name for script in batches["zh"] if code(script) == code(tmp_path / "en" / script.name)}
    batches["zh"] = [script for script in batches["zh"] if script.name not in same]
    with ThreadPoolExecutor(max_workers=2) as pool:
        passes = list(pool.map(forked, [(config.seed, scripts) for scripts in batches.values()], [cores] * 2))
    assert [f for found, _ in passes for f in found] == []
    differ = []
    for lang, scripts in batches.items():
        run = {script.name for script in scripts}
        for example in examples:
            script = tmp_path / lang / example.path.replace("/", "-")
            if script.name not in run:
                continue
            log = Path(f"{script}.{config.seed}.log").read_text()
            printed = [_WORKDIR.sub(".", line).rstrip() for line in log.splitlines()]
            if missing := _not_printed(example, outcomes[example.path].result, printed):
                differ.append(f"{lang} downloads/{example.path}: {missing!r} not printed")
    assert differ == [], "\n".join(differ)


_WORDED = re.compile("[…\u2400-\u243f]|<pid>")  # what the engine's cleaning writes into a page's output
# the folder a script runs in here (DRIVER: scratch, its folder, the sandbox's TMPDIR), which the engine's cleaning
# shows as "." (faulthandler's "File "./crashes_on_import.py"" on the page)
_WORKDIR = re.compile(r"/tmp/plain-run-[^/\s]+/[^/\s]+/box/tmp(?=/)")


def _not_printed(example: Example, result: Result, printed: list[str]) -> str | None:
    """The first line the page shows ``example``'s cells printed that ``printed`` lacks (in order); None if none.

    Left out: measurements (``varies``), cells the build skipped or that raise on purpose (the download prints
    their traceback its own way), cut outputs, and the lines the engine words for the page: a path it shortened
    (``…``) or that names the example (a warning's ``examples/x.py:39:``, the script's own path in a plain run),
    a process id (``<pid>``), a control character shown as a visible mark (``␀``). The folder the script ran in is
    ``.`` in ``printed``, as on the page (_WORKDIR)."""
    at = 0
    for cell in result.cells:
        tags = example.cells[cell.cell]
        if cell.skipped or cell.traceback or cell.truncated or tags.has("varies"):
            continue
        for line in (line.rstrip() for line in cell.output.splitlines()):
            if not line or _WORDED.search(line) or example.display in line:
                continue
            try:
                at = printed.index(line, at) + 1
            except ValueError:
                return line
    return None
