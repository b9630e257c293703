"""The repository's manuals: a short README that links one manual per audience, every link and
anchor among them resolving, every pointer to a manual's section naming one that exists, and every
file, `make` target, engine option and command named in them existing as named. A manual states no
figure that changes with the content (counts of tests, queries, examples, views, lines; sizes and
timings): those drift the day after they are written, and the build, the tests and git log tell them.

The built site's links are checked by tools/links.py; these are the Markdown files GitHub shows."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import re
from pathlib import Path

import pytest

from mkdocs_examples.execute.child import processes
from mkdocs_examples.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
ENGINE = "src/mkdocs_examples/README.md"
ENGINE_PAGES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "src/mkdocs_examples/docs").glob("*.md"))
DESIGN = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "design").glob("*.md"))
# the manuals whose length, figures and facts are checked: one per audience
AUDIENCES = ["README.md", "CONTRIBUTING.md", "MAINTAINING.md", ENGINE]
MANUALS = [*AUDIENCES, *ENGINE_PAGES, *DESIGN, "bench/README.md"]
REPOSITORY = "https://github.com/pytorch-tips/pytorch-tips/blob/main/"  # the engine's manual links so, for PyPI

_FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _prose(text: str) -> str:
    """The Markdown without its fenced blocks (a `# %%` line of an example is no heading) and code spans
    (a span in double backticks may run over lines: a message quoted whole)."""
    return re.sub(r"`[^`\n]+`", "", re.sub(r"``.+?``", "", _FENCE.sub("", text), flags=re.S))


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
# `README of mkdocs_examples, "Templates are sandboxed"`; a bare "README" inside the engine is its own manual:
# the README and the pages under its docs/, whose sections the README lists by name.
_POINTER = re.compile(
    r"(?P<file>src/mkdocs_examples/(?:README|docs/[\w-]+)\.md|design/[\w-]+\.md|README of mkdocs_examples"
    r"|MAINTAINING\.md|CONTRIBUTING\.md|README\.md"
    r"|README(?:'s)?)[,:]?\s+\(?\\?\"(?P<heading>[A-Z][^\"\\]+)"
)
_FILES = ["Makefile", "mkdocs.yml", "pyproject.toml", ".github/**/*", "tools/*.py", "tests/*.py",
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
                if name == "README of mkdocs_examples":
                    name = ENGINE
                manuals = [ENGINE, *ENGINE_PAGES] if name == ENGINE else [name]
                heading = " ".join(re.sub(r"\n\s*#", " ", match["heading"]).split())  # a comment over lines
                if not any(h.startswith(heading) for m in manuals for h in _headings(ROOT / m)):
                    wrong.append(f"{file.relative_to(ROOT)}: {match[0]!r} names no heading of {name}")
    assert wrong == []



def _code(text: str) -> list[str]:
    """Every code span of the Markdown, and every line of its fenced blocks."""
    spans = re.findall(r"`([^`\n]+)`", _FENCE.sub("", text))
    return spans + [line for block in _FENCE.findall(text) for line in block.splitlines()] + [
        line for match in _FENCE.finditer(text) for line in match[0].splitlines()[1:-1]
    ]


def _manual(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


_TOP = {p.name for p in ROOT.iterdir()} - {".cache", "site", ".venv", ".git"}  # a path names a file of the tree
_PACKAGE = ROOT / "src" / "mkdocs_examples"
_ENGINE_DIRS = {p.name for p in _PACKAGE.iterdir() if p.is_dir()} - {"__pycache__"}
_PATH = re.compile(r"^\.?[\w.-]+(?:/[\w.-]+)*/?$")


def _missing_paths(manual: str, text: str) -> list[str]:
    """The code spans that look like a path of the repository (or, in the engine's manual, of the package) and
    name nothing there. Placeholders (`<path>`), globs and generated folders (`.cache/`, `site/`) are no paths."""
    engine = manual == ENGINE or manual in ENGINE_PAGES
    missing = []
    for span in re.findall(r"`([^`\n]+)`", _FENCE.sub("", text)):
        span = span.split("#")[0].split(":")[0].strip()
        if "/" not in span or not _PATH.match(span):
            continue
        first = span.split("/")[0]
        if first in _TOP:
            found = (ROOT / span).exists() or (engine and (_PACKAGE / span).exists())
        elif engine and first in _ENGINE_DIRS:
            found = (_PACKAGE / span).exists()
        else:
            continue  # a path of the built site, of a runner or of another machine
        if not found:
            missing.append(f"{manual}: `{span}` does not exist")
    return missing


def test_every_path_a_manual_names_exists():
    assert [m for manual in MANUALS for m in _missing_paths(manual, _manual(manual))] == []


def _targets() -> set[str]:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([\w.-][\w./-]*):(?!=)", makefile, re.M))


def _unknown_targets(manual: str, text: str) -> list[str]:
    named = {m for code in _code(text) for m in re.findall(r"(?<![\w-])make ([a-z][\w-]*)", code)}
    return [f"{manual}: `make {t}` is no target of the Makefile" for t in sorted(named - _targets())]


def test_every_make_target_a_manual_names_is_in_the_makefile():
    assert [m for manual in MANUALS for m in _unknown_targets(manual, _manual(manual))] == []


def _options() -> dict[str, object]:
    from mkdocs_examples.settings import Settings

    fields = dataclasses.fields(Settings)
    return {f.name: f.default_factory() if f.default is dataclasses.MISSING else f.default for f in fields}  # type: ignore[misc]


def _unknown_options(manual: str, text: str) -> list[str]:
    lists = re.findall(r"\boptions? \(?((?:`\w+`(?:,? (?:and |or )?)?)+)", _FENCE.sub("", text))
    named = {name for names in lists for name in re.findall(r"`(\w+)`", names)}
    return [f"{manual}: the option `{n}` is no option of the plugin" for n in sorted(named - set(_options()))]


def test_every_engine_option_a_manual_names_is_an_option_of_the_plugin():
    assert [m for manual in MANUALS for m in _unknown_options(manual, _manual(manual))] == []


def _table(text: str) -> dict[str, str]:
    """The engine README's options table: option -> its default as written."""
    return dict(re.findall(r"^\| `(\w+)` \|\s*`?([^|`]*?)`?\s*\|", text.split("## Options", 1)[1], re.M))


def test_the_options_table_lists_every_option_with_its_default():
    table = _table(_manual(ENGINE))
    options = _options()
    assert set(table) == set(options)
    for name, default in options.items():
        if isinstance(default, bool | int | float | str) and table[name]:
            written = {True: "true", False: "false"}.get(default, str(default)) if isinstance(default, bool) \
                else str(default)
            assert table[name] == written, f"{name}: the table says {table[name]!r}, the plugin {written!r}"
        elif dataclasses.is_dataclass(default):
            assert table[name] == "", name  # a group of options, described in its row
        else:
            assert table[name] == "[]", name  # the list options all default to empty


def _commands() -> dict[str, set[str]]:
    """The command line's subcommands and each one's flags, as its `--help` lists them."""
    from mkdocs_examples import cli

    def usage(*argv: str) -> str:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            cli.main([*argv, "--help"])
        return out.getvalue()

    names = re.search(r"\{([\w,-]+)\}", usage())
    assert names, "the command line lists its subcommands"
    return {name: set(re.findall(r"(?<![\w-])(--?[\w-]+)", usage(name))) for name in names[1].split(",")}


_INVOCATION = re.compile(r"(?:mkdocs-examples|-m mkdocs_examples) ([a-z]+)((?: +[^`|;&]*)?)")


def _unknown_commands(manual: str, text: str, commands: dict[str, set[str]]) -> list[str]:
    wrong = []
    for code in _code(text):
        for name, rest in _INVOCATION.findall(code):
            if name not in commands:
                wrong.append(f"{manual}: `{name}` is no command of mkdocs-examples")
                continue
            flags = set(re.findall(r"(?<![\w-])(--[a-z][\w-]*)", rest.split("#")[0]))
            wrong += [f"{manual}: `{name} {f}` is no flag of that command" for f in sorted(flags - commands[name])]
    return wrong


def test_every_command_and_flag_a_manual_names_exists():
    commands = _commands()
    assert {"run", "record", "merge", "diff"} <= set(commands)
    assert [m for manual in MANUALS for m in _unknown_commands(manual, _manual(manual), commands)] == []


# A figure that changes with the content: a number before what it counts, or a size or a timing. Numbers that
# are rules (80 columns, two lines that join) or names (the 404 page, figure 2) are no figures.
_UNITS = r"KB|MB|GB|kB|s|ms|seconds?|minutes?|min|hours?"
_COUNTED = rf"tests?|quer(?:y|ies)|examples?|views?|lines?|pages?|names?|entries|recordings?|releases|cells?|{_UNITS}"
_DIGITS = r"(?<![\w.-])(?!404\b)\d+(?:[.,]\d+)*(?:[–-]\d+(?:[.,]\d+)*)?"
_WORDS = r"\b(?:two|three|four|five|six|seven|eight|nine|ten|a few|several)"
_FIGURE = re.compile(rf"{_DIGITS} (?:more |of (?:the|its) )?(?:[a-zA-Z]+ )?(?:{_COUNTED})\b"
                     rf"|{_WORDS} (?:{_UNITS})\b", re.I)


# A figure that is one of the engine's rules (a default, a grace period) may be stated: the code defines it, and
# test_each_rule_a_manual_states_is_the_codes holds the two together.
RULES = {
    "120 s": lambda: Settings.timeout == 120,
    "2 seconds": lambda: processes.LEFTOVER == 2,
    "two seconds": lambda: processes.LEFTOVER == 2,
}


def _figures(text: str) -> list[str]:
    return [m[0] for m in _FIGURE.finditer(_prose(text)) if m[0] not in RULES]


def test_the_manuals_state_no_figure_that_changes_with_the_content():
    found = {manual: _figures(_manual(manual)) for manual in [*AUDIENCES, *ENGINE_PAGES, *DESIGN]}
    assert {manual: figures for manual, figures in found.items() if figures} == {}


def test_each_rule_a_manual_states_is_the_codes():
    stated = {m[0] for manual in MANUALS for m in _FIGURE.finditer(_prose(_manual(manual))) if m[0] in RULES}
    assert stated, "no manual states a rule: RULES is stale"
    assert [rule for rule in sorted(stated) if not RULES[rule]()] == []


# A manual is read by its audience in one sitting
LENGTHS = {"CONTRIBUTING.md": ("words", 2500), "MAINTAINING.md": ("words", 3000), ENGINE: ("lines", 200)}


@pytest.mark.parametrize("manual", sorted(LENGTHS))
def test_a_manual_is_read_in_one_sitting(manual):
    unit, most = LENGTHS[manual]
    text = _manual(manual)
    assert len(text.split() if unit == "words" else text.splitlines()) <= most


@pytest.mark.parametrize(
    ("check", "planted"),
    [
        (_missing_paths, "see `tools/no_such_tool.py`"),
        (_unknown_targets, "run `make no-such-target`"),
        (_unknown_options, "the option `no_such_option`"),
        (lambda m, t: _unknown_commands(m, t, _commands()), "`mkdocs-examples run --no-such-flag`"),
        (lambda m, t: _unknown_commands(m, t, _commands()), "`python -m mkdocs_examples frobnicate`"),
        (lambda m, t: _figures(t), "the 73 queries of the file"),
        (lambda m, t: _figures(t), "about three minutes on 2 cores"),
        (lambda m, t: _figures(t), "a site of about 21 MB"),
    ],
)
def test_each_check_fails_on_a_planted_mistake(check, planted):
    assert check("CONTRIBUTING.md", _manual("CONTRIBUTING.md") + "\n" + planted + "\n")
