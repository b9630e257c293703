"""The index of every error the site shows: how lines are found and folded, and that none is missing."""

from __future__ import annotations

import html
import re
from pathlib import Path

from mkdocs_examples.publish.error_index import collect, exception_line, fold, render
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


def test_every_traceback_on_the_site_is_in_its_languages_index(real_site):
    site, _ = real_site
    for lang, root in (("en", site), ("zh", site / "zh")):
        index = html.unescape(re.sub(r"<[^>]+>", "", (root / "errors" / "all" / "index.html").read_text()))
        pages = [p for p in root.rglob("index.html") if lang == "zh" or "zh" not in p.relative_to(site).parts]
        shown = 0
        for page in pages:
            for traceback in _tracebacks(page.read_text()):
                line = exception_line(traceback)
                assert line, f"{page}: a traceback with no exception line"
                message = fold(line)[1]
                assert message in index, f"{page.relative_to(site)}: {line!r} is missing from the {lang} error index"
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
            if not tracebacks:  # a CUDA-only error, not raised on this machine
                assert "CUDA" in section, f"{page}: {heading!r} shows no traceback"
                continue
            # the exception as raised: its first line and the lines of its message after it
            raised = [" ".join(t[t.index(line) :].split()) for t in tracebacks if (line := exception_line(t))]
            named = fold(" ".join(re.split(r" from torch\.| 来自 ", heading)[0].split()))
            parts = named[1].split(" … ")
            assert any(fold(r)[0] == named[0] and all(p in fold(r)[1] for p in parts) for r in raised), (
                f"{page.relative_to(site)}: the heading {heading!r} does not match {raised}"
            )
            checked += 1
    assert checked >= 2 * 25


def test_the_marker_inside_fenced_code_is_shown_as_code_not_replaced():
    from mkdocs_examples.publish.error_index import replace_marker

    page = "/// error-index\n///\n\n```markdown\n/// error-index\n///\n```\n"
    assert replace_marker(page, lambda: "INDEX") == "INDEX\n\n```markdown\n/// error-index\n///\n```\n"
