"""What readers take away: each example as a runnable script and as a notebook with the site's outputs."""

from __future__ import annotations

import html
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import nbformat
import pytest

from mkdocs_examples.cli import main
from mkdocs_examples.publish.notebooks import dumps, foreign_notes, notebook, runnable_script, write_downloads
from mkdocs_examples.recordings.store import Recording
from mkdocs_examples.render.page import anchor
from mkdocs_examples.results import CellResult, Result
from mkdocs_examples.source.cells import Example, parse_cells, read_example

ROOT = Path(__file__).parent.parent
SOURCE = """\
# %% [markdown]
# A note for notebook readers

# %% setup
import torch
x = torch.ones(2)
print(x.sum())

# %% fails tags=["raises-exception"]
x @ torch.ones(3)

# %% gpu tags=["requires-cuda"]
print(torch.ones(1, device="cuda"))

# %% checks tags=["remove-cell"]
assert x.sum() == 2
print("after")
"""
EXAMPLE = Example("demo.py", Path("/x/demo.py"), SOURCE, parse_cells(SOURCE))
TRACEBACK = 'Traceback (most recent call last):\n  File "examples/demo.py", line 10\nRuntimeError: inconsistent\n'
RESULT = Result(
    cells=(
        CellResult(0, "tensor(2.)\n", images=("iVBORw0KGgo=",)),
        CellResult(1, traceback=TRACEBACK),
        CellResult(2, skipped="requires-cuda"),
        CellResult(3, "after\n"),
    ),
    env={"torch": "2.13.0+cpu", "python": "3.11.7", "device": "cpu"},
)


def test_the_notebook_is_valid_and_holds_the_outputs_the_site_shows():
    nb = nbformat.reads(dumps(notebook(EXAMPLE, RESULT)), as_version=4)
    nbformat.validate(nb)
    kinds = [(c.cell_type, c.get("id")) for c in nb.cells]
    assert kinds == [("markdown", "note-1"), ("markdown", "environment"), ("code", "as-built"), ("code", "setup"),
                     ("code", "fails"), ("code", "gpu"), ("markdown", "note-2"), ("code", "checks")]  # fmt: skip
    start, setup, fails, gpu, checks = (c for c in nb.cells if c.cell_type == "code")
    # the kernel starts as the engine started the example: its random numbers, its one torch thread
    assert start.source.endswith("random.seed(0)\ntorch.manual_seed(0)\ntorch.set_num_threads(1)")
    assert start.outputs == [] and start.execution_count is None
    assert nb.cells[0].source == "A note for notebook readers"
    # where its outputs come from, said in the notebook itself (downloads and notebook views), in its language
    assert nb.cells[1].source == "*Outputs from PyTorch 2.13.0 on a CPU (Python 3.11), when this site was built; " \
        "a note under a cell says where its output comes from otherwise.*"  # fmt: skip
    zh = notebook(EXAMPLE, RESULT, lang="zh")["cells"][1]["source"]
    assert zh == "*以下输出是构建本站时在 CPU 上用 PyTorch 2.13.0（Python 3.11）实际运行得到的；" \
        "个别单元格的输出另有来源时，下方会注明。*"  # fmt: skip
    assert [c["id"] for c in notebook(EXAMPLE)["cells"]][1] != "environment"  # Colab's notebook has no outputs
    assert [o.output_type for o in setup.outputs] == ["stream", "display_data"]
    assert setup.outputs[0].text == "tensor(2.)\n" and setup.outputs[1].data["image/png"] == "iVBORw0KGgo="
    (error,) = fails.outputs
    assert (error.ename, error.evalue) == ("RuntimeError", "inconsistent") and error.traceback[-1].endswith(
        "inconsistent"
    )
    assert fails.source == "x @ torch.ones(3)" and fails.metadata.tags == ["raises-exception"]
    assert gpu.outputs == [] and gpu.execution_count is None
    assert checks.metadata.tags == ["remove-cell"] and checks.outputs[0].text == "after\n"
    assert [setup.execution_count, fails.execution_count, checks.execution_count] == [1, 2, 3]
    assert nb.metadata.mkdocs_examples["torch"] == "2.13.0+cpu"


