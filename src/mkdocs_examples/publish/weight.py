"""The weight of a built site and of each page, against the options ``max_page_size`` and ``max_site_size``.

What one example shows is bounded by its own options (``execute/child/budget.py``); a page embeds
several examples and the recordings of other environments beside them, and a site copies every page
into each language, with downloads and notebook views. A page or a site past its budget is named with
what weighs most in it, as a warning: ``mkdocs build --strict`` fails on it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from mkdocs_examples.execute.child.budget import size
from mkdocs_examples.results import Result, png_size
from mkdocs_examples.source.cells import Example

MIB = 1 << 20
SHOW_LESS = "show less in its examples (their options `max_output_bytes` and `max_figures_bytes`)"


def page_problem(name: str, weight: int, budget: float, shown: Iterable[tuple[Example, Result]]) -> str | None:
    """Why page ``name``, ``weight`` bytes of HTML, is past ``budget`` MiB, naming what weighs most; None if not."""
    if not budget or weight <= budget * MIB:
        return None
    most = heaviest(shown)
    return (
        f"{name}: the page weighs {size(weight)}, past the plugin option `max_page_size` ({budget:g} MiB)"
        + (f"; what weighs most in it is {most}" if most else "")
        + f". Split the page, {SHOW_LESS}, or raise the option"
    )


def site_problem(folder: Path, budget: float, shown: Iterable[tuple[Example, Result]]) -> str | None:
    """Why the site in ``folder`` is past ``budget`` MiB, naming its heaviest files and examples; None if not."""
    if not budget:
        return None
    files = []
    for top, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(top, name)
            files.append((os.path.getsize(path), os.path.relpath(path, folder)))
    total = sum(bytes_ for bytes_, _ in files)
    if total <= budget * MIB:
        return None
    listed = ", ".join(f"{path} ({size(bytes_)})" for bytes_, path in sorted(files, reverse=True)[:3])
    most = heaviest(shown)
    return (
        f"the site weighs {size(total)}, past the plugin option `max_site_size` ({budget:g} MiB); its heaviest "
        f"files are {listed}" + (f"; what weighs most among its examples is {most}" if most else "")
        + f". {SHOW_LESS[0].upper()}{SHOW_LESS[1:]}, publish fewer pages, or raise the option"
    )


def heaviest(shown: Iterable[tuple[Example, Result]]) -> str | None:
    """The example of ``shown`` whose output a page carries most of, and its largest figure; None for no output."""
    weights = [(_weight(result), example.display, example, result) for example, result in shown]
    weight, display, example, result = max(weights, default=(0, "", None, None))
    if not weight or example is None or result is None:
        return None
    figures = [(png_size(image), number, cell.cell)
               for cell in result.cells for number, image in enumerate(cell.images, 1)]  # fmt: skip
    text = f"the output of {display} ({size(weight)})"
    if figures:
        bytes_, number, index = max(figures, key=lambda figure: figure[0])  # the first of the largest
        line = example.cells[index].lineno if index < len(example.cells) else None
        text += f", and its largest figure is figure {number} of the cell at line {line} ({size(bytes_)} of PNG)"
    return text


def _weight(result: Result) -> int:
    """Bytes a page carries of ``result``: its text, and its figures as base64."""
    return sum(cell.text_size() + sum(len(image) for image in cell.images) for cell in result.cells)
