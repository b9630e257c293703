from __future__ import annotations

import pytest

from mkdocs_examples.source.cells import ExampleError, Note, notes_for, parse_cells, parse_notes, read_example

SCRIPT = '''\
"""Docstring above the first marker is a cell of its own."""
import math

# %% [markdown]
# Notes for notebook readers: neither run nor shown

# %% square tags=["remove-input"]

print(math.sqrt(16))

# %% tags=["raises-exception", "remove-output"]
1 / 0
# %%
'''


def test_cells_have_names_tags_and_file_line_numbers():
    cells = parse_cells(SCRIPT)
    assert [c.name for c in cells] == [None, "square", None]
    assert [c.tags for c in cells] == [(), ("remove-input",), ("raises-exception", "remove-output")]
    assert [c.lineno for c in cells] == [1, 9, 12]
    assert cells[1].source == "print(math.sqrt(16))\n"
    assert [c.index for c in cells] == [0, 1, 2]


@pytest.mark.parametrize(
    ("tags", "output_shown", "compared"),
    [
        ([], True, True),
        (["remove-input"], True, True),  # the output alone
        (["raises-exception"], True, True),  # its traceback is its output
        (["remove-output"], False, False),  # the code alone
        (["remove-cell"], False, False),  # a hidden check
        (["varies"], True, False),  # a timing: shown as measured, never compared across environments
        (["varies", "remove-output"], False, False),
        (["environment"], True, True),  # the versions a machine has: each its own, never a change (Cell.tracked)
    ],
)
def test_whether_a_cell_shows_its_output_and_is_compared_follows_its_tags(tags, output_shown, compared):
    header = f"# %% tags={tags!r}".replace("'", '"') if tags else "# %%"
    (cell,) = parse_cells(f"{header}\nprint(1)\n")
    assert cell.tags == tuple(tags)
    assert (cell.output_shown, cell.compared) == (output_shown, compared)
    assert cell.tracked == (compared and "environment" not in tags)


def test_file_without_markers_is_one_cell():
    (cell,) = parse_cells("x = 1\nprint(x)\n")
    assert cell.lineno == 1 and cell.name is None


@pytest.mark.parametrize(
    ("script", "line", "words"),
    [
        ('x = 1\n# %% tags=["raise-exception"]\n1/0\n', 2, "unknown tag 'raise-exception'"),
        ("# %% two words\nx = 1\n", 1, "must be one word"),
        ("# %% a\nx = 1\n# %% a\ny = 2\n", 3, "already used at line 1"),
        ("# %% tags=[remove-cell]\nx = 1\n", 1, "must be JSON"),
        ('# %% named tags=["remove-cell"]\n\n', 1, "no code"),
        ("x = 1\n# %% [markdown] lang=zh\n# 注释\n", 2, "must be JSON"),
        ('x = 1\n# %% [markdown] lang="Chinese"\n# 注释\n', 2, "names a language as the site does"),
        ('x = 1\n# %% [markdown] lang=["zh"]\n# 注释\n', 2, "names a language as the site does"),
        ('x = 1\n# %% [markdown] language="zh"\n# 注释\n', 2, "takes only lang="),
        # a claim in words goes with the range it holds on, and names a cell a page shows
        ('# %% a claim="x is 1"\nx = 1\n', 1, "claim= goes with the releases where the check holds"),
        ('# %% a\nx = 1\n# %% b tags=["remove-cell"] holds=">=2.6" about="c"\nassert x\n', 3,
         "about='c' names no cell a page shows"),
        ('# %% a tags=["remove-cell"]\nx = 1\n# %% b holds=">=2.6" about="a"\nx\n', 3,
         "about='a' names no cell a page shows"),
        ('# %% a holds=">=2.6" claim="x < 2"\nx = 1\n', 1, "plain text (code between backticks), without '<'"),
        ('# %% a alt=""\nx = 1\n', 1, "alt= says what the cell's figures show in one line"),
        (f'# %% a alt="{"x" * 301}"\nx = 1\n', 1, "at most 300 characters"),
    ],
)
def test_malformed_headers_name_the_line(script, line, words):
    with pytest.raises(ExampleError) as caught:
        parse_cells(script, "examples/bad.py")
    assert caught.value.line == line
    assert str(caught.value).startswith(f"examples/bad.py:{line}: ")
    assert words in str(caught.value)


def test_read_example_and_find_cells(tmp_path):
    (tmp_path / "topic").mkdir()
    (tmp_path / "topic" / "demo.py").write_text(SCRIPT)
    example = read_example(tmp_path, "topic/demo.py")
    assert example.display == "examples/topic/demo.py"
    assert example.cell("square").lineno == 9
    with pytest.raises(ExampleError, match=r"no cell named 'cube' \(named cells: square\)"):
        example.cell("cube")
    with pytest.raises(ExampleError, match=r"examples/topic/missing\.py: no such example file"):
        read_example(tmp_path, "topic/missing.py")


NOTES = """\
# %% [markdown]
# Joins along a dimension that *exists*
#
# (two lines)

# %% [markdown] lang="zh"
# 沿已有的维度拼接

# %% setup
x = 1

# %% [markdown]
# Only in English

# %% show
print(x)
# %% [markdown] lang="zh"
# 只有中文
"""


def test_notes_carry_their_language_and_the_code_cells_before_them():
    assert parse_notes(NOTES) == (
        Note("Joins along a dimension that *exists*\n\n(two lines)", 1, 0),
        Note("沿已有的维度拼接", 6, 0, "zh"),
        Note("Only in English", 12, 1),
        Note("只有中文", 17, 2, "zh"),
    )
    assert [c.name for c in parse_cells(NOTES)] == ["setup", "show"]  # notes are no code, in any language


def test_a_reader_gets_the_notes_in_their_language_else_those_in_none():
    notes = parse_notes(NOTES)
    assert [n.lineno for n in notes_for(notes, "en")] == [1, 12]
    assert [n.lineno for n in notes_for(notes, "zh")] == [6, 12, 17]  # no Chinese note after setup: the English one
    assert [n.lineno for n in notes_for(notes, "fr")] == [1, 12]


def test_a_check_says_its_claim_in_words_and_which_cell_it_is_about():
    from pathlib import Path

    from mkdocs_examples.source.cells import Example, claimed

    source = ('# %% shown alt="A  line   through  the origin"\nx = 1\n'
              '# %% shown-checks tags=["remove-cell"] holds=">=2.6" claim="`x` is 1"\nassert x == 1\n'
              '# %% later-checks tags=["remove-cell"] holds="<2.14" claim="It holds" about="shown"\nassert x\n'
              '# %% quoted-checks tags=["remove-cell"] holds="!=2.6"\nassert x\n'
              '# %% own holds=">=2.8"\nprint(x)\n')  # fmt: skip
    example = Example.from_source("demo.py", Path("demo.py"), source)
    shown, checks, later, quoted, own = example.cells
    assert (shown.alt, checks.claim, later.claim) == ("A line through the origin", "`x` is 1", "It holds")
    bare = source.replace(' claim="`x` is 1"', "").replace(' alt="A  line   through  the origin"', "")
    assert example.keys == Example.from_source("demo.py", Path("demo.py"), bare).keys  # words change no key
    # a hidden check is about the cell right before it, or the one it names; one after another hidden check, and
    # naming none, is about no shown cell (its range is said in the checks line only); a shown cell about itself
    assert [claimed(example, c) for c in (checks, later, quoted, own)] == [shown, shown, None, own]
