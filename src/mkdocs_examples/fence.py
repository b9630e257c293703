"""The engine as a pymdown-extensions superfences custom fence, for sites built without MkDocs.

A fence names an example of the examples folder, or one named cell of it, as a ``/// example`` block does::

    ```example
    hello.py#greet
    ```

and becomes the example's code and the output each cell printed, run by the engine (sandboxed,
cached by everything that changes it) and rendered to HTML with the page's own Markdown extensions.
Plain Python-Markdown::

    import markdown
    from mkdocs_examples import fence

    md = markdown.Markdown(
        extensions=["admonition", "pymdownx.highlight", "pymdownx.superfences"],
        extension_configs={"pymdownx.superfences": {"custom_fences": [fence.custom_fence(examples_dir="examples")]}},
    )
    html = md.convert(page)
    fence.close()  # the worker ends with the process anyway

The options are the plugin's (``settings.Settings``: ``examples_dir``, ``cache_dir``, ``preload``,
``timeout`` ...), relative to ``root`` (default: the current folder). A failed example, a missing
file or cell raises :class:`SiteError` with the message the plugin would stop the build with: a
page is never written without the output it claims. What a MkDocs build adds beyond a block (recordings
of other environments, notebook views, downloads, the error index) is the plugin's, not the fence's.
"""

from __future__ import annotations

import atexit
from pathlib import Path
from typing import Any

from markdown import Markdown  # type: ignore[import-untyped]

from mkdocs_examples.execute.engine import Engine, describe
from mkdocs_examples.render.page import render_example
from mkdocs_examples.results import SiteError
from mkdocs_examples.settings import Settings
from mkdocs_examples.source.cells import ExampleError

NAME = "example"  # the fence's default name: ```example
_engines: list[Engine] = []


class Fence:
    """A fence's ``format``, with its engine: started on the first fence that must run, kept for the next."""

    def __init__(self, settings: Settings, root: Path, lang: str) -> None:
        self.settings, self.root, self.lang = settings, root, lang
        self._engine: Engine | None = None

    @property
    def engine(self) -> Engine:
        if self._engine is None:
            self._engine = Engine.from_config(self.settings, self.root, watch=[self.root])
            _engines.append(self._engine)
        return self._engine

    def markdown(self, source: str) -> str:
        """The Markdown of the example (``path`` or ``path#cell``) the fence's body names."""
        path, _, cell = source.strip().partition("#")
        try:
            example = self.engine.load(path)
            if cell:
                example.cell(cell)  # a missing cell is an ExampleError before anything runs
        except ExampleError as error:
            raise SiteError(f"```{NAME} {source.strip()}: {error}") from None
        outcome = self.engine.run([example])[example.path]
        if outcome.failure:
            raise SiteError(describe(outcome))
        return render_example(example, outcome.result, cell or None, lang=self.lang, limit=self.settings.max_output)

    def __call__(self, source: str, language: str, css_class: str, options: dict, md: Markdown, **kwargs: Any) -> str:
        """superfences' ``format``: the fence as HTML, converted with the page's own extensions."""
        inner = Markdown(extensions=md.registeredExtensions)  # as markdown-exec does: the same extensions, anew
        return inner.convert(self.markdown(source))


def validate(language: str, inputs: dict, options: dict, attrs: dict, md: Markdown) -> bool:
    """superfences' ``validator``: the fence takes no options (its body names the example and cell)."""
    return not inputs


def custom_fence(*, name: str = NAME, root: Path | str | None = None, lang: str = "en", **options: Any) -> dict:
    """One entry of superfences' ``custom_fences``: ``options`` are the plugin's (``examples_dir`` ...), relative to
    ``root`` (default: the current folder); ``lang``: the language of the notes under outputs (``en``, ``zh``)."""
    settings = Settings.from_mapping(options)
    unknown = set(options) - set(Settings.__dataclass_fields__)
    if unknown:
        raise ValueError(f"unknown examples option(s): {', '.join(sorted(unknown))}")
    format = Fence(settings, Path(root or Path.cwd()).resolve(), lang)
    return {"name": name, "class": name, "format": format, "validator": validate}


def close() -> None:
    """End the engines' workers (they end with the process too)."""
    while _engines:
        _engines.pop().close()


atexit.register(close)
