"""Check that every page has its twin in the other language, embedding the same cells.

    python tools/twins.py                # the check; exit status 1 when something is wrong
    python tools/twins.py --markdown     # the same as Markdown, for a CI job summary

A page ``docs/en/<path>.md`` has its twin ``docs/zh/<path>.md``. Twins show the same
outputs, so they embed the same cells (``/// example | file.py#cell``) in the same order;
only the prose around them is written for each language. The languages are read from
mkdocs.yml's i18n plugin (the default language first).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

from mkdocs_examples import yaml_files
from mkdocs_examples.source.blocks import find_blocks

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Report:
    languages: list[str]
    pages: int = 0
    missing: list[tuple[str, str]] = field(default_factory=list)  # (page, language it lacks)
    different: list[tuple[str, str, str]] = field(default_factory=list)  # (page, page, first difference)

    @property
    def ok(self) -> bool:
        return not self.missing and not self.different


def languages(config_file: Path) -> list[str]:
    config = yaml_files.load(config_file)  # safe: its !!python tags are read as None
    for plugin in config.get("plugins", []):
        if isinstance(plugin, dict) and "i18n" in plugin:
            found = plugin["i18n"].get("languages", [])
            return sorted((lang["locale"] for lang in found), key=lambda loc: not _default(found, loc))
    raise SystemExit(f"error: {config_file} configures no i18n plugin: there are no twins to check")


def _default(found: list[dict], locale: str) -> bool:
    return any(lang["locale"] == locale and lang.get("default") for lang in found)


def embedded(page: Path) -> list[str]:
    """The cells a page embeds, in order, as ``file.py#cell`` (``file.py`` for a whole file)."""
    return [name for name, _, _ in placed(page)]


def placed(page: Path) -> list[tuple[str, int, int]]:
    """The cells a page embeds, in order, each with the lines of its block's first and last line."""
    blocks = find_blocks(page.read_text(encoding="utf-8"))
    return [(b.path + (f"#{b.cell}" if b.cell else ""), b.start + 1, b.end + 1) for b in blocks]


def check(docs: Path, langs: list[str]) -> Report:
    report = Report(langs)
    found = {lang: {p.relative_to(docs / lang).as_posix() for p in (docs / lang).rglob("*.md")} for lang in langs}
    every = sorted(set().union(*found.values()))
    report.pages = len(every)
    for name in every:
        present = [lang for lang in langs if name in found[lang]]
        report.missing += [(f"docs/{present[0]}/{name}", lang) for lang in langs if lang not in present]
        first, *others = [(f"docs/{lang}/{name}", placed(docs / lang / name)) for lang in present]
        for other in others:
            if [c for c, _, _ in other[1]] != [c for c, _, _ in first[1]]:
                report.different.append((first[0], other[0], _first_difference(first, other)))
    return report


def text(report: Report) -> str:
    lines = [f"{page}: no twin in docs/{lang}/ (write it at the same path, embedding the same cells)"
             for page, lang in report.missing]  # fmt: skip
    for page, twin, difference in report.different:
        lines.append(f"{page} and {twin} embed different cells: {difference}")
    if report.ok:
        lines.append(f"{report.pages} pages, each in {' and '.join(report.languages)}, twins embed the same cells")
    return "\n".join(lines)


def markdown(report: Report) -> str:
    out = ["### Pages in both languages", ""]
    if report.ok:
        both = " and ".join(report.languages)
        out.append(f"All {report.pages} pages have their twin in {both}, embedding the same cells.")
        return "\n".join(out)
    if report.missing:
        out += ["**Pages without their twin**", ""]
        out += [f"- `{page}`: no `docs/{lang}/` twin" for page, lang in report.missing]
        out.append("")
    if report.different:
        out += ["**Twins that embed different cells** (they must show the same cells in the same order)", ""]
        out += [f"- `{page}` and `{twin}`: {difference}" for page, twin, difference in report.different]
    return "\n".join(out)


Placed = tuple[str, list[tuple[str, int, int]]]  # a page and the cells it embeds, each with its block's lines


def _first_difference(first: Placed, second: Placed) -> str:
    """Where two pages' embedded cells first differ, in words: the cell one of them lacks and the line it goes
    at, a cell only one of them embeds, or two cells in another order."""
    (page, cells), (twin, other) = first, second
    names, other_names = [c for c, _, _ in cells], [c for c, _, _ in other]
    i = next((i for i, (a, b) in enumerate(zip(names, other_names, strict=False)) if a != b),
             min(len(names), len(other_names)))  # fmt: skip
    for (has, mine), (lacks, theirs) in (((page, cells), (twin, other)), ((twin, other), (page, cells))):
        if i < len(mine) and mine[i][0] not in [c for c, _, _ in theirs[i:]]:
            cell, line, _ = mine[i]
            where = (f"before line {theirs[i][1]}" if i < len(theirs) else
                     f"after line {theirs[-1][2]}" if theirs else "where its prose says what it shows")  # fmt: skip
            return (f"{lacks} lacks {cell} ({has}:{line}): add `/// example | {cell}` and `///` to {lacks} {where}, "
                    f"or remove it from {has}")
    return (f"embedded cell {i + 1} is {names[i]} in {page} (line {cells[i][1]}) but {other_names[i]} in {twin} "
            f"(line {other[i][1]}): embed the cells in the same order")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print the report as Markdown (CI's job summary)")
    parser.add_argument("-f", "--config-file", type=Path, default=ROOT / "mkdocs.yml")
    args = parser.parse_args(argv)
    config = args.config_file.resolve()
    try:
        docs_dir = yaml_files.load(config).get("docs_dir", "docs")
        langs = languages(config)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    report = check(config.parent / docs_dir, langs)
    print(markdown(report) if args.markdown else text(report))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
