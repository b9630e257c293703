"""Version facts from data: a check's ``holds=">=2.8"`` against what every release recorded.

The recordings of other releases here are test data made in these tests (this machine has one
torch): each is what `record` writes, its cells and failed check written out, filed under the
release it stands for and signed with a key these tests trust. The runner's part (a declared
failure lets the run go on) runs for real, on this machine's torch.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
from html import unescape
from pathlib import Path

import pytest
import yaml
from helpers import build_site
from mkdocs.exceptions import Abort

from mkdocs_examples.cli import main
from mkdocs_examples.recordings.attest import PrivateKey, Signer, add_signer
from mkdocs_examples.recordings.declared import problems
from mkdocs_examples.recordings.store import Failed, Recording, current, manifest_of, read_folder, write_folder
from mkdocs_examples.results import CellResult, Result
from mkdocs_examples.source.cells import Example, ExampleError, parse_cells
from mkdocs_examples.source.holds import Holds
from mkdocs_examples.texts import text

FIXTURE = Path(__file__).parent / "site"
TORCH = "2.13.0+cpu"  # the build's, in the tests that make results by hand


def example(source: str, path: str = "t/claims.py") -> Example:
    return Example(path, Path(f"/x/{path}"), source, parse_cells(source, f"examples/{path}"))


# --- the declaration -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("declared", "en", "zh", "inside", "outside"),
    [
        (">=2.8", "torch 2.8 and later", "torch 2.8 及以上", ["2.8.0", "2.15.0+cpu"], ["2.7.1", "2.4.1+cu121"]),
        ("<2.14", "torch 2.13 and earlier", "torch 2.13 及以下", ["2.13.0+cpu", "2.4.1"], ["2.14.1", "2.15.0"]),
        (">=2.7,<2.14", "torch 2.7 to 2.13", "torch 2.7 至 2.13", ["2.7.1", "2.13.0"], ["2.6.0", "2.14.1"]),
        (">=2.6, <2.7", "torch 2.6 only", "仅 torch 2.6", ["2.6.0"], ["2.5.1", "2.7.1"]),
        ("!=2.6", "every torch release but 2.6", "torch 2.6 以外的所有版本", ["2.5.1", "2.7.1"], ["2.6.0"]),
    ],
)
def test_a_range_reads_in_each_language_and_covers_patch_releases_of_its_minors(declared, en, zh, inside, outside):
    holds = Holds.parse(declared)
    assert holds.words(text("en")) == en and holds.words(text("zh")) == zh
    assert all(holds.covers(v) for v in inside) and not any(holds.covers(v) for v in outside)


def test_holds_is_read_from_the_cell_line_and_changes_no_key():
    plain = example('import torch\n# %% shown\nx = 1\n# %% shown-checks tags=["remove-cell"]\nassert x\n')
    held = example('import torch\n# %% shown\nx = 1\n# %% shown-checks tags=["remove-cell"] holds=">=2.8"\nassert x\n')
    assert held.cells[2].holds == Holds.parse(">=2.8") and plain.cells[2].holds is None
    assert held.keys == plain.keys  # recordings of an example stay fresh when a declaration is added


@pytest.mark.parametrize(
    ("value", "message"),
    [('"2.8"', "holds= names torch minor releases"), ('">=2.8.1"', "holds= names torch minor releases"),
     ('">=2.8,>=2.9"', "two lower bounds"), ('">=2.9,<2.9"', "holds on no release"),
     ("2.8", "holds= is a string of torch releases")],
)  # fmt: skip
def test_a_range_that_cannot_be_read_is_refused_with_its_line(value, message):
    with pytest.raises(ExampleError, match=message) as refused:
        parse_cells(f"x = 1\n# %% check holds={value}\nassert x\n", "examples/a.py")
    assert str(refused.value).startswith("examples/a.py:2: ")


# --- the declaration against the recordings ---------------------------------------------------------------------

SOURCE = """\
import torch
# %% shown
x = torch.arange(3)
print(x)
# %% shown-checks tags=["remove-cell"]{holds}
assert x.dtype == torch.int64
# %% after
print("after")
"""


def recorded(ex: Example, torch: str, failed: int | None = None, declared: tuple[int, ...] = ()) -> Recording:
    """A recording of ``ex`` as `record` writes one on torch ``torch``: stopped at cell ``failed``, or run on past the
    cells of ``declared``."""
    cells = tuple(CellResult(i, "3\n" if i == 1 else "after\n" if i == 3 else "") for i in range(len(ex.cells))
                  if failed is None or i <= failed)  # fmt: skip
    def one(index: int) -> Failed:
        return Failed(index, ex.cells[index].lineno, "exception", "AssertionError")
    return Recording(ex.path, ex.keys, "2026-11-26T10:00:00Z", {"device": "cpu", "torch": torch, "python": "3.11.7"},
                     1.0, cells, tuple(c.name for c in ex.cells), None if failed is None else one(failed),
                     declared=tuple(one(i) for i in declared))  # fmt: skip


def built(ex: Example) -> Result:
    return Result(cells=tuple(CellResult(i) for i in range(len(ex.cells))), env={"device": "cpu", "torch": TORCH})


def test_an_undeclared_failure_on_a_recorded_release_is_a_problem_naming_example_cell_and_release():
    ex = example(SOURCE.format(holds=""))
    found = problems(ex, built(ex), [current(recorded(ex, "2.4.1"), ex), current(recorded(ex, "2.5.1", 2), ex)])
    assert len(found) == 1
    assert found[0].startswith("examples/t/claims.py:5: the check of cell `shown-checks` fails on torch 2.5.1 "
                               "(AssertionError), and no holds= declares it")  # fmt: skip


@pytest.mark.parametrize(
    ("holds", "problem"),
    [
        (">=2.6", None),  # fails on 2.5.1, holds on 2.6.0 and the build's 2.13.0
        (">=2.5", 'holds=">=2.5" of cell `shown-checks` does not match the recordings: it fails on torch 2.5.1 '
                  "(AssertionError), inside that range"),
        (">=2.7", 'holds=">=2.7" of cell `shown-checks` does not match the recordings: it holds on torch 2.6.0 too, '
                  "outside that range"),
        ("<2.13", "inside that range; it holds on torch 2.13.0 too, outside that range"),  # the build's own run counts
    ],
)
def test_a_declared_range_must_match_every_release_that_ran_the_check(holds, problem):
    ex = example(SOURCE.format(holds=f' holds="{holds}"'))
    runs = [current(recorded(ex, "2.5.1", declared=(2,)), ex), current(recorded(ex, "2.6.0"), ex)]
    found = problems(ex, built(ex), runs)
    assert found == [] if problem is None else (len(found) == 1 and problem in found[0]), found


def test_a_release_where_the_check_never_ran_as_it_is_now_says_nothing():
    ex = example(SOURCE.format(holds=' holds=">=2.6"'))
    stale = recorded(example(SOURCE.format(holds="").replace("torch.int64", "torch.int32")), "2.7.1", failed=2)
    assert problems(ex, built(ex), [r for r in [current(stale, ex)] if r]) == []  # its check ran other code


RAISES = """\
import torch
# %% gather raises="RuntimeError: gather(): Expected dtype int64 for index"{holds}
torch.gather(torch.ones(3), 0, torch.tensor([0], dtype=torch.int32))
# %% after
print("after")
"""
OTHER = 'Traceback (most recent call last):\nRuntimeError: gather(): Expected dtype int32 or int64 for index\n'
EXPECTED = 'Traceback (most recent call last):\nRuntimeError: gather(): Expected dtype int64 for index\n'


def test_a_raises_mismatch_on_a_recorded_release_is_a_problem_unless_declared():
    plain = example(RAISES.format(holds=""))
    run = Recording(plain.path, plain.keys, "2026-11-26T10:00:00Z", {"device": "cpu", "torch": "2.14.1"}, 1.0,
                    (CellResult(0), CellResult(1, traceback=OTHER), CellResult(2, "after\n")))  # fmt: skip
    built_run = Result(cells=(CellResult(0), CellResult(1, traceback=EXPECTED), CellResult(2, "after\n")),
                       env={"device": "cpu", "torch": TORCH})  # fmt: skip
    [problem] = problems(plain, built_run, [current(run, plain)])  # type: ignore[list-item]
    assert problem.startswith("examples/t/claims.py:2: the check of cell `gather` fails on torch 2.14.1 (RuntimeError")
    declared = example(RAISES.format(holds=' holds="<2.14"'))
    held = current(run, declared)
    assert held is not None and held.failed is None and [f.cell for f in held.declared] == [1]
    assert [c.cell for c in held.cells] == [0, 1, 2]  # a declared mismatch stops nothing: the cell after it shows
    assert problems(declared, built_run, [held]) == []


# --- the runner: a declared failure lets the run go on, on this machine's torch -----------------------------------


@pytest.fixture
def site(tmp_path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "site")
    config = yaml.safe_load((tmp_path / "site/mkdocs.yml").read_text())
    config["plugins"][1]["examples"].update(timeout=60, preload=["torch"])
    config["markdown_extensions"] += [{"pymdownx.tabbed": {"alternate_style": True}}, "pymdownx.details"]
    (tmp_path / "site/mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True))
    return tmp_path / "site"


HERE = """\
import torch
# %% shown
release = tuple(int(n) for n in torch.__version__.split("+")[0].split(".")[:2])
print("shown")
# %% shown-checks tags=["remove-cell"]{holds}
assert release < (2, 13), "this torch is 2.13 or later"
# %% after
print("after", len(release))
"""


def test_a_failure_the_declaration_expects_on_this_torch_lets_the_run_go_on_and_is_recorded(site, capsys):
    import torch

    if tuple(int(n) for n in torch.__version__.split(".")[:2]) < (2, 13):
        pytest.fail(f"this test's check fails only on torch 2.13 and later, and this is {torch.__version__}")
    config = ["-f", str(site / "mkdocs.yml")]
    (site / "examples/three.py").write_text(HERE.format(holds=' holds="<2.13"'))
    assert main(["record", str(site / "examples/three.py"), "--keep-failed", "--out", str(site / "kept"), *config]) == 0
    made = read_folder(site / "kept")["three.py"]
    assert made.failed is None and [(f.cell, f.line, f.message) for f in made.declared] == [
        (2, 6, "AssertionError: this torch is 2.13 or later")]  # fmt: skip
    assert made.cells[3].output == "after 2\n"  # the cell after the failed check ran, and is recorded
    # without the declaration, the same failure stops the run there
    (site / "examples/three.py").write_text(HERE.format(holds=""))
    plain = ["record", str(site / "examples/three.py"), "--keep-failed", "--out", str(site / "plain"), *config]
    assert main(plain) == 0
    stopped = read_folder(site / "plain")["three.py"]
    assert stopped.failed is not None and stopped.failed.cell == 2 and [c.cell for c in stopped.cells] == [0, 1, 2]
    # the declaration covering this torch: the failure is a failed check, as any
    (site / "examples/three.py").write_text(HERE.format(holds=' holds=">=2.4"'))
    assert main(["run", str(site / "examples/three.py"), *config]) == 1
    assert "a claim of this page no longer holds" in capsys.readouterr().err


# --- the strict build ----------------------------------------------------------------------------------------------

PAGE = """\
# Claims

