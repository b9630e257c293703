"""The contributor's tools: `make page` (tools/new_page.py) and the twin check (tools/twins.py)."""

from __future__ import annotations

import html
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from helpers import build_site, tree
from mkdocs.exceptions import Abort

ROOT = Path(__file__).parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import links  # noqa: E402
import new_page  # noqa: E402
import twins  # noqa: E402

from mkdocs_examples import yaml_files  # noqa: E402
from mkdocs_examples.cli import main as cli  # noqa: E402


@pytest.fixture
def repo(tmp_path) -> Path:
    """The site's sources and the tools, as a clean clone has them (the .venv of this checkout)."""
    for name in ("data", "docs", "examples", "notebooks", "overrides", "recordings", "tools"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("mkdocs.yml", "Makefile", "requirements.txt", "pyproject.toml", ".pre-commit-config.yaml"):
        shutil.copy2(ROOT / name, tmp_path / name)
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    return tmp_path


def nav(root: Path) -> list:
    return yaml_files.load(root / "mkdocs.yml")["nav"]


def section(items: list, name: str) -> list[str]:
    return next(next(iter(i.values())) for i in items if isinstance(i, dict) and next(iter(i)) == name)


def make_page(root: Path, **variables: str) -> subprocess.CompletedProcess:
    words = [f"{key}={value}" for key, value in variables.items()]
    env = {k: v for k, v in os.environ.items() if k not in ("TITLE", "TITLE_ZH", "SECTION", "SECTION_ZH", "PAGE")}
    command = ["make", "-s", "-o", ".venv/.installed", "page", *words]  # -o: never reinstall the shared .venv
    return subprocess.run(command, cwd=root, capture_output=True, text=True, env=env)


def test_make_page_starts_both_twins_and_the_example_and_lists_the_page(repo):
    before = (repo / "mkdocs.yml").read_text(encoding="utf-8")
    pages_before = section(nav(repo), "Tensors")  # whatever the section holds now: this test reads no content
    index_before = {lang: (repo / "docs" / lang / "tensors" / "index.md").read_text() for lang in ("en", "zh")}
    title = """What's a "view", and `x.view()`?"""  # quotes reach the page as written
    done = make_page(repo, PAGE="tensors/views", TITLE=title, TITLE_ZH="视图与副本")
    assert done.returncode == 0, done.stderr
    assert "http://127.0.0.1:8000/pytorch-tips/tensors/views/" in done.stdout

    en, zh = (repo / "docs" / lang / "tensors" / "views.md" for lang in ("en", "zh"))
    assert en.read_text().startswith(f"# {title}\n\n")
    assert zh.read_text().startswith("# 视图与副本\n\n")
    for page in (en, zh):
        assert "/// example | tensors/views.py#first\n///" in page.read_text()
    example = (repo / "examples" / "tensors" / "views.py").read_text()
    assert "# %% first\n" in example and '# %% first-checks tags=["remove-cell"]\n' in example
    assert (repo / "notebooks" / "tensors" / "views.ipynb").is_file()  # Colab's copy, as a test requires
    assert cli(["notebooks", str(repo / "notebooks"), "-f", str(repo / "mkdocs.yml"), "--check"]) == 0

    assert section(nav(repo), "Tensors") == [*pages_before, "tensors/views.md"]  # after the section's last page
    after = (repo / "mkdocs.yml").read_text(encoding="utf-8")
    assert after.replace("      - tensors/views.md\n", "", 1) == before  # one line added, comments kept
    index_en, index_zh = ((repo / "docs" / lang / "tensors" / "index.md").read_text() for lang in ("en", "zh"))
    assert index_en == index_before["en"].rstrip("\n") + f"\n- [{title}](views.md): one line on what the page shows.\n"
    assert index_zh == index_before["zh"].rstrip("\n") + "\n- [视图与副本](views.md)：用一句话说明本页讲什么。\n"
    assert twins.check(repo / "docs", ["en", "zh"]).ok

    again = tree(repo)
    refused = make_page(repo, PAGE="tensors/views")
    assert refused.returncode != 0 and "docs/en/tensors/views.md already exists" in refused.stderr
    assert tree(repo) == again


def name_of(item: object) -> str:
    return str(next(iter(item)) if isinstance(item, dict) else item)


def name_of_value(item: dict) -> object:
    return next(iter(item.values()))


def test_a_new_section_gets_index_pages_a_nav_entry_and_its_chinese_name(repo):
    before = nav(repo)
    done = make_page(repo, PAGE="sparse/coo-basics", SECTION="Sparse tensors", SECTION_ZH="稀疏张量")
    assert done.returncode == 0, done.stderr
    items = nav(repo)
    last = max(i for i, item in enumerate(before) if isinstance(item, dict) and isinstance(name_of_value(item), list))
    expected = [name_of(i) for i in before]
    expected.insert(last + 1, "Sparse tensors")  # after the last section, before the pages that stand alone
    assert [name_of(i) for i in items] == expected
    assert section(items, "Sparse tensors") == ["sparse/index.md", "sparse/coo-basics.md"]
    config = yaml_files.load(repo / "mkdocs.yml")
    zh = next(p["i18n"] for p in config["plugins"] if isinstance(p, dict) and "i18n" in p)["languages"][1]
    assert zh["nav_translations"]["Sparse tensors"] == "稀疏张量"
    assert (repo / "docs/zh/sparse/index.md").read_text().startswith("# 稀疏张量\n")
    assert (repo / "docs/en/sparse/index.md").read_text().startswith("# Sparse tensors\n")
    assert "- [Coo basics](coo-basics.md)" in (repo / "docs/en/sparse/index.md").read_text()
    assert (repo / "examples/sparse/coo_basics.py").is_file()
    assert twins.check(repo / "docs", ["en", "zh"]).ok


@pytest.mark.parametrize(
    ("variables", "message"),
    [
        ({}, "PAGE='' is not section/name"),
        ({"PAGE": "Tensors/Views"}, "'Tensors/Views' is not section/name: write it as `make page PAGE=tensors/views`"),
        ({"PAGE": "views"}, "is not section/name"),
        ({"PAGE": "../../etc/passwd"}, "is not section/name"),
        ({"PAGE": "tensors/deep/views"}, "is not section/name"),
        ({"PAGE": "tensors/index"}, "index pages belong to their section"),
        ({"PAGE": "tensors/existing"}, "docs/en/tensors/existing.md already exists"),
        ({"PAGE": "sparse/basics"}, "sparse/ is a new section: name it in both languages"),
    ],
)
def test_a_page_that_cannot_be_started_is_refused_and_nothing_is_written(repo, variables, message):
    (repo / "docs" / "en" / "tensors" / "existing.md").write_text("# A page of the section\n")
    before = tree(repo)
    done = make_page(repo, **variables)
    assert done.returncode != 0
    assert done.stderr.startswith("error: ") and message in done.stderr
    assert tree(repo) == before


def test_the_strict_build_fails_on_a_cell_a_twin_lacks_a_variant_word_and_a_template_sentence(tmp_path, caplog):
    """The hooks of tools/build_checks.py on the fixture site: what `make test` checks fails the strict build too."""
    site = tmp_path / "site"
    shutil.copytree(ROOT / "tests" / "site", site)
    shutil.copytree(ROOT / "tools", site / "tools", ignore=shutil.ignore_patterns("__pycache__"))
    config = site / "mkdocs.yml"
    config.write_text(config.read_text() + "hooks:\n  - tools/build_checks.py\n")
    build_site(site, strict=True)  # the fixture as it is: no problem
    zh = site / "docs" / "zh" / "index.md"
    zh.write_text(zh.read_text().replace("/// example | two.py#answer\n///\n", "每个批次：用一句话说明本页讲什么。\n"))
    with pytest.raises(Abort, match="in strict mode"):
        build_site(site, strict=True)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert [w.removeprefix("content-checks: ") for w in warnings] == [
        "docs/en/index.md and docs/zh/index.md embed different cells: docs/zh/index.md lacks two.py#answer "
        "(docs/en/index.md:8): add `/// example | two.py#answer` and `///` to docs/zh/index.md after line 4, "
        "or remove it from docs/en/index.md",
        "docs/zh/index.md:8: '批次' (the glossary says batch（批次）)",
        "docs/zh/index.md:8: still the template's words (tools/new_page.py): replace them with the page's own",
    ]


def test_twins_names_a_missing_twin_and_the_first_cell_that_differs(tmp_path, capsys):
    for lang in ("en", "zh"):
        (tmp_path / "docs" / lang / "a").mkdir(parents=True)
    write = lambda name, text: (tmp_path / "docs" / name).write_text(text)  # noqa: E731
    write("en/a/same.md", "# A\n\n/// example | a/one.py#x\n///\n\n/// example | a/one.py#y\n///\n")
    write("zh/a/same.md", "# 甲\n\n中文。\n\n/// example | a/one.py#x\n///\n")
    write("en/a/only.md", "# Only in English\n")
    write("en/a/order.md", "/// example | a/one.py#x\n///\n\n/// example | a/one.py#y\n///\n")
    write("zh/a/order.md", "/// example | a/one.py#y\n///\n\n/// example | a/one.py#x\n///\n")
    write("en/a/fewer.md", "/// example | a/one.py#x\n///\n")
    write("zh/a/fewer.md", "/// example | a/one.py#x\n///\n\n/// example | a/two.py\n///\n")
    (tmp_path / "mkdocs.yml").write_text(
        "docs_dir: docs\nplugins:\n  - i18n:\n      languages:\n"
        "        - {locale: zh}\n        - {locale: en, default: true}\n"
    )
    assert twins.main(["-f", str(tmp_path / "mkdocs.yml")]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "docs/en/a/only.md: no twin in docs/zh/ (write it at the same path, embedding the same cells)",
        "docs/en/a/fewer.md and docs/zh/a/fewer.md embed different cells: docs/en/a/fewer.md lacks a/two.py "
        "(docs/zh/a/fewer.md:4): add `/// example | a/two.py` and `///` to docs/en/a/fewer.md after line 2, "
        "or remove it from docs/zh/a/fewer.md",
        "docs/en/a/order.md and docs/zh/a/order.md embed different cells: "
        "embedded cell 1 is a/one.py#x in docs/en/a/order.md (line 1) but a/one.py#y in docs/zh/a/order.md "
        "(line 1): embed the cells in the same order",
        "docs/en/a/same.md and docs/zh/a/same.md embed different cells: docs/zh/a/same.md lacks a/one.py#y "
        "(docs/en/a/same.md:6): add `/// example | a/one.py#y` and `///` to docs/zh/a/same.md after line 6, "
        "or remove it from docs/en/a/same.md",
    ]
    assert twins.main(["-f", str(tmp_path / "mkdocs.yml"), "--markdown"]) == 1
    summary = capsys.readouterr().out
    assert summary.startswith("### Pages in both languages\n")
    assert "- `docs/en/a/only.md`: no `docs/zh/` twin" in summary
    assert "- `docs/en/a/order.md` and `docs/zh/a/order.md`: embedded cell 1 is" in summary

    (tmp_path / "docs/en/a/only.md").unlink()
    write("en/a/order.md", (tmp_path / "docs/zh/a/order.md").read_text())
    write("en/a/fewer.md", (tmp_path / "docs/zh/a/fewer.md").read_text())
    write("zh/a/same.md", (tmp_path / "docs/en/a/same.md").read_text())
    assert twins.main(["-f", str(tmp_path / "mkdocs.yml"), "--markdown"]) == 0
    assert "All 3 pages have their twin in en and zh" in capsys.readouterr().out


def test_the_tools_read_mkdocs_yml_without_running_what_its_tags_name(tmp_path, capsys):
    marker = tmp_path / "ran"
    config = tmp_path / "mkdocs.yml"
    config.write_text(
        f'site_url: https://example.org/docs/\nevil: !!python/object/apply:os.system ["touch {marker}"]\n'
        "token: !ENV [HOME, none]\nplugins:\n  - i18n:\n      languages:\n"
        "        - {locale: zh}\n        - {locale: en, default: true}\n"
    )
    assert twins.languages(config) == ["en", "zh"]
    assert links.site_base(config) == "/docs/"
    with pytest.raises(new_page.Refused, match="new section"):  # read, then refused: no docs/en/tensors/
        new_page.plan(tmp_path, "tensors/views")
    assert not marker.exists()  # yaml.Loader, the full loader, would have run `touch`

    config.write_text("site_url: https://example.org/\nnav:\n  - a.md\n  b: c\n")  # a mapping inside a list
    assert twins.main(["-f", str(config)]) == 2
    assert links.main([str(tmp_path), "-f", str(config)]) == 2  # no built site there: refused first
    (tmp_path / "index.html").write_text("<p>site</p>")
    assert links.main([str(tmp_path), "-f", str(config)]) == 2
    errors = capsys.readouterr().err
    assert errors.count(f"{config}:4: not valid YAML") == 2, errors


def test_yaml_written_into_mkdocs_yml_reads_back_as_given():
    for text in ("Sparse tensors", "稀疏张量", "Yes", "a: b", "1.5", "null", "x #y", "- x", 'C++ "tips"', "it's"):
        assert yaml.safe_load(f"k: {new_page._scalar(text)}") == {"k": text}


def test_pre_commit_hooks_pass_a_clean_tree_and_stop_a_missing_twin_lint_stale_notebooks_and_long_subjects(tmp_path):
    """The hooks of .pre-commit-config.yaml on a fixture tree (tests/site, its notebooks, the tools they run)."""
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "tests" / "site", repo)
    (repo / "tools").mkdir()
    for name in ("twins.py", "commit_subjects.py"):
        shutil.copy2(ROOT / "tools" / name, repo / "tools" / name)
    for name in (".pre-commit-config.yaml", "pyproject.toml"):
        shutil.copy2(ROOT / name, repo / name)
    (repo / ".venv").symlink_to(ROOT / ".venv")
    assert cli(["notebooks", str(repo / "notebooks"), "-f", str(repo / "mkdocs.yml")]) == 0
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit"), "GIT_CONFIG_GLOBAL": "/dev/null"}
    env |= {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}

    def git(*words: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", *words], cwd=repo, env=env, capture_output=True, text=True)

    def pre_commit(*words: str) -> subprocess.CompletedProcess:
        command = [str(ROOT / ".venv" / "bin" / "pre-commit"), *words]
        return subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True)

    git("init", "-q")
    (repo / ".gitignore").write_text(".venv\n.cache\n")
    git("add", "-A")
    assert git("commit", "-qm", "start").returncode == 0
    done = pre_commit("run", "--all-files")
    assert done.returncode == 0, done.stdout
    assert done.stdout.count("Passed") == 3  # ruff, twins, notebooks; the subject's check waits for a message

    (repo / "docs" / "zh" / "index.md").unlink()
    (repo / "tools" / "unused.py").write_text("import os\n")
    with (repo / "examples" / "one.py").open("a") as example:
        example.write("\n# %% more\nprint(1)\n")
    git("add", "-A")
    done = pre_commit("run")
    assert done.returncode == 1
    assert "docs/en/index.md: no twin in docs/zh/" in done.stdout
    assert "F401" in done.stdout and "tools/unused.py" in done.stdout
    assert "files were modified by this hook" in done.stdout
    assert "print(1)" in (repo / "notebooks" / "one.ipynb").read_text()

    assert pre_commit("install").returncode == 0  # both hook types: commit-msg too
    git("checkout", "-q", "HEAD", "--", "docs")
    git("rm", "-q", "--cached", "tools/unused.py")
    (repo / "tools" / "unused.py").unlink()
    git("add", "-A")
    refused = git("commit", "-qm", "Say in one long subject line everything this commit does and why it does it")
    assert refused.returncode != 0 and "characters, more than 72: Say in one long" in refused.stderr + refused.stdout
    assert git("commit", "-qm", "Add a cell to the first example").returncode == 0


