"""Attribution (render/attribution.py, render/checks.py): what differs between environments is shown as what it is.

Every recording here is test data made in these tests: its GPU is "FIXTURE GPU (test data)",
and its torch and Python versions are picked to make one difference at a time.
"""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

from mkdocs_examples.recordings.store import Failed, Published, Recording
from mkdocs_examples.render.attribution import View, attribute, normalise
from mkdocs_examples.render.checks import differing, render_checks
from mkdocs_examples.render.page import render_example
from mkdocs_examples.render.provenance import Source, Sources
from mkdocs_examples.results import CellResult, Result
from mkdocs_examples.source.cells import Example, parse_cells

SOURCE = """\
import torch
# %% shown
print(torch.ones(1))
# %% checks tags=["remove-cell"]
assert True
"""
EXAMPLE = Example("d/x.py", Path("/x/d/x.py"), SOURCE, parse_cells(SOURCE))
BUILD_ENV = {"device": "cpu", "torch": "2.13.0+cpu", "python": "3.11.7"}
CPU_2_14 = {"device": "cpu", "torch": "2.14.1+cu130", "python": "3.11.7"}  # test data
CPU_2_13_PY312 = {"device": "cpu", "torch": "2.13.0+cu130", "python": "3.12.3"}  # test data
GPU_2_11 = {"device": "cuda", "gpu": "FIXTURE GPU (test data)", "torch": "2.11.0+cu130", "python": "3.12.3"}
CPU_2_11 = {"device": "cpu", "torch": "2.11.0+cu130", "python": "3.12.3"}  # the GPU machine's CPU (test data)
GPU_2_13 = {"device": "cuda", "gpu": "FIXTURE GPU (test data)", "torch": "2.13.0+cu130", "python": "3.11.7"}


def built(output: str) -> Result:
    return Result(env=BUILD_ENV, cells=(CellResult(0), CellResult(1, output), CellResult(2)))


def recording(env: dict[str, str], output: str, failed: Failed | None = None) -> Recording:
    cells = (CellResult(0), CellResult(1, output), CellResult(2))
    return Recording(EXAMPLE.path, EXAMPLE.keys, "2026-11-22T10:00:00Z", env, 1.0, cells,
                     tuple(c.name for c in EXAMPLE.cells), failed)  # fmt: skip


def page(build_output: str, *recorded: Recording, lang: str = "en") -> str:
    site = {"torch": BUILD_ENV["torch"], "python": BUILD_ENV["python"]}
    published = tuple(Published.holding(r.device, r, EXAMPLE, site) for r in recorded)
    sources = Sources(lang=lang)
    md = render_example(EXAMPLE, built(build_output), None, lang=lang, limit=1000, published=published, sources=sources)
    return md + sources.block(lang)  # as a page ends: each environment of its outputs in full


def test_a_device_difference_within_one_release_is_a_tab_set():
    text = page("tensor([1.])\n", recording(GPU_2_13, "tensor([1.], device='cuda:0')\n"))
    assert '=== "CPU"' in text and '=== "CUDA"' in text
    assert "??? note" not in text


def test_a_device_difference_is_attributed_through_the_gpu_machines_own_cpu_run():
    # the GPU machine recorded both devices with torch 2.11: its CPU and CUDA outputs differ there
    text = page("tensor([1.])\n", recording(CPU_2_11, "tensor([1.])\n"), recording(GPU_2_11, "cuda says\n"))
    assert '=== "CPU"' in text and '=== "CUDA"' in text and "cuda says" in text
    assert "??? note" not in text  # its CPU output is the build's: nothing else to say


def test_a_device_difference_in_another_release_whose_cpu_output_is_not_the_builds_is_a_note():
    # torch 2.11 prints otherwise on both devices: a CPU | CUDA tab would put 2.13 beside 2.11
    text = page("tensor([1.])\n", recording(CPU_2_11, "old cpu\n"), recording(GPU_2_11, "old cuda\n"))
    assert "===" not in text
    assert "old cpu" in text and "old cuda" in text and text.count("??? note") == 2


def test_a_release_only_difference_is_a_version_note_never_a_tab():
    text = page("old wording\n", recording(CPU_2_14, "new wording\n"))
    assert "===" not in text
    # a release's wheel from PyPI, a CUDA build, run without a GPU: its name says so, beside a CPU build's outputs
    assert '??? note mx-other "torch 2.14.1 · CUDA build, no GPU prints"' in unescape(text)
    assert "new wording" in text and "old wording" in text
    assert text.index("old wording") < text.index("??? note")  # the build's output first, the note folded below


def test_a_cuda_output_of_another_release_is_a_note_naming_both_versions_not_a_device_tab():
    # today's case: CUDA recorded with torch 2.11 on Python 3.12, no CPU run of that environment
    text = page("output 0 of SigmoidBackward0\n", recording(GPU_2_11, "output 0 of Sigmoid\n"))
    assert "===" not in text
    assert '??? note mx-other "torch 2.11.0 · FIXTURE GPU (test data) · Python 3.12 prints"' in unescape(text)
    assert "torch 2.11.0" in text and "Python 3.12.3" in text  # the recording's own provenance line


def test_a_device_difference_that_the_same_release_cpu_run_shares_is_a_note():
    # CPU and CUDA of torch 2.11 print the same: what differs from the build is the release
    text = page("80\n", recording(CPU_2_11, "72\n"), recording(GPU_2_11, "72\n"))
    assert "===" not in text
    assert text.count("??? note") == 1  # one note for the output both printed, naming both
    both = ("torch 2.11.0 · Python 3.12 · CUDA build, no GPU / torch 2.11.0 · FIXTURE GPU (test data) · Python 3.12 "
            "print")
    assert both in unescape(text)


