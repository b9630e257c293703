"""The index of every error the site shows: how lines are found and folded, and that none is missing."""

from __future__ import annotations

import html
import re
from pathlib import Path

from mkdocs_examples.publish.error_index import (
    Printed,
    Wording,
    _wording,
    collect,
    exception_line,
    fold,
    index_line,
    quote_boxes,
    quotes,
    render,
)
from mkdocs_examples.results import CellResult, Result
from mkdocs_examples.source.blocks import find_blocks
from mkdocs_examples.source.cells import Example, parse_cells
from mkdocs_examples.source.markdown import parse
from mkdocs_examples.texts import text as texts

S = '<small class="mx-printed">'  # where a wording was printed, after it
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


SCRIPTED = """Traceback (most recent call last):
  File "examples/a.py", line 9, in <module>
    torch.jit.script(model)
RuntimeError:{space}
Module 'Stages' has no attribute 'stages' (its type: 'list'):
  File "examples/a.py", line 5
    def forward(self, x):
        for stage in self.stages:
                     ~~~~~~~~~~~ <--- HERE
""".format(space=" ")  # the space after the colon: the message is empty before its newline


def test_a_message_that_starts_on_the_next_line_is_named_by_that_line():
    """TorchScript puts its message on the line after the type, then quotes the frame it failed in."""
    line = "RuntimeError: Module 'Stages' has no attribute 'stages' (its type: 'list'):"
    assert exception_line(SCRIPTED) == line
    assert index_line(SCRIPTED) == line


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
        ("errors/one.md", "ex-a-two", "CUDA"),  # the device's name: a recording that names no GPU
        ("two.md", "ex-a-two", "CUDA"),
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
    blocks = re.findall(r'<div class="language-pytb highlight">.*?<code[^>]*>(.*?)</code>', page, re.S)
    return [html.unescape(re.sub(r"<[^>]+>", "", block)) for block in blocks]


def _entries(index_page: str) -> list[re.Pattern]:
    """Each entry of a built error index as a pattern of the messages it stands for: its N and 0x… stand
    for any number and address, or for the 0x… an example prints in place of an address (read from the page,
    not made with the engine's own ``fold``)."""
    patterns = []
    # an entry: each wording, `torch 2.13.0, 2.14.1: <code>message</code>`, then the links
    wordings = [code for item in re.findall(r"<li>(.*?)</li>", index_page, re.S)
                for code in re.findall(r"<code>(.*?)</code>", item.split("<a ", 1)[0], re.S)]  # fmt: skip
    assert wordings
    for item in wordings:
        message = _built_where(html.unescape(re.sub(r"<[^>]+>", "", item)).strip())
        pattern = re.escape(message).replace(r"0x…", r"0x(?:…|[0-9a-fA-F]+)")
        pattern = re.sub(r"(?<![A-Za-wyz0-9])N(?![A-Za-wyz0-9])", r"(?:N|-?\\d+(?:\\.\\d+)?(?:e[+-]?\\d+)?)", pattern)
        patterns.append(re.compile(pattern))
    return patterns


# Where the torch that raised a message was built, in the C++ file it names: the build's wheel says
# [/__w/pytorch/pytorch/third_party/gloo/...], another release's [/pytorch/third_party/gloo/...] or, relative
# to where it was built, [../third_party/gloo/...]. The index counts them as one wording
# (render/attribution.py, NOISE) and shows the build's
_SOURCE_DIRS = re.compile(r"(?<=\[)(?:/|\.\./)[^\s\]]*/(?=[\w.-]+\.(?:c|cc|cpp|cu|h|hpp):)")


def _built_where(message: str) -> str:
    return _SOURCE_DIRS.sub("…/", message)


