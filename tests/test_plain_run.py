"""Every example, as a reader runs it: the runnable download, `python example.py`, several times.

The runnable form (what the site offers for download) lets a cell that raises on purpose
print its traceback and go on, so the whole example runs; nothing else may fail, whatever
the seeds or the hash seed. One pass starts a fresh interpreter per example, exactly as a
reader does; the other passes fork each example from an interpreter that has imported
torch once (seconds instead of minutes), with every random generator seeded anew from the
OS, as a fresh interpreter would be.
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from mkdocs_examples.cells import read_example
from mkdocs_examples.notebooks import runnable_script

ROOT = Path(__file__).parent.parent
EXAMPLES = ROOT / "examples"
FORKED_PASSES = 4

# Run in a fresh interpreter: import torch once, then fork a child per script (argv), each in a
# folder of its own, with random, numpy and torch seeded from the OS; print "FAIL path" for each failure
DRIVER = r"""
import os, random, runpy, sys, tempfile, traceback
import numpy, torch
for script in sys.argv[1:]:
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            log = os.open(f"{script}.{os.environ['PYTHONHASHSEED']}.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(log, 1); os.dup2(log, 2)
            os.chdir(tempfile.mkdtemp())
            random.seed(); numpy.random.seed(); torch.seed()
            sys.argv = [script]
            runpy.run_path(script, run_name="__main__")
            code = 0
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stdout.flush(); sys.stderr.flush()
            os._exit(code)
    if os.waitpid(pid, 0)[1] != 0:
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
    return dict(os.environ, PYTHONHASHSEED=str(seed), MPLBACKEND="Agg")


def fresh(script: Path) -> str | None:
    done = subprocess.run(
        [sys.executable, str(script)], cwd=script.parent, env=env(0), capture_output=True, text=True, timeout=300
    )
    return None if done.returncode == 0 else f"{script.name} (exit {done.returncode}):\n{done.stderr[-3000:]}"


def forked(batch: tuple[int, list[Path]]) -> list[str]:
    seed, batch_scripts = batch
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, *map(str, batch_scripts)], env=env(seed), capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    failed = [Path(line.split(" ", 1)[1]) for line in done.stdout.splitlines() if line.startswith("FAIL ")]
    return [f"{f.name} (hash seed {seed}):\n{Path(f'{f}.{seed}.log').read_text()[-3000:]}" for f in failed] + (
        [f"the forked pass with hash seed {seed} failed:\n{done.stderr[-3000:]}"] if done.returncode else []
    )


def test_every_example_runs_to_its_end_as_a_plain_script(tmp_path):
    written = scripts(tmp_path)
    assert len(written) > 40
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        failures = [f for f in pool.map(fresh, written) if f]
        batches = [(seed, written[half::2]) for seed in range(1, FORKED_PASSES + 1) for half in (0, 1)]
        failures += [f for found in pool.map(forked, batches) for f in found]
    assert not failures, "\n\n".join(failures)