def test_a_python_only_difference_is_a_note():
    text = page("80\n", recording(CPU_2_13_PY312, "72\n"))
    assert "===" not in text
    assert '??? note mx-other "torch 2.13.0 · Python 3.12 · CUDA build, no GPU prints"' in unescape(text)


def _wheel(torch: str, cuda: str) -> dict[str, str]:
    """A release's wheel from PyPI, a CUDA build, run on a CPU (test data)."""
    return {"device": "cpu", "torch": f"{torch}+cu{cuda.replace('.', '')}", "python": "3.11.7"}


def test_releases_that_print_alike_but_for_their_own_versions_are_one_note_naming_them_as_a_range():
    wheels = [_wheel("2.4.1", "12.1"), _wheel("2.5.1", "12.4"), _wheel("2.6.0", "12.4"), _wheel("2.9.1", "12.8")]
    printed = [recording(env, f"{env['torch']} {cuda}\nRuntimeError: Found no NVIDIA driver\n")
               for env, cuda in zip(wheels, ("12.1", "12.4", "12.4", "12.8"), strict=True)]  # fmt: skip
    other = recording(_wheel("2.7.1", "12.6"), "2.7.1+cu126 12.6\nRuntimeError: something else\n")
    text = unescape(page("2.13.0+cpu None\nAssertionError: Torch not compiled\n", *printed, other))
    titles = re.findall(r'\?\?\? note mx-other "(.+?)"', text)
    assert titles == ["torch 2.4–2.6 and 2.9.1 · CUDA builds without a GPU print",  # a gap (2.7) breaks the range
                      "torch 2.7.1 · CUDA build, no GPU prints"]  # fmt: skip
    note = text[text.index(titles[0]) : text.index(titles[1])]
    assert "2.4.1+cu121 12.1" in note and "12.8" not in note  # the oldest's output, once
    assert "torch 2.4.1 · CUDA build, no GPU; the others print the same, each with its own version" in note
    assert 'data-mx-shows="cpu-torch2.4.1-py3.11"' in note  # which of them the picker finds here
    assert re.search(r'data-mx-envs="cpu-torch2\.4\.1-py3\.11 [^"]*cpu-torch2\.9\.1-py3\.11"', note)
    zh = unescape(page("2.13.0+cpu None\n", *printed, lang="zh"))
    assert '"torch 2.4–2.6 和 2.9.1 · CUDA 版本，无 GPU 的输出"' in zh


def test_releases_that_print_the_same_are_one_note_named_by_their_range():
    printed = [recording(_wheel(f"2.{minor}.0", "12.4"), "same words\n") for minor in (4, 5, 6)]
    text = unescape(page("other words\n", *printed))
    assert re.findall(r'\?\?\? note mx-other "(.+?)"', text) == ["torch 2.4–2.6 · CUDA builds without a GPU print"]
    assert "print the same, each with its own version" not in text  # the same words: nothing to add


def test_a_version_is_taken_out_only_where_it_stands_alone():
    from mkdocs_examples.render.attribution import change_key

    env = _wheel("2.4.1", "12.1")
    assert change_key(CellResult(0, "12.1 2.4.1+cu121\n"), env) == change_key(CellResult(0, "13.0 2.9.1+cu130\n"),
                                                                               _wheel("2.9.1", "13.0"))  # fmt: skip
    for text in ("2.12.1\n", "12.10\n", "tensor([12.1000])\n", "v12.1a\n"):  # other numbers, not CUDA 12.1
        assert change_key(CellResult(0, text), env)[0] == text


def test_noise_only_shows_once():
    mine = "/home/me/.venv/lib/python3.11/site-packages/torch/nn/modules/loss.py:610: UserWarning: x\n"
    theirs = "/opt/venv/lib/python3.12/site-packages/torch/nn/modules/loss.py:634: UserWarning: x\n"
    text = page(mine, recording(CPU_2_14, theirs), recording(GPU_2_13, theirs))
    assert "===" not in text and "??? note" not in text
    assert text.count("UserWarning") == 1


def test_the_noise_list():
    assert normalise('File "/tmp/pytest-1/x.py", line 3, in f') == 'File "<file>", line <line>, in f'
    assert normalise("<object at 0x7f3a2c1d9e80>") == "<object at 0x<address>>"
    assert normalise("saved to /tmp/tmpab12cd/model.pt") == "saved to <tmp>"
    assert normalise("examples/x.py:12: UserWarning") == "<file>:<line>: UserWarning"
    assert normalise("(Triggered internally at /__w/pytorch/aten/TensorBody.h:488.)") == (
        "(Triggered internally at <file>:<line>.)"
    )
    assert normalise("tensor([4096, 12])") == "tensor([4096, 12])"  # numbers stay


def test_a_note_title_from_a_recording_is_text_never_markup():
    env = {**CPU_2_14, "torch": '2.14.1" onerror="x'}
    text = page("a\n", recording(env, "b\n"))
    assert 'onerror="x' not in text


def test_a_failed_cell_of_a_recording_is_not_shown_as_its_output():
    failed = Failed(cell=1, line=3, kind="exception", message="AssertionError")
    text = page("a\n", recording(CPU_2_14, "half an output\n", failed))
    assert "half an output" not in text


