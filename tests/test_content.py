"""What the pages say, checked where no example can: one word for one thing in Chinese,
no stale claims beside GPU outputs, quoted messages in code font, no stray spaces in
Chinese text on the built pages, and the runner the multi-GPU examples are recorded on."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from mkdocs_examples import yaml_files

sys.path.insert(0, str(Path(__file__).parent.parent / "tools"))
import wording
from wording import VARIANTS, prose

ROOT = Path(__file__).parent.parent
DOCS = ROOT / "docs"
CJK = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
BLOCK = re.compile(
    r"</?(?:p|li|ul|ol|dl|dt|dd|div|h[1-6]|table|thead|tbody|tr|td|th|blockquote|details|summary|nav|header"
    r"|footer|section|article|main|aside|figure|form|label|input|button|select|option|br|hr|img)\b[^>]*>"
)


def test_chinese_prose_never_says_loss():
    assert not (found := wording.loss_in_chinese(DOCS)), "\n".join(found)


def test_chinese_text_uses_the_glossarys_one_term_for_each_concept():
    glossary = (DOCS / "zh" / "glossary.md").read_text(encoding="utf-8")
    for term in VARIANTS:  # each is the glossary's own term, in the first column of its row
        assert f"\n| {term} |" in glossary, f"{term} is not a term of docs/zh/glossary.md"
    texts = wording.chinese_texts(ROOT)
    assert len(texts) > 1000  # the pages, comments and notes were all read
    assert not (found := wording.variants(texts)), "\n".join(found)


def test_the_variants_are_found_where_they_are_written():
    """The patterns match the words they stand for, and not the glossary's own terms."""
    for term, patterns in VARIANTS.items():  # the term itself, without what explains it in brackets
        assert not any(re.search(pattern, term.split("（")[0]) for pattern in patterns), term
    patterns = [pattern for variants in VARIANTS.values() for pattern in variants]
    for variant in ("一个批次", "批量大小", "移动平均统计量", "运行统计量", "页锁定内存", "GPU 的索引"):
        assert any(re.search(pattern, variant) for pattern in patterns), variant
    for variant in ("张量的 device 总是带有索引", "显卡的索引"):
        assert any(re.search(pattern, variant) for pattern in patterns), variant
    for right in ("设备编号", "高级索引", "用 None 做索引", "锁页内存", "滑动统计量"):
        assert not any(re.search(pattern, right) for pattern in patterns), right


def test_the_errors_section_and_the_common_mistake_boxes_have_different_names_in_chinese():
    config = yaml_files.load(ROOT / "mkdocs.yml")
    i18n = next(p["i18n"] for p in config["plugins"] if isinstance(p, dict) and "i18n" in p)
    section = next(lang for lang in i18n["languages"] if lang["locale"] == "zh")["nav_translations"]["Errors"]
    assert not (found := wording.mistake_boxes(DOCS)), "\n".join(found)  # each "Common mistake" box: 易错点
    assert section != "易错点" and "常见错误" not in section
    assert f"\n# {section}\n" in (DOCS / "zh/errors/index.md").read_text(encoding="utf-8")


def test_convolution_parameters_are_in_code_font_throughout_the_chinese_page():
    page = DOCS / "zh/modules/convolution.md"
    bare = [(n, line) for n, line in prose(page) if re.search(r"\b(padding|dilation|stride)\b", line)]
    assert not bare, bare


def test_no_page_says_a_gpu_cell_was_not_run_where_a_recording_is_shown():
    stale = re.compile(r"not run here|was not run|were not run|could not be reproduced|没有运行|无法复现")
    pages = sorted(DOCS.rglob("*.md"))
    found = [f"{p.relative_to(DOCS)}:{n}" for p in pages for n, line in prose(p) if stale.search(line)]
    assert not found, found


def test_chinese_prose_quotes_messages_in_code_font_not_ascii_quotes():
    assert not (found := wording.ascii_quotes(DOCS)), "\n".join(found)


def test_no_page_or_note_keeps_a_sentence_of_the_template():
    assert not (found := wording.placeholders(ROOT)), "\n".join(found)


def test_the_template_sentences_are_found_where_make_page_writes_them(tmp_path):
    """Each page `make page` starts, and its example's notes, hold sentences of the template until replaced."""
    for name in ("page.en.md", "page.zh.md", "index.en.md", "index.zh.md", "example.py"):
        text = (wording.TEMPLATES / name).read_text(encoding="utf-8").replace("$title_zh", "独热").replace("$", "")
        (tmp_path / "docs").mkdir(exist_ok=True)
        (tmp_path / "docs" / name.replace(".py", ".md")).write_text(text, encoding="utf-8")
    (tmp_path / "docs" / "index.md").write_text("- [One-hot](one-hot.md): one line on what the page shows.\n")
    found = wording.placeholders(tmp_path)
    assert {line.partition(":")[0] for line in found} == {
        "docs/page.en.md", "docs/page.zh.md", "docs/index.en.md", "docs/index.zh.md", "docs/example.md",
        "docs/index.md",
    }  # fmt: skip


def test_the_multi_gpu_examples_are_recorded_on_a_runner_with_two_gpus():
    config = yaml_files.load(ROOT / "mkdocs.yml")
    examples = next(p["examples"] for p in config["plugins"] if isinstance(p, dict) and "examples" in p)
    pins = examples["record"]["pins"]
    for path in ("devices/data_parallel.py", "devices/device_basics.py", "devices/visible_devices.py"):
        assert pins.get(path) == "gpu-2x", path
        assert (ROOT / "examples" / path).is_file()


def test_chinese_text_broken_over_lines_has_no_stray_space_on_any_built_page(real_site):
    site, _ = real_site
    pages = sorted((site / "zh").rglob("*.html"))  # the pages, the notebook views and the 404 template
    assert len(pages) > 50
    found = {}
    for page in pages:
        html = page.read_text(encoding="utf-8")
        text = re.sub(r"<(pre|code|script|style|svg)\b.*?</\1>", "\x01", html, flags=re.S)  # code: no CJK
        text = BLOCK.sub("\0", text)  # a break between two blocks is no space within a sentence
        text = re.sub(r"<[^>]+>", "", text)
        if broken := re.findall(f"[{CJK}][ \\t]*\\n[ \\t]*[{CJK}]", text):
            found[page.relative_to(site).as_posix()] = broken[:3]
        if page.name == "index.html" and page.parent == site / "zh":
            assert "构建就会失败，直到页面被改正为止。" in text
    assert not found, found
