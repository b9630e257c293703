"""The index of every error the site shows: how lines are found and folded, and that none is missing."""

from __future__ import annotations

import html
import re
from pathlib import Path

from mkdocs_examples.publish.error_index import collect, exception_line, fold, index_line, render
from mkdocs_examples.results import CellResult, Result
from mkdocs_examples.source.blocks import find_blocks
from mkdocs_examples.source.cells import Example, parse_cells

TRACEBACK = """\
Traceback (most recent call last):
  File "examples/a.py", line 3, in <module>
    torch.ones(2, 3) @ torch.ones(4, 5)
    ~~~~~~~~~~~~~~~~~^~~~~~~~~~~~~~~~~~
RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)
"""


def test_the_exception_line_follows_the_last_frame_even_with_a_message_of_several_lines():
    assert exception_line(TRACEBACK) == "RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"
    chained = (
        TRACEBACK + "\nDuring handling of the above exception, another exception occurred:\n\n"
        'Traceback (most recent call last):\n  File "examples/a.py", line 5, in <module>\n    load()\n'
        'RuntimeError: Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: "weight".\n'
    )
    assert exception_line(chained) == "RuntimeError: Error(s) in loading state_dict for Linear:"


def test_numbers_shapes_and_addresses_fold_but_names_do_not():
    assert fold("RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)") == (
        "RuntimeError",
        "mat1 and mat2 shapes cannot be multiplied (NxN and NxN)",
    )
    assert fold("IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 3)")[1] == (
        "Dimension out of range (expected to be in range of [N, N], but got N)"
    )
    assert fold("ValueError: got 0.25 at 0x7f3a9c") == ("ValueError", "got N at 0x…")
    assert fold("RuntimeError: size of torch.Size([1, 16])")[1] == "size of torch.Size([N, N])"


def test_numbers_of_the_fixed_text_stay():
    assert fold("ValueError: Expected more than 1 value per channel when training, got input size "
                "torch.Size([1, 4])")[1] == (
        "Expected more than 1 value per channel when training, got input size torch.Size([N, N])"
    )  # fmt: skip
    assert fold("RuntimeError: Expected tensor for argument #1 'indices' to have one of the following "
                "scalar types: Long, Int")[1].startswith("Expected tensor for argument #1 'indices'")  # fmt: skip
    assert fold("IndexError: invalid index of a 0-dim tensor. Use `tensor.item()`")[1] == (
        "invalid index of a 0-dim tensor. Use `tensor.item()`"
    )
    assert fold("RuntimeError: a 2-D tensor of 3 rows")[1] == "a 2-D tensor of N rows"
    assert fold("TypeError: iteration over a 0-d tensor")[1] == "iteration over a 0-d tensor"
    assert fold("RuntimeError: input.size(-1) must be equal to input_size. Expected 16, got 48")[1] == (
        "input.size(-1) must be equal to input_size. Expected N, got N"
    )
    assert fold("TypeError: exp(): argument 'input' (position 1) must be Tensor, not int")[1] == (
        "exp(): argument 'input' (position 1) must be Tensor, not int"
    )
    assert fold("RuntimeError: all elements of input should be between 0 and 1")[1].endswith("between 0 and 1")
    assert fold("RuntimeError: received 0 items of ancdata")[1] == "received 0 items of ancdata"


def test_a_shape_with_a_zero_is_not_an_address():
    shapes = "Given input size: (3x1x1). Calculated output size: (3x0x0). Output size is too small"
    assert fold(f"RuntimeError: {shapes}")[1] == (
        "Given input size: (NxNxN). Calculated output size: (NxNxN). Output size is too small"
    )
    assert fold("ValueError: object at 0x7f3a9c")[1] == "object at 0x…"


OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4096.00 GiB. GPU 0 has a total capacity "
    "of 79.18 GiB of which 77.28 GiB is free. Including non-PyTorch memory, this process has 710.00 MiB "
    "memory in use. Process 495 has 530.00 MiB memory in use. Process 523 has 612.00 MiB memory in use. "
    "Of the allocated memory 32.00 MiB is allocated by PyTorch, and 2.00 MiB is reserved by PyTorch but "
    "unallocated."
)


def test_the_processes_an_out_of_memory_message_lists_are_left_out():
    kind, message = fold(OOM)
    assert kind == "torch.OutOfMemoryError" and "Process" not in message
    assert "this process has N MiB memory in use. Of the allocated memory N MiB" in message
    other_run = OOM.replace("Process 523 has 612.00 MiB memory in use. ", "")
    assert fold(other_run) == (kind, message)  # another run, other processes: the same entry


STATE_DICT = """Traceback (most recent call last):
  File "examples/a.py", line 3, in <module>
    model.load_state_dict(state)
RuntimeError: Error(s) in loading state_dict for Linear:
	{detail}
"""


def test_the_kinds_of_state_dict_errors_are_entries_of_their_own():
    missing = STATE_DICT.format(detail='Missing key(s) in state_dict: "weight", "bias". ')
    mismatch = STATE_DICT.format(detail="size mismatch for weight: copying a param with shape torch.Size([4, 2])")
    assert exception_line(missing) == "RuntimeError: Error(s) in loading state_dict for Linear:"
    head = "RuntimeError: Error(s) in loading state_dict for Linear:"
    assert index_line(missing) == f"{head} Missing key(s) in state_dict:"
    assert index_line(mismatch) == f"{head} size mismatch for weight:"
    assert index_line(TRACEBACK) == exception_line(TRACEBACK)  # a line that does not end with a colon
    a = example("a.py", '# %% one tags=["raises-exception"]\nx\n# %% two tags=["raises-exception"]\ny\n')
    result = Result(cells=(CellResult(0, traceback=missing), CellResult(1, traceback=mismatch)))
    entries = collect({"p.md": ("P", find_blocks("/// example | a.py\n///\n"))}, {"a.py": a}, {"a.py": [result]})
    assert [e.message for e in entries] == [
        "Error(s) in loading state_dict for Linear: Missing key(s) in state_dict:",
        "Error(s) in loading state_dict for Linear: size mismatch for weight:",
    ]


def test_links_to_recorded_outputs_name_the_device_and_chinese_joins_with_its_own_marks():
    a = example("a.py", '# %% one tags=["raises-exception"]\nx\n'
                        '# %% two tags=["raises-exception", "requires-cuda"]\ny\n')  # fmt: skip
    built = Result(cells=(CellResult(0, traceback=TRACEBACK), CellResult(1, skipped="requires-cuda")),
                   env={"device": "cpu"})  # fmt: skip
    recorded = Result(cells=(CellResult(0, traceback=TRACEBACK), CellResult(1, traceback=TRACEBACK)),
                      env={"device": "cuda"})  # fmt: skip
    pages = {
        "errors/one.md": ("One", find_blocks("/// example | a.py\n///\n")),
        "two.md": ("Two", find_blocks("/// example | a.py#two\n///\n")),
    }
    (entry,) = collect(pages, {"a.py": a}, {"a.py": [built, recorded]})
    # cell one: raised by this build and recorded the same: one link, not marked
    assert [(s.page, s.anchor, s.recorded) for s in entry.shown] == [
        ("errors/one.md", "ex-a-one", ""),
        ("errors/one.md", "ex-a-two", "cuda"),
        ("two.md", "ex-a-two", "cuda"),
    ]
    en = render([entry], "errors/all.md", "en")
    assert "[One](one.md#ex-a-one) ([2](one.md#ex-a-two) (CUDA)), [Two](../two.md#ex-a-two) (CUDA)" in en
    zh = render([entry], "errors/all.md", "zh")
    assert "[One](one.md#ex-a-one)（[2](one.md#ex-a-two)（CUDA））、[Two](../two.md#ex-a-two)（CUDA）" in zh