def test_checked_releases_and_a_check_that_does_not_hold_on_a_newer_release():
    failed = Failed(cell=2, line=5, kind="exception", message="AssertionError")
    line = unescape(render_checks(BUILD_ENV, {"d/x.py": [recording(CPU_2_14, "a\n", failed)]}, "examples", lang="en"))
    assert "Checked on torch 2.13.0 and 2.14.1." in line
    reader, contributors = line.split("<details", 1)
    assert "On torch 2.14.1, a check of this page fails: what the page shows may not hold there." in reader
    # what a contributor needs is folded below the line: the file, the line, the build of torch, the message
    for detail in ("examples/d/x.py", "line 5", "2.14.1+cu130", "AssertionError"):
        assert detail in contributors and detail not in reader, detail
    assert "<code>examples/d/x.py</code>, line 5: the check fails on torch 2.14.1+cu130 (<code>AssertionError</code>)" \
        ", and no holds= declares it." in contributors


def test_a_check_that_fails_only_on_older_releases_holds_since():
    failed = Failed(cell=2, line=5, kind="exception", message="AssertionError")
    recorded = {"d/x.py": [recording(CPU_2_11, "a\n", failed), recording(CPU_2_14, "a\n")]}
    line = unescape(render_checks(BUILD_ENV, recorded, "examples", lang="zh"))
    # the release it failed on is named, with where it holds from: 2.12, never checked, is claimed by neither
    assert "本页示例已在 torch 2.11.0、2.13.0 和 2.14.1 上检验。在 torch 2.11.0 上，本页的一项检验不通过：页面所说的" \
        "自 torch 2.13.0 起才成立。" in line
    assert "<summary>给贡献者</summary>" in line and "在 torch 2.11.0+cu130 上不通过" in line.split("<details")[1]


def test_views_attribute_directly():
    a = View(Source("build", BUILD_ENV, None), CellResult(1, "x\n"))
    b = View(Source("cuda-torch2.11.0-py3.12", GPU_2_11, "2026-11-22"), CellResult(1, "y\n"))
    shown = attribute([a, b])
    assert shown.tabs == [a] and shown.notes == [[b]]


# --- the page "What changed between torch releases" ------------------------------------------

CHANGES_SOURCE = """\
import torch
# %% same
print("same")
# %% noisy
print("/x/loss.py:1: UserWarning: w")
# %% moved
print("old")
# %% hidden tags=["remove-cell"]
assert True
# %% quiet tags=["remove-output"]
print("not shown")
# %% timing tags=["varies"]
print("1.2 ms")
"""


def test_the_changes_page_lists_exactly_the_changed_cells_and_failed_checks():
    from mkdocs_examples.publish import changes
    from mkdocs_examples.source.blocks import Block

    example = Example("d/c.py", Path("/x/d/c.py"), CHANGES_SOURCE, parse_cells(CHANGES_SOURCE))
    mine = (CellResult(0), CellResult(1, "same\n"), CellResult(2, "/a/loss.py:1: UserWarning: w\n"),
            CellResult(3, "old\n"), CellResult(4), CellResult(5, "not shown\n"), CellResult(6, "1.2 ms\n"))  # fmt: skip
    ours = Result(env=BUILD_ENV, cells=mine)
    cells = (CellResult(0), CellResult(1, "same\n"), CellResult(2, "/b/loss.py:9: UserWarning: w\n"),
             CellResult(3, "new\n"), CellResult(4), CellResult(5, "changed but not shown\n"),
             CellResult(6, "0.9 ms\n"))  # fmt: skip
    failed = Failed(cell=4, line=9, kind="exception", message="AssertionError")
    theirs = Recording(example.path, example.keys, "2026-11-22T10:00:00Z", CPU_2_14, 1.0, cells, (), failed)
    block = Block(start=2, end=3, indent="", path="d/c.py")
    older = Recording(example.path, example.keys, "2026-11-22T10:00:00Z", CPU_2_11, 1.0,
                      (*cells[:3], CellResult(3, "new\n"), *cells[4:]), (), failed)  # fmt: skip
    versioned = Recording(example.path, example.keys, "2026-11-22T10:00:00Z", {**CPU_2_14, "torch": "2.12.1+cu130"},
                          1.0, (*cells[:3], CellResult(3, "older\n"), *cells[4:]))  # fmt: skip
    found = changes.collect({"a/page.md": ("A `page`", [block])}, {"d/c.py": example}, {"d/c.py": ours},
                            {"d/c.py": [theirs, older, versioned]})  # fmt: skip
    assert found.releases == {"2.14.1", "2.11.0", "2.12.1"} and found.python == {"2.11.0": "3.12"}
    (page,) = found.pages
    assert [(m.place, m.cell) for m in page.cells] == [("ex-d-c-moved", "moved")]  # not the noise nor the timing
    assert sorted(page.cells[0].theirs) == ["2.11.0", "2.12.1", "2.14.1"]
    assert page.checks == {("d/c.py", 9, "AssertionError"): {"2.14.1", "2.11.0"}}
    text = unescape(changes.render(found, BUILD_ENV, "changes.md", "examples", "en"))
    # a summary first, a line each: each release that changes an output against the one before it, newest first,
    # its pages folded; then the pages whose tips do not hold everywhere, folded
    summary = text[text.index("## In short") : text.index("## Page by page\n\n<details")]
    fold = '<details class="mx-changes mx-changes--release" markdown>\n<summary markdown>{}</summary>\n\n{}\n\n'
    assert re.findall(r"<summary markdown>\*\*torch ([\d.]+)\*\*: outputs change on 1 page</summary>\n\n"
                      r"\[A `page`\]\(#changes-a-page\)\n\n</details>", summary) == ["2.14.1", "2.13.0", "2.12.1"]
    assert fold.format("**Tips that do not hold on every release**: 1 page",
                       "- [A `page`](#changes-a-page): not on torch 2.11.0 and 2.14.1") in summary
    # per page one folded line, titled by the page and the target of the summary's links; opened, a link to the
    # page, then each cell collapsed, its summary naming the releases where it changes; opened, old to new
    assert '<details class="mx-changes mx-changes--page" id="changes-a-page" markdown>\n<summary markdown>**A ' \
           "`page`**: 1 output changes; the tip: not on torch 2.11.0 and 2.14.1</summary>\n\nOpen the page: " \
           "[A `page`](a/page.md)\n\n" in text
    assert '<details class="mx-change" markdown>\n<summary markdown>`moved` changes in torch 2.12.1, 2.13.0 and ' \
           "2.14.1</summary>\n\n[`examples/d/c.py`, cell `moved`](a/page.md#ex-d-c-moved)" in text
    hunk = '<span class="mx-diff__hunk">@@ -1 +1 @@</span>'
    steps = [("2.11.0", "2.12.1", "new", "older"), ("2.12.1", "2.13.0", "older", "old"),
             ("2.13.0", "2.14.1", "old", "new")]  # fmt: skip
    for old, new, before, after in steps:  # the older release's lines -, the newer's +, whichever the build is
        assert f"From torch {old} to {new}:\n\n<pre class=\"mx-diff\">{hunk}\n<del>-{before}</del>\n" \
               f"<ins>+{after}</ins></pre>" in text
    assert "- Not on torch 2.11.0 and 2.14.1: the check `assert True` fails (AssertionError, line 9 of " \
           "`examples/d/c.py`)." in text
    zh = unescape(changes.render(found, BUILD_ENV, "changes.md", "examples", "zh"))
    assert "<summary markdown>`moved` 的输出在 torch 2.12.1、2.13.0 和 2.14.1 中有变化</summary>" in zh
    assert "从 torch 2.11.0 到 2.12.1：" in zh
    assert "- [A `page`](#changes-a-page)：在 torch 2.11.0 和 2.14.1 上不成立" in zh
    assert "<summary markdown>**A `page`**：1 处输出有变化；技巧：在 torch 2.11.0 和 2.14.1 上不成立</summary>" in zh
    assert "打开页面：[A `page`](a/page.md)" in zh
    assert "<summary markdown>**torch 2.14.1**：1 个页面的输出有变化</summary>" in zh