def test_every_traceback_on_the_site_is_in_its_languages_index(real_site):
    site, _ = real_site
    for lang, root in (("en", site), ("zh", site / "zh")):
        index = (root / "errors" / "all" / "index.html").read_text()
        entries = _entries(index)
        assert len(entries) > 40
        pages = [p for p in root.rglob("index.html") if lang == "zh" or "zh" not in p.relative_to(site).parts]
        shown = 0
        for page in pages:
            for traceback in _tracebacks(page.read_text()):
                lines = traceback.rstrip().splitlines()
                # the frames are indented after the last header; a message may quote a frame of its own
                header = max((i for i, text in enumerate(lines) if text == "Traceback (most recent call last):"))
                first = next(i for i in range(header + 1, len(lines)) if not lines[i].startswith(" "))
                raised = " ".join(text.strip() for text in lines[first:])  # the exception and its message
                if re.fullmatch(r"[A-Za-z_][\w.]*", raised):  # raised with no message: its type's entry says so
                    heading = re.search(rf"<h2 [^>]*><code>{re.escape(raised)}</code>", index)  # its type's section
                    section = index[heading.end() :].partition("<h2")[0] if heading else ""
                    assert texts(lang)["index.no-message"] in section, (
                        f"{page.relative_to(site)}: {raised} with no message is missing from the {lang} error index"
                    )
                    shown += 1
                    continue
                assert ": " in raised, f"{page}: a traceback with no exception line"
                message = _built_where(raised.partition(": ")[2])
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
    blocks = re.findall(r'<div class="language-text highlight">.*?<code[^>]*>(.*?)</code>', page, re.S)
    return [re.sub("[\u2400-\u243f]", "", html.unescape(re.sub(r"<[^>]+>", "", block))) for block in blocks]


# --- One error across environments: which release printed which wording ------------------------------
# The results below stand for recordings of other torch releases and devices: test data, made up here
# (FIXTURE), not anything a machine printed.

SIGMOID = 'Traceback (most recent call last):\n  File "examples/a.py", line 3, in <module>\n    y.sum().backward()\n' \
          "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace " \
          "operation: [torch.FloatTensor [3]], which is output 0 of {op}, is at version 1; expected version 0\n"


def _env(torch: str, device: str = "cpu", python: str = "3.11.7") -> dict[str, str]:
    return {"device": device, "torch": torch, "python": python}


def _index(results: list[Result], source: str = '# %% one tags=["raises-exception"]\nx\n') -> list:
    a = example("a.py", source)
    return collect({"p.md": ("P", find_blocks("/// example | a.py\n///\n"))}, {"a.py": a}, {"a.py": results})


def test_two_releases_with_other_words_for_one_error_are_one_entry_each_wording_labelled():
    built = Result(cells=(CellResult(0, traceback=SIGMOID.format(op="SigmoidBackward0")),), env=_env("2.13.0+cpu"))
    newer = Result(cells=(CellResult(0, traceback=SIGMOID.format(op="Sigmoid")),), env=_env("2.14.1+cu130"))  # FIXTURE
    cuda = Result(cells=(CellResult(0, traceback=SIGMOID.format(op="SigmoidBackward0")),),
                  env=_env("2.11.0+cu130", "cuda", "3.12.3"))  # fmt: skip  (FIXTURE)
    (entry,) = _index([built, newer, cuda])
    assert "SigmoidBackward0" in entry.message  # named by the build's wording
    variants = [(w.message.split(" of ")[-1][:16], sorted((p.torch, p.device) for p in w.printed))
                for w in entry.wordings]  # fmt: skip
    assert variants == [  # the wording it is named by first, then the others, the newest release's first
        ("SigmoidBackward0", [("2.11.0", "cuda"), ("2.13.0", "cpu")]),  # the same words: one wording
        ("Sigmoid, is at v", [("2.14.1", "cpu")]),
    ]
    assert [s.recorded for s in entry.shown] == [""]  # one cell, which this build shows: one link, unmarked
    en = render([entry], "errors/all.md", "en")
    # the message first, where a reader scans; where it was printed after it
    assert "- `one of the variables" in en and "  \n  `one of the variables" in en
    assert f"SigmoidBackward0, is at version N; expected version N` {S}torch 2.13.0; 2.11.0 on CUDA</small>" in en
    assert f"output N of Sigmoid, is at version N; expected version N` {S}torch 2.14.1</small>" in en
    assert "  \n  [P](../p.md#ex-a-one)" in en and "(torch" not in en
    zh = render([entry], "errors/all.md", "zh")
    assert f"version N` {S}torch 2.13.0；CUDA 上的 2.11.0</small>" in zh


