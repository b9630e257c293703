"""What a reader takes away: an example as a script that runs to its end anywhere.

On the site a cell tagged ``raises-exception`` shows its traceback and the example goes on;
``python example.py`` would stop there. The runnable form wraps such a cell in
``try``/``except`` that prints the traceback, and a ``requires-cuda`` cell in a check for a
GPU, and leaves every other line as the contributor wrote it, cell markers included, so it
is still a percent-format script that Jupytext, VS Code or PyCharm open as a notebook.
"""

from __future__ import annotations

import textwrap

from mkdocs_examples.cells import Example

PREAMBLE = "import traceback  # cells that raise on purpose print their error, and the script goes on\n"
CUDA = "import torch  # cells that need a CUDA GPU run only where there is one\n"


def runnable_script(example: Example) -> str:
    """The source of ``example``, with raising cells caught and CUDA cells guarded."""
    lines = example.source.splitlines()
    for cell in sorted(example.cells, key=lambda c: c.lineno, reverse=True):
        first, count = cell.lineno - 1, cell.source.count("\n")
        body = "\n".join(lines[first : first + count])
        if cell.has("raises-exception"):
            wrapped = (
                f"try:\n{textwrap.indent(body, '    ')}\n"
                "except Exception:  # raised on purpose: the page shows this error\n    traceback.print_exc()"
            )
        elif cell.has("requires-cuda"):
            wrapped = (
                f"if torch.cuda.is_available():\n{textwrap.indent(body, '    ')}\n"
                'else:\n    print("(this cell needs a CUDA GPU; none here)")'
            )
        else:
            continue
        lines[first : first + count] = wrapped.splitlines()
    if not example.cells:
        return example.source
    opening = example.cells[0].source.splitlines()
    head = PREAMBLE if any(c.has("raises-exception") for c in example.cells) else ""
    if any(c.has("requires-cuda") for c in example.cells) and "import torch" not in opening:
        head += CUDA
    # the first lines of the first code cell (a notebook runs them too), after `from __future__`
    first = example.cells[0].lineno - 1 + sum(1 for line in opening if line.startswith("from __future__"))
    lines[first:first] = head.splitlines()
    return "\n".join(lines) + "\n"