def test_a_change_is_placed_at_the_release_that_makes_it_not_at_the_build():
    from mkdocs_examples.publish.changes import Moved

    printed = {"2.4.1": "a\n", "2.5.1": "a\n", "2.11.0": "b\n", "2.12.1": "b\n", "2.14.1": "b\n"}
    moved = Moved("d/c.py", "moved", "ex-d-c-moved", CellResult(3, "b\n"), release="2.13.0",
                  theirs={torch: CellResult(3, out) for torch, out in printed.items()})  # fmt: skip
    assert [(old, new) for old, _, new, _ in moved.steps()] == [("2.5.1", "2.11.0")]


def test_a_check_that_fails_on_the_oldest_or_the_newest_releases_says_so_in_a_readers_words():
    from mkdocs_examples.publish.changes import _where
    from mkdocs_examples.texts import text

    everything = {"2.4.1", "2.5.1", "2.6.0", "2.13.0", "2.15.0"}
    assert _where({"2.4.1", "2.5.1"}, everything, text("en")) == "not before torch 2.6.0"
    assert _where({"2.15.0"}, everything, text("en")) == "not from torch 2.15.0 on"
    assert _where({"2.4.1", "2.6.0"}, everything, text("en")) == "not on torch 2.4.1 and 2.6.0"
    assert _where({"2.4.1", "2.5.1"}, everything, text("zh")) == "torch 2.6.0 之前不成立"


def test_the_changes_page_names_no_change_where_a_release_prints_only_its_own_version():
    from mkdocs_examples.publish import changes
    from mkdocs_examples.source.blocks import Block

    example = Example("d/c.py", Path("/x/d/c.py"), CHANGES_SOURCE, parse_cells(CHANGES_SOURCE))
    mine = tuple(CellResult(i, f"torch {BUILD_ENV['torch']}\n" if i == 3 else "") for i in range(7))
    theirs = Recording(example.path, example.keys, "2026-11-22T10:00:00Z", CPU_2_14, 1.0,
                       tuple(CellResult(i, f"torch {CPU_2_14['torch']}\n" if i == 3 else "") for i in range(7)))
    found = changes.collect({"a/page.md": ("A `page`", [Block(start=2, end=3, indent="", path="d/c.py")])},
                            {"d/c.py": example}, {"d/c.py": Result(env=BUILD_ENV, cells=mine)},
                            {"d/c.py": [theirs]})  # fmt: skip
    assert found.pages == [] and found.releases == {"2.14.1"}
    assert differing(example, Result(env=BUILD_ENV, cells=mine), [theirs]) == set()  # nor on the checks line
    text = changes.render(found, BUILD_ENV, "changes.md", "examples", "en")
    assert "Every output and every check of torch 2.14.1 is the same as the pages show by default." in text