def test_the_same_wording_in_two_releases_is_shown_once_with_both():
    built = Result(cells=(CellResult(0, traceback=TRACEBACK),), env=_env("2.13.0+cpu"))
    moved = TRACEBACK.replace('line 3, in <module>', 'line 9, in <module>').replace("(2x3 and 4x5)", "(7x3 and 4x5)")
    other = Result(cells=(CellResult(0, traceback=moved),), env=_env("2.14.1+cu130"))  # FIXTURE: 2.14.1
    older = Result(cells=(CellResult(0, traceback=TRACEBACK),), env=_env("2.9.1+cpu"))  # FIXTURE: 2.9.1
    (entry,) = _index([built, other, older])
    assert len(entry.wordings) == 1
    en = render([entry], "errors/all.md", "en")
    assert f"- `mat1 and mat2 shapes cannot be multiplied (NxN and NxN)` {S}torch 2.9.1, 2.13.0 and 2.14.1<" in en
    assert en.count("mat1 and mat2") == 1
    assert f"(NxN and NxN)` {S}torch 2.9.1、2.13.0 和 2.14.1</small>" in render([entry], "errors/all.md", "zh")


def test_wordings_that_differ_only_by_the_machines_noise_are_one():
    tmp = TRACEBACK.replace("RuntimeError: mat1", "FileNotFoundError: no file /tmp/abc123/x.pt, mat1")
    other = TRACEBACK.replace("RuntimeError: mat1", "FileNotFoundError: no file /tmp/zz9/x.pt, mat1")
    results = [Result(cells=(CellResult(0, traceback=tmp),), env=_env("2.13.0+cpu")),
               Result(cells=(CellResult(0, traceback=other),), env=_env("2.14.1+cpu"))]  # fmt: skip  (FIXTURE)
    (entry,) = _index(results)
    assert len(entry.wordings) == 1 and "/tmp/abc123/x.pt" in entry.wordings[0].message


def test_another_type_of_exception_in_another_release_is_an_error_of_its_own():
    # torch 2.4 lacks an API the cell calls: its AttributeError is no variant of the build's error
    missing = TRACEBACK.replace("RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)",
                                "AttributeError: module 'torch' has no attribute 'compiler'")  # fmt: skip
    results = [Result(cells=(CellResult(0, traceback=TRACEBACK),), env=_env("2.13.0+cpu")),
               Result(cells=(CellResult(0, traceback=missing),), env=_env("2.4.1+cpu"))]  # fmt: skip  (FIXTURE)
    entries = _index(results)
    assert [(e.kind, [s.recorded for s in e.shown]) for e in entries] == [
        ("AttributeError", ["torch 2.4.1"]), ("RuntimeError", [""]),
    ]  # fmt: skip
    md = render(entries, "errors/all.md", "en")
    compiler = "- `module 'torch' has no attribute 'compiler'`"
    assert f"{compiler} {S}torch 2.4.1</small>  \n  [P](../p.md#ex-a-one) (torch 2.4.1)" in md


def test_an_error_raised_with_no_message_says_so_in_the_readers_words_not_as_code():
    bare = TRACEBACK.replace("RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)",
                             "NotImplementedError")  # fmt: skip
    (entry,) = _index([Result(cells=(CellResult(0, traceback=bare),), env=_env("2.13.0+cpu"))])
    assert (entry.kind, entry.message) == ("NotImplementedError", "")
    for lang in ("en", "zh"):
        md = render([entry], "errors/all.md", lang)
        assert f"- *{texts(lang)['index.no-message']}* {S}torch 2.13.0</small>" in md
        assert "``" not in md


def test_variants_join_through_a_wording_two_cells_share():
    # cell one: A here, B in 2.14.1; cell two: B here, C in 2.14.1: A, B and C are one error
    source = '# %% one tags=["raises-exception"]\nx\n# %% two tags=["raises-exception"]\ny\n'
    a, b, c = (TRACEBACK.replace("mat1 and mat2", word) for word in ("alpha", "beta", "gamma"))
    built = Result(cells=(CellResult(0, traceback=a), CellResult(1, traceback=b)), env=_env("2.13.0+cpu"))
    other = Result(cells=(CellResult(0, traceback=b), CellResult(1, traceback=c)), env=_env("2.14.1+cpu"))  # FIXTURE
    (entry,) = _index([built, other], source)
    assert entry.message.startswith("alpha") and len(entry.wordings) == 3
    assert [s.anchor for s in entry.shown] == ["ex-a-one", "ex-a-two"]


