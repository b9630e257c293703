"""examples-cjk (src/mkdocs_examples/site/cjk.py): a line break between two Chinese characters shows no space."""

from __future__ import annotations

from pathlib import Path

import markdown
import pytest

from mkdocs_examples.site import cjk

ROOT = Path(__file__).parent.parent


def html(text: str) -> str:
    extensions = ["admonition", "pymdownx.superfences", cjk.CJKLineBreaks()]
    return markdown.markdown(text, extensions=extensions)


@pytest.mark.parametrize(
    ("source", "shown"),
    [
        ("中文的句子\n接着写", "<p>中文的句子接着写</p>"),
        ("句号之后。\n“引号”开头", "<p>句号之后。“引号”开头</p>"),  # CJK and shared punctuation
        ("逗号，\n（括号）", "<p>逗号，（括号）</p>"),
        ("中文\n[《链接》](x.md)", '<p>中文<a href="x.md">《链接》</a></p>'),  # across an element
        ("**加粗**\n中文", "<p><strong>加粗</strong>中文</p>"),
        ("- 列表项\n  的第二行", "<ul>\n<li>列表项的第二行</li>\n</ul>"),
        ('!!! note "说明"\n    框里\n    的文字', '<p class="admonition-title">说明</p>\n<p>框里的文字</p>'),
    ],
)  # fmt: skip
def test_a_break_between_chinese_characters_goes(source, shown):
    assert shown in html(source)


@pytest.mark.parametrize(
    ("source", "shown"),
    [
        ("English words\non two lines", "<p>English words\non two lines</p>"),
        ("中文\nPyTorch 中文", "<p>中文\nPyTorch 中文</p>"),  # a Latin word keeps its space
        ("中文\n`code` 中文", "<p>中文\n<code>code</code> 中文</p>"),
        ("数字\n1 个", "<p>数字\n1 个</p>"),
        ("“quoted”\nEnglish", "<p>“quoted”\nEnglish</p>"),  # shared punctuation alone: kept
        ("第一段\n\n第二段", "<p>第一段</p>\n<p>第二段</p>"),
        ("- 第一项\n- 第二项", "<li>第一项</li>\n<li>第二项</li>"),
        ("```text\n代码\n里的\n换行\n```", "代码\n里的\n换行"),
    ],
)  # fmt: skip
def test_everything_else_is_left_alone(source, shown):
    assert shown in html(source)


def test_a_code_span_over_two_lines_is_left_alone():
    assert "<code>中文\n中文</code>" in html("`中文\n中文`")


def test_the_plugin_registers_the_extension_once():
    class Config:
        def __init__(self) -> None:
            self.markdown_extensions: list = ["toc"]

    config = Config()
    plugin = cjk.CJKPlugin()
    plugin.on_config(plugin.on_config(config))
    assert [type(e).__name__ for e in config.markdown_extensions] == ["str", "CJKLineBreaks"]


def test_a_notes_chinese_lines_are_one_line_where_a_browser_would_show_a_space():
    from mkdocs_examples.cjk import unwrap

    note = "张量的 `grad` 只在叶子节点上，\n  保留中间结果要调用 `retain_grad()`。\n\n- 第一项，\n- 第二项\n"
    joined = "张量的 `grad` 只在叶子节点上，保留中间结果要调用 `retain_grad()`。"
    assert unwrap(note) == joined + "\n\n- 第一项，\n- 第二项\n"
    assert unwrap("torch\nversion, 中文\nEnglish") == "torch\nversion, 中文\nEnglish"  # a Latin side keeps its break
    assert unwrap("```\n中文，\n代码\n```") == "```\n中文，\n代码\n```"  # code keeps its lines


# --- one definition of the CJK ranges, for the engine and every hook ------------------------------------------

# Outside the Basic Multilingual Plane: Extension B, Extension C (U+2A700), a compatibility supplement ideograph
# (U+2F800) and Extension G (U+30000)
RARE = ["\U00020000", "\U0002a700", "\U0002f800", "\U00030000"]


@pytest.mark.parametrize("character", [*RARE, "\u3400", "\u4e00", "\uf900", "\u300a", "\uff1f", "\u3002", "\u3042"])
def test_every_cjk_block_is_cjk_for_a_break(character):
    from mkdocs_examples.cjk import joins

    assert joins("中", character) and joins(character, "中")


def test_a_pages_description_joins_a_broken_line_as_its_page_does():
    from mkdocs_examples.site import pages

    text = "# 标题\n\n这样写对吗？\n《手册》这样说\n“引号”也是，\n𪜀字也是。 Latin words keep their space\n"
    joined = "这样写对吗？《手册》这样说“引号”也是，𪜀字也是。 Latin words keep their space"
    assert pages._first_paragraph(text) == joined


@pytest.mark.parametrize("character", RARE)
def test_search_separates_latin_letters_from_every_han_ideograph(character):
    from mkdocs_examples.site import search

    assert search._apart(f"KL{character}散度") == f"KL{search.SEGMENT_BREAK}{character}散度"
