"""Start a page: its English and Chinese twins, its example, and its entry in the nav.

    make page PAGE=tensors/views                           # or: python tools/new_page.py tensors/views
    make page PAGE=tensors/views TITLE="Views and copies" TITLE_ZH="视图与副本"
    make page PAGE=sparse/basics SECTION=Sparse SECTION_ZH=稀疏张量   # a new section

writes ``docs/en/<section>/<name>.md``, ``docs/zh/<section>/<name>.md`` and
``examples/<section>/<name_with_underscores>.py`` from ``tools/templates/`` (a visible cell
and the hidden cell that checks it, as CONTRIBUTING.md asks), adds the page to ``nav`` in
mkdocs.yml after the last page of its section and a line for it to the section's index
pages. A new section gets index pages in both languages, a nav entry after the last
section and its Chinese name in ``nav_translations``. mkdocs.yml is edited as text, so its
comments stay. Nothing is written when anything is wrong, and the files are written all
together or not at all (``write_all``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Any
from urllib.parse import urlsplit

from mkdocs_examples import yaml_files

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = Path(__file__).resolve().parent / "templates"
# the line a new page gets in its section's index pages, until the contributor writes its own
INDEX_LINES = {"en": "one line on what the page shows.", "zh": "用一句话说明本页讲什么。"}
_SLUG = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
_TOP = re.compile(r"^(\s*)- ")


class Refused(Exception):
    """The page cannot be started as asked; the message says why and what to do."""


@dataclass
class Plan:
    files: dict[Path, str]  # path -> full new content (new files, edited index pages, mkdocs.yml)
    url: str  # where `make serve` shows the English page
    url_zh: str  # and where `make serve PREVIEW=zh` shows the Chinese one
    example: Path


def plan(root: Path, page: str, title: str = "", title_zh: str = "", section: str = "", section_zh: str = "") -> Plan:
    config_file = root / "mkdocs.yml"
    try:
        config = yaml_files.load(config_file)  # safe: its !!python tags are read as None
    except ValueError as error:
        raise Refused(str(error)) from None
    docs = root / config.get("docs_dir", "docs")
    section_name, name = _parse(page)
    if any("\n" in text for text in (title, title_zh, section, section_zh)):
        raise Refused("a title is one line: give TITLE, TITLE_ZH, SECTION and SECTION_ZH without line breaks")
    example = f"{section_name}/{name.replace('-', '_')}.py"
    title = title or name.replace("-", " ").capitalize()
    title_zh = title_zh or title
    values = {"title": title, "example": example}
    files = {
        docs / "en" / section_name / f"{name}.md": _fill("page.en.md", values),
        docs / "zh" / section_name / f"{name}.md": _fill("page.zh.md", {**values, "title": title_zh}),
        root / "examples" / example: _fill("example.py", {**values, "title_zh": title_zh}),  # both notes
        # its comments on Chinese pages (source/comments.py): the template's, translated
        root / "examples" / example.replace(".py", ".zh.yml"): _fill("example.zh.yml", values),
    }
    for path in files:
        if path.exists():
            raise Refused(f"{path.relative_to(root)} already exists: pick another PAGE, or edit that page")
    new_section = not (docs / "en" / section_name).is_dir()
    if new_section and not section_zh:
        raise Refused(
            f"{section_name}/ is a new section: name it in both languages, "
            f'e.g. make page PAGE={page} SECTION="Sparse tensors" SECTION_ZH=稀疏张量'
        )
    section = section or section_name.replace("-", " ").capitalize()
    for lang, line in (("en", f"- [{title}]({name}.md): {INDEX_LINES['en']}"),
                       ("zh", f"- [{title_zh}]({name}.md)：{INDEX_LINES['zh']}")):  # fmt: skip
        index = docs / lang / section_name / "index.md"
        if index.exists():
            files[index] = index.read_text(encoding="utf-8").rstrip("\n") + "\n" + line + "\n"
        else:
            section_title = section if lang == "en" else section_zh
            files[index] = _fill(f"index.{lang}.md", {"section": section_title}) + line + "\n"
    if "nav" in config:
        text = config_file.read_text(encoding="utf-8")
        entry = f"{section_name}/{name}.md"
        if entry in _nav_pages(config["nav"]):
            raise Refused(f"mkdocs.yml's nav already lists {entry}: remove that entry, or pick another PAGE")
        if new_section:
            text = _add_section(text, section, [f"{section_name}/index.md", entry])
            text = _add_translation(text, section, section_zh)
        else:
            text = _add_page(text, section_name, entry)
        after = yaml_files.loads(text, str(config_file))
        if entry not in _nav_pages(after.get("nav", [])):  # the text edit went wrong: say so, write nothing
            raise Refused(f"could not add {entry} to the nav of {config_file}: add it by hand")
        files[config_file] = text
    base = urlsplit(config.get("site_url") or "/").path.rstrip("/")
    url, path = f"http://127.0.0.1:8000{base}", f"{section_name}/{name}/"
    return Plan(files, f"{url}/{path}", f"{url}/zh/{path}", root / "examples" / example)


def _parse(page: str) -> tuple[str, str]:
    parts = page.strip().removesuffix(".md").split("/")
    if len(parts) != 2 or not all(_SLUG.fullmatch(p) for p in parts):
        raise Refused(
            f"PAGE={page!r} is not section/name: write it as `make page PAGE=tensors/views`, "
            "lowercase words joined by '-'"
        )
    if parts[1] == "index":
        raise Refused("index pages belong to their section: name the page after its subject")
    return parts[0], parts[1]


def _fill(template: str, values: dict[str, str]) -> str:
    return Template((TEMPLATES / template).read_text(encoding="utf-8")).substitute(values)


def _nav_pages(items: Any) -> list[str]:
    pages: list[str] = []
    for item in items if isinstance(items, list) else [items]:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        pages += _nav_pages(value) if isinstance(value, list) else [value]
    return pages


def _nav_lines(lines: list[str]) -> range:
    """The lines of the top-level ``nav:`` block."""
    start = next((i for i, line in enumerate(lines) if line.rstrip() == "nav:"), None)
    if start is None:
        raise Refused("mkdocs.yml has no top-level `nav:` block this tool can edit: add the page to the nav by hand")
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or lines[end][0] in " \t#"):
        end += 1
    return range(start + 1, end)


def _add_page(text: str, section: str, entry: str) -> str:
    lines = text.splitlines()
    found = [i for i in _nav_lines(lines) if re.fullmatch(rf"\s*- (?:.+: )?{re.escape(section)}/\S+\.md\s*", lines[i])]
    if not found:
        raise Refused(f"mkdocs.yml's nav has no pages of the section {section}: add {entry} to the nav by hand")
    last = found[-1]
    indent = lines[last][: len(lines[last]) - len(lines[last].lstrip())]
    lines.insert(last + 1, f"{indent}- {entry}")
    return "\n".join(lines) + "\n"


def _add_section(text: str, title: str, entries: list[str]) -> str:
    lines = text.splitlines()
    nav = _nav_lines(lines)
    items = [i for i in nav if lines[i].strip() and not lines[i].lstrip().startswith("#")]
    top = min(len(lines[i]) - len(lines[i].lstrip()) for i in items)
    starts = [i for i in items if len(lines[i]) - len(lines[i].lstrip()) == top]
    ends = [*starts[1:], items[-1] + 1]
    sections = [(s, e) for s, e in zip(starts, ends, strict=True) if e - s > 1]  # items with pages under them
    child = len(lines[sections[-1][0] + 1]) - len(lines[sections[-1][0] + 1].lstrip()) if sections else top + 4
    at = sections[-1][1] if sections else ends[-1]
    block = [f"{' ' * top}- {_scalar(title)}:"] + [f"{' ' * child}- {e}" for e in entries]
    return "\n".join(lines[:at] + block + lines[at:]) + "\n"


def _add_translation(text: str, title: str, translation: str) -> str:
    lines = text.splitlines()
    found = [i for i, line in enumerate(lines) if line.strip() == "nav_translations:"]
    if len(found) != 1:
        raise Refused(
            f"mkdocs.yml has {len(found)} `nav_translations:` blocks, not one: "
            f"add `{title}: {translation}` to the Chinese one by hand"
        )
    at = found[0]
    indent = len(lines[at]) - len(lines[at].lstrip())
    end = at + 1
    while end < len(lines) and lines[end].strip() and len(lines[end]) - len(lines[end].lstrip()) > indent:
        end += 1
    child = len(lines[at + 1]) - len(lines[at + 1].lstrip()) if end > at + 1 else indent + 2
    pair = f"{' ' * child}{_scalar(title)}: {_scalar(translation)}"
    return "\n".join([*lines[:end], pair, *lines[end:]]) + "\n"


def _scalar(text: str) -> str:
    """``text`` as a YAML mapping key or value: plain where YAML reads it back unchanged, else quoted."""
    try:
        plain = text.strip() == text and "#" not in text and yaml_files.loads(f"k: {text}") == {"k": text}
    except ValueError:
        plain = False
    return text if plain else json.dumps(text, ensure_ascii=False)


def write_all(files: dict[Path, str]) -> list[tuple[Path, str]]:
    """Write every file or none: each is written beside its target first, then all are moved in.

    The moves run with SIGINT and SIGTERM held back, and a move that fails puts back what the
    earlier ones replaced, so an error or a Ctrl-C never leaves a page without its nav entry.
    Returns each path with "created" or "edited".
    """
    staged: list[tuple[Path, Path, str | None]] = []  # target, its temporary file, its old content
    made: list[Path] = []  # folders created for new files, deepest last
    try:
        for path, content in files.items():
            for folder in reversed([path.parent, *path.parent.parents]):
                if not folder.exists():
                    folder.mkdir()
                    made.append(folder)
            old = path.read_text(encoding="utf-8") if path.exists() else None
            temporary = path.with_name(f".{path.name}.new-page")
            temporary.write_text(content, encoding="utf-8")
            staged.append((path, temporary, old))
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        moved: list[tuple[Path, str | None]] = []
        try:
            for path, temporary, old in staged:
                os.replace(temporary, path)
                moved.append((path, old))
        except BaseException:
            for path, old in reversed(moved):
                if old is None:
                    path.unlink()
                else:
                    path.write_text(old, encoding="utf-8")
            raise
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
    except BaseException:
        for _, temporary, _ in staged:
            temporary.unlink(missing_ok=True)
        for folder in reversed(made):
            shutil.rmtree(folder, ignore_errors=True)
        raise
    return [(path, "created" if old is None else "edited ") for path, _, old in staged]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page", help="section/name, e.g. tensors/views")
    parser.add_argument("--title", default="", help="the English title (default: from the name)")
    parser.add_argument("--title-zh", default="", help="the Chinese title (default: the English one)")
    parser.add_argument("--section", default="", help="a new section's English name (default: from the folder)")
    parser.add_argument("--section-zh", default="", help="a new section's Chinese name, for nav_translations")
    parser.add_argument("--root", type=Path, default=ROOT, help="the folder that holds mkdocs.yml")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    try:
        new = plan(root, args.page, args.title, args.title_zh, args.section, args.section_zh)
    except Refused as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        written = write_all(new.files)
    except OSError as error:
        print(f"error: {error}; nothing was written", file=sys.stderr)
        return 1
    for path, verb in written:
        print(f"{verb} {path.relative_to(root)}")
    example = new.example.relative_to(root)
    print(
        "\nNext: replace the template's words and code (CONTRIBUTING.md, 'Writing pages'), and the\n"
        "index lines that say 'one line'. See it while you write:\n"
        f"  make serve                 # then open {new.url}\n"
        f"  make serve PREVIEW=zh      # the Chinese twin: {new.url_zh}\n"
        f"  .venv/bin/python -m mkdocs_examples run {example} --show"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