def test_a_wording_printed_by_consecutive_releases_names_them_as_a_range():
    printed = [Printed("cpu", f"2.{m}.0") for m in (4, 5, 6, 7, 9)]
    wording = Wording("RuntimeError", "old message", set(printed))
    assert _wording(wording, "en") == f"`old message` {S}torch 2.4\u20132.7 and 2.9.0</small>"
    assert _wording(wording, "zh") == f"`old message` {S}torch 2.4\u20132.7 和 2.9.0</small>"
    gpu = Wording("RuntimeError", "old message", {Printed("cuda", "2.11.0")})
    assert _wording(gpu, "en") == f"`old message` {S}torch 2.11.0 on CUDA</small>"
    assert _wording(gpu, "zh") == f"`old message` {S}CUDA 上的 torch 2.11.0</small>"


# --- Wordings quoted from PyTorch's source: an error no machine of the site raises -----------------------
# The page below is test data (FIXTURE): the lines are what a page would quote, not anything a machine printed.

QUOTING = """# Errors

## `torch.AcceleratorError: CUDA error: device-side assert triggered`

/// quoted-error | c10/cuda/CUDAException.cpp
torch.AcceleratorError: CUDA error: device-side assert triggered
RuntimeError: CUDA error: device-side assert triggered
///

```markdown
/// quoted-error | not/a/quote.cpp
RuntimeError: shown as code
///
```

/// quoted-error | c10/cuda/CUDAException.cpp @ 0e4c6cd66277444e521c0d3190b00ee3992cff03
torch.AcceleratorError: CUDA error: device-side assert triggered
///
"""


def boxed(markdown: str, torch: str, lang: str) -> str:
    """``markdown`` with its quoted-error blocks shown as the boxes a page shows."""
    page = parse(markdown)
    return page.replaced(quote_boxes(page, torch, lang))


def test_a_quoted_error_block_gives_each_line_and_an_id_unique_on_its_page_not_inside_code():
    found = quotes(parse(QUOTING))
    assert [(q.source, q.anchor) for q in found] == [
        ("c10/cuda/CUDAException.cpp", "quoted-c10-cuda-cudaexception-cpp"),
        ("c10/cuda/CUDAException.cpp", "quoted-c10-cuda-cudaexception-cpp-2"),
    ]
    assert found[0].lines == (
        "torch.AcceleratorError: CUDA error: device-side assert triggered",
        "RuntimeError: CUDA error: device-side assert triggered",
    )


def test_a_quoted_error_is_shown_as_a_labelled_quotation_of_the_builds_release_in_each_language():
    en = boxed(QUOTING, "2.13.0+cpu", "en")
    assert '<span id="quoted-c10-cuda-cudaexception-cpp"></span>' in en
    assert "!!! quote \"Quoted from PyTorch's source, not an output\"" in en
    assert "https://github.com/pytorch/pytorch/blob/v2.13.0/c10/cuda/CUDAException.cpp" in en
    assert "    ```text\n    torch.AcceleratorError: CUDA error: device-side assert triggered\n" in en
    assert "/// quoted-error | not/a/quote.cpp" in en  # inside fenced code: left as it is
    assert en.count("!!! quote") == 2
    # a commit after the path: the link and the label name it instead of the release
    assert "blob/0e4c6cd66277444e521c0d3190b00ee3992cff03/c10/cuda/CUDAException.cpp" in en
    assert "PyTorch (commit 0e4c6cd662) words it" in en
    zh = boxed(QUOTING, "2.13.0+cpu", "zh")
    assert '!!! quote "引自 PyTorch 源码，不是运行输出"' in zh and "PyTorch 2.13.0 的源码" in zh