def example(path: str, source: str) -> Example:
    return Example(path, Path("/x") / path, source, parse_cells(source))


def test_entries_link_each_page_and_cell_once_and_skip_hidden_cells():
    a = example("a.py", '# %% one tags=["raises-exception"]\nx\n# %% two tags=["raises-exception"]\ny\n'
                        '# %% hidden tags=["remove-cell", "raises-exception"]\nz\n')  # fmt: skip
    other = TRACEBACK.replace("(2x3 and 4x5)", "(8x5 and 3x3)")
    result = Result(cells=(CellResult(0, traceback=TRACEBACK), CellResult(1, traceback=other),
                           CellResult(2, traceback=TRACEBACK.replace("mat1", "hidden"))))  # fmt: skip
    pages = {
        "intro/one.md": ("One", find_blocks("/// example | a.py\n///\n")),
        "two.md": ("Two [b]", find_blocks("/// example | a.py#two\n///\n")),
    }
    (entry,) = collect(pages, {"a.py": a}, {"a.py": [result]})
    assert (entry.kind, entry.message) == ("RuntimeError", "mat1 and mat2 shapes cannot be multiplied (NxN and NxN)")
    assert [(s.page, s.anchor) for s in entry.shown] == [("intro/one.md", "ex-a-one"), ("intro/one.md", "ex-a-two"),
                                                         ("two.md", "ex-a-two")]  # fmt: skip
    md = render([entry], "errors/all.md", "en")
    assert md.startswith("1 distinct errors, shown on 2 pages.")
    assert "## `RuntimeError`" in md
    assert "[One](../intro/one.md#ex-a-one) ([2](../intro/one.md#ex-a-two)), [Two \\[b\\]](../two.md#ex-a-two)" in md
    assert "共 1 种不同的错误" in render([entry], "errors/all.md", "zh")


def _tracebacks(page: str) -> list[str]:
    blocks = re.findall(r'<div class="language-pytb highlight">.*?<code>(.*?)</code>', page, re.S)
    return [html.unescape(re.sub(r"<[^>]+>", "", block)) for block in blocks]


def _entries(index_page: str) -> list[re.Pattern]:
    """Each entry of a built error index as a pattern of the messages it stands for: its N and 0x… stand
    for any number and address (read from the page, not made with the engine's own ``fold``)."""
    patterns = []
    for item in re.findall(r"<li>\s*<p>\s*<code>(.*?)</code>|<li>\s*<code>(.*?)</code>", index_page, re.S):
        message = html.unescape(re.sub(r"<[^>]+>", "", item[0] or item[1])).strip()
        pattern = re.escape(message).replace(r"0x…", r"0x[0-9a-fA-F]+")
        pattern = re.sub(r"(?<![A-Za-wyz0-9])N(?![A-Za-wyz0-9])", r"(?:N|-?\\d+(?:\\.\\d+)?(?:e[+-]?\\d+)?)", pattern)
        patterns.append(re.compile(pattern))
    return patterns


def test_every_traceback_on_the_site_is_in_its_languages_index(real_site):
    site, _ = real_site
    for lang, root in (("en", site), ("zh", site / "zh")):
        entries = _entries((root / "errors" / "all" / "index.html").read_text())
        assert len(entries) > 40
        pages = [p for p in root.rglob("index.html") if lang == "zh" or "zh" not in p.relative_to(site).parts]
        shown = 0
        for page in pages:
            for traceback in _tracebacks(page.read_text()):
                lines = traceback.rstrip().splitlines()
                frame = max((i for i, text in enumerate(lines) if text.startswith('  File "')), default=-1)
                first = next(i for i in range(frame + 1, len(lines)) if not lines[i].startswith(" "))
                raised = " ".join(text.strip() for text in lines[first:])  # the exception and its message
                assert ": " in raised, f"{page}: a traceback with no exception line"
                message = raised.partition(": ")[2]
                # an entry may leave out what changes from run to run at its end (the processes of an OOM)
                assert any(entry.match(message) for entry in entries), (
                    f"{page.relative_to(site)}: {raised[:200]!r} is missing from the {lang} error index"
                )
                shown += 1
        assert shown > 60


