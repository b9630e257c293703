"""The example lines a page shows fit in about 80 columns: wider ones scroll sideways at 1280 px and
hide their end, often the comment that matters."""

from __future__ import annotations

from pathlib import Path

from mkdocs_examples.source.cells import Example

EXAMPLES = Path(__file__).parent.parent / "examples"
WIDTH = 80
# Shown lines still wider, per example, when the limit came. Each of these examples has CUDA outputs
# recorded on a GPU (recordings/cuda/), which any edit of the file hides until the GPU job records
# it again: rewrap an example together with its new recording, and lower or remove its number here.
# A number that is too high fails too, so that the allowance only shrinks.
WIDER: dict[str, int] = {}  # examples allowed wider shown lines, and how many: none today


def wide_lines(file: Path, root: Path = EXAMPLES) -> list[str]:
    """``examples/<path>:<line>: <width> columns`` for each line of a shown cell wider than WIDTH."""
    path = file.relative_to(root).as_posix()
    example = Example.from_source(path, file, file.read_text(encoding="utf-8"))
    return [
        f"{example.display}:{cell.lineno + i}: {len(line)} columns"
        for cell in example.cells
        if not (cell.has("remove-cell") or cell.has("remove-input"))  # never shown: assertions
        for i, line in enumerate(cell.source.splitlines())
        if len(line) > WIDTH
    ]


def test_shown_example_lines_fit_in_80_columns():
    found = {f.relative_to(EXAMPLES).as_posix(): wide_lines(f) for f in sorted(EXAMPLES.rglob("[!_]*.py"))}
    wider = [line for path, lines in found.items() if len(lines) > WIDER.get(path, 0) for line in lines]
    assert not wider, f"lines wider than {WIDTH} columns; wrap them: {wider}"
    fixed = {path: len(found.get(path, [])) for path, n in WIDER.items() if len(found.get(path, [])) < n}
    assert not fixed, f"fewer wide lines than WIDER in tests/test_example_lines.py allows: lower it to {fixed}"


def test_a_wide_line_in_a_shown_cell_is_found_and_one_in_a_hidden_cell_is_not(tmp_path):
    file = tmp_path / "demo.py"
    wide = "x = 1  # " + "a" * WIDTH
    file.write_text(f'# %% shown\n{wide}\n\n# %% checks tags=["remove-cell"]\n{wide}\n', encoding="utf-8")
    assert wide_lines(file, tmp_path) == [f"examples/demo.py:2: {len(wide)} columns"]