def test_quoted_wordings_are_index_entries_labelled_as_quotations_linking_to_their_box():
    pages = {"errors/cuda.md": ("GPU errors", find_blocks(QUOTING))}
    entries = collect(pages, {}, {}, {"errors/cuda.md": quotes(parse(QUOTING))})
    assert [(e.kind, e.message) for e in entries] == [
        ("RuntimeError", "CUDA error: device-side assert triggered"),
        ("torch.AcceleratorError", "CUDA error: device-side assert triggered"),
    ]
    accelerator = entries[1]
    assert [(s.anchor, s.recorded) for s in accelerator.shown] == [
        ("quoted-c10-cuda-cudaexception-cpp", "quoted"), ("quoted-c10-cuda-cudaexception-cpp-2", "quoted")
    ]
    text = render(entries, "errors/all.md", "en")
    assert f"- `CUDA error: device-side assert triggered` {S}quoted from PyTorch's source</small>" in text
    assert "[GPU errors](cuda.md#quoted-c10-cuda-cudaexception-cpp) (quoted)" in text
    zh = render(entries, "errors/all.md", "zh")
    assert f"`CUDA error: device-side assert triggered` {S}引自 PyTorch 源码</small>" in zh


def test_a_quoted_wording_that_an_example_also_raises_is_one_entry_with_both_labels():
    page = "/// example | a.py\n///\n\n/// quoted-error | aten/x.cpp\nRuntimeError: mat1 and mat2 shapes " \
           "cannot be multiplied (8x5 and 3x3)\n///\n"  # fmt: skip
    a = example("a.py", '# %% one tags=["raises-exception"]\nx\n')
    built = Result(cells=(CellResult(0, traceback=TRACEBACK),), env=_env("2.13.0+cpu"))
    quoted = {"p.md": quotes(parse(page))}
    (entry,) = collect({"p.md": ("P", find_blocks(page))}, {"a.py": a}, {"a.py": [built]}, quoted)
    (wording,) = entry.wordings
    assert wording.quoted == {"PyTorch": set()} and {p.torch for p in wording.printed} == {"2.13.0"}
    assert _wording(wording, "en").endswith(f"` {S}torch 2.13.0; quoted from PyTorch's source</small>")


def test_a_quote_of_another_releases_tag_links_that_tag_and_names_its_release_in_the_box_and_the_index():
    """A message the build's release no longer has (the cuBLAS workspace check, gone in torch 2.10) is quoted
    from the tag of a release that had it: the link, the box and the index entry name that release."""
    page = "# Errors\n\n/// quoted-error | aten/src/ATen/Context.cpp @ v2.9.1\nRuntimeError: old check\n///\n"
    (quote,) = quotes(parse(page))
    assert (quote.source, quote.ref) == ("aten/src/ATen/Context.cpp", "v2.9.1")
    en = boxed(page, "2.13.0+cpu", "en")
    assert "https://github.com/pytorch/pytorch/blob/v2.9.1/aten/src/ATen/Context.cpp" in en
    assert "of PyTorch 2.9.1 words it" in en and "2.13.0" not in en
    assert "PyTorch 2.9.1 的源码" in boxed(page, "2.13.0+cpu", "zh")
    (entry,) = collect({"errors/cuda.md": ("GPU errors", find_blocks(page))}, {}, {}, {"errors/cuda.md": [quote]})
    (wording,) = entry.wordings
    assert wording.quoted == {"PyTorch": {"2.9.1"}}
    assert _wording(wording, "en") == f"`old check` {S}quoted from the source of PyTorch 2.9.1</small>"
    assert _wording(wording, "zh") == f"`old check` {S}引自 PyTorch 2.9.1 的源码</small>"
    # a tag that is not a release's (a branch) is not a reference: the block is not a quote
    assert quotes(parse(page.replace("@ v2.9.1", "@ main"))) == []


