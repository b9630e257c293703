"""The plugin inside real MkDocs builds of the fixture site in tests/site."""

from __future__ import annotations

import logging
import re
import shutil
import subprocess
from pathlib import Path

import helpers
import pytest
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import Abort

FIXTURE = Path(__file__).parent / "site"


@pytest.fixture
def site(tmp_path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "site")
    return tmp_path / "site"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The fixture site built once, with its cache: the starting point of the tests that break it."""
    root = tmp_path_factory.mktemp("built") / "site"
    shutil.copytree(FIXTURE, root)
    assert sorted(build_site(root)) == ["one.py", "two.py"]
    return root


@pytest.fixture
def built_site(built, tmp_path) -> Path:
    """A copy of the built fixture site (pages, cache), for one test to change."""
    shutil.copytree(built, tmp_path / "site", symlinks=True)
    return tmp_path / "site"


def build_site(root: Path, command: str = "build") -> list[str]:
    """Build like `mkdocs build` (or `serve`) does; return the examples that were executed."""
    config = load_config(str(root / "mkdocs.yml"))
    config.plugins.on_startup(command=command, dirty=False)
    try:
        build(config)
        return list(config.plugins["examples"].executed)
    finally:
        config.plugins.on_shutdown()


def page(root: Path, lang: str = "en") -> str:
    return (root / "site" / ("zh/" if lang == "zh" else "") / "index.html").read_text()


def test_config_validates():
    config = load_config(str(FIXTURE / "mkdocs.yml"))
    assert config.plugins["examples"].config.timeout == 2


def test_builds_once_for_both_languages_then_from_cache_then_only_what_changed(site):
    assert sorted(build_site(site)) == ["one.py", "two.py"]  # en and zh share one execution
    for lang in ("en", "zh"):
        html = page(site, lang)
        assert "[0, 2, 4]" in html and "answer: 42" in html
        assert "x = 6 * 7" not in html  # only the named cell
    # the fixture imports no torch: the label and the page's block name the device and Python only
    assert ">CPU · Python 3." in page(site) and "：构建本站时在 CPU 上用 Python 3." in page(site, "zh")
    assert ": printed on a CPU with Python 3." in page(site)

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
    ("bad.py", "import time\n\nwhile True:\n    time.sleep(0.01)\n", "examples/bad.py:4: timed out after 2 s", ""),
]


@pytest.mark.parametrize(("target", "source", "message", "detail"), BROKEN)
def test_a_broken_example_stops_the_build_naming_page_file_and_line(
    built_site, caplog, target, source, message, detail
):
    site = built_site
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


def _execute_from_the_environment(site: Path, monkeypatch, value: str) -> None:
    """Set the option `execute` as this project's mkdocs.yml does, and the variable it reads; and make
    sure no process can start: a build that does not execute needs no worker."""
    config = site / "mkdocs.yml"
    option = "      execute: !ENV [MKDOCS_EXAMPLES_EXECUTE, true]\n"
    config.write_text(config.read_text().replace("  - examples:\n", "  - examples:\n" + option))
    monkeypatch.setenv("MKDOCS_EXAMPLES_EXECUTE", value)

    def refuse(*args, **kwargs):
        raise AssertionError(f"a build with execute: false started a process: {args[0]}")

    monkeypatch.setattr(subprocess, "Popen", refuse)


def test_a_build_that_does_not_execute_takes_every_result_from_the_cache(built_site, monkeypatch):
    shutil.rmtree(built_site / "site")  # so that the pages below are this build's
    _execute_from_the_environment(built_site, monkeypatch, "false")
    assert load_config(str(built_site / "mkdocs.yml")).plugins["examples"].config.execute is False
    assert build_site(built_site) == []
    for lang in ("en", "zh"):
        assert "[0, 2, 4]" in page(built_site, lang) and "answer: 42" in page(built_site, lang)


def test_a_build_that_does_not_execute_fails_on_an_uncached_example_naming_it(built_site, monkeypatch, caplog):
    _execute_from_the_environment(built_site, monkeypatch, "false")
    (built_site / "examples" / "two.py").write_text('# %% first\nx = 7 * 7\n\n# %% answer\nprint(f"answer: {x}")\n')
    with pytest.raises(Abort):
        build_site(built_site)
    text = build_error(caplog)
    assert "1 example failed" in text, text  # two.py, on the page of each language
    assert (
        "examples/two.py: no cached result for this example, and this build does not execute examples "
        "(execute: false): run them in the job that does" in text
    )
    assert text.count("no cached result for this example") == 1  # once for the example, naming each block
    assert "(embedded at docs/en/index.md:8, docs/zh/index.md:8)" in text
    assert "one.py" not in text  # cached: built as usual


def test_execute_defaults_to_true_where_the_variable_is_not_set(site, monkeypatch):
    _execute_from_the_environment(site, monkeypatch, "")
    monkeypatch.delenv("MKDOCS_EXAMPLES_EXECUTE")
    assert load_config(str(site / "mkdocs.yml")).plugins["examples"].config.execute is True


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
    assert "[0, 2, 4]" in html  # the rest of the page is built
    assert "示例构建失败" in page(site, "zh")


MISTYPED = [
    "/// example one.py\n///\n",  # no `|`
    "/// Example | one.py\n///\n",
    "//// example | one.py\n///\n",
    "\t/// example | one.py\n\t///\n",
    "```python\nx = 1\n\n/// example | one.py\n///\n",  # a fence that is never closed
]


@pytest.mark.parametrize("block", MISTYPED)
def test_a_mistyped_block_fails_the_build_instead_of_showing_as_text(site, caplog, block):
    page_file = site / "docs" / "en" / "index.md"
    line = len(page_file.read_text().splitlines()) + 2 + (3 if block.startswith("```") else 0)
    page_file.write_text(page_file.read_text() + "\n" + block)
    with pytest.raises(Abort):
        build_site(site)
    assert f"docs/en/index.md:{line}:" in build_error(caplog)


STRETCHED = "access = 'user'\nif access != 'none\u202e \u2066# check\u2069 \u2066':\n    open(MARKER, 'w').close()\n"
# Each file, and what the build says: where (a link anywhere under examples/ stops it before any page is read,
# naming the link; the others name the block that embeds them), what, and what to do
REFUSED = [
    ("link.py", None, "", "1 symbolic link(s) among the examples", "examples/link.py -> "),
    ("notes.txt", b"print(1)\n", "docs/en/index.md:11", "cannot read 'notes.txt'", "a .py file"),
    ("latin.py", b"# fine\nprint('caf\xe9')\n", "docs/en/index.md:11",
     "examples/latin.py:2: is not UTF-8 text (byte 0xe9)", "save the file as UTF-8"),
    # UTF-8 shows `x = 1` and a comment; Python reads UTF-7, where `+AAo-` is a line break: the reader's run differs
    ("utf7.py", b"# %% first\n# coding: utf_7\nx = 1  # +AAo-open(MARKER, 'w').close()\n", "docs/en/index.md:11",
     "examples/utf7.py:2: declares the encoding 'utf_7', but the build reads examples as UTF-8",
     "remove the declaration, or write `# -*- coding: utf-8 -*-`"),
    # An editor shows `if access != 'none':  # check`; Python reads one string, the comment in it, and runs the branch
    ("bidi.py", STRETCHED.encode(), "docs/en/index.md:11",
     "examples/bidi.py:2: holds the bidirectional control U+202E (RIGHT-TO-LEFT OVERRIDE)", "remove it"),
    # Python reads one comment; str.splitlines, which splits the cells, ends it at U+001C and runs the rest
    ("separator.py", b"# %% first\nx = 1  # note\x1copen(MARKER, 'w').close()\n", "docs/en/index.md:11",
     "examples/separator.py:2: holds U+001C (FILE SEPARATOR), which ends a line for the build but "
     "not for Python", "remove it"),
]  # fmt: skip


@pytest.mark.parametrize(("target", "content", "where", "message", "detail"), REFUSED)
@pytest.mark.parametrize("enabled", [True, False])
def test_refused_files_are_never_read_or_run(site, tmp_path, caplog, target, content, where, message, detail, enabled):
    marker = tmp_path / "ran"
    outside = tmp_path / "outside.py"
    outside.write_text(f"open({str(marker)!r}, 'w').close()\n")
    if content is None:
        (site / "examples" / target).symlink_to(outside)
    else:
        (site / "examples" / target).write_bytes(content.replace(b"MARKER", repr(str(marker)).encode()))
    config = site / "mkdocs.yml"
    config.write_text(config.read_text().replace("timeout: 2", f"timeout: 2\n      enabled: {str(enabled).lower()}"))
    page_file = site / "docs" / "en" / "index.md"
    page_file.write_text(page_file.read_text() + f"\n/// example | {target}\n///\n")
    with pytest.raises(Abort):
        helpers.build_site(site, strict=True)
    text = "\n".join(r.getMessage() for r in caplog.records if r.levelname in ("WARNING", "ERROR"))
    assert where in text and message in text and detail in text
    assert not marker.exists()


@pytest.mark.parametrize(("kind", "said"), [
    ("link", "1 symbolic link(s) among the examples, which the build would read and run: examples/two.zh.yml -> "),
    ("utf-7", "1 translation(s) of comments refused, nothing of them is used:\nexamples/two.zh.yml:1: the translation "
     "of 'aws_secret_access_key' declares an encoding ('coding: utf_7')"),
])  # fmt: skip
def test_a_refused_translation_stops_the_build_publishing_nothing_and_losing_nothing(
    built_site, tmp_path, caplog, kind, said
):
    secret = tmp_path / "credentials.json"  # keys a comment can name, so that their values would replace it
    secret.write_text('{"aws_access_key_id": "AKIAFIXTURE", "aws_secret_access_key": "fixture-secret-value"}\n')
    example = built_site / "examples" / "two.py"
    example.write_text("# %% first\n# aws_secret_access_key\n" + example.read_text().removeprefix("# %% first\n"))
    translation = built_site / "examples" / "two.zh.yml"
    if kind == "link":  # (one to /dev/zero: test_comments.py, in a process whose memory is capped)
        translation.symlink_to(secret)
    else:  # on line 2 of the Chinese download, where Python reads it, and `+AAo-` a line break
        translation.write_text("aws_secret_access_key: 'coding: utf_7'\n")
    before = helpers.tree(built_site / "site"), helpers.tree(built_site / ".cache")
    with pytest.raises(Abort):
        build_site(built_site)  # not strict: a refusal is an error, not a warning
    assert said in caplog.text
    assert "fixture-secret" not in caplog.text and "aws_access_key_id" not in caplog.text
    assert (helpers.tree(built_site / "site"), helpers.tree(built_site / ".cache")) == before


def test_serve_with_strict_shows_the_error_box_and_recovers_when_fixed(site):
    config = load_config(str(site / "mkdocs.yml"), strict=True)
    config.plugins.on_startup(command="serve", dirty=False)  # one plugin instance across rebuilds, as serve
    example = site / "examples" / "two.py"
    good = example.read_text()
    try:
        example.write_text('# %% answer\nraise ValueError("broken")\n')
        build(config)  # no Abort: the page shows what is wrong
        assert "examples/two.py:2: unexpected exception" in page(site)
        assert "[0, 2, 4]" in page(site)  # the other examples of the page still show
        example.write_text(good)
        build(config)
        assert "answer: 42" in page(site) and "admonition failure" not in page(site)
    finally:
        config.plugins.on_shutdown()


def test_an_unwritable_cache_is_reported_once_and_the_build_goes_on(site, caplog):
    caplog.set_level(logging.INFO)
    (site / ".cache").write_text("a file where the cache folder should be")
    assert sorted(build_site(site)) == ["one.py", "two.py"]
    notes = [r.getMessage() for r in caplog.records if "results are not cached" in r.getMessage()]
    assert len(notes) == 1 and ".cache/examples" in notes[0] and "Not a directory" in notes[0]
    assert "answer: 42" in page(site)


def test_what_confines_the_examples_is_said_once_in_a_build_of_two_languages(site, caplog):
    caplog.set_level(logging.INFO)
    assert sorted(build_site(site)) == ["one.py", "two.py"]
    notes = [r.getMessage() for r in caplog.records if "examples run sandboxed" in r.getMessage()]
    assert len(notes) == 1, notes
    assert "network" in notes[0] and "processes found by" in notes[0]


def test_a_block_whose_example_has_no_result_stops_the_build(built_site, monkeypatch, caplog):
    from mkdocs_examples.mkdocs.plugin import ExamplesPlugin

    real = ExamplesPlugin._run  # as if the pool had lost one, or a forged answer had ended it early
    monkeypatch.setattr(ExamplesPlugin, "_run", lambda self, examples: {
        path: outcome for path, outcome in real(self, examples).items() if path != "two.py"
    })  # fmt: skip
    with pytest.raises(Abort):  # not strict: before, the page said "was not run" and the build passed
        build_site(built_site)
    assert "docs/en/index.md:" in caplog.text and "example two.py was not run in this build" in caplog.text


def test_changing_a_helper_module_or_a_package_version_runs_the_example_again(site, monkeypatch):
    (site / "examples" / "helper.py").write_text("VALUE = 1\n")
    (site / "examples" / "three.py").write_text("import helper\nimport yaml\nprint('helper', helper.VALUE)\n")
    page_file = site / "docs" / "en" / "index.md"
    page_file.write_text(page_file.read_text() + "\n/// example | three.py\n///\n")
    (site / "docs" / "zh" / "index.md").write_text(
        (site / "docs" / "zh" / "index.md").read_text() + "\n/// example | three.py\n///\n"
    )
    assert sorted(build_site(site)) == ["one.py", "three.py", "two.py"]
    assert build_site(site) == []
    (site / "examples" / "helper.py").write_text("VALUE = 2\n")
    assert build_site(site) == ["three.py"]
    assert "helper 2" in page(site)

    from mkdocs_examples.execute import cache

    real = cache.package_version
    monkeypatch.setattr(cache, "package_version", lambda name: "0.0" if name == "PyYAML" else real(name))
    assert build_site(site) == ["three.py"]  # the only example that imports yaml


@pytest.mark.parametrize("option", ["exclude_docs", "draft_docs"])
def test_pages_mkdocs_leaves_out_are_not_read_for_examples(built_site, option):
    """A page left out by `exclude_docs` (or a draft, in a build) embeds nothing: its broken block is no error."""
    config = built_site / "mkdocs.yml"
    config.write_text(config.read_text() + f"{option}: |\n  wip.md\n")
    for lang in ("en", "zh"):
        (built_site / "docs" / lang / "wip.md").write_text("# WIP\n\n/// example | missing.py\n///\n")
    assert build_site(built_site) == []
    assert not (built_site / "site" / "wip" / "index.html").exists()


def test_a_note_in_a_language_the_site_does_not_build_fails_a_strict_build_naming_its_line(built_site, caplog):
    two = built_site / "examples" / "two.py"
    two.write_text('# %% [markdown] lang="fr"\n# Six fois sept\n\n' + two.read_text())
    with pytest.raises(Abort):
        helpers.build_site(built_site, strict=True)
    (warning,) = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warning.startswith(
        "mkdocs_examples: examples/two.py:1: a note in language 'fr', which this site has no pages in (en, zh)"
    )


@pytest.mark.parametrize(
    ("front", "at_top"), [("", True), ("take_away: top\n", True), ("take_away: under-example\n", False)]
)
def test_the_take_away_line_goes_under_the_title_or_under_the_example_as_the_page_says(built_site, front, at_top):
    docs = built_site / "docs" / "en" / "index.md"
    if front:
        docs.write_text(f"---\n{front}---\n\n{docs.read_text()}")
    build_site(built_site)
    text = page(built_site)
    line = text.index('<p class="mx-downloads"')
    assert text.count('<p class="mx-downloads"') == 2  # one.py and two.py, each once
    assert (line < text.index('class="highlight"')) is at_top  # above every code block, or under one
    assert bool(re.search(r'</h1>\s*<p class="mx-downloads"', text)) is at_top  # right under the title


def test_a_take_away_place_the_engine_does_not_know_is_a_warning_naming_the_page(built_site, caplog):
    docs = built_site / "docs" / "en" / "index.md"
    docs.write_text(f"---\ntake_away: bottom\n---\n\n{docs.read_text()}")
    with caplog.at_level(logging.WARNING):
        build_site(built_site)
    assert "docs/en/index.md: front matter `take_away: bottom` is neither `top` nor `under-example`" in caplog.text
    assert page(built_site).index('<p class="mx-downloads"') < page(built_site).index('class="highlight"')


# Three figures of 2 MiB of PNG each, as large as noise makes them, within the example's own bounds
# (max_figures_bytes: 8 MiB), without the time drawing noise takes: 8 MiB of base64 in the page
PLOTS = """\
import matplotlib.pyplot as plt
from matplotlib.figure import Figure
Figure.savefig = lambda self, buffer, **options: buffer.write(b"\\x89PNG\\r\\n\\x1a\\n" + bytes(2 << 20))
for _ in range(3):
    plt.figure()