def test_a_stale_cpu_recording_of_another_release_is_not_taken_for_the_gpus():
    source = 'import torch\n# %% gpu tags=["requires-cuda"]\nprint(torch.ones(1, device="cuda"))\n'
    example = Example("d/g.py", Path("/x/d/g.py"), source, parse_cells(source))
    result = Result(env=BUILD_ENV, cells=(CellResult(0), CellResult(1, skipped="requires-cuda")))
    stale = Recording(example.path, ("0" * 64,) * 2, "2026-11-22T10:00:00Z", CPU_2_14, 1.0,
                      (CellResult(0), CellResult(1, skipped="requires-cuda")))  # fmt: skip
    published = (Published.holding("cpu", stale, example),)
    text = render_example(example, result, None, lang="en", limit=1000, published=published)
    assert "has not been run on a GPU yet" in text and "has changed since" not in text


def test_a_measurement_shows_the_builds_own_value_and_no_other_release_s():
    source = SOURCE.replace("# %% shown", '# %% shown tags=["varies"]')
    example = Example("d/x.py", Path("/x/d/x.py"), source, parse_cells(source))
    other = recording(CPU_2_14, "0.9 ms\n")
    other = Recording(example.path, example.keys, other.recorded, other.env, 1.0, other.cells,
                      tuple(c.name for c in example.cells), None)  # fmt: skip
    site = {"torch": BUILD_ENV["torch"], "python": BUILD_ENV["python"]}
    text = render_example(example, built("1.2 ms\n"), None, lang="en", limit=1000,
                          published=(Published("cpu", other, site),))  # fmt: skip
    assert "1.2 ms" in text and "0.9 ms" not in text and "??? note" not in text


def test_the_error_index_leaves_out_a_recorded_cell_whose_check_failed_as_the_page_does():
    from mkdocs_examples.recordings.published import PublishedRecordings

    published = PublishedRecordings(Path("/nowhere"), [])
    failed = Failed(cell=1, line=3, kind="exception", message="AssertionError")
    made = recording(CPU_2_14, "stops here\n", failed)
    published.published = {"cpu-torch2.14.1-py3.11": {EXAMPLE.path: Published.holding("cpu", made, EXAMPLE)}}
    (result,) = published.results(EXAMPLE)
    assert [c.cell for c in result.cells] == [0, 2]


def test_the_checked_line_says_where_outputs_differ():
    # test data: recordings of 2.11.0 and 2.14.1 (FIXTURE), one printing other than the build
    older, newer = recording(CPU_2_11, "tensor([1.])\n"), recording(CPU_2_14, "b\n")
    assert differing(EXAMPLE, built("b\n"), [older, newer]) == {"2.11.0"}
    assert differing(EXAMPLE, built("b\n"), [recording(CPU_2_14, "b\n")]) == set()
    recorded = {"d/x.py": [older, newer]}
    line = unescape(render_checks(BUILD_ENV, recorded, "examples", lang="en", differ={"2.11.0"}))
    # the release itself, not "before torch 2.13.0": 2.12, between the two, was never checked
    assert "Checked on torch 2.11.0, 2.13.0 and 2.14.1. Outputs differ on torch 2.11.0: see the notes" in line
    line = unescape(render_checks(BUILD_ENV, recorded, "examples", lang="en", differ={"2.14.1"}))
    assert "Outputs differ on torch 2.14.1: see the notes under them." in line
    zh = unescape(render_checks(BUILD_ENV, recorded, "examples", lang="zh", differ={"2.11.0"}))
    assert "本页示例已在 torch 2.11.0、2.13.0 和 2.14.1 上检验。torch 2.11.0 上的输出有所不同" in zh
    assert "differ" not in unescape(render_checks(BUILD_ENV, recorded, "examples", lang="en"))


def test_noise_a_measurement_or_a_failed_cell_is_no_difference_for_the_checked_line():
    moved = recording(CPU_2_14, "x.py:12: UserWarning: w\n")
    assert differing(EXAMPLE, built("x.py:99: UserWarning: w\n"), [moved]) == set()
    failed = Failed(cell=1, line=3, kind="exception", message="AssertionError")
    assert differing(EXAMPLE, built("a\n"), [recording(CPU_2_14, "half\n", failed)]) == set()
    measured = SOURCE.replace("# %% shown", '# %% shown tags=["varies"]')
    varies = Example.from_source(EXAMPLE.path, EXAMPLE.file, measured)
    assert differing(varies, built("1.2 ms\n"), [recording(CPU_2_14, "1.5 ms\n")]) == set()


def test_a_cell_that_describes_the_machine_shows_every_environment_but_is_no_change():
    source = SOURCE.replace("# %% shown", '# %% shown tags=["environment"]')
    example = Example("d/x.py", Path("/x/d/x.py"), source, parse_cells(source))
    cell = next(c for c in example.cells if c.name == "shown")
    assert cell.compared and not cell.tracked
    older = Recording(example.path, example.keys, "2026-11-22T10:00:00Z", CPU_2_11, 1.0,
                      (CellResult(0), CellResult(cell.index, "torch 2.11.0\n"), CellResult(2)))  # fmt: skip
    ours = Result(env=BUILD_ENV, cells=(CellResult(0), CellResult(cell.index, "torch 2.13.0\n"), CellResult(2)))
    assert differing(example, ours, [older]) == set()  # a release prints its own version: not a change
    site = {"torch": BUILD_ENV["torch"], "python": BUILD_ENV["python"]}
    text = render_example(example, ours, None, lang="en", limit=1000,
                          published=(Published.holding("cpu", older, example, site),))  # fmt: skip
    assert "torch 2.13.0" in text and "torch 2.11.0\n" in text  # what each environment prints, still shown