def test_each_errors_page_heading_names_the_error_its_section_raises(real_site):
    site, _ = real_site
    checked = 0
    for page in sorted((site / "errors").glob("*/index.html")) + sorted((site / "zh" / "errors").glob("*/index.html")):
        if page.parent.name in ("all",):
            continue
        sections = re.split(r"<h2 ", page.read_text())[1:]
        for section in sections:
            heading = html.unescape(re.sub(r"<[^>]+>", "", section.split("</h2>", 1)[0].split(">", 1)[1]))
            heading = heading.replace("¶", "").strip()
            tracebacks = _tracebacks(section)
            # the exception as raised: its first line and the lines of its message after it
            raised = [" ".join(t[t.index(line) :].split()) for t in tracebacks if (line := exception_line(t))]
            # an error a cell catches and prints (a worker's process id replaced), as `Type: message`
            raised += [line for output in _outputs(section) for line in output.splitlines()]
            named = fold(" ".join(re.split(r" from (?=\S+\()| 来自 ", heading)[0].split()))
            parts = [p.strip() for p in named[1].split("…")]  # "…" stands for any text
            if not tracebacks and "CUDA" in section and not any(_in_order(parts, fold(r)[1]) for r in raised):
                continue  # a CUDA-only error, not raised on this machine
            assert any(fold(r)[0] == named[0] and _in_order(parts, fold(r)[1]) for r in raised), (
                f"{page.relative_to(site)}: the heading {heading!r} does not match {raised}"
            )
            checked += 1
    assert checked >= 2 * 40


def _in_order(parts: list[str], text: str) -> bool:
    """Whether every part is in ``text``, one after the other."""
    at = 0
    for part in parts:
        at = text.find(part, at)
        if at < 0:
            return False
        at += len(part)
    return True


def _outputs(page: str) -> list[str]:
    """The text outputs of ``page``, without the marks the engine shows for control characters."""
    blocks = re.findall(r'<div class="language-text highlight">.*?<code>(.*?)</code>', page, re.S)
    return [re.sub("[\u2400-\u243f]", "", html.unescape(re.sub(r"<[^>]+>", "", block))) for block in blocks]


def test_the_marker_inside_fenced_code_is_shown_as_code_not_replaced():
    from mkdocs_examples.publish.error_index import replace_marker

    page = "/// error-index\n///\n\n```markdown\n/// error-index\n///\n```\n"
    assert replace_marker(page, lambda: "INDEX") == "INDEX\n\n```markdown\n/// error-index\n///\n```\n"


def test_a_link_to_an_output_of_another_torch_release_names_that_release():
    a = example("a.py", '# %% one tags=["raises-exception"]\nx\n')
    built = Result(cells=(CellResult(0, traceback=TRACEBACK.replace("RuntimeError: mat1", "ValueError: old")),),
                   env={"device": "cpu", "torch": "2.13.0+cpu"})  # fmt: skip
    other = Result(cells=(CellResult(0, traceback=TRACEBACK.replace("RuntimeError: mat1", "ValueError: new")),),
                   env={"device": "cpu", "torch": "2.14.1+cu130"})  # fmt: skip (a recording: test data)
    entries = collect({"p.md": ("P", find_blocks("/// example | a.py\n///\n"))}, {"a.py": a}, {"a.py": [built, other]})
    assert [(e.message.split()[0], [s.recorded for s in e.shown]) for e in entries] == [
        ("new", ["torch 2.14.1"]), ("old", [""]),
    ]  # fmt: skip
    assert "[P](../p.md#ex-a-one) (torch 2.14.1)" in render(entries, "errors/all.md", "en")
