"""Execute Python examples at build time and put their real output into MkDocs pages.

The package, by where each part runs (README, "The engine"):

- ``source``: reading pages' example blocks and example files into cells;
- ``execute``: running examples, the build's side (``engine``, ``pool``, ``cache``) and, in
  ``execute.child``, what runs in the worker and its forked children (never MkDocs);
- ``render``: Markdown for a page; ``publish``: what a site offers beyond its pages
  (downloads, notebooks, the error index, output snapshots); ``recordings``: outputs made
  on other machines (the GPU job's commands);
- ``mkdocs``: the MkDocs adapter, the only part that imports MkDocs (its plugin ``examples``);
  ``cli`` and ``fence`` (a pymdown-extensions superfences fence): the ways in without it.

The names below are the public API; they are imported on first use, so that the worker
(which imports this package) never imports MkDocs, and the core serves without it.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_PUBLIC = {
    "ExamplesPlugin": "mkdocs_examples.mkdocs.plugin",
    "ExamplesConfig": "mkdocs_examples.mkdocs.config",
    "Settings": "mkdocs_examples.settings",
    "Engine": "mkdocs_examples.execute.engine",
    "Outcome": "mkdocs_examples.execute.engine",
    "EngineError": "mkdocs_examples.execute.engine",
    "Example": "mkdocs_examples.source.cells",
    "ExampleError": "mkdocs_examples.source.cells",
    "read_example": "mkdocs_examples.source.cells",
    "Options": "mkdocs_examples.results",
    "Result": "mkdocs_examples.results",
    "CellResult": "mkdocs_examples.results",
    "Failure": "mkdocs_examples.results",
}
__all__ = [  # noqa: RUF022 (grouped by module, as _PUBLIC)
    "__version__", "ExamplesPlugin", "ExamplesConfig", "Settings", "Engine", "Outcome", "EngineError",
    "Example", "ExampleError", "read_example", "Options", "Result", "CellResult", "Failure",
]  # fmt: skip

if TYPE_CHECKING:
    from mkdocs_examples.execute.engine import Engine, EngineError, Outcome
    from mkdocs_examples.mkdocs.config import ExamplesConfig
    from mkdocs_examples.mkdocs.plugin import ExamplesPlugin
    from mkdocs_examples.results import CellResult, Failure, Options, Result
    from mkdocs_examples.settings import Settings
    from mkdocs_examples.source.cells import Example, ExampleError, read_example


def __getattr__(name: str) -> Any:
    if name not in _PUBLIC:
        raise AttributeError(f"module 'mkdocs_examples' has no attribute {name!r}")
    return getattr(import_module(_PUBLIC[name]), name)