def test_the_search_tools_server_answers_a_missing_page_with_the_sites_404_under_site_url(tmp_path):
    """tools/search_queries.served, as GitHub Pages serves: a folder given as a path or as text."""
    import urllib.error
    import urllib.request

    from helpers import search_queries

    (tmp_path / "index.html").write_text("home")
    (tmp_path / "404.html").write_text("not here")
    for site in (tmp_path, str(tmp_path)):  # a str once failed in the 404 handler
        with search_queries.served(site) as url:
            assert urllib.request.urlopen(f"{url}/pytorch-tips/").read() == b"home"
            with pytest.raises(urllib.error.HTTPError) as missing:
                urllib.request.urlopen(f"{url}/pytorch-tips/no/such/page/")
            assert missing.value.code == 404 and missing.value.read() == b"not here"


def test_the_search_tool_reads_a_list_of_questions_in_both_languages_and_a_question_without_page_misses(tmp_path):
    """tools/search_queries.queries: the questions form, English first, ``page: null`` a miss whatever comes."""
    from helpers import search_queries

    asked = tmp_path / "questions.yml"
    asked.write_text(
        "questions:\n"
        "- {id: a, topic: t, en: one, zh: 一, source: 'https://x', page: data/loader}\n"
        "- {id: b, topic: t, en: two, zh: 二, source: 'https://y', page: null}\n"
    )
    assert search_queries.queries(asked) == [
        ("en", "one", "data/loader"), ("en", "two", None), ("zh", "一", "data/loader"), ("zh", "二", None),
    ]  # fmt: skip
    assert search_queries.rank(["/data/loader/"], "en", None) == 0
    assert search_queries.rank(["/zh/data/loader/"], "zh", "data/loader") == 1
    asked.write_text("questions:\n- {id: a, en: one, zh: 一, page: null}\n")
    with pytest.raises(ValueError, match="give en, id, page, source, topic, zh"):
        search_queries.queries(asked)


