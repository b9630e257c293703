"""A page's Markdown read once: what is code, what is a block, a marker, a quoted error, the title."""

from __future__ import annotations

from mkdocs_examples.source.markdown import Replacement, parse

PAGE = """\
```python
# a comment, not a title
```

# The title

/// error-index
///

/// example | tensors/cat.py
///

/// quoted-error | c10/cuda/CUDAException.cpp @ v2.9.1
torch.AcceleratorError: CUDA error: device-side assert triggered
///

````markdown
/// error-index
///
/// example | not/a/block.py
///
/// quoted-error | not/a/quote.cpp
RuntimeError: shown as code
///
````

/// torch-changes
///
"""


def test_a_page_is_read_into_its_code_blocks_markers_quotes_and_title_outside_fences():
    page = parse(PAGE)
    lines = PAGE.splitlines()
    assert page.lines == tuple(lines)
    assert {lines[i] for i in page.fenced} >= {"```python", "````markdown", "RuntimeError: shown as code", "````"}
    assert "# The title" not in {lines[i] for i in page.fenced}
    assert [(b.path, b.line) for b in page.blocks] == [("tensors/cat.py", 10)]
    assert [(m.name, lines[m.start]) for m in page.markers] == [
        ("error-index", "/// error-index"), ("torch-changes", "/// torch-changes")
    ]
    (quoted,) = page.quoted
    assert (quoted.source, quoted.ref, quoted.repo) == ("c10/cuda/CUDAException.cpp", "v2.9.1", "")
    assert quoted.lines == ("torch.AcceleratorError: CUDA error: device-side assert triggered",)
    assert (lines[quoted.start], lines[quoted.end]) == ("/// quoted-error | c10/cuda/CUDAException.cpp @ v2.9.1", "///")
    assert page.title is not None and lines[page.title] == "# The title"


def test_a_marker_needs_its_closing_line_and_a_quote_a_line_to_quote():
    page = parse("/// error-index\nnot a close\n\n/// quoted-error | a.cpp\n///\n\n/// note\n///\n")
    assert page.markers == () and page.quoted == ()


def test_a_quote_in_another_projects_repository_names_it():
    (quoted,) = parse("/// quoted-error | python/cpython:Modules/_pickle.c\n  X: y  \n\n///\n").quoted
    assert (quoted.repo, quoted.source, quoted.ref) == ("python/cpython", "Modules/_pickle.c", "")
    assert quoted.lines == ("X: y",)


def test_a_title_inside_a_quoted_block_or_code_is_no_title():
    assert parse("/// quoted-error | a.cpp\n# X: y\n///\n```\n# code\n```\nProse.\n#tag\n").title is None


def test_replacements_are_made_in_one_pass_and_an_insertion_goes_before_what_replaces_its_line():
    page = parse("# T\n/// error-index\n///\nmiddle\n/// example | a.py\n///\nend")
    made = page.replaced([
        Replacement(4, 6, ("BLOCK",)),
        Replacement(1, 3, ("LIST\nOF TWO",)),
        Replacement(1, 1, ("", "UNDER", "")),
    ])  # fmt: skip
    assert made == "# T\n\nUNDER\n\nLIST\nOF TWO\nmiddle\nBLOCK\nend\n"
    assert page.replaced([]) == page.text  # nothing to replace: the text as it is, its last line's end too


def test_a_marker_inside_fenced_code_is_shown_as_code_not_replaced():
    page = parse("/// error-index\n///\n\n```markdown\n/// error-index\n///\n```\n")
    replaced = page.replaced(Replacement(m.start, m.start + 2, ("INDEX",)) for m in page.markers)
    assert replaced == "INDEX\n\n```markdown\n/// error-index\n///\n```\n"