def test_consecutive_checked_releases_read_as_a_range_and_a_gap_breaks_it():
    from mkdocs_examples.render.checks import spans
    from mkdocs_examples.texts import text

    en, zh = text("en"), text("zh")
    assert spans(["2.4.1", "2.5.1", "2.6.0", "2.8.0"], en) == "2.4\u20132.6 and 2.8.0"  # 2.7 was not checked
    assert spans(["2.9.1", "2.10.0"], en) == "2.9.1 and 2.10.0"  # two: named one by one
    assert spans(["2.15.0", "2.4.1", *(f"2.{m}.0" for m in range(5, 15))], zh) == "2.4\u20132.15"
    releases = {f"2.{m}.0" for m in range(4, 16)}
    recorded = {"d/x.py": [recording({**CPU_2_14, "torch": f"{r}+cu130"}, "b\n") for r in releases - {"2.13.0"}]}
    line = unescape(render_checks(BUILD_ENV, recorded, "examples", lang="en"))
    assert "Checked on torch 2.4\u20132.15 (12 releases)." in line
    gpu = {"d/x.py": [recording(GPU_2_11, "b\n")]}
    line = unescape(render_checks(BUILD_ENV, recorded, "examples", lang="zh", elsewhere=gpu))
    assert "本页示例已在 torch 2.4\u20132.15 上检验（共 12 个版本）。也已在 CUDA 上用 torch 2.11.0 检验。" in line
    failed = Failed(cell=1, line=3, kind="exception", message="AssertionError")
    older = [recording({**CPU_2_14, "torch": f"2.{m}.0+cu121"}, "a\n", failed) for m in (4, 5, 6)]
    line = unescape(render_checks(BUILD_ENV, {"d/x.py": older}, "examples", lang="en"))
    assert "On torch 2.4\u20132.6, a check of this page fails: what the page shows holds from torch 2.13.0 on." in line


def test_a_check_holds_from_the_oldest_release_where_it_ran_and_passed_though_a_later_check_failed_there():
    first = Failed(cell=1, line=3, kind="exception", message="AssertionError")
    later = Failed(cell=2, line=5, kind="exception", message="AssertionError")
    recorded = [recording({**CPU_2_14, "torch": f"2.{m}.0+cu121"}, "a\n", first) for m in (4, 5)]
    recorded += [recording({**CPU_2_14, "torch": f"2.{m}.0+cu126"}, "a\n", later) for m in (6, 7)]
    line = unescape(render_checks(BUILD_ENV, {"d/x.py": recorded}, "examples", lang="en"))
    assert "On torch 2.4.0 and 2.5.0, a check of this page fails: what the page shows holds from torch 2.6.0 on." \
        in line
    # 2.4 and 2.5 never reached it: it holds from the build's release, the oldest where it ran and passed
    assert "On torch 2.6.0 and 2.7.0, a check of this page fails: what the page shows holds from torch 2.13.0 on." \
        in line
    assert "line 3: the check fails on torch 2.4.0+cu121 and 2.5.0+cu121" in line  # for contributors
    assert "line 5: the check fails on torch 2.6.0+cu126 and 2.7.0+cu126" in line


def test_two_failed_checks_of_one_cell_are_listed_in_the_order_of_their_lines_whatever_the_hash_seed():
    a = Failed(cell=1, line=3, kind="exception", message="AssertionError")
    b = Failed(cell=1, line=4, kind="exception", message="AssertionError")
    recorded = [recording({**CPU_2_14, "torch": "2.4.0"}, "a\n", b),
                recording({**CPU_2_14, "torch": "2.5.0"}, "a\n", a)]
    for order in (recorded, recorded[::-1]):
        line = render_checks(BUILD_ENV, {"d/x.py": order}, "examples", lang="en")
        assert line.index("line 3") < line.index("line 4")


def test_the_pages_sources_list_the_build_first_then_releases_in_their_order_not_as_text():
    sources = Sources()
    for env, name in ((GPU_2_11, "cuda-torch2.11.0-py3.12"), ({**CPU_2_14, "torch": "2.10.0+cu128"}, "b"),
                      ({**CPU_2_14, "torch": "2.4.1+cu121"}, "a"), (BUILD_ENV, "build")):  # fmt: skip
        sources.label(Source(name, env, None if name == "build" else "2026-11-25"))
    block = unescape(sources.block("en"))
    assert block.index("2.13.0") < block.index("2.4.1") < block.index("2.10.0") < block.index("2.11.0")


def test_the_pages_sources_of_one_release_are_listed_by_python_whatever_order_the_outputs_named_them():
    """A page renders its example blocks in any order: the list it ends with does not depend on it."""
    pythons = [({**CPU_2_14, "python": python}, f"cpu-torch2.14.1-py{python[:4]}") for python in ("3.12.3", "3.11.7")]
    blocks = []
    for order in (pythons, pythons[::-1]):
        sources = Sources()
        for env, name in order:
            sources.label(Source(name, env, "2026-11-25"))
        blocks.append(sources.block("en"))
    assert blocks[0] == blocks[1] and blocks[0].index("py3.11") < blocks[0].index("py3.12")


def test_a_diff_on_the_changes_page_is_inert_text_whatever_a_release_printed():
    """Recorded output is hostile: in the raw HTML `<pre>` no line opens a tag, a fence or an example block."""
    from mkdocs_examples.publish.changes import _pre

    lines = ["@@ -1 +1 @@", "-</pre><script>alert(1)</script>", "+```python", " /// example | x.py", "+~~~"]
    hostile = "\n".join(lines)
    html_text = _pre(hostile)
    assert html_text.startswith('<pre class="mx-diff">') and html_text.count("</pre>") == 1
    assert "<script" not in html_text and "```" not in html_text and "~~~" not in html_text
    assert "///" not in html_text and "</pre><" not in html_text
    ours = r'^<pre class="mx-diff">|</pre>$|</?(del|ins)>|<span class="mx-diff__hunk">|</span>|<wbr>'
    assert unescape(re.sub(ours, "", html_text)) == hostile  # the same text, once read


