from __future__ import annotations

from mkdocs_examples.source.blocks import find_blocks
from mkdocs_examples.source.markdown import in_place_of, parse

PAGE = """\
# Title

/// example | tensors/cat.py
///

- a list item

    /// example | tensors/cat.py#stack
    ///

````markdown
/// example | not/a/block.py
///
````
"""


def test_blocks_are_found_with_cell_line_and_indent_but_not_inside_fences():
    blocks = find_blocks(PAGE)
    assert [(b.path, b.cell, b.line, b.indent, b.error) for b in blocks] == [
        ("tensors/cat.py", None, 3, "", None),
        ("tensors/cat.py", "stack", 8, "    ", None),
    ]


def test_replacement_keeps_indentation_and_the_rest_of_the_page():
    page = parse(PAGE)
    out = page.replaced(in_place_of(b, f"RENDERED {b.cell}\n\nsecond line") for b in page.blocks)
    assert "RENDERED None\n\nsecond line\n\n- a list item" in out
    assert "    RENDERED stack\n\n    second line" in out
    assert "/// example | not/a/block.py" in out


def test_broken_blocks_carry_an_error():
    unclosed, with_body, bad_path, escaping = find_blocks(
        "/// example | a.py\n\ntext\n"
        "/// example | b.py\nsomething\n///\n"
        "/// example | c.txt\n///\n"
        "/// example | ../secret.py\n///\n"
    )
    assert "not closed" in unclosed.error and unclosed.line == 1
    assert "takes no content" in with_body.error
    assert "cannot read 'c.txt'" in bad_path.error
    assert escaping.error is None and escaping.path == "../secret.py"  # refused when read: see test_cells


def test_a_pages_title_is_the_one_mkdocs_gives_it_not_a_comment_in_front_matter_or_code():
    from mkdocs_examples.mkdocs.pages import title_of

    front = "---\n# the example is an aside\ntake_away: under-example\n---\n\n# PyTorch Tips\n"
    assert title_of(front, "index") == "PyTorch Tips"  # the home page was listed as "the example is an aside"
    assert title_of("```python\n# a comment\n```\n\n# `torch.cat`\n", "x") == "`torch.cat`"
    assert title_of("---\ntitle: Given\n---\n\n# Heading\n", "x") == "Given"
    assert title_of("No heading here.\n", "fallback") == "fallback"