def test_the_wider_questions_name_pages_the_site_has_in_both_languages():
    """tests/questions_wider.yml: each expected page is a page of docs/en and of docs/zh; ids differ."""
    from helpers import ROOT, search_queries

    listed = search_queries.queries(ROOT / "tests" / "questions_wider.yml")
    for lang, query, page in listed:
        assert page is None or (ROOT / "docs" / lang / f"{page}.md").is_file(), (lang, query, page)
    ids = [item["id"] for item in yaml.safe_load((ROOT / "tests" / "questions_wider.yml").read_text())["questions"]]
    assert len(ids) == len(set(ids))


def test_a_release_pip_cannot_install_is_a_manifest_the_changes_page_states(tmp_path, capsys):
    import record_release

    from mkdocs_examples.publish import changes
    from mkdocs_examples.recordings.store import read_manifest

    reason = "ERROR: No matching distribution found for torch==2.3.1"
    assert record_release.not_installable("2.3.1", "3.11.7", reason, tmp_path) == 3
    assert "cannot be installed on Python 3.11" in capsys.readouterr().out
    manifest = read_manifest(tmp_path / "cpu-torch2.3.1-py3.11")  # checked against its schema and folder
    assert manifest["installable"] is False and manifest["reason"] == reason
    found = changes.Changes([], set(), uninstallable=[manifest])
    env = {"torch": "2.13.0+cpu", "python": "3.11.7"}
    en = html.unescape(changes.render(found, env, "changes.md", "examples", "en"))
    assert "torch 2.3.1 cannot be installed on Python 3.11 (linux x86_64), so it has no recordings here" in en
    assert reason in en
    zh = html.unescape(changes.render(found, env, "changes.md", "examples", "zh"))
    assert "torch 2.3.1 无法安装在 Python 3.11（linux x86_64）上" in zh