def test_a_quote_of_another_projects_source_names_that_project_and_its_tag_in_the_box_and_the_index():
    """A message a newer Python words otherwise (pickle's, from Python 3.14) is quoted from CPython's source at that
    release's tag: the link goes to CPython's repository, and the box and the index name CPython, not PyTorch."""
    page = (
        "# Errors\n\n/// quoted-error | python/cpython:Modules/_pickle.c @ v3.14.0\n"
        "_pickle.PicklingError: Can't pickle local object <function f.<locals>.<lambda> at 0x…>\n///\n"
    )
    (quote,) = quotes(parse(page))
    assert (quote.repo, quote.source, quote.ref, quote.project) == (
        "python/cpython", "Modules/_pickle.c", "v3.14.0", "CPython"
    )
    en = boxed(page, "2.13.0+cpu", "en")
    assert "https://github.com/python/cpython/blob/v3.14.0/Modules/_pickle.c" in en
    assert "!!! quote \"Quoted from CPython's source, not an output\"" in en
    assert "of CPython 3.14.0 words it" in en and "PyTorch" not in en and "2.13.0" not in en
    zh = boxed(page, "2.13.0+cpu", "zh")
    assert '!!! quote "引自 CPython 源码，不是运行输出"' in zh and "CPython 3.14.0 的源码" in zh
    (entry,) = collect({"errors/training.md": ("Training", find_blocks(page))}, {}, {}, {"errors/training.md": [quote]})
    assert (entry.kind, entry.message) == ("_pickle.PicklingError", "Can't pickle local object <function "
                                           "f.<locals>.<lambda> at 0x…>")  # fmt: skip
    (wording,) = entry.wordings
    assert _wording(wording, "en").endswith(f" {S}quoted from the source of CPython 3.14.0</small>")
    assert _wording(wording, "zh").endswith(f" {S}引自 CPython 3.14.0 的源码</small>")
    # without a tag, another project's quote links its default branch, never PyTorch's release
    bare = boxed(page.replace(" @ v3.14.0", ""), "2.13.0+cpu", "en")
    assert "https://github.com/python/cpython/blob/main/Modules/_pickle.c" in bare and "v2.13.0" not in bare


def test_entries_of_one_type_sort_by_their_message_whatever_its_case():
    messages = ["mat1 and mat2 shapes cannot be multiplied", "Boolean value of Tensor is ambiguous", "zero", "apple"]
    source = "".join(f'# %% c{i} tags=["raises-exception"]\nx\n' for i in range(len(messages)))
    a = example("a.py", source)
    original = "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"
    cells = tuple(CellResult(i, traceback=TRACEBACK.replace(original, m)) for i, m in enumerate(messages))
    pages = {"p.md": ("P", find_blocks("/// example | a.py\n///\n"))}
    entries = collect(pages, {"a.py": a}, {"a.py": [Result(cells=cells)]})
    assert [e.message for e in entries] == sorted(messages, key=str.casefold)


def test_entries_sort_by_their_words_not_by_the_quotes_or_brackets_they_start_with():
    messages = ["'NoneType' object has no attribute 'abs'", "mat1 and mat2", "[gloo] Timed out", "`lengths` array"]
    source = "".join(f'# %% c{i} tags=["raises-exception"]\nx\n' for i in range(len(messages)))
    original = "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"
    cells = tuple(CellResult(i, traceback=TRACEBACK.replace(original, m)) for i, m in enumerate(messages))
    entries = collect({"p.md": ("P", find_blocks("/// example | a.py\n///\n"))}, {"a.py": example("a.py", source)},
                      {"a.py": [Result(cells=cells)]})  # fmt: skip
    assert [e.message[:6] for e in entries] == ["[gloo]", "`lengt", "mat1 a", "'NoneT"]


WORKER = """\
Traceback (most recent call last):
  File "examples/data/workers.py", line 112, in <module>
    next(it)
RuntimeError: Caught RuntimeError in DataLoader worker process 0.
Original Traceback (most recent call last):
  File "…/torch/utils/data/_utils/worker.py", line 349, in _worker_loop
    data = fetcher.fetch(index)
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
"""


def test_an_error_carried_in_anothers_message_is_indexed_as_both():
    """A DataLoader worker's error reaches the reader as "Caught RuntimeError in DataLoader worker process 0."
    with the worker's traceback in its message: the reader may paste either line."""
    assert index_line(WORKER) == "RuntimeError: Caught RuntimeError in DataLoader worker process 0."
    entries = _index([Result(cells=(CellResult(0, traceback=WORKER),), env=_env("2.13.0+cpu"))])
    assert sorted(e.message for e in entries) == [
        "Caught RuntimeError in DataLoader worker process N.",
        "element N of tensors does not require grad and does not have a grad_fn",
    ]
    assert all([s.anchor for s in e.shown] == ["ex-a-one"] for e in entries)


