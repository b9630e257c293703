from __future__ import annotations

import re
from dataclasses import replace
from html import unescape
from pathlib import Path

import markdown
import pytest

from mkdocs_examples.render.fences import fence
from mkdocs_examples.render.page import render_error, render_example, under_title
from mkdocs_examples.render.provenance import Sources
from mkdocs_examples.results import CellResult, Result
from mkdocs_examples.source.cells import Example, ExampleError, parse_cells
from mkdocs_examples.source.markdown import parse

SOURCE = """\
import torch
# %% shown
print("<b>hi</b>")
# %% hidden tags=["remove-cell"]
assert True
# %% quiet tags=["remove-output"]
x = 1
# %% bare tags=["remove-input"]
print("only output")
# %% gpu tags=["requires-cuda"]
torch.ones(1, device="cuda")
# %% fails tags=["raises-exception"]
1 / 0
"""
EXAMPLE = Example("t/demo.py", Path("/x/t/demo.py"), SOURCE, parse_cells(SOURCE))


def cell(index, output="", **extra):
    return CellResult(index, output, **extra)


RESULT = Result(
    env={"torch": "2.13.0+cpu", "device": "cpu", "python": "3.11.7"},
    seconds=0.1,
    cells=(
        cell(0),
        cell(1, "<b>hi</b>\n" + "x" * 10, truncated=1234),
        cell(2),
        cell(3, "hidden output\n"),
        cell(4, "only output\n"),
        cell(5, skipped="requires-cuda"),
        cell(6, traceback="Traceback (most recent call last):\nZeroDivisionError: division by zero\n"),
    ),
)


def html(text: str) -> str:
    return markdown.markdown(text, extensions=["admonition", "pymdownx.superfences", "pymdownx.highlight"])


def test_whole_example_respects_tags():
    sources = Sources()
    md = render_example(EXAMPLE, RESULT, None, lang="en", limit=10, sources=sources)
    assert "assert True" not in md and "hidden output" not in md  # remove-cell
    assert "x = 1" in md  # remove-output keeps the code
    assert 'print("only output")' not in md and "only output" in md  # remove-input
    assert "runs only on a CUDA GPU" in md
    assert "ZeroDivisionError: division by zero" in md
    assert "… 1,234 more characters cut (this page shows at most 10 per cell)" in md
    assert md.count('title="examples/t/demo.py"') == 1
    assert 'linenums="3"' in md
    # beside each output (cells shown, bare, fails) a short label; the environment in full once, at the page's end
    assert md.count(">torch 2.13.0</small>") == 3
    assert "Python 3.11.7" not in md
    block = unescape(sources.block("en"))
    assert "torch 2.13.0: printed on a CPU with PyTorch 2.13.0+cpu (Python 3.11.7), when this site was built." \
        in block  # fmt: skip
    assert block.count("<li ") == 1 and "data-search-exclude" in block


def test_a_label_names_the_cell_the_torch_picker_may_replace():
    md = render_example(EXAMPLE, RESULT, "bare", lang="en", limit=10)
    label = re.search(r"<small [^>]*>", md)
    assert label and re.findall(r'data-mx-(\w+)="([^"]*)"', label[0]) == [
        ("env", "build"), ("device", "cpu"), ("example", "t/demo.py"), ("cell", "4")
    ]


def test_a_page_that_shows_no_output_says_nothing_of_where_outputs_come_from():
    sources = Sources()
    render_example(EXAMPLE, RESULT, "quiet", lang="en", limit=10, sources=sources)
    assert sources.block("en") == ""


def test_output_is_escaped_in_html():
    page = html(render_example(EXAMPLE, RESULT, "shown", lang="en", limit=10))
    assert "<b>hi</b>" not in page
    assert "&lt;b&gt;hi&lt;/b&gt;" in page


def test_one_cell_and_chinese_text():
    md = render_example(EXAMPLE, RESULT, "gpu", lang="zh", limit=10)
    assert "1 / 0" not in md
    assert "此单元只能在 CUDA GPU 上运行" in md
    sources = Sources()
    md = render_example(EXAMPLE, RESULT, "bare", lang="zh", limit=10, sources=sources)
    assert ">torch 2.13.0</small>" in md
    assert "torch 2.13.0：构建本站时在 CPU 上用 PyTorch 2.13.0+cpu（Python 3.11.7）实际运行得到。" in unescape(
        sources.block("zh")
    )
    with pytest.raises(ExampleError):
        render_example(EXAMPLE, RESULT, "nope", lang="en", limit=10)