def test_notes_of_other_releases_come_oldest_first_not_in_the_order_of_text():
    releases = ("2.10.0", "2.4.1", "2.11.0", "2.9.1")  # as folder names sort: 2.10 before 2.4
    outputs = dict(zip(releases, ("ten", "four", "eleven", "nine"), strict=True))  # not their versions: four notes
    text = page("build\n", *(recording({**CPU_2_14, "torch": f"{r}+cpu"}, f"{outputs[r]}\n") for r in releases))
    titles = re.findall(r'\?\?\? note mx-other "torch ([\d.]+) prints"', text)
    assert titles == ["2.4.1", "2.9.1", "2.10.0", "2.11.0"]


def test_the_changes_page_compares_the_run_of_a_release_under_the_builds_python_where_it_has_two():
    from mkdocs_examples.publish import changes
    from mkdocs_examples.source.blocks import Block

    example = Example("d/c.py", Path("/x/d/c.py"), CHANGES_SOURCE, parse_cells(CHANGES_SOURCE))
    mine = tuple(CellResult(i, "old\n" if i == 3 else "") for i in range(7))

    def run(env: dict[str, str], output: str) -> Recording:
        return Recording(example.path, example.keys, "2026-11-22T10:00:00Z", env, 1.0,
                         tuple(CellResult(i, output if i == 3 else "") for i in range(7)))  # fmt: skip

    twins = [run(CPU_2_11, "under 3.12\n"), run({**CPU_2_11, "python": "3.11.7"}, "under 3.11\n")]
    found = changes.collect({"a/page.md": ("A `page`", [Block(start=2, end=3, indent="", path="d/c.py")])},
                            {"d/c.py": example}, {"d/c.py": Result(env=BUILD_ENV, cells=mine)},
                            {"d/c.py": twins})  # fmt: skip
    (page,) = found.pages
    assert page.cells[0].theirs["2.11.0"].output == "under 3.11\n" and found.python == {}  # one run of 2.11.0


def test_a_memo_of_the_changes_page_gives_what_a_fresh_collect_gives_after_an_edit():
    from mkdocs_examples.publish import changes
    from mkdocs_examples.source.blocks import Block

    example = Example("d/c.py", Path("/x/d/c.py"), CHANGES_SOURCE, parse_cells(CHANGES_SOURCE))
    other = Example("d/o.py", Path("/x/d/o.py"), CHANGES_SOURCE, parse_cells(CHANGES_SOURCE))
    cells = tuple(CellResult(i, f"{i}\n") for i in range(7))
    ours = {"d/c.py": Result(env=BUILD_ENV, cells=cells), "d/o.py": Result(env=BUILD_ENV, cells=cells)}
    moved = (*cells[:3], CellResult(3, "new\n"), *cells[4:])
    recorded = {path: [Recording(path, e.keys, "2026-11-22T10:00:00Z", CPU_2_14, 1.0, moved)]
                for path, e in (("d/c.py", example), ("d/o.py", other))}  # fmt: skip
    pages = {"c.md": ("C", [Block(start=2, end=3, indent="", path="d/c.py")]),
             "o.md": ("O", [Block(start=2, end=3, indent="", path="d/o.py")])}  # fmt: skip
    examples = {"d/c.py": example, "d/o.py": other}
    memo: dict = {}
    assert changes.collect(pages, examples, ours, recorded, memo=memo) == changes.collect(pages, examples, ours,
                                                                                          recorded)  # fmt: skip
    kept = dict(memo)
    # an edit of d/c.py: its cell now prints what torch 2.14 prints, nothing changes on its page any more
    edited = {**ours, "d/c.py": Result(env=BUILD_ENV, cells=moved)}
    fresh = changes.collect(pages, examples, edited, recorded)
    assert changes.collect(pages, examples, edited, recorded, memo=memo) == fresh
    assert [c.page for c in fresh.pages] == ["o.md"]
    assert memo["o.md"] is kept["o.md"] and memo["c.md"] is not kept["c.md"]


# --- a check that holds on some releases: said for readers, in words, linked to its cell -----------------------------

CLAIMED_SOURCE = """\
import torch
# %% shown
print(torch.ones(1))
# %% shown-checks tags=["remove-cell"] holds=">=2.6" claim="`torch.ones` prints *one* tensor"
assert True
# %% other
print(2)
# %% page-checks tags=["remove-cell"] holds="<2.14" claim="It holds" about="shown"
assert True
"""


def claimed_example(tmp_path: Path) -> Example:
    file = tmp_path / "d" / "c.py"
    file.parent.mkdir()
    file.write_text(CLAIMED_SOURCE, encoding="utf-8")
    file.with_name("c.zh.yml").write_text("'`torch.ones` prints *one* tensor': '`torch.ones` 打印*一个*张量'\n"
                                          "It holds: 这一点成立\n", encoding="utf-8")  # fmt: skip
    return Example.from_source("d/c.py", file, CLAIMED_SOURCE)


