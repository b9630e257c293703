"""A cell's key is the code that runs up to it (source/keys.py): what changes it, what does not, and how
recorded outputs keep naming the right line once comments move lines."""

from __future__ import annotations

import io
import itertools
import re
import shutil
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

from mkdocs_examples.cli import main
from mkdocs_examples.recordings.store import Published, read
from mkdocs_examples.source import keys
from mkdocs_examples.source.cells import Example, read_example

ROOT = Path(__file__).parent.parent
FIXTURE = Path(__file__).parent / "site"

SOURCE = """\
import torch

# %% first
x = torch.arange(6)
print(x.view(2, 3))

# %% second tags=["remove-output"]
print("second", x.sum())

# %% third
print([1, 2, 3])
"""


def example(source: str) -> Example:
    return Example.from_source("d/x.py", Path("/x/d/x.py"), source)


BASE = example(SOURCE).keys

UNCHANGED = {
    "a comment line": SOURCE.replace("# %% first\n", "# %% first\n# what x holds\n"),
    "a trailing comment": SOURCE.replace("print(x.view(2, 3))", "print(x.view(2, 3))  # two rows"),
    "blank lines": SOURCE.replace("x = torch.arange(6)\n", "\n\nx = torch.arange(6)\n\n"),
    "a call wrapped inside its brackets": SOURCE.replace("print(x.view(2, 3))",
                                                         "print(\n    x.view(\n        2, 3)\n)"),
    "a note in each language": SOURCE.replace("# %% third", '# %% [markdown]\n# a note\n\n# %% [markdown] lang="zh"\n'
                                              "# 一条注释\n\n# %% third"),
    "a display tag": SOURCE.replace('tags=["remove-output"]', 'tags=["remove-output", "varies"]'),
    "a cell's name": SOURCE.replace("# %% third", "# %% renamed"),
    "other quotes": SOURCE.replace('"second"', "'second'"),
    "a string wrapped as two": SOURCE.replace('print("second", x.sum())', 'print("sec"\n      "ond", x.sum())'),
    "a string continued with a backslash": SOURCE.replace('"second"', '"sec\\\nond"'),
}


@pytest.mark.parametrize("edit", UNCHANGED)
def test_what_does_not_run_changes_no_key(edit):
    assert example(UNCHANGED[edit]).keys == BASE


CHANGED = {  # the edit, and the first cell whose key it changes
    "a string": (SOURCE.replace('"second"', '"2nd"'), 2),
    "a number": (SOURCE.replace("arange(6)", "arange(8)"), 1),
    "a name": (SOURCE.replace("print([1, 2, 3])", "repr([1, 2, 3])"), 3),
    "statements reordered": (SOURCE.replace("x = torch.arange(6)\nprint(x.view(2, 3))",
                                            "print(x.view(2, 3))\nx = torch.arange(6)"), 1),
    "an execution tag": (SOURCE.replace('tags=["remove-output"]', 'tags=["raises-exception"]'), 2),
    "the import cell": (SOURCE.replace("import torch", "import torch as T"), 0),
}


@pytest.mark.parametrize("edit", CHANGED)
def test_what_runs_changes_the_key_of_its_cell_and_every_cell_after_it_only(edit):
    source, first = CHANGED[edit]
    now = example(source).keys
    assert now[:first] == BASE[:first]  # editing cell k keeps the keys of cells 0..k-1
    assert all(a != b for a, b in zip(now[first:], BASE[first:], strict=True))


def test_a_cell_that_does_not_tokenize_is_keyed_by_its_text():
    broken = SOURCE.replace("print([1, 2, 3])", "print([1, 2, 3)")
    assert example(broken).keys[:3] == BASE[:3] and example(broken).keys[3] != BASE[3]
    assert example(broken + "# tail\n").keys[3] != example(broken).keys[3]