def test_the_runnable_script_goes_to_its_end(tmp_path):
    script = tmp_path / "demo.py"
    script.write_text(runnable_script(EXAMPLE))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "tensor(2.)\n(this cell needs a CUDA GPU; none here)\nafter\n"
    assert "RuntimeError" in done.stderr
    assert parse_cells(script.read_text())[1].name == "fails"  # still a percent-format script


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("shebang", ["", "#!/usr/bin/env python3\n"])
def test_a_downloaded_script_declares_utf8_where_python_reads_a_declaration(tmp_path, lang, shebang):
    source = shebang + "# %% first\nx = 'caf\u00e9'\nprint(x)\n"
    example = Example.from_source("demo.py", tmp_path / "demo.py", source)
    write_downloads(tmp_path / "downloads", [(example, Result(), None)], lang=lang)
    script = (tmp_path / "downloads" / "demo.py").read_bytes()
    lines = script.decode().splitlines()
    assert lines[: 2 if shebang else 1] == [*shebang.splitlines(), "# -*- coding: utf-8 -*-"]
    assert lines[2 if shebang else 1 :] == source.splitlines()[1 if shebang else 0 :]
    assert tokenize.detect_encoding(iter(script.splitlines(keepends=True)).__next__)[0] == "utf-8"


def test_a_cuda_cell_meant_to_raise_says_it_needs_a_gpu_in_the_script_on_this_cpu_machine(tmp_path):
    example = read_example(ROOT / "examples", "errors/conversion.py")
    assert example.cell("numpy-cuda").tags == ("requires-cuda", "raises-exception")
    script = tmp_path / "conversion.py"
    script.write_text(runnable_script(example))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "(this cell needs a CUDA GPU; none here)" in done.stdout
    assert "not compiled with CUDA" not in done.stderr  # the traceback a reader without a GPU got
    raising = [c for c in example.cells if c.has("raises-exception") and not c.has("requires-cuda")]
    assert done.stderr.count("Traceback (most recent call last)") == len(raising) > 0  # their errors, printed


FAKE_TORCH = """\
class cuda:
    @staticmethod
    def is_available():
        return {gpu}

def ones(n, device="cpu"):
    if not cuda.is_available():
        raise AssertionError("Torch not compiled with CUDA enabled")
    raise TypeError("can't convert cuda:0 device type tensor to numpy")
"""
CUDA_RAISING = """\
# %% setup
import torch

# %% numpy-cuda tags=["requires-cuda", "raises-exception"]
torch.ones(1, device="cuda").numpy()

# %% after
print("after")
"""


@pytest.mark.parametrize("gpu", [False, True])
def test_a_cuda_cell_meant_to_raise_raises_its_error_only_where_there_is_a_gpu(tmp_path, gpu):
    (tmp_path / "torch.py").write_text(FAKE_TORCH.format(gpu=gpu))  # a stand-in: this machine has no GPU
    script = tmp_path / "demo.py"
    script.write_text(runnable_script(Example.from_source("demo.py", script, CUDA_RAISING)))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    if gpu:  # the error the page shows, printed, and the script goes on
        assert done.stdout == "after\n"
        assert done.stderr.rstrip().endswith("TypeError: can't convert cuda:0 device type tensor to numpy")
    else:
        assert (done.stdout, done.stderr) == ("(this cell needs a CUDA GPU; none here)\nafter\n", "")
    nb = notebook(Example.from_source("demo.py", script, CUDA_RAISING))
    (cell,) = (c for c in nb["cells"] if c["id"] == "numpy-cuda")
    assert cell["source"].startswith("if torch.cuda.is_available():\n    try:\n")  # Colab's form: guarded too
    assert cell["source"].endswith("print('(this cell needs a CUDA GPU; none here)')")


CUDA_CHILD = """\
# %% setup
import subprocess
import sys

import torch

# %% child tags=["requires-cuda", "raises-exception"]
CHILD = \"\"\"
import os
print('child', os.getpid() > 0)
\"\"\"
print(subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True).stdout.strip())
raise RuntimeError(f\"\"\"two
lines\"\"\")
"""


