"""The repository's manuals: a short README that links one manual per audience, every link and
anchor among them resolving, and every pointer to a manual's section naming one that exists.

The built site's links are checked by tools/links.py; these are the Markdown files GitHub shows."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ENGINE = "src/mkdocs_examples/README.md"
MANUALS = ["README.md", "CONTRIBUTING.md", "MAINTAINING.md", ENGINE, "bench/README.md"]
REPOSITORY = "https://github.com/pytorch-tips/pytorch-tips/blob/main/"  # the engine's manual links so, for PyPI

_FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _prose(text: str) -> str:
    """The Markdown without its fenced blocks (a `# %%` line of an example is no heading) and code spans."""
    return re.sub(r"`[^`\n]+`", "", _FENCE.sub("", text))


def _headings(path: Path) -> list[str]:
    return [m[1].strip() for m in re.finditer(r"^#{1,6} (.+)$", _FENCE.sub("", path.read_text(encoding="utf-8")), re.M)]


def _anchors(path: Path) -> set[str]:
    """The anchors GitHub gives a file's headings: lower case, punctuation dropped, spaces as hyphens."""
    seen: dict[str, int] = {}
    anchors = set()
    for heading in _headings(path):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        anchors.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
        seen[slug] = seen.get(slug, 0) + 1
    return anchors


def test_the_readme_is_short_with_both_commands_on_its_first_screen():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 160
    first_screen = "\n".join(lines[:25])
    assert "make build" in first_screen and "make test" in first_screen
    assert "https://pytorch-tips.github.io/pytorch-tips/" in first_screen  # the site's address: site_url
    assert "```mermaid" in "\n".join(lines)  # the pipeline, drawn


def test_the_readme_links_a_manual_for_each_audience():
    links = set(_LINK.findall((ROOT / "README.md").read_text(encoding="utf-8")))
    assert {"CONTRIBUTING.md", "MAINTAINING.md", ENGINE} <= links
    for manual in MANUALS:
        assert (ROOT / manual).is_file(), manual


@pytest.mark.parametrize("manual", MANUALS)
def test_every_link_of_a_manual_reaches_a_file_and_its_anchor(manual):
    source = ROOT / manual
    broken = []
    for target in _LINK.findall(_prose(source.read_text(encoding="utf-8"))):
        if target.startswith(REPOSITORY):
            path, anchor = (ROOT / target.removeprefix(REPOSITORY)).as_posix(), ""
            path, _, anchor = path.partition("#")
        elif target.startswith(("http://", "https://", "mailto:")):
            continue
        else:
            relative, _, anchor = target.partition("#")
            path = (source.parent / relative).as_posix() if relative else source.as_posix()
        file = Path(path)
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in _anchors(file):
            broken.append(f"{target}: no such heading")
    assert broken == []


# A pointer to a section: `MAINTAINING.md, "CUDA outputs"`, `(src/mkdocs_examples/README.md: "Where it runs")`,
# `README of mkdocs_examples, "Templates are sandboxed"`; a bare "README" inside the engine is its own manual.
_POINTER = re.compile(
    r"(?P<file>src/mkdocs_examples/README\.md|README of mkdocs_examples|MAINTAINING\.md|CONTRIBUTING\.md|README\.md"
    r"|README(?:'s)?)[,:]?\s+\(?\\?\"(?P<heading>[A-Z][^\"\\]+)"
)
_FILES = ["Makefile", "mkdocs.yml", "pyproject.toml", ".github/**/*", "hooks/*.py", "tools/*.py", "tests/*.py",
          "src/mkdocs_examples/**/*.py", *MANUALS]


def test_every_pointer_to_a_section_names_a_heading_of_that_manual():
    wrong = []
    for pattern in _FILES:
        for file in sorted(ROOT.glob(pattern)):
            if not file.is_file() or file == Path(__file__).resolve():
                continue
            for match in _POINTER.finditer(file.read_text(encoding="utf-8", errors="replace")):
                name = match["file"]
                if name in ("README", "README's"):
                    inside_engine = file.is_relative_to(ROOT / "src" / "mkdocs_examples")
                    name = ENGINE if inside_engine else "README.md"
                manual = ROOT / (ENGINE if name == "README of mkdocs_examples" else name)
                heading = " ".join(re.sub(r"\n\s*#", " ", match["heading"]).split())  # a comment over lines
                if not any(h.startswith(heading) for h in _headings(manual)):
                    wrong.append(f"{file.relative_to(ROOT)}: {match[0]!r} names no heading of {name}")
    assert wrong == []