def test_an_error_a_cell_caught_and_printed_is_indexed_and_its_other_wordings_are_variants():
    """Examples catch an error to show it (``print(f"RuntimeError: {error}")``): the line is an error on the page."""
    built = Result(cells=(CellResult(0, "False\nRuntimeError: pin_memory=True requires a CUDA or other accelerator"
                                        " backend\nAcceleratorError: CUDA error: invalid device ordinal\n"),),
                   env=_env("2.13.0+cpu"))  # fmt: skip
    older = Result(cells=(CellResult(0, "RuntimeError: Need to provide pin_memory allocator to use pin memory.\n"
                                        "UserWarning: not an error\n"),), env=_env("2.4.1+cpu"))  # fmt: skip  (FIXTURE)
    entries = _index([built, older], "# %% one\nx\n")
    assert [(e.kind, [w.message for w in e.wordings]) for e in entries] == [
        ("AcceleratorError", ["CUDA error: invalid device ordinal"]),
        ("RuntimeError", ["pin_memory=True requires a CUDA or other accelerator backend",
                          "Need to provide pin_memory allocator to use pin memory."]),
    ]  # fmt: skip
    assert [s.recorded for s in entries[1].shown] == [""]


def test_exception_types_sort_by_their_first_letter():
    kinds = ["_pickle.UnpicklingError", "AcceleratorError", "torch.OutOfMemoryError", "ValueError"]
    source = "".join(f'# %% c{i}\nx\n' for i in range(len(kinds)))
    cells = tuple(CellResult(i, f"{kind}: failed\n") for i, kind in enumerate(kinds))
    entries = collect({"p.md": ("P", find_blocks("/// example | a.py\n///\n"))}, {"a.py": example("a.py", source)},
                      {"a.py": [Result(cells=cells)]})  # fmt: skip
    assert [e.kind for e in entries] == ["AcceleratorError", "_pickle.UnpicklingError", "torch.OutOfMemoryError",
                                         "ValueError"]  # fmt: skip


def test_a_memo_gives_what_a_fresh_collect_gives_and_finds_again_only_on_pages_whose_inputs_changed():
    a = example("a.py", '# %% one tags=["raises-exception"]\nx\n')
    b = example("b.py", '# %% two tags=["raises-exception"]\ny\n')
    pages = {"one.md": ("One", find_blocks("/// example | a.py\n///\n")),
             "two.md": ("Two", find_blocks("/// example | b.py\n///\n")),
             "gone.md": ("Gone", find_blocks("/// example | a.py\n///\n"))}  # fmt: skip
    first = {"a.py": [Result(cells=(CellResult(0, traceback=TRACEBACK),))],
             "b.py": [Result(cells=(CellResult(0, traceback=TRACEBACK),))]}  # fmt: skip
    memo: dict = {}
    assert collect(pages, {"a.py": a, "b.py": b}, first, memo=memo) == collect(pages, {"a.py": a, "b.py": b}, first)
    kept = dict(memo)
    # an edit of b.py: it raises another error; gone.md is deleted
    edited = {**first, "b.py": [Result(cells=(CellResult(0, traceback=TRACEBACK.replace("mat1", "mat9")),))]}
    del pages["gone.md"]
    fresh = collect(pages, {"a.py": a, "b.py": b}, edited)
    assert collect(pages, {"a.py": a, "b.py": b}, edited, memo=memo) == fresh
    assert [e.message for e in fresh] == ["mat1 and mat2 shapes cannot be multiplied (NxN and NxN)",
                                          "mat9 and mat2 shapes cannot be multiplied (NxN and NxN)"]  # fmt: skip
    assert memo["one.md"] is kept["one.md"] and memo["two.md"] is not kept["two.md"] and "gone.md" not in memo
    # a page whose title changed is found again: its links show the title
    pages["one.md"] = ("One, renamed", pages["one.md"][1])
    assert collect(pages, {"a.py": a, "b.py": b}, edited, memo=memo)[0].shown[0].title == "One, renamed"