def test_a_cuda_cells_script_for_a_child_process_runs_where_there_is_a_gpu(tmp_path):
    """Guarding a CUDA cell indents its lines, but not those that continue a string: the script it hands a
    child process keeps its text, and runs."""
    (tmp_path / "torch.py").write_text(FAKE_TORCH.format(gpu=True))
    script = tmp_path / "demo.py"
    script.write_text(runnable_script(Example.from_source("demo.py", script, CUDA_CHILD)))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "child True\n"), done.stderr
    assert done.stderr.rstrip().endswith("RuntimeError: two\nlines")
    assert "\nimport os\nprint('child'" in script.read_text()  # as the page shows it


def test_the_lines_a_chinese_download_adds_speak_chinese(tmp_path):
    """The imports, guards and catches that make a download run to its end carry their comments, and what a
    CUDA cell prints without a GPU, in the download's language."""
    (tmp_path / "torch.py").write_text(FAKE_TORCH.format(gpu=False))
    script = tmp_path / "demo.py"
    script.write_text(runnable_script(Example.from_source("demo.py", script, CUDA_RAISING), lang="zh"))
    source = script.read_text()
    assert "import traceback  # 故意报错的单元会打印出错误信息，脚本接着往下运行" in source
    assert "except Exception:  # 故意触发的报错：页面上展示的就是这个错误" in source
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "（这个单元需要 CUDA GPU，这里没有）\nafter\n"), done.stderr
    nb = notebook(Example.from_source("demo.py", script, CUDA_RAISING), lang="zh")
    assert not [c["source"] for c in nb["cells"] if re.search(r"# [a-z]+ [a-z]+ ", c["source"])]  # no English


GPU_SOURCE = """\
# %% setup
x = 1

# %% gpu tags=["requires-cuda"]
import torch
print(torch.ones(2, device="cuda"))

# %% numpy-cuda tags=["requires-cuda", "raises-exception"]
torch.ones(1, device="cuda").numpy()

# %% unrecorded tags=["requires-cuda"]
print(torch.zeros(1, device="cuda"))

# %% after
print("after", x)
"""
GPU_ENV = {"device": "cuda", "gpu": "NVIDIA H100 80GB HBM3", "torch": "2.11.0+cu130", "cuda": "13.0",
           "python": "3.12.3"}  # fmt: skip
GPU_PRINTED = "tensor([1., 1.], device='cuda:0')\n"
NUMPY_RAISED = "TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() first.\n"


@pytest.mark.parametrize(("lang", "printed", "raised", "unrecorded"), [
    ("en", "No CUDA GPU here. On NVIDIA H100 80GB HBM3 with PyTorch 2.11.0 and CUDA 13.0 (Python 3.12) this cell "
     "printed:", "this cell raised:", "No CUDA GPU here: this cell runs only on one"),
    ("zh", "这里没有 CUDA GPU。在 NVIDIA H100 80GB HBM3 上用 PyTorch 2.11.0、CUDA 13.0（Python 3.12）运行时，"
     "这个单元格的输出是：", "这个单元格抛出了异常：", "这里没有 CUDA GPU：这个单元格只能在 GPU 上运行"),
])  # fmt: skip
def test_a_downloaded_notebook_says_what_its_cuda_cells_printed_on_a_gpu_and_goes_on(
    tmp_path, lang, printed, raised, unrecorded
):
    from nbclient import NotebookClient

    example = Example.from_source("demo.py", tmp_path / "demo.py", GPU_SOURCE)
    built = Result(
        cells=(CellResult(0, ""), CellResult(1, skipped="requires-cuda"), CellResult(2, skipped="requires-cuda"),
               CellResult(3, skipped="requires-cuda"), CellResult(4, "after 1\n")),
        env={"torch": "2.13.0+cpu", "python": "3.11.7", "device": "cpu"},
    )  # fmt: skip
    traceback = "Traceback (most recent call last):\n" + NUMPY_RAISED
    gpu_cells = (CellResult(0, ""), CellResult(1, GPU_PRINTED), CellResult(2, traceback=traceback))
    recorded = Recording(example.path, example.keys, "2026-11-22T10:00:00Z", GPU_ENV, 1.0, gpu_cells)
    nb = nbformat.reads(dumps(notebook(example, built, recorded, lang=lang)), as_version=4)
    code = {c.id: c for c in nb.cells if c.cell_type == "code"}
    assert code["gpu"].source.startswith("if torch.cuda.is_available():\n    import torch\n")  # the code, runnable
    assert code["setup"].source == "x = 1" and "import torch" in code["as-built"].source  # what the check needs
    assert code["gpu"].outputs[0].text == GPU_PRINTED  # what the download shows: the GPU's output
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    said = {c.id: "".join(o.get("text", "") for o in c.outputs) for c in nb.cells if c.cell_type == "code"}
    assert said["gpu"] == f"{printed}\n{GPU_PRINTED}"  # this machine has no GPU: what the H100 printed, in words
    assert said["numpy-cuda"].startswith("No CUDA GPU" if lang == "en" else "这里没有")
    assert said["numpy-cuda"].endswith(f"{raised}\n{NUMPY_RAISED}")
    assert said["unrecorded"].startswith(unrecorded)  # no recording: nothing made up
    assert said["after"] == "after 1\n"  # and Run all went on


