"""What the pages, comments and notes say, checked where no example can: the Chinese wording rules of
CONTRIBUTING.md ("Language") and the template's own sentences, which a page must replace.

    python tools/wording.py     # every problem, one a line; exit status 1 when there is one

The strict build runs these checks (tools/build_checks.py), and so does `make test`
(tests/test_content.py): a page with a wrong word or a sentence of the template fails both.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from new_page import INDEX_LINES

from mkdocs_examples import yaml_files
from mkdocs_examples.source.cells import is_code, split_chunks

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = Path(__file__).resolve().parent / "templates"

# The glossary's Chinese term for a concept (a cell of docs/zh/glossary.md), and the other words for it
# that Chinese text has used and must not: the pages (but the glossary, which names them), the Chinese
# comments of the examples (examples/<path>.zh.yml) and their Chinese notes (`# %% [markdown] lang="zh"`)
VARIANTS = {
    "batch（批次）": [r"批次", r"批量"],  # the glossary keeps "batch"; 批次 only explains it
    "滑动统计量": [r"移动平均统计量", r"运行时?统计量", r"滑动平均统计量"],
    "锁页内存": [r"页锁定内存", r"固定内存"],
    "设备编号": [r"(?:设备|GPU|显卡|device)[^，。；：、（）`\n]{0,6}索引"],
}
_VARIABLE = re.compile(r"\$\w+|\$\{\w+\}")  # a value make page fills in
_SHORTEST = 25  # characters: a shorter piece of a template's sentence ("Pages in this section:") is anyone's words


def prose(page: Path) -> list[tuple[int, str]]:
    """The lines of ``page`` that readers read as text: no fenced code, code spans, link targets
    or example blocks."""
    lines, fenced = [], False
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced or line.lstrip().startswith("///"):
            continue
        text = re.sub(r"`[^`]*`", "", line)
        lines.append((number, re.sub(r"\]\([^)]*\)", "]", text)))
    return lines


def zh_pages(docs: Path) -> list[Path]:
    return sorted((docs / "zh").rglob("*.md"))


def loss_in_chinese(docs: Path) -> list[str]:
    """Chinese prose that says "loss" where the glossary says 损失."""
    return [
        f"docs/{page.relative_to(docs)}:{n}: {line.strip()[:60]} (the glossary says 损失)"
        for page in zh_pages(docs)
        if page.name != "glossary.md"
        for n, line in prose(page)
        if re.search(r"\bloss(es)?\b", line, re.IGNORECASE)
    ]


def chinese_texts(root: Path) -> list[tuple[str, str]]:
    """Every Chinese text readers read, as (where, text): page prose, example comments, example notes."""
    docs = root / "docs"
    texts = [(f"docs/{page.relative_to(docs)}:{n}", line)
             for page in zh_pages(docs) if page.name != "glossary.md" for n, line in prose(page)]  # fmt: skip
    for comments in sorted((root / "examples").rglob("*.zh.yml")):
        for english, chinese in (yaml_files.load(comments) or {}).items():
            texts.append((f"{comments.relative_to(root)}: {english!r}", re.sub(r"`[^`]*`", "", str(chinese))))
    for example in sorted((root / "examples").rglob("*.py")):
        note = False
        for n, line in enumerate(example.read_text(encoding="utf-8").splitlines(), start=1):
            if line.startswith("# %%"):
                note = line.startswith('# %% [markdown] lang="zh"')
            elif note:
                texts.append((f"{example.relative_to(root)}:{n}", re.sub(r"`[^`]*`", "", line)))
    return texts


def variants(texts: list[tuple[str, str]]) -> list[str]:
    """Each other word for a glossary term, where it is written."""
    return [
        f"{where}: {match[0]!r} (the glossary says {term})"
        for where, text in texts
        for term, patterns in VARIANTS.items()
        for pattern in patterns
        for match in re.finditer(pattern, text)
    ]


def ascii_quotes(docs: Path) -> list[str]:
    """Chinese prose that quotes a message in ASCII quotes instead of code font."""
    return [
        f"docs/{page.relative_to(docs)}:{n}: {m[0]} (a message goes in code font, not in quotes)"
        for page in zh_pages(docs)
        for n, line in prose(page)
        if not line.lstrip().startswith("!!!")
        for m in re.finditer(r'"[A-Za-z][^"]*"', line)
    ]


def mistake_boxes(docs: Path) -> list[str]:
    """Chinese twins whose "Common mistake" boxes are not 易错点 boxes, one for one."""
    found = []
    for page in zh_pages(docs):
        twin = docs / "en" / page.relative_to(docs / "zh")
        if not twin.is_file():
            continue  # tools/twins.py names the missing twin
        text = page.read_text(encoding="utf-8")
        english = re.findall(r'^\s*!!! warning "Common mistake\b', twin.read_text(encoding="utf-8"), re.M)
        chinese = re.findall(r'^\s*!!! warning "易错点[："]', text, re.M)
        if len(english) != len(chinese):
            found.append(f"docs/{page.relative_to(docs)}: {len(chinese)} `!!! warning \"易错点：…\"` box(es) for the "
                         f"{len(english)} \"Common mistake\" box(es) of its English twin")  # fmt: skip
        if re.search(r"^#+ .*常见错误|!!! \w+ \"常见错误", text, re.M):
            found.append(f"docs/{page.relative_to(docs)}: a \"Common mistake\" box is `!!! warning \"易错点：…\"`")
    return found


def template_sentences(templates: Path = TEMPLATES) -> dict[str, str]:
    """The placeholder sentences `make page` writes, each with where it comes from: the sentences of the
    templates' prose and notes (the pieces between the values it fills in), and the index pages' line."""
    found: dict[str, str] = {}
    for template in sorted(templates.iterdir()):
        text = template.read_text(encoding="utf-8")
        if template.suffix == ".py":  # its notes for notebook readers, not its code and comments
            lines = [line.lstrip("# ") for _, header, chunk in split_chunks(text) if not is_code(header)
                     for line in chunk]  # fmt: skip
        elif template.suffix == ".md":  # its prose, not its headings and example blocks
            lines = [line for line in text.splitlines() if not line.startswith("///") and not re.match(r"#+ ", line)]
        else:
            continue
        kept = "\n".join(lines)
        for piece in _VARIABLE.split(" ".join(kept.split())):
            for sentence in re.split(r"(?<=[.。：:])\s*", piece):
                sentence = sentence.strip(" -[]()")
                if len(sentence) >= _SHORTEST or len(re.findall("[\u4e00-\u9fff]", sentence)) >= 10:
                    found.setdefault(sentence, template.name)
    for line in INDEX_LINES.values():
        found.setdefault(line, "tools/new_page.py")
    return found


def placeholders(root: Path, templates: Path = TEMPLATES) -> list[str]:
    """Each line of a page, an index page or an example's note that still holds a sentence of the template."""
    sentences = template_sentences(templates)
    found = []
    files = sorted((root / "docs").rglob("*.md")) + sorted((root / "examples").rglob("*.py"))
    for file in files:
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
            folded = " ".join(line.split())
            template = next((where for sentence, where in sentences.items() if sentence[:40] in folded), None)
            if template:
                found.append(f"{file.relative_to(root)}:{number}: still the template's words ({template}): "
                             "replace them with the page's own")  # fmt: skip
    return found


def problems(root: Path = ROOT) -> list[str]:
    """Every problem of the wording and of leftover template sentences, one message each."""
    docs = root / "docs"
    return [*loss_in_chinese(docs), *variants(chinese_texts(root)), *ascii_quotes(docs), *mistake_boxes(docs),
            *placeholders(root)]  # fmt: skip


def main() -> int:
    found = problems()
    print("\n".join(found) if found else "the wording of every page, comment and note follows the rules")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