def test_a_helper_file_in_the_examples_folder_is_in_every_key(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d/x.py").write_text(SOURCE)
    before = read_example(tmp_path, "d/x.py").keys
    assert before == BASE  # no helper files: the same keys as a source read on its own
    (tmp_path / "data.csv").write_text("1,2\n")
    with_data = read_example(tmp_path, "d/x.py").keys
    assert all(a != b for a, b in zip(with_data, before, strict=True))
    (tmp_path / "data.csv").write_text("1,3\n")
    assert read_example(tmp_path, "d/x.py").keys != with_data


@pytest.mark.parametrize(
    ("one", "other", "same"),
    [
        ('f"{x} and {y}"', 'f"{x} and " f"{y}"', True),  # an f-string wrapped as two
        ('f"{x}: {{}}"', 'f"{x}: " "{}"', True),  # a plain piece beside an f-string: its braces are literal
        ('f"{x}"', '"{x}"', False),  # an f-string is not the text of its braces
        ('b"ab"', 'b"a" b"b"', True),
        ('b"ab"', '"ab"', False),  # bytes are not text
        (r'r"\n"', r'"\n"', False),  # a raw string keeps its backslash
        ('"a\tb"', "'a\\tb'", True),  # an escape and the character it stands for
    ],
)
def test_strings_are_keyed_by_the_value_python_makes_of_them(one, other, same):
    a, b = (keys.code_digest(f"x = y = 1\nprint({text})\n") for text in (one, other))
    assert (a == b) is same


def test_an_fstring_keys_as_one_string_token():
    one = example('x = 1\n# %% a\nprint(f"{x!r:>4} and {x + 1}")\n')
    assert [t for t, _, _ in keys._tokens('print(f"{x!r:>4} and {x + 1}")\n')][2] == 'f"{x!r:>4} and {x + 1}"'
    assert one.keys != example('x = 1\n# %% a\nprint(f"{x!r:>4} and {x + 2}")\n').keys


# --- lines ------------------------------------------------------------------------

WARNS = 'import warnings\n\n# %% warn\nwarnings.warn("careful")\n\n# %% fails tags=["raises-exception"]\nint("x")\n'


def test_a_cited_line_follows_its_token_when_a_comment_moves_it():
    old, display = WARNS, "examples/d/w.py"
    output = f"{display}:4: UserWarning: careful\n"
    trace = f'Traceback (most recent call last):\n  File "{display}", line 7, in <module>\n    int("x")\n'
    anchors = keys.anchors(old, display, [output, trace])
    new = WARNS.replace("# %% warn\n", "# %% warn\n# a comment above the warning\n# and another\n")
    new = new.replace('int("x")', 'int("x")  # not a number')
    move = keys.Relocation(new, display, anchors)
    assert move.text(output) == f"{display}:6: UserWarning: careful\n"
    moved = move.text(trace)
    assert f'File "{display}", line 9, in <module>\n    int("x")  # not a number\n' in moved
    assert new.splitlines()[8] == 'int("x")  # not a number'


def test_the_marks_under_a_quoted_line_are_dropped_where_the_code_before_them_changed_layout():
    display = "examples/d/w.py"
    old = 'a = 1\nb = [a,\n     a][5]\n'
    trace = f'  File "{display}", line 2, in <module>\n    b = [a,\n        ^^^\n'
    new = 'a = 1\nb = [\n    a, a][5]\n'
    moved = keys.Relocation(new, display, keys.anchors(old, display, [trace])).text(trace)
    assert moved == f'  File "{display}", line 2, in <module>\n    b = [\n'


def test_a_source_that_torchscript_quotes_is_renumbered_and_left_as_it_printed_it():
    """TorchScript names the line it failed on, then quotes its function from the line before (the
    `def`): that quote is not the one line a Python frame shows under its `File` line."""
    display = "examples/d/s.py"
    old = "class M:\n    def forward(self, x):\n        return self.layers\n"
    trace = (f'RuntimeError:\nModule has no attribute:\n  File "{display}", line 3\n'
             "    def forward(self, x):\n        return self.layers\n               ~~~~~~~~~~~ <--- HERE\n")
    new = "# a comment\n" + old
    moved = keys.Relocation(new, display, keys.anchors(old, display, [trace])).text(trace)
    assert moved == trace.replace("line 3", "line 4")


def test_a_cached_output_names_the_warnings_line_after_a_comment_is_added_above_it(tmp_path, monkeypatch, capsys):
    site = tmp_path / "site"
    shutil.copytree(FIXTURE, site)
    monkeypatch.chdir(site)
    (site / "examples/warns.py").write_text(WARNS)
    assert main(["run", "examples/warns.py", "--show"]) == 0
    assert "examples/warns.py:4: UserWarning: careful" in capsys.readouterr().out
    (site / "examples/warns.py").write_text(WARNS.replace("# %% warn\n", "# %% warn\n# why it warns\n"))
    assert main(["run", "examples/warns.py", "--show"]) == 0
    out = capsys.readouterr().out
    assert "cached  warns.py" in out  # the same code: not run again
    assert "examples/warns.py:5: UserWarning: careful" in out and ":4: UserWarning" not in out
    assert 'File "examples/warns.py", line 8, in <module>' in out


# --- a real CUDA recording -------------------------------------------------------------

CUDA = ROOT / "recordings" / "cuda-torch2.11.0-py3.12"
EXAMPLES = sorted(p.relative_to(ROOT / "examples").as_posix() for p in (ROOT / "examples").rglob("*.py"))


def edited(source: str) -> str:
    """A comment line under every cell's marker, and every top-level ``print(`` call wrapped after its bracket
    (code in a string is left alone: it is a value)."""
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    in_strings = {line for t in tokens if t.type == tokenize.STRING for line in range(t.start[0] + 1, t.end[0] + 1)}
    calls = {t.start[0] for t, after in itertools.pairwise(tokens)
             if t.type == tokenize.NAME and t.string == "print" and t.start[1] == 0 and after.string == "("}
    lines = []
    for number, line in enumerate(source.splitlines(), start=1):
        lines.append(line)
        if number not in in_strings and re.match(r"^# %%(?! \[)", line):
            lines.append("# a comment that changes nothing that runs")
        if number in calls and not line.rstrip().endswith("("):
            lines[-1] = "print(\n    " + line.removeprefix("print(")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("path", EXAMPLES)
def test_a_comment_and_a_wrapped_call_keep_every_recorded_output_and_its_lines(path):
    now = read_example(ROOT / "examples", path)
    changed = Example.from_source(path, now.file, edited(now.source), now.folder, now.support)
    assert changed.source != now.source
    for folder in sorted((ROOT / "recordings").iterdir()):
        file = folder / f"{path.removesuffix('.py')}.json"
        if not file.is_file():
            continue
        recording = read(file, folder)
        shown, after = (Published.holding("x", recording, e) for e in (now, changed))
        assert [c.cell for c in (after.recording.cells if after.recording else ())] == \
               [c.cell for c in (shown.recording.cells if shown.recording else ())], folder.name
        assert (after.stale is None) == (shown.stale is None)
        for cell in after.recording.cells if after.recording else ():  # every line cited is code, where it moved
            for text in (cell.output, cell.traceback or ""):
                for line in re.findall(rf"examples/{re.escape(path)}(?:\", line |:)(\d+)", text):
                    code = changed.source.splitlines()[int(line) - 1].split("#")[0].strip()
                    assert code, f"{folder.name}: line {line} of the edited source is a comment or blank"


def test_the_edit_moves_lines_and_cuda_outputs_that_cite_them_follow():
    path = "modules/state_dict.py"
    now = read_example(ROOT / "examples", path)
    changed = Example.from_source(path, now.file, edited(now.source), now.folder, now.support)
    recording = read(CUDA / "modules/state_dict.json", CUDA)
    before = "".join(c.traceback or "" for c in Published.holding("cuda", recording, now).recording.cells)
    after = "".join(c.traceback or "" for c in Published.holding("cuda", recording, changed).recording.cells)
    cited = re.findall(r"line (\d+)", before)
    assert cited and re.findall(r"line (\d+)", after) != cited  # the lines moved, and the outputs say where to


def test_a_changed_literal_makes_the_cuda_output_of_its_cell_and_those_after_it_stale():
    path = "devices/gpu_memory.py"
    now = read_example(ROOT / "examples", path)
    recording = read(CUDA / f"{path.removesuffix('.py')}.json", CUDA)
    cell = next(c for c in now.cells if c.index > 0 and re.search(r"\d", c.source))
    digits = re.search(r"(?<![\w.])(\d+)(?![\w.])", cell.source)
    assert digits, cell.source
    start = cell.lineno - 1
    lines = now.source.splitlines(keepends=True)
    body = "".join(lines[start:])
    body = body[: digits.start()] + str(int(digits[1]) + 1) + body[digits.end() :]
    changed = Example.from_source(path, now.file, "".join(lines[:start]) + body, now.folder, now.support)
    after = Published.holding("cuda", recording, changed)
    assert after.stale is recording
    held = [c.cell for c in after.recording.cells] if after.recording else []
    assert held == [c.cell for c in recording.cells if c.cell < cell.index]


def test_an_output_citing_every_line_of_a_long_example_is_tied_in_linear_time():
    """An example's output is a stranger's: citing 40,000 lines of a 40,000-line source must not take
    40,000 x 40,000 steps (the old search did; it ran for minutes). Run apart, with a limit, not timed here."""
    code = (
        "from mkdocs_examples.source import keys\n"
        "source = 'x = 1\\n' * 40_000\n"
        "text = ''.join(f'examples/d/x.py:{n}: UserWarning: w\\n' for n in range(1, 40_001))\n"
        "found = keys.anchors(source, 'examples/d/x.py', [text])\n"
        "assert len(found) == keys.MAX_ANCHORS and found['40'] == {'token': 156, 'into': 0}, found['40']\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