def claimed_recordings(example: Example) -> list[Recording]:
    made = []
    for torch, failed in (("2.4.1+cu121", (2,)), ("2.5.1+cu124", (2,)), ("2.6.0+cu124", ()), ("2.14.1+cu130", (4,))):
        cells = tuple(CellResult(i) for i in range(5))
        declared = tuple(Failed(cell, example.cells[cell].lineno, "exception", "AssertionError") for cell in failed)
        made.append(Recording(example.path, example.keys, "2026-11-22T10:00:00Z", {**CPU_2_14, "torch": torch}, 1.0,
                              cells, tuple(c.name for c in example.cells), declared=declared))  # fmt: skip
    return made


def test_the_checks_line_says_each_claim_in_words_for_readers_and_folds_the_rest_for_contributors(tmp_path):
    from mkdocs_examples.recordings.declared import verdicts

    example = claimed_example(tmp_path)
    recorded = claimed_recordings(example)
    result = Result(env=BUILD_ENV, cells=tuple(CellResult(i) for i in range(5)))
    declared = {"d/c.py": verdicts(example, result, recorded)}
    places = {"d/c.py#1": "ex-d-c-shown", "d/c.py#3": "ex-d-c-other"}
    line = render_checks(BUILD_ENV, {"d/c.py": recorded}, "examples", lang="en", declared=declared,
                         examples={"d/c.py": example}, places=places)  # fmt: skip
    reader, contributors = line.split("<details", 1)
    # each claim in its words (code as code, nothing else read into them), linked to the cell it is about
    assert ('<a href="#ex-d-c-shown"><code>torch.ones</code> prints &#42;one&#42; tensor</a>: true on torch 2.6 and '
            "later, not on torch 2.4.1 and 2.5.1.") in reader  # fmt: skip
    assert '<a href="#ex-d-c-shown">It holds</a>: true on torch 2.13 and earlier, not on torch 2.14.1.' in reader
    # nothing for contributors in the reader's line: no file, no line, no message, no build of torch
    for detail in ("examples/", ".py", "line ", "AssertionError", "+cu", "holds="):
        assert detail not in unescape(reader), detail
    assert '<summary>For contributors</summary>' in contributors
    assert ('<code>examples/d/c.py</code>, line 4, <code>holds="&gt;=2.6"</code>: the check fails on torch '
            "2.4.1+cu121 and 2.5.1+cu124 (<code>AssertionError</code>).") in contributors  # fmt: skip
    assert '<code>holds="&lt;2.14"</code>: the check fails on torch 2.14.1+cu130' in contributors
    zh = render_checks(BUILD_ENV, {"d/c.py": recorded}, "examples", lang="zh", declared=declared,
                       examples={"d/c.py": example}, places=places)  # fmt: skip
    reader = zh.split("<details", 1)[0]
    assert ('<a href="#ex-d-c-shown"><code>torch.ones</code> 打印&#42;一个&#42;张量</a>：适用于 torch 2.6 及以上，在 '
            "torch 2.4.1 和 2.5.1 上并非如此。") in reader  # fmt: skip
    assert "<summary>给贡献者</summary>" in zh
    assert not re.search(r"[A-Za-z]{3,} [A-Za-z]{3,} [A-Za-z]{3,}", unescape(re.sub(r"<code>.*?</code>", "", reader)))
    # a page that does not show the cell a claim is about: said, unlinked
    alone = render_checks(BUILD_ENV, {"d/c.py": recorded}, "examples", lang="en", declared=declared,
                          examples={"d/c.py": example}, places={"d/c.py#3": "ex-d-c-other"})  # fmt: skip
    assert "It holds: true on" in alone and "href" not in alone.split("<details")[0]


def test_the_changes_page_leads_with_each_behaviour_change_in_words_at_its_release(tmp_path):
    from mkdocs_examples.publish import changes
    from mkdocs_examples.source.blocks import Block

    example = claimed_example(tmp_path)
    result = Result(env=BUILD_ENV, cells=tuple(CellResult(i) for i in range(5)))
    block = Block(start=2, end=3, indent="", path="d/c.py")
    found = changes.collect({"a/page.md": ("A `page`", [block])}, {"d/c.py": example}, {"d/c.py": result},
                            {"d/c.py": claimed_recordings(example)})  # fmt: skip
    text = changes.render(found, BUILD_ENV, "changes.md", "examples", "en")
    # before any count or diff, the releases where behaviour changed, newest first, a sentence each, linked
    assert text.index("## What changed in behaviour") < text.index("## In short")
    assert text.index("### torch 2.14") < text.index("### torch 2.6") < text.index("## In short")
    assert ("### torch 2.14 { #changes-torch-2-14 }\n\n- No longer true: [It holds](a/page.md#ex-d-c-shown) "
            "(A `page`)") in text  # fmt: skip
    assert ("### torch 2.6 { #changes-torch-2-6 }\n\n- [`torch.ones` prints \\*one\\* tensor](a/page.md#ex-d-c-shown)"
            " (A `page`)") in text  # fmt: skip
    zh = changes.render(found, BUILD_ENV, "changes.md", "examples", "zh")
    assert "## 行为变化" in zh and "- 不再成立：[这一点成立](a/page.md#ex-d-c-shown)（A `page`）" in zh
    # a bound the site did not see on both sides is no change: recorded on 2.6 and later only, nothing starts
    later = [r for r in claimed_recordings(example) if not r.env["torch"].startswith(("2.4", "2.5"))]
    found = changes.collect({"a/page.md": ("A `page`", [block])}, {"d/c.py": example}, {"d/c.py": result},
                            {"d/c.py": later})  # fmt: skip
    text = changes.render(found, BUILD_ENV, "changes.md", "examples", "en")
    assert "### torch 2.14" in text and "### torch 2.6" not in text