MEASURED = """\
# %% timing tags=["varies"]
fast, slow = 2.0, 1.0  # a loaded machine measured otherwise

# %% timing-checks tags=["remove-cell"]
assert slow > fast  # a measurement

# %% other-checks tags=["remove-cell"]
assert slow < fast  # not one: would stop the notebook
"""


@pytest.mark.parametrize(("lang", "said"), [("en", "This check of the measurement above does not hold on this "
                                                   "machine"), ("zh", "上面那次测量的检验在这台机器上不成立")])
def test_a_check_of_a_measurement_is_reported_not_raised_where_it_does_not_hold(tmp_path, lang, said):
    from nbclient import NotebookClient

    example = Example.from_source("demo.py", tmp_path / "demo.py", MEASURED)
    built = Result(cells=(CellResult(0, ""), CellResult(1, ""), CellResult(2, "")), env=RESULT.env)
    nb = nbformat.reads(dumps(notebook(example, built, lang=lang)), as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    _, timing, checks, other = (c for c in nb.cells if c.cell_type == "code")
    assert timing.source.startswith("import traceback  #")  # what the report needs
    printed, traceback = checks.outputs  # the words, then the traceback (stderr)
    assert printed.text.startswith(said) and traceback.text.startswith("Traceback (most recent call last):")
    assert traceback.text.rstrip().endswith("AssertionError")
    assert other.source == "assert slow < fast  # not one: would stop the notebook"
    (tmp_path / "demo.py").write_text(runnable_script(example, lang=lang))
    done = subprocess.run([sys.executable, "demo.py"], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith(said)  # the script's form too
    assert "assert slow > fast" in done.stderr


BILINGUAL = SOURCE.replace(
    "# A note for notebook readers\n",
    '# A note for notebook readers\n\n# %% [markdown] lang="zh"\n# 给笔记本读者的说明\n',
)


@pytest.mark.parametrize(("lang", "mine", "other"), [("en", "A note", "给笔记本"), ("zh", "给笔记本", "A note")])
def test_the_notebook_and_the_script_carry_the_note_in_the_readers_language(tmp_path, lang, mine, other):
    example = Example.from_source("demo.py", tmp_path / "demo.py", BILINGUAL)
    nb = notebook(example, RESULT, lang=lang)
    assert next(c["source"] for c in nb["cells"] if c["cell_type"] == "markdown").startswith(mine)
    assert other not in dumps(nb)
    script = tmp_path / "demo.py"
    script.write_text(runnable_script(example, lang=lang))
    assert mine in script.read_text() and other not in script.read_text()  # notes are comments: running adds nothing
    assert [c.name for c in parse_cells(script.read_text())] == ["setup", "fails", "gpu", "checks"]


def test_a_note_in_a_language_the_site_does_not_build_is_named():
    example = Example.from_source("demo.py", Path("/x/demo.py"), BILINGUAL.replace('lang="zh"', 'lang="cn"'))
    (problem,) = foreign_notes(example, ["en", "zh"])
    assert problem.startswith("examples/demo.py:4: a note in language 'cn', which this site has no pages in (en, zh)")
    assert foreign_notes(Example.from_source("demo.py", Path("/x/demo.py"), BILINGUAL), ["en", "zh"]) == []


def test_the_notebook_without_outputs_runs_to_its_end_in_jupyter(tmp_path):
    from nbclient import NotebookClient

    nb = nbformat.reads(dumps(notebook(EXAMPLE)), as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert any("RuntimeError" in o.get("text", "") for o in outputs)  # printed, not raised
    assert outputs[-1].text == "after\n"


def test_the_notebooks_for_colab_are_up_to_date(monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(["notebooks", "notebooks", "--check"]) == 0, "run `make notebooks` and commit notebooks/"


@pytest.mark.parametrize("lang", ["", "zh/"])
def test_every_page_offers_downloads_that_hold_what_it_shows(real_site, lang):
    site, _ = real_site
    checked = 0
    for page in sorted((site / lang).rglob("index.html")):
        if lang == "" and page.relative_to(site).parts[0] == "zh":
            continue
        text = page.read_text()
        shown = html.unescape(re.sub(r"<[^>]+>", "", text))
        for href in re.findall(r'<p class="mx-downloads" data-search-exclude>.*?<a href="([^"]+\.ipynb)"', text):
            target = (page.parent / href).resolve()
            assert target.exists() and target.with_suffix(".py").exists(), f"{page}: {href}"
            nb = nbformat.reads(target.read_text(), as_version=4)
            nbformat.validate(nb)
            example = read_example(
                ROOT / "examples", target.relative_to(site / lang / "downloads").with_suffix(".py").as_posix()
            )
            for cell in example.cells:  # what the page shows of each cell, the notebook holds too
                if f'id="{anchor(example, cell.index)}"' not in text or cell.has("remove-output"):
                    continue
                code = next(
                    c for c in nb.cells if c.cell_type == "code" and c.id == (cell.name or f"cell-{cell.index}")
                )
                for output in code.outputs:
                    lines = output.get("text", "").splitlines() + output.get("traceback", [])[-1:]
                    for line in filter(str.strip, lines):
                        assert line.strip() in shown, f"{page.relative_to(site)}: {line!r} not on the page"
                        checked += 1
    assert checked > 200


def test_a_build_writes_again_the_notebook_of_an_edited_example_or_in_ci_fails_naming_it(tmp_path, monkeypatch, caplog):
    """notebooks/ beside mkdocs.yml follows the examples: written by the build, or a warning where CI is set."""
    import logging
    import os
    import shutil

    from helpers import build_site
    from mkdocs.exceptions import Abort

    from mkdocs_examples.cli import main

    site = tmp_path / "site"
    shutil.copytree(Path(__file__).parent / "site", site)
    assert main(["notebooks", str(site / "notebooks"), "-f", str(site / "mkdocs.yml")]) == 0
    for book in (site / "notebooks").rglob("*.ipynb"):
        os.utime(book, (1, 1))  # written long before the edit below
    (site / "examples" / "one.py").write_text("numbers = list(range(4))\n\nprint([n * 2 for n in numbers])\n")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(Abort, match="in strict mode"):
        build_site(site, strict=True)
    warnings = {r.getMessage() for r in caplog.records if r.levelno == logging.WARNING}
    assert warnings == {"mkdocs_examples: notebooks/one.ipynb out of date: make notebooks",
                        "mkdocs_examples: notebooks/zh/one.ipynb out of date: make notebooks"}  # fmt: skip
    monkeypatch.delenv("CI")
    build_site(site, strict=True)  # a contributor's machine: written again, and said
    assert "range(4)" in (site / "notebooks" / "one.ipynb").read_text()
    assert main(["notebooks", str(site / "notebooks"), "-f", str(site / "mkdocs.yml"), "--check"]) == 0