def test_no_provenance_where_nothing_is_shown():
    md = render_example(EXAMPLE, RESULT, "quiet", lang="en", limit=10)
    assert "mx-provenance" not in md


def test_no_provenance_under_a_cuda_cell_that_did_not_run():
    md = render_example(EXAMPLE, RESULT, "gpu", lang="en", limit=10)
    assert "runs only on a CUDA GPU" in md and "mx-provenance" not in md


def test_backticks_in_output_cannot_close_the_fence():
    result = replace(RESULT, cells=(cell(1, "````\n<script>alert(1)</script>\n"),))
    page = html(render_example(EXAMPLE, result, "shown", lang="en", limit=100))
    assert "<script>" not in page and "&lt;script&gt;" in page


def test_error_box_escapes_its_message():
    page = html(render_error("docs/en/a.md:3: <img src=x onerror=alert(1)>", lang="en"))
    assert 'class="admonition failure"' in page
    assert "<img" not in page


def test_repository_links_follow_the_branch_of_edit_uri():
    from mkdocs_examples.publish.notebooks import colab_url
    from mkdocs_examples.render.page import branch, link_titles

    assert [branch(uri) for uri in ("edit/trunk/docs/", "blob/dev/docs", None, "")] == ["trunk", "dev", "main", "main"]
    example = Example("a/b.py", Path("/x/a/b.py"), "print(1)\n", parse_cells("print(1)\n"))
    url = colab_url("https://github.com/o/r", example, branch("edit/trunk/docs/"))
    assert url == "https://colab.research.google.com/github/o/r/blob/trunk/notebooks/a/b.ipynb"
    title = '<span class="filename">examples/a/b.py</span>'
    assert "/blob/trunk/examples/a/b.py" in link_titles(title, "https://github.com/o/r", {"examples/a/b.py"}, "trunk")


@pytest.mark.parametrize("style", ["table", "pymdownx-inline"])
def test_a_code_blocks_title_links_to_its_first_line_where_the_block_numbers_its_lines(style):
    from mkdocs_examples.render.page import link_titles

    blocks = [fence("import torch\nx = 1", "python", title="examples/a.py", linenums=7),
              fence("y", "python", title="examples/b.py"), fence("z", "python", title="examples/c.py", linenums=3)]
    for anchors, lines in ((False, ["", "", ""]), (True, ["#L7", "#L1", "#L3"])):
        configs = {"pymdownx.highlight": {"anchor_linenums": anchors, "linenums_style": style}}
        page = markdown.markdown("\n\n".join(blocks), extensions=["pymdownx.highlight", "pymdownx.superfences"],
                                 extension_configs=configs)  # fmt: skip
        linked = link_titles(page, "https://github.com/o/r", {"examples/a.py", "examples/b.py", "examples/c.py"})
        urls = re.findall(r'<span class="filename"><a href="https://github.com/o/r/blob/main/([^"]+)">', linked)
        assert urls == [f"examples/{name}.py{line}" for name, line in zip("abc", lines, strict=True)]


def titled(text: str, html_text: str) -> str:
    page = parse(text)
    return page.replaced([under_title(page, html_text)])


LINE = '<p class="mx-downloads" data-search-exclude>Take it away: …</p>'


def test_the_take_away_line_goes_under_the_first_title_outside_code():
    page = "```python\n# not a title: a comment in code\n```\n\n# The title\n\nProse.\n\n# Another h1\n"
    lines = titled(page, LINE + "\n").splitlines()
    assert lines[lines.index("# The title") + 2] == LINE and lines.count(LINE) == 1
    assert lines.index(LINE) < lines.index("Prose.")
    html = markdown.markdown(titled("# Title\nProse.\n", LINE))
    assert html.startswith(f"<h1>Title</h1>\n{LINE}\n") and "<p>Prose.</p>" in html  # not glued to the prose


def test_the_take_away_line_of_a_page_without_a_title_in_its_markdown_goes_at_its_top():
    assert titled("Prose.\n\n#hashtag is no title\n", LINE).splitlines()[:3] == ["", LINE, ""]


def test_recordings_of_one_folder_made_on_two_days_are_listed_with_each_date():
    from mkdocs_examples.render.provenance import Source

    gpu = {"device": "cuda", "torch": "2.11.0+cu130", "python": "3.12.3", "gpu": "NVIDIA H100"}  # test data
    sources = Sources()
    for date in ("2026-11-22", "2026-11-23", "2026-11-22"):
        sources.label(Source("cuda-torch2.11.0-py3.12", gpu, date))
    block = unescape(sources.block("en"))
    assert block.count("2026-11-22") == 1 and block.count("2026-11-23") == 1  # each output's own date, each once
