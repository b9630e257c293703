"""Claims about errors (``raises=``) and what a failed claim or hidden check tells the contributor."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest
from helpers import build_site
from mkdocs.exceptions import Abort

from mkdocs_examples.cli import main
from mkdocs_examples.execute.engine import CLAIM_FAILED, Outcome, describe, judged
from mkdocs_examples.execute.raises import matches
from mkdocs_examples.recordings.store import Recording, current
from mkdocs_examples.results import CellResult, Failure, Result
from mkdocs_examples.source.cells import Example, ExampleError, parse_cells

FIXTURE = Path(__file__).parent / "site"
TRACEBACK = """Traceback (most recent call last):
  File "examples/t/one_hot.py", line 4, in <module>
    F.one_hot(torch.tensor([-1, 2]))
RuntimeError: Class values must be non-negative.
"""


@pytest.mark.parametrize(
    ("claim", "holds"),
    [
        ("RuntimeError: Class values must be non-negative", True),  # a prefix
        ("RuntimeError: Class values must be non-negative.", True),
        ("RuntimeError", True),  # a type alone: any message
        ("RuntimeError: Class … non-negative", True),  # … stands for any text
        ("RuntimeError: …negative", True),
        ("RuntimeError:   Class   values", True),  # whitespace folded
        ("ValueError: Class values must be non-negative", False),
        ("Runtime", False),  # a type is a whole name
        ("RuntimeError: Class values must be positive", False),
        ("RuntimeError: non-negative", False),  # from the start of the message
        ("RuntimeError: … positive", False),
    ],
)
def test_a_claim_matches_the_exception_line_from_its_start(claim, holds):
    assert matches(claim, TRACEBACK) is holds


def test_a_claim_matches_a_message_that_starts_on_the_line_after_its_type():
    scripted = TRACEBACK.replace("RuntimeError: Class", "RuntimeError: \nClass")
    assert matches("RuntimeError: Class values must be non-negative", scripted)
    assert matches("RuntimeError", scripted)
    assert not matches("RuntimeError: values", scripted)


def test_raises_implies_the_tag_and_changes_no_key():
    claimed = parse_cells('# %% bad raises="RuntimeError: Class values"\nf()\n')
    tagged = parse_cells('# %% bad tags=["raises-exception"]\nf()\n')
    assert claimed[0].has("raises-exception") and claimed[0].raises == "RuntimeError: Class values"
    assert claimed[0].header == 1
    both = parse_cells('# %% bad tags=["raises-exception"] raises="RuntimeError"\nf()\n')
    keys = [Example("a.py", Path("/x/a.py"), "", cells).keys for cells in (claimed, tagged, both)]
    assert keys[0] == keys[1] == keys[2]


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ("raises=1", "raises= names the exception as Python prints it"),
        ('raises="not an error"', "raises= names the exception as Python prints it"),
        ('raise="RuntimeError"', "unknown cell metadata raise=; a cell takes tags=, raises="),
    ],
)
def test_a_claim_that_names_no_exception_is_refused_with_its_line(header, message):
    with pytest.raises(ExampleError, match=message) as refused:
        parse_cells(f"x = 1\n# %% bad {header}\nf()\n", "examples/a.py")
    assert str(refused.value).startswith("examples/a.py:2: ")


def example(source: str) -> Example:
    return Example("t/one_hot.py", Path("/x/t/one_hot.py"), source, parse_cells(source, "examples/t/one_hot.py"))


SOURCE = 'import torch\n\n# %% negative raises="RuntimeError: Class values must be positive"\nF.one_hot(x)\n'


def test_a_result_whose_exception_is_not_the_claimed_one_fails_naming_line_expected_and_actual():
    ran = Result(cells=(CellResult(0), CellResult(1, traceback=TRACEBACK)), env={"torch": "2.13.0"})
    outcome = judged(Outcome(example(SOURCE), ran, "cache"))  # a kept result: the claim is judged anew
    assert outcome.failure is not None and outcome.failure.kind == "raises"
    message = describe(outcome)
    assert message.startswith("examples/t/one_hot.py:3: a claim of this page no longer holds")
    assert "expected: RuntimeError: Class values must be positive" in message
    assert "actual:   RuntimeError: Class values must be non-negative." in message
    right = example(SOURCE.replace("must be positive", "must be non-negative"))
    assert judged(Outcome(right, ran, "cache")).failure is None


def test_a_recording_whose_exception_is_not_the_claimed_one_is_that_releases_failed_check():
    ex = example(SOURCE + "\n# %% after\nprint(1)\n")
    cells = (CellResult(0), CellResult(1, traceback=TRACEBACK), CellResult(2, "1\n"))
    recording = Recording(ex.path, ex.keys, "2026-11-22T10:00:00Z", {"device": "cpu", "torch": "2.4.1"}, 1.0,
                          cells, tuple(c.name for c in ex.cells))  # fmt: skip
    held = current(recording, ex)
    assert held is not None and held.failed is not None
    assert (held.failed.cell, held.failed.line) == (1, 3)
    assert held.failed.message == ('RuntimeError: Class values must be non-negative. '
                                   '(raises= says "RuntimeError: Class values must be positive")')  # fmt: skip
    assert [c.cell for c in held.cells] == [0, 1]  # its output stops there, as after a failed assertion
    right = example(SOURCE.replace("must be positive", "must be non-negative") + "\n# %% after\nprint(1)\n")
    assert current(recording, right).failed is None  # type: ignore[union-attr]


def test_a_failed_hidden_check_says_a_claim_no_longer_holds_with_its_line_never_to_tag_it():
    source = '# %% shown\nx = 1\n\n# %% shown-checks tags=["remove-cell"]\nassert x == 2, "x is two"\n'
    failure = Failure("exception", 1, 5, 'Traceback (most recent call last):\nAssertionError: x is two\n')
    message = describe(Outcome(example(source), Result(cells=(CellResult(0),), failure=failure), "run"))
    assert message.startswith(f"examples/t/one_hot.py:5: {CLAIM_FAILED}; the check: assert x == 2")
    assert "raises-exception" not in message


@pytest.fixture
def site(tmp_path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "site")
    return tmp_path / "site"


def test_the_strict_build_fails_on_a_claim_that_does_not_hold_naming_the_example_once(site, caplog):
    (site / "examples/one.py").write_text(
        'numbers = list(range(3))\n\n# %% wrong raises="ValueError: numbers must be even"\n'
        'raise ValueError("numbers must be odd")\n'
    )
    with pytest.raises(Abort):
        build_site(site, strict=True)
    message = "\n".join(r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR)
    assert message.startswith("1 example failed:")
    assert "examples/one.py:3: a claim of this page no longer holds" in message
    assert "expected: ValueError: numbers must be even" in message
    assert "actual:   ValueError: numbers must be odd" in message
    assert message.count("expected:") == 1  # one message for the example, naming its pages in both languages
    assert "(embedded at docs/en/index.md:3, docs/zh/index.md:3)" in message


def test_run_checks_the_claims_too(site, capsys):
    (site / "examples/one.py").write_text('# %% wrong raises="KeyError"\nraise ValueError("odd")\n')
    assert main(["run", str(site / "examples/one.py"), "-f", str(site / "mkdocs.yml")]) == 1
    err = capsys.readouterr().err
    assert "expected: KeyError" in err and "actual:   ValueError: odd" in err
