"""Comments in the reader's language (source/comments.py): translated beside the example, code and keys unchanged."""

from __future__ import annotations

import html
import io
import json
import re
import subprocess
import sys
import tokenize
import unicodedata
import uuid
from pathlib import Path

import pytest

from mkdocs_examples.publish.notebooks import colab_url, notebook, runnable_script, write_downloads
from mkdocs_examples.results import Result, SiteError
from mkdocs_examples.source import comments
from mkdocs_examples.source.cells import Example
from mkdocs_examples.source.keys import support_digest

ROOT = Path(__file__).parent.parent
EXAMPLES = ROOT / "examples"

SOURCE = """\
# %% [markdown]
# A note: not a comment of the code
# %% first
import torch  # noqa: F401

# make a tensor
x = torch.ones(2)  # two ones
s = "# not a comment"

# %% second tags=["remove-cell"]
# make a tensor
assert x.sum() == 2  # two ones
"""
YAML = """\
make a tensor: 建一个张量
two ones: 两个 1
"""


def example_at(tmp_path: Path, source: str = SOURCE, translation: str | None = YAML) -> Example:
    file = tmp_path / "demo.py"
    file.write_text(source, encoding="utf-8")
    if translation is not None:
        file.with_name("demo.zh.yml").write_text(translation, encoding="utf-8")
    return Example.from_source("demo.py", file, source)


def code_tokens(source: str) -> list[tuple[int, str]]:
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return [(t.type, t.string) for t in tokens if t.type != tokenize.COMMENT]


def test_comments_are_translated_and_nothing_else_changes(tmp_path):
    example = example_at(tmp_path)
    zh = comments.translated(example, "zh")
    assert zh.source.splitlines()[5:7] == ["# 建一个张量", "x = torch.ones(2)  # 两个 1"]
    assert "# noqa: F401" in zh.source and 's = "# not a comment"' in zh.source  # pragmas and strings stay
    assert "# A note: not a comment of the code" in zh.source and "# %% first" in zh.source  # notes, markers too
    assert zh.source.count("建一个张量") == 2  # a comment written twice: one entry, used for each
    assert code_tokens(zh.source) == code_tokens(example.source)
    assert len(zh.source.splitlines()) == len(example.source.splitlines())
    assert [c.lineno for c in zh.cells] == [c.lineno for c in example.cells]
    assert comments.translated(example, "en") is example
    assert comments.problems(example, "zh") == []


def test_translating_changes_no_key(tmp_path):
    example = example_at(tmp_path)
    zh = comments.translated(example, "zh")
    assert zh.source != example.source
    assert zh.keys == example.keys


def test_a_translation_file_is_no_part_of_the_support_digest(tmp_path):
    example_at(tmp_path, translation=None)
    (tmp_path / "_helper.py").write_text("HELP = 1\n", encoding="utf-8")
    before = support_digest(tmp_path)
    (tmp_path / "demo.zh.yml").write_text(YAML, encoding="utf-8")
    assert support_digest(tmp_path) == before
    (tmp_path / "data.yml").write_text("a: 1\n", encoding="utf-8")  # a data file an example may read
    assert support_digest(tmp_path) != before


def test_every_real_translation_keeps_its_examples_keys():
    for file in sorted(EXAMPLES.rglob("[!_]*.py")):
        path = file.relative_to(EXAMPLES).as_posix()
        example = Example.from_source(path, file, file.read_text(encoding="utf-8"))
        assert comments.translated(example, "zh").keys == example.keys, path


def test_every_real_translation_file_is_as_make_comments_writes_it():
    """Entries in the order their comments come in the example, quoted as `make comments` quotes them: the
    command then changes only the entries of the examples a contributor changed, and a review reads just those."""
    unlike = []
    for file in sorted(EXAMPLES.rglob("[!_]*.py")):
        path = file.relative_to(EXAMPLES).as_posix()
        example = Example.from_source(path, file, file.read_text(encoding="utf-8"))
        translation = comments.file_of(example, "zh")
        if translation.exists() and translation.read_text(encoding="utf-8") != comments.template(example, "zh"):
            unlike.append(translation.relative_to(ROOT).as_posix())
    assert not unlike, f"run `make comments`, which writes these in its order (their entries stay): {unlike}"


def test_downloads_carry_the_translated_comments(tmp_path):
    example = example_at(tmp_path)
    assert "# 建一个张量" in runnable_script(example, lang="zh")
    assert "# make a tensor" in runnable_script(example, lang="en")
    cells = notebook(example, lang="zh")["cells"]
    assert any("x = torch.ones(2)  # 两个 1" in cell["source"] for cell in cells)