"""


def test_a_page_past_its_budget_fails_a_strict_build_naming_it_and_what_weighs_most(site, caplog):
    (site / "examples" / "plots.py").write_text(PLOTS)
    page = site / "docs" / "en" / "index.md"
    page.write_text(page.read_text() + "\n/// example | plots.py\n///\n")
    config = site / "mkdocs.yml"  # time to import matplotlib; the budgets are the defaults
    config.write_text(config.read_text().replace("timeout: 2 ", "timeout: 30 "))
    with pytest.raises(Abort, match="in strict mode"):
        helpers.build_site(site, strict=True)
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warnings == [
        "mkdocs_examples: docs/en/index.md (index.html): the page weighs 8.0 MiB, past the plugin option "
        "`max_page_size` (4 MiB); what weighs most in it is the output of examples/plots.py (8.0 MiB), and its "
        "largest figure is figure 1 of the cell at line 1 (2.0 MiB of PNG). Split the page, show less in its "
        "examples (their options `max_output_bytes` and `max_figures_bytes`), or raise the option"
    ]
    assert not (site / "site").exists()  # the strict build failed: no site was swapped in


def test_a_site_past_its_budget_fails_a_strict_build_naming_its_heaviest_files(site, caplog):
    config = site / "mkdocs.yml"
    config.write_text(config.read_text().replace("timeout: 2 ", "timeout: 2\n      max_site_size: 0.5 "))
    with pytest.raises(Abort, match="in strict mode"):
        helpers.build_site(site, strict=True)
    (warning,) = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    weighs, _, heaviest = warning.partition("; its heaviest files are ")
    assert re.fullmatch(r"mkdocs_examples: the site weighs \d+\.\d MiB, past the plugin option `max_site_size` "
                        r"\(0\.5 MiB\)", weighs), warning  # fmt: skip
    assert heaviest.startswith("assets/")  # Material's scripts, search's
    assert "; what weighs most among its examples is the output of examples/" in heaviest
    assert heaviest.endswith("Show less in its examples (their options `max_output_bytes` and `max_figures_bytes`), "
                             "publish fewer pages, or raise the option")  # fmt: skip
