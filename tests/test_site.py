"""The plugin inside real MkDocs builds of the fixture site in tests/site."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import Abort

FIXTURE = Path(__file__).parent / "site"


@pytest.fixture
def site(tmp_path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "site")
    return tmp_path / "site"


def build_site(root: Path, command: str = "build") -> list[str]:
    """Build like `mkdocs build` (or `serve`) does; return the examples that were executed."""
    config = load_config(str(root / "mkdocs.yml"))
    config.plugins.on_startup(command=command, dirty=False)
    try:
        build(config)
        return list(config.plugins["examples"].engine.executed)
    finally:
        config.plugins.on_shutdown()


def page(root: Path, lang: str = "en") -> str:
    return (root / "site" / ("zh/" if lang == "zh" else "") / "index.html").read_text()


def test_config_validates():
    config = load_config(str(FIXTURE / "mkdocs.yml"))
    assert config.plugins["examples"].config.timeout == 5


def test_builds_once_for_both_languages_then_from_cache_then_only_what_changed(site):
    assert sorted(build_site(site)) == ["one.py", "two.py"]  # en and zh share one execution
    for lang in ("en", "zh"):
        html = page(site, lang)
        assert "tensor([0, 2, 4])" in html and "answer: 42" in html
        assert "x = 6 * 7" not in html  # only the named cell
    assert "以上输出由 torch" in page(site, "zh") and "Output produced by torch" in page(site)

    assert build_site(site) == []  # a second build executes nothing

    (site / "examples" / "two.py").write_text('# %% first\nx = 7 * 7\n\n# %% answer\nprint(f"answer: {x}")\n')
    assert build_site(site) == ["two.py"]
    assert "answer: 49" in page(site) and "answer: 49" in page(site, "zh")


BROKEN = [
    ("bad.py", "x = 1\n\n# %%\nraise KeyError('nope')\n", "examples/bad.py:4: unexpected exception", "KeyError"),
    ("bad.py", '# %% tags=["raises-exception"]\nx = 1\n', "examples/bad.py:2: the cell is tagged raises-exception", ""),
    ("bad.py", "import sys\nsys.exit(0)\n", "examples/bad.py:2: the example called sys.exit()", ""),
    ("bad.py#nothing", "x = 1\n", "examples/bad.py: no cell named 'nothing'", ""),
    ("missing.py", None, "examples/missing.py: no such example file", ""),
    ("bad.py", "import time\n\nwhile True:\n    time.sleep(0.01)\n", "examples/bad.py:4: timed out after 5 s", ""),
]


@pytest.mark.parametrize(("target", "source", "message", "detail"), BROKEN)
def test_a_broken_example_stops_the_build_naming_page_file_and_line(site, caplog, target, source, message, detail):
    build_site(site)
    (site / "site" / "kept.txt").write_text("built earlier")
    if source is not None:
        (site / "examples" / "bad.py").write_text(source)
    page_file = site / "docs" / "en" / "index.md"
    page_file.write_text(page_file.read_text() + f"\n/// example | {target}\n///\n")

    with pytest.raises(Abort):
        build_site(site)
    text = build_error(caplog)
    assert message in text and detail in text
    assert "docs/en/index.md:11" in text
    assert (site / "site" / "kept.txt").exists(), "the build cleaned the site before failing"
    assert build_site_after_fix(site, page_file) == []  # the good examples' cache survived


def build_site_after_fix(site: Path, page_file: Path) -> list[str]:
    page_file.write_text(page_file.read_text().rsplit("\n/// example |", 1)[0] + "\n")
    return build_site(site)


def test_unclosed_block_names_page_and_line(site, caplog):
    (site / "docs" / "zh" / "index.md").write_text("# 页面\n\n/// example | one.py\n")
    with pytest.raises(Abort):
        build_site(site)
    assert "docs/zh/index.md:3: this example block is not closed" in build_error(caplog)


def build_error(caplog) -> str:
    """The one message MkDocs printed when the build stopped."""
    (record,) = [r for r in caplog.records if r.levelname == "ERROR"]
    return record.getMessage()


def test_serve_shows_the_error_on_the_page_and_keeps_going(site):
    (site / "examples" / "two.py").write_text('# %% answer\nraise ValueError("<broken & escaped>")\n')
    executed = build_site(site, command="serve")
    assert sorted(executed) == ["one.py", "two.py"]  # the zh build did not run the failure again
    html = page(site)
    assert 'class="admonition failure"' in html
    assert "examples/two.py:2: unexpected exception" in html
    assert "&lt;broken &amp; escaped&gt;" in html and "<broken" not in html
    assert "tensor([0, 2, 4])" in html  # the rest of the page is built
    assert "示例构建失败" in page(site, "zh")