def test_a_missing_comment_names_the_example_and_its_line(tmp_path):
    example = example_at(tmp_path, translation="two ones: 两个 1\n")
    assert comments.problems(example, "zh") == [
        "examples/demo.py:6: comment 'make a tensor' has no zh translation; run `make comments` to add it to "
        "examples/demo.zh.yml, then write its translation there"
    ]
    zh = comments.translated(example, "zh")  # what is there is used; the rest stays English
    assert "# make a tensor" in zh.source and "# 两个 1" in zh.source


def test_an_outdated_or_empty_entry_names_the_translation_file_and_its_line(tmp_path):
    example = example_at(tmp_path, translation=YAML + "make two tensors: 建两个张量\n")
    assert comments.problems(example, "zh") == [
        "examples/demo.zh.yml:3: 'make two tensors' is no comment of examples/demo.py (it changed or went): "
        "translate the comment as it is now and remove this entry (`make comments` does)"
    ]
    example = example_at(tmp_path, translation="make a tensor: ''\ntwo ones: 两个 1\n")
    assert comments.problems(example, "zh") == [
        "examples/demo.zh.yml:1: 'make a tensor' (comment of examples/demo.py:6) has no translation yet: write it"
    ]


def test_without_a_file_the_first_comment_is_named(tmp_path):
    example = example_at(tmp_path, translation=None)
    [problem] = comments.problems(example, "zh")
    assert problem.startswith("examples/demo.py:6: 2 comment(s) have no zh translation: there is no "
                              "examples/demo.zh.yml; run `make comments`")  # fmt: skip


def test_a_key_written_twice_is_refused(tmp_path):
    example = example_at(tmp_path, translation=YAML + "two ones: 两个一\n")
    assert comments.problems(example, "zh") == ["examples/demo.zh.yml:3: 'two ones' is written twice; keep one entry"]


def test_the_template_keeps_translations_adds_new_comments_and_drops_old_ones(tmp_path):
    example = example_at(tmp_path, translation="two ones: 两个 1\ngone: 没了\n")
    text = comments.template(example, "zh")
    assert text is not None
    assert text.splitlines()[1:] == ["make a tensor: ''", "two ones: 两个 1"]
    (tmp_path / "demo.zh.yml").write_text(text.replace("''", "建一个张量"), encoding="utf-8")
    assert comments.problems(example, "zh") == []


def test_a_headers_claim_and_alt_text_are_translated_with_the_comments(tmp_path):
    source = SOURCE.replace('# %% second tags=["remove-cell"]', '# %% second tags=["remove-cell"] holds=">=2.6" '
                            'claim="`x` holds two ones"').replace("# %% first", '# %% first alt="Two ones, drawn"')
    example = example_at(tmp_path, source, YAML)
    assert comments.problems(example, "zh") == [
        "examples/demo.py:3: alt text 'Two ones, drawn' has no zh translation; run `make comments` to add it to "
        "examples/demo.zh.yml, then write its translation there",
        "examples/demo.py:10: claim '`x` holds two ones' has no zh translation; run `make comments` to add it to "
        "examples/demo.zh.yml, then write its translation there",
    ]
    text = comments.template(example, "zh")
    assert text is not None and text.splitlines()[1:] == [
        "Two ones, drawn: ''", "make a tensor: 建一个张量", "two ones: 两个 1", "'`x` holds two ones': ''"]
    assert comments.words(example, "`x` holds two ones", "zh") == "`x` holds two ones"  # English until translated
    translated = YAML + "Two ones, drawn: 画出的两个 1\n'`x` holds two ones': '`x` 里是两个 1'\n"
    (tmp_path / "demo.zh.yml").write_text(translated, encoding="utf-8")
    assert comments.problems(example, "zh") == []
    assert comments.words(example, "`x` holds two ones", "zh") == "`x` 里是两个 1"
    assert comments.words(example, "`x` holds two ones", "en") == "`x` holds two ones"
    assert comments.translated(example, "zh").keys == example.keys  # the code and its keys as they were


def test_chinese_pages_open_chinese_notebooks_in_colab(tmp_path):
    example = example_at(tmp_path)
    assert colab_url("https://github.com/o/r", example, lang="zh").endswith("/blob/main/notebooks/zh/demo.ipynb")
    assert colab_url("https://github.com/o/r", example).endswith("/blob/main/notebooks/demo.ipynb")