The sum of `x` is 3 ([holds: three.py#shown-checks]).

/// example | three.py
///
"""
CHECKED = """\
import torch
# %% shown
x = torch.arange(3)
print(x.sum().item())
# %% shown-checks tags=["remove-cell"]{holds}
assert x.sum().item() == 3
# %% after
print("after")
"""
RELEASE = "cpu-torch2.4.1-py3.11"  # the folder of the release the test data stands for


@pytest.fixture(scope="module")
def key() -> PrivateKey:
    return PrivateKey.generate()


def publish(site: Path, key: PrivateKey, recording: Recording) -> None:
    """``recording`` filed under its release's folder of ``site``'s recordings, signed by a key they trust."""
    root = site / "recordings"
    if not (root / "signers.json").exists():
        add_signer(root, Signer("test: the version workflow's key", "versions-workflow", ("cpu-*",), key.public()))
    write_folder(root / RELEASE, [key.sign(recording, RELEASE)], manifest=manifest_of([recording]))


def pages(site: Path) -> dict[str, str]:
    return {lang: unescape(re.sub(r"<[^>]+>", "", (site / f"site/{prefix}claims/index.html").read_text()))
            for lang, prefix in (("en", ""), ("zh", "zh/"))}  # fmt: skip


def test_a_check_that_fails_on_one_recorded_release_fails_the_strict_build_until_declared(site, key, caplog):
    for lang in ("en", "zh"):
        (site / f"docs/{lang}/claims.md").write_text(PAGE)
    (site / "examples/three.py").write_text(CHECKED.format(holds=""))
    ex = example(CHECKED.format(holds=""), "three.py")
    # torch 2.4.1's run, as `record --keep-failed` wrote it before declarations: stopped at the failed check
    publish(site, key, recorded(ex, "2.4.1+cpu", failed=2))
    with pytest.raises(Abort):
        build_site(site, strict=True)
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    said = ("mkdocs_examples: examples/three.py:5: the check of cell `shown-checks` fails on torch 2.4.1 "
            "(AssertionError), and no holds= declares it")  # fmt: skip
    assert any(m.startswith(said) for m in warned), warned
    # declared: the strict build passes, and each page says the range beside the claim, in the prose and at its end,
    # there with the claim in words, in the page's language
    (site / "examples/three.py").write_text(CHECKED.format(holds=' holds=">=2.5" claim="The sum of `x` is 3"'))
    (site / "examples/three.zh.yml").write_text("The sum of `x` is 3: '`x` 的和是 3'\n")
    caplog.clear()
    build_site(site, strict=True)
    text = pages(site)
    assert "The sum of x is 3 (torch 2.5 and later)." in text["en"]
    assert "The sum of x is 3 (torch 2.5 及以上)." in text["zh"]
    assert "The claim checked here holds on torch 2.5 and later." in text["en"]
    assert "此处检验的说法适用于 torch 2.5 及以上。" in text["zh"]
    assert "The sum of x is 3: true on torch 2.5 and later, not on torch 2.4.1." in text["en"]
    assert "x 的和是 3：适用于 torch 2.5 及以上，在 torch 2.4.1 上并非如此。" in text["zh"]
    html = (site / "site/claims/index.html").read_text()
    assert '<a href="#ex-three-shown">The sum of <code>x</code> is 3</a>' in html  # to the cell the check is about
    assert ('For contributors' in text["en"] and 'examples/three.py, line 5, holds=">=2.5": the check fails on torch '
            "2.4.1+cpu (AssertionError)." in text["en"])  # fmt: skip
    assert "does not hold on torch" not in text["en"]  # the checks line lists what is declared, only
    # recorded again by an engine that goes on past a declared failure: the cells after it are that release's too
    publish(site, key, recorded(ex, "2.4.1+cpu", declared=(2,)))
    build_site(site, strict=True)
    data = json.loads((site / "site/outputs/examples/three.json").read_text())
    assert RELEASE in data["cells"]["3"] and RELEASE not in data["failed"]  # the cell after the check: 2.4.1's too


RAISING = """\
import torch
# %% wrong-dim raises="IndexError: Dimension out of range"{holds}
torch.ones(2).sum(dim=2)
# %% after
print("after")
"""


def test_a_raises_mismatch_on_a_recorded_release_fails_the_strict_build_until_declared(site, key, caplog):
    for lang in ("en", "zh"):
        (site / f"docs/{lang}/claims.md").write_text("# Claims\n\n/// example | three.py\n///\n")
    (site / "examples/three.py").write_text(RAISING.format(holds=""))
    ex = example(RAISING.format(holds=""), "three.py")
    # torch 2.4.1's run of the same code, as `record` wrote it: the cell raised, with another message
    other = "Traceback (most recent call last):\nIndexError: dimension 2 is out of range for a tensor of 1 dimension\n"
    cells = (CellResult(0), CellResult(1, traceback=other), CellResult(2, "after\n"))
    publish(site, key, Recording(ex.path, ex.keys, "2026-11-26T10:00:00Z",
                                 {"device": "cpu", "torch": "2.4.1+cpu", "python": "3.11.7"}, 1.0, cells,
                                 tuple(c.name for c in ex.cells)))  # fmt: skip
    with pytest.raises(Abort):
        build_site(site, strict=True)
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    said = ("mkdocs_examples: examples/three.py:2: the check of cell `wrong-dim` fails on torch 2.4.1 "
            '(IndexError: dimension 2 is out of range for a tensor of 1 dimension (raises= says "IndexError: '
            'Dimension out of range")), and no holds= declares it')  # fmt: skip
    assert any(m.startswith(said) for m in warned), warned
    (site / "examples/three.py").write_text(RAISING.format(holds=' holds=">=2.5"'))
    caplog.clear()
    build_site(site, strict=True)
    assert "Raised (as intended)" in pages(site)["en"]
    assert "One claim of this page: true on torch 2.5 and later, not on torch 2.4.1." in pages(site)["en"]