def test_record_release_takes_the_pins_of_requirements_and_refuses_a_release_named_otherwise(tmp_path):
    import record_release

    pins = record_release.pins(ROOT / "requirements.txt")
    assert [p.split("==")[0].lower() for p in pins] == list(record_release.PINNED) and all("==" in p for p in pins)
    with pytest.raises(SystemExit):
        record_release.main(["2.4"])  # a minor release: PyPI names patches


def test_record_release_starts_from_the_releases_recordings_of_examples_that_exist(tmp_path):
    """`record --resume` then runs only the examples that are new or changed since they were recorded."""
    import record_release

    folder, out = tmp_path / "cpu-torch2.4.1-py3.11", tmp_path / "out"
    for name in ("environment.json", "tensors/creating.json", "tensors/gone.json", "data/workers.json"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(name)
    (out / "data").mkdir(parents=True)
    (out / "data/workers.json").write_text("recorded here")  # an interrupted run's: kept
    assert record_release.seed(out, folder) == 1
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.json")) == [
        "data/workers.json", "tensors/creating.json"]  # fmt: skip
    assert (out / "data/workers.json").read_text() == "recorded here"
    assert record_release.seed(out, tmp_path / "none") == 0


def test_record_release_builds_the_engine_from_a_copy_of_its_own(tmp_path):
    """Recorders of two releases at once each build the engine's wheel in their own folder, not in the checkout's
    build/, where two builds at once collide (`mkdocs_examples-0.1.0.dist-info`: File exists)."""
    import record_release

    first, second = record_release.engine_source(tmp_path / "2.4.1"), record_release.engine_source(tmp_path / "2.5.1")
    assert first != second and first.is_relative_to(tmp_path / "2.4.1")
    assert sorted(p.name for p in first.iterdir()) == ["LICENSE", "pyproject.toml", "src"]
    assert (first / "src/mkdocs_examples/__init__.py").is_file()
    assert not list(first.rglob("__pycache__"))
    (first / "build").mkdir()  # what a build left: gone when the copy is made again
    assert not (record_release.engine_source(tmp_path / "2.4.1") / "build").exists()


def test_migrate_refuses_a_schema_1_recording_that_names_another_example_than_its_place(tmp_path, capsys):
    import json

    site = tmp_path / "site"
    shutil.copytree(ROOT / "tests" / "site", site)
    subprocess.run(["git", "init", "-q", str(site)], check=True)
    folder = site / "recordings" / "cuda"
    folder.mkdir(parents=True)
    for name, example in (("one.json", "../../../etc/passwd"), ("two.json", "one.py")):  # neither is its place
        (folder / name).write_text(json.dumps({"schema": 1, "example": example, "digest": "0" * 64}))
    assert cli(["migrate", "-f", str(site / "mkdocs.yml")]) == 1
    err = capsys.readouterr().err
    assert "one.json: names the example '../../../etc/passwd'" in err and "two.json: names the example 'one.py'" in err