def columns(line: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


def test_translated_comment_lines_fit_where_the_english_did():
    wide = []
    for file in sorted(EXAMPLES.rglob("[!_]*.py")):
        path = file.relative_to(EXAMPLES).as_posix()
        example = Example.from_source(path, file, file.read_text(encoding="utf-8"))
        zh = comments.translated(example, "zh")
        for cell, mine in zip(example.cells, zh.cells, strict=True):
            if cell.has("remove-cell") or cell.has("remove-input"):
                continue
            for i, (en, cn) in enumerate(zip(cell.source.splitlines(), mine.source.splitlines(), strict=True)):
                if columns(cn) > 80 >= columns(en):
                    wide.append(f"{example.display}:{cell.lineno + i}: {columns(cn)} columns")
    assert not wide, f"translated comments wider than 80 columns; shorten them in the .zh.yml: {wide}"


def test_the_built_chinese_pages_and_downloads_show_chinese_comments(real_site):
    site, _ = real_site
    file = EXAMPLES / "autograd" / "graph.py"
    english = file.read_text(encoding="utf-8")
    assert "# " in english
    page = (site / "zh" / "autograd" / "graph" / "index.html").read_text(encoding="utf-8")
    assert re.search(r'<span class="c1"># [^<]*[\u4e00-\u9fff]', page), "no Chinese comment on the zh page"
    assert "notebooks/zh/autograd/graph.ipynb" in page
    en_page = (site / "autograd" / "graph" / "index.html").read_text(encoding="utf-8")
    assert not re.search(r'<span class="c1"># [^<]*[\u4e00-\u9fff]', en_page)
    script = (site / "zh" / "downloads" / "autograd" / "graph.py").read_text(encoding="utf-8")
    assert re.search(r"# [^\n]*[\u4e00-\u9fff]", script.split("# %%", 2)[2])
    assert (site / "downloads" / "autograd" / "graph.py").read_text(encoding="utf-8").count("\u4e00") == 0


# --- a translation is text a stranger wrote: what readers run must be what ran -----------------------------------

HIDDEN = """\
# %% first
# set x
x = 1  # one
print(x)
"""


def test_a_translation_that_declares_utf7_and_hides_a_line_is_refused_and_never_downloaded(tmp_path):
    # `coding: utf_7` on the script's second line makes Python decode `+AAo-` as a line break: the Chinese reader's
    # `python u7.py` would run `x = 42`, which the build, reading UTF-8, never ran
    example = example_at(tmp_path, HIDDEN, "set x: 'coding: utf_7'\none: +AAo-x = 42\n")
    write_downloads(tmp_path / "downloads", [(example, Result(), None)], lang="zh")
    ran = subprocess.run([sys.executable, tmp_path / "downloads" / "demo.py"], capture_output=True, text=True)
    assert ran.stdout == "1\n", ran.stderr
    assert comments.refused(example, "zh") == (
        "examples/demo.zh.yml:1: the translation of 'set x' declares an encoding ('coding: utf_7'), which changes how "
        "Python reads the whole script: write it without `coding:` or `coding=`",
    )
    assert comments.translated(example, "zh") is example and comments.problems(example, "zh") == []
    with pytest.raises(SiteError, match=r"1 translation\(s\) of comments refused.*\nexamples/demo\.zh\.yml:1: "):
        comments.refuse([example], ["en", "zh"])


@pytest.mark.parametrize("words", ['"a\\nx = 42"', '"a\\rx = 42"', '"a\\vb"', '"a\\fb"', '"a\\x1cb"', '"a\\x1eb"',
                                   '"a\\x85b"', '"a\\u2028x = 42"', '"a\\u2029x = 42"'])  # fmt: skip
def test_a_translated_comment_with_a_line_break_is_refused(tmp_path, words):
    example = example_at(tmp_path, translation=f"make a tensor: {words}\ntwo ones: 两个 1\n")
    [why] = comments.refused(example, "zh")
    assert why.startswith("examples/demo.zh.yml:1: the translation of 'make a tensor' holds a line break (U+")
    assert comments.translated(example, "zh") is example  # nothing of the file is used


@pytest.mark.parametrize("char", ["\u202e", "\u2066", "\u200f", "\u061c", "\u200b", "\ufeff"])
def test_a_translation_with_an_invisible_formatting_character_is_refused(tmp_path, char):
    example = example_at(tmp_path, translation=f"make a tensor: 建一个张量\ntwo ones: 两个{char} 1\n")
    [why] = comments.refused(example, "zh")
    assert why.startswith(f"examples/demo.zh.yml:2: holds the invisible character U+{ord(char):04X} (")
    assert comments.translated(example, "zh") is example


def test_an_examples_coding_declaration_is_no_comment_to_translate(tmp_path):
    source = "# -*- coding: utf-8 -*-\n# %% first\nx = 1  # vim: set fileencoding=utf-8 :\n"
    assert comments.comments(example_at(tmp_path, source, None)) == []


SECRET = '{"aws_access_key_id": "AKIAFIXTURE", "aws_secret_access_key": "fixture-secret-value"}\n'


def test_a_translation_that_links_elsewhere_is_never_read(tmp_path):
    outside = tmp_path / "home" / "credentials.json"
    outside.parent.mkdir()
    outside.write_text(SECRET)
    (tmp_path / "examples").mkdir()
    source = "# %% first\nx = 1  # aws_secret_access_key\n"
    example = example_at(tmp_path / "examples", source, None)
    comments.file_of(example, "zh").symlink_to(outside)
    shown = comments.translated(example, "zh").source + runnable_script(example, lang="zh") + str(
        notebook(example, lang="zh")
    )
    assert "fixture-secret" not in shown and "AKIA" not in shown
    [why] = comments.refused(example, "zh")
    assert why == f"examples/demo.zh.yml: is a symbolic link (to {outside}): put the file itself there"


REFUSE_IN_1_GIB = """\
import pathlib, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
from mkdocs_examples.source import comments
from mkdocs_examples.source.cells import Example
example = Example.from_source("demo.py", pathlib.Path(sys.argv[1]), "# %%\\nx = 1  # one\\n")
print(comments.refused(example, "zh"))
"""


def test_a_translation_that_links_to_dev_zero_is_refused_at_once(tmp_path):
    # In a process of its own with 1 GiB of address space: reading /dev/zero fails there, and never exhausts the machine
    (tmp_path / "demo.zh.yml").symlink_to("/dev/zero")
    ran = subprocess.run([sys.executable, "-c", REFUSE_IN_1_GIB, tmp_path / "demo.py"], capture_output=True, text=True,
                         timeout=30)  # fmt: skip
    said = "('examples/demo.zh.yml: is a symbolic link (to /dev/zero): put the file itself there',)\n"
    assert ran.stdout == said, ran.stderr[-2000:]


def test_the_comments_of_a_cell_read_again_are_not_tokenized_again_and_keep_their_lines(monkeypatch):
    tokenized: list[str] = []
    generate = tokenize.generate_tokens
    monkeypatch.setattr(comments.tokenize, "generate_tokens",
                        lambda readline: (tokenized.append("cell"), generate(readline))[1])  # fmt: skip
    cell = f"x = 1  # a comment seen once {uuid.uuid4().hex}\n"
    first = Example.from_source("a.py", Path("/x/a.py"), f"# %% one\n{cell}")
    moved = Example.from_source("a.py", Path("/x/a.py"), f"# %% zero\ny = 0\n\n# %% one\n{cell}")  # `serve`: edited
    assert [c.line for c in comments.comments(first)] == [2]
    assert len(tokenized) == 1
    assert [c.line for c in comments.comments(moved)] == [5]  # the same cell, lower in the file
    assert len(tokenized) == 2  # the new cell's alone


# --- English inside strings: a child's script and docstrings, translated in what readers download -------------------

CHILD = '''\
# %% first
import subprocess
import sys


def run(code):
    """Run `code` in a child; \\
return its output"""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout


script = """
x = 1  # one
print(x)  # print it, \\
then stop
s = "# not a comment"
"""
print(run(script), end="")
'''
CHILD_YAML = """\
'Run `code` in a child; return its output': 在子进程中运行 `code`；返回它的输出
one: 一
print it, then stop: 打印出来，然后结束
"""


def test_comments_in_a_childs_script_and_docstrings_are_translated_in_downloads_alone(tmp_path):
    example = example_at(tmp_path, CHILD, CHILD_YAML)
    assert comments.translated(example, "zh").source == CHILD  # the page shows the strings that ran
    assert comments.problems(example, "zh") == []
    zh = comments.for_download(example, "zh")
    assert '    """在子进程中运行 `code`；返回它的输出"""\n' in zh.source
    assert 'x = 1  # 一\nprint(x)  # 打印出来，然后结束\ns = "# not a comment"\n' in zh.source  # continued: one line
    assert [t for t in code_tokens(zh.source) if t[0] != tokenize.STRING] == [
        t for t in code_tokens(CHILD) if t[0] != tokenize.STRING
    ]
    assert [c.name for c in zh.cells] == [c.name for c in example.cells]
    assert comments.for_download(example, "en") is example
    write_downloads(tmp_path / "downloads", [(example, Result(), None)], lang="zh")
    script = (tmp_path / "downloads" / "demo.py").read_text(encoding="utf-8")
    assert "# 打印出来，然后结束" in script and "print it" not in script and "Run `code`" not in script
    ran = subprocess.run([sys.executable, tmp_path / "downloads" / "demo.py"], capture_output=True, text=True)
    assert ran.stdout == "1\n", ran.stderr  # the child ran the translated script
    cells = (tmp_path / "downloads" / "demo.ipynb").read_text(encoding="utf-8")
    assert "# 一" in cells and "# one" not in cells


def test_english_in_strings_without_a_translation_is_listed_and_templated(tmp_path):
    example = example_at(tmp_path, CHILD, "one: 一\n")
    assert comments.problems(example, "zh") == [
        "examples/demo.py:7: docstring 'Run `code` in a child; return its output' has no zh translation; run "
        "`make comments` to add it to examples/demo.zh.yml, then write its translation there",
        "examples/demo.py:14: comment in a string 'print it, then stop' has no zh translation; run `make comments` "
        "to add it to examples/demo.zh.yml, then write its translation there",
    ]
    assert comments.template(example, "zh") == (
        "# examples/demo.py: its comments in zh, by their English text (`make comments` adds new ones)\n"
        "Run `code` in a child; return its output: ''\none: 一\nprint it, then stop: ''\n"
    )
    assert "# 一" in comments.for_download(example, "zh").source  # what is there is used; the rest stays English


@pytest.mark.parametrize("words", ["'一 \\ 二'", "'说 \"一\"'"])
def test_a_string_translation_with_a_backslash_or_the_strings_quote_is_never_used(tmp_path, words):
    # `\` would start an escape, `"` could end the string: the script the reader runs would not be the one shown
    example = example_at(tmp_path, CHILD, f"{CHILD_YAML}print it, then stop: {words}\n".replace(
        "print it, then stop: 打印出来，然后结束\n", ""))  # fmt: skip
    zh = comments.for_download(example, "zh")
    assert "# print it, \\\nthen stop" in zh.source and "# 一\n" in zh.source
    [said] = comments.problems(example, "zh")
    assert said.startswith("examples/demo.zh.yml:3: the translation of 'print it, then stop' (comment in a string")
    assert "which would change the string it is in" in said


def test_real_downloads_differ_from_the_page_in_the_english_of_strings_alone():
    # The one form whose keys change (its strings' values do): nothing reads a download's keys, its outputs
    # follow its cells by their order; so its cells, names and every token but the strings are the page's
    english = []
    for file in sorted(EXAMPLES.rglob("[!_]*.py")):
        path = file.relative_to(EXAMPLES).as_posix()
        example = Example.from_source(path, file, file.read_text(encoding="utf-8"))
        page, download = comments.translated(example, "zh"), comments.for_download(example, "zh")
        assert [c.name for c in download.cells] == [c.name for c in page.cells], path
        assert [t for t in code_tokens(download.source) if t[0] not in (tokenize.STRING, tokenize.NL)] == [
            t for t in code_tokens(page.source) if t[0] not in (tokenize.STRING, tokenize.NL)
        ], path
        english += [f"{path}:{s.line}: {s.text}" for s in comments.in_strings(download) if not CJK.search(s.text)]
    assert not english, english


CJK = re.compile(r"[\u4e00-\u9fff]")


def english_in_strings(path: str, source: str) -> list[str]:
    """The comments and docstrings of ``source`` that a string holds in English (no Chinese character)."""
    example = Example.from_source(path, EXAMPLES / path, source)
    return [f"{path}:{s.line}: {s.text}" for s in comments.in_strings(example) if not CJK.search(s.text)]


@pytest.mark.parametrize(("path", "page"), [("devices/visible_devices", "devices/visible-devices"),
                                            ("errors/cuda_errors", "errors/cuda")])  # fmt: skip
def test_the_built_chinese_downloads_hold_no_english_in_strings(real_site, path, page):
    site, _ = real_site
    english = (site / "downloads" / f"{path}.py").read_text(encoding="utf-8")
    assert english_in_strings(f"{path}.py", english)  # the English download: the strings as they ran
    script = (site / "zh" / "downloads" / f"{path}.py").read_text(encoding="utf-8")
    assert english_in_strings(f"{path}.py", script) == []
    cells = json.loads((site / "zh" / "downloads" / f"{path}.ipynb").read_text(encoding="utf-8"))["cells"]
    notebook_source = "".join(f"# %%\n{c['source']}\n" for c in cells if c["cell_type"] == "code")
    assert "Run `" not in notebook_source and english_in_strings(f"{path}.py", notebook_source) == []
    shown = (site / "zh" / page / "index.html").read_text(encoding="utf-8")
    assert "Run `" in html.unescape(re.sub(r"<[^>]+>", "", shown))  # the page shows the docstring as it ran
