"""Cleaning what an example printed: safe, machine-independent, and linear in its size."""

from __future__ import annotations

import time
from pathlib import Path

from mkdocs_examples.execute.child.clean import Cleaner

ROOT = Path("/home/someone/project/examples")
WORK = Path("/tmp/mkx-1/3/tmp/example-abc/cwd")


def clean(text: str, limit: int = 20_000) -> tuple[str, int]:
    return Cleaner(ROOT, WORK, Path("/tmp/mkx-1/3/tmp"), limit)(text)


def test_paths_of_the_building_machine_are_shortened():
    text = (
        'File "/opt/py/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1, in f\n'
        "/home/someone/project/examples/tensors/x.py:3: UserWarning: careful\n"
        f"saved to {WORK}/model.pt and /tmp/mkx-1/3/tmp/x.bin (C:\\Py\\Lib\\site-packages\\numpy\\core.py)\n"
    )
    assert clean(text) == (
        'File "…/site-packages/torch/nn/modules/module.py", line 1, in f\n'
        "./examples/tensors/x.py:3: UserWarning: careful\n"
        "saved to ./model.pt and /tmp/x.bin (…/site-packages/numpy\\core.py)\n",
        0,
    )


def test_the_examples_own_folders_show_as_a_readers_defaults():
    box = Path("/tmp/mkx-1/3/box")
    own = {"HOME": f"{box}/home", "TORCH_HOME": f"{box}/torch", "XDG_CACHE_HOME": f"{box}/cache", "TMPDIR": "/"}
    cleaner = Cleaner(ROOT, WORK, Path("/tmp/mkx-1/3/tmp"), 20_000, own=own)
    text = f'Downloading: "https://x/r.pth" to {box}/torch/hub/checkpoints/r.pth\n{box}/cache/a {box}/home/.b\n'
    assert cleaner(text) == ('Downloading: "https://x/r.pth" to ~/.cache/torch/hub/checkpoints/r.pth\n'
                             "~/.cache/a ~/.b\n", 0)  # fmt: skip
    assert Cleaner(ROOT, WORK, Path("/tmp/x"), 100, own={"HOME": "/"})("a / b") == ("a / b", 0)


def test_the_time_and_process_of_a_torch_log_line_are_left_out():
    line = "W1127 10:16:44.694000 2 torch/fx/experimental/symbolic_shapes.py:8866] Unable to find user code\n"
    assert clean(line) == ("W<time> <pid> torch/fx/experimental/symbolic_shapes.py:8866] Unable to find user code\n", 0)
    assert clean("W1127 is a word\n") == ("W1127 is a word\n", 0)


def test_escapes_carriage_returns_and_control_characters():
    assert clean("\x1b[1mbold\x1b[0m 10%\r 50%\r100%\nbell\x07 \u202eevil") == ("100%\nbell␇ \ufffdevil", 0)


def test_output_is_cut_to_the_limit_and_the_cut_counted():
    text, cut = clean("x" * 25_000 + "\n", limit=10_000)
    assert (len(text), cut) == (10_000, 15_001)


def _timed(text: str) -> float:
    start = time.perf_counter()
    clean(text)
    return time.perf_counter() - start


# Bounds wide enough for a busy machine: the quadratic cleaner needed minutes for each of these
def test_one_line_of_three_megabytes_is_cleaned_in_linear_time():
    assert _timed("a/" * 1_500_000) < 5
    assert _timed("/x" * 1_000_000 + "/site-packages/" + "y" * 1_000_000) < 5


def test_a_million_short_lines_are_cleaned_in_linear_time():
    assert _timed("/usr/lib/python3/site-packages/t.py:1\r\x1b[0m\n" * 1_000_000) < 10
