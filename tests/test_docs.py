"""The real site: both languages in step, and a strict build of everything."""

from __future__ import annotations

import logging
import platform
import sys
from importlib import metadata
from pathlib import Path

import yaml
from mkdocs.utils.yaml import get_yaml_loader  # mkdocs.yml has !ENV tags

from mkdocs_examples.source.blocks import find_blocks

ROOT = Path(__file__).parent.parent
DOCS = ROOT / "docs"
sys.path.insert(0, str(ROOT / "tools"))
import twins  # noqa: E402  (tools/twins.py: the check CI's summary and pre-commit run)


def pages(lang: str) -> set[str]:
    return {p.relative_to(DOCS / lang).as_posix() for p in (DOCS / lang).rglob("*.md")}


def test_every_page_has_its_twin_embedding_the_same_cells_in_the_same_order():
    report = twins.check(DOCS, twins.languages(ROOT / "mkdocs.yml"))
    assert report.languages == ["en", "zh"] and report.pages >= 5
    assert report.ok, twins.text(report)


def test_every_page_is_in_the_nav():
    def paths(items):
        for item in items:
            value = next(iter(item.values())) if isinstance(item, dict) else item
            yield from paths(value) if isinstance(value, list) else [value]

    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=get_yaml_loader())
    listed = list(paths(config["nav"]))
    assert sorted(listed) == sorted(pages("en")), "mkdocs.yml's nav and docs/en/ list different pages"


def test_every_example_is_embedded_somewhere():
    embedded = {
        b.path for lang in ("en", "zh") for p in (DOCS / lang).rglob("*.md") for b in find_blocks(p.read_text())
    }
    files = {p.relative_to(ROOT / "examples").as_posix() for p in (ROOT / "examples").rglob("*.py")}
    assert files <= embedded, f"examples no page shows: {sorted(files - embedded)}"


def test_site_builds_strict_with_real_outputs_and_no_warnings(real_site, caplog):
    site, records = real_site
    assert not [r.getMessage() for r in records if r.levelno >= logging.WARNING]
    en = (site / "tensors" / "cat-and-stack" / "index.html").read_text()
    zh = (site / "zh" / "tensors" / "cat-and-stack" / "index.html").read_text()
    for html in (en, zh):
        assert "zero-dimensional tensor (at position 0) cannot be concatenated" in html
        assert "torch.Size([3, 2, 3])" in html
    torch = metadata.version("torch")  # the torch this build runs, whatever requirements.txt pins
    label = f">torch {torch.split('+')[0]}</small>"  # beside each output; in full once, at the page's end
    assert label in en and label in zh
    python = platform.python_version()
    said = f": printed on a CPU with PyTorch {torch} (Python {python}), when this site was built."
    assert said.replace("(", "&#40;").replace(")", "&#41;") in en  # as Markdown would read no bracket
    assert f"：构建本站时在 CPU 上用 PyTorch {torch}（Python {python}）实际运行得到。" in zh
