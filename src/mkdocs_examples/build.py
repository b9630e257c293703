"""One build's findings: the pages that embed examples, each example as loaded, its outcome, and
what is wrong with a block; filled once per build by the plugin's ``on_pre_build`` and read by
every later event (pages, downloads, views, the picker).

A :class:`Build` holds no MkDocs object: the plugin hands it the pages, the engine that loads
the examples and the outcomes of :func:`run`, and the published recordings it reads beside them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from mkdocs_examples.execute.engine import Engine, Outcome, Progress, describe, summary
from mkdocs_examples.recordings import declared
from mkdocs_examples.recordings.declared import Verdict
from mkdocs_examples.recordings.published import PublishedRecordings
from mkdocs_examples.recordings.store import Recording
from mkdocs_examples.results import Result
from mkdocs_examples.source.blocks import Block
from mkdocs_examples.source.cells import Example, ExampleError
from mkdocs_examples.source.keys import support_digest

Pages = dict[str, tuple[str, list[Block]]]  # src_uri of a page: its title and blocks


def run(engine: Engine, examples: list[Example], note: Callable[[str], None]) -> dict[str, Outcome]:
    """Each of ``examples`` run (or taken from memory or the cache), by path; ``note`` gets a line for each
    example that ran, a summary, and what the engine has to say once (a cache it cannot write, the sandbox)."""
    start = time.perf_counter()

    def report(outcome: Outcome, progress: Progress) -> None:
        if outcome.origin == "run":
            status = "FAILED" if outcome.failure else "ok"
            note(f"{progress} · {status} {outcome.example.path} in {outcome.result.seconds:.2f} s")

    outcomes = engine.run(examples, report)
    if examples:
        note(summary(list(outcomes.values()), time.perf_counter() - start))
        if usage := engine.cache_usage():
            note(usage)  # what the cache holds after this build
    if problem := engine.cache_problem():
        note(problem)  # a cache that cannot be written
    if sandbox := engine.sandbox_note():
        note(sandbox)  # once: what confines examples here (network not isolated, no Landlock...)
    return outcomes


@dataclass
class Build:
    """What one build knows; ``docs`` is the docs folder's name, as messages name a page (``docs/en/x.md``)."""

    docs: str = "docs"
    recordings: PublishedRecordings | None = None  # the option `recordings`, read in each build
    pages: Pages = field(default_factory=dict)
    examples: dict[str, Example | ExampleError] = field(default_factory=dict)
    outcomes: dict[str, Outcome] = field(default_factory=dict)

    def shown(self, src_uri: str) -> str:
        """A page as messages name it: ``docs/en/x.md``."""
        return f"{self.docs}/{src_uri}"

    def examples_of(self, src_uri: str) -> tuple[str, ...]:
        """The examples a page embeds, each once, in the order the page first embeds them."""
        _, blocks = self.pages.get(src_uri, ("", []))
        return tuple(dict.fromkeys(block.path for block in blocks if block.path))

    def loaded(self) -> dict[str, Example]:
        """The examples that could be read, by path (not those whose file is wrong)."""
        return {path: e for path, e in self.examples.items() if isinstance(e, Example)}

    def load(self, engine: Engine) -> None:
        """Read every example the pages embed; a file that cannot be read is kept as its :class:`ExampleError`."""
        support = support_digest(engine.examples_dir)  # the folder's other files: read once for all of them
        for path in sorted({block.path for _, blocks in self.pages.values() for block in blocks}):
            try:
                self.examples[path] = engine.load(path, support)
            except ExampleError as error:
                self.examples[path] = error

    def read_recordings(self, note: Callable[[str], None], warn: Callable[[str], None] | None = None) -> None:
        """Every published recording, checked (:class:`RecordingError` for one that cannot be published);
        those of examples that changed since are listed to ``note`` (not an error), unverified ones to ``warn``."""
        if self.recordings:
            self.recordings.read(self.loaded(), self.site_env(), note, warn)

    def site_env(self) -> dict[str, str]:
        """The build's own environment (torch, device, Python): of any example it ran; empty before that."""
        return next((o.result.env for o in self.outcomes.values() if "torch" in o.result.env), {})

    def problems(self) -> list[str]:
        """What is wrong with every block of every page, one message each."""
        return [p for uri, (_, blocks) in self.pages.items() for block in blocks if (p := self.problem(uri, block))]

    def problem(self, src_uri: str, block: Block) -> str | None:
        """What is wrong with one block, as a message naming the page, file and line; or None."""
        where = f"{self.shown(src_uri)}:{block.line}"
        if block.error:
            return f"{where}: {block.error}"
        example = self.examples.get(block.path)
        if isinstance(example, ExampleError):
            return f"{where}: {example}"
        if example and block.cell:
            try:
                example.cell(block.cell)
            except ExampleError as error:
                return f"{where}: {error}"
        outcome = self.outcomes.get(block.path)
        if outcome and outcome.failure:
            return f"{describe(outcome)}\n(embedded at {where})"
        return None

    def downloadable(self, path: str) -> bool:
        """Whether example ``path`` ran in this build without failing: its downloads and view exist."""
        outcome = self.outcomes.get(path)
        return outcome is not None and outcome.failure is None

    def built(self) -> list[tuple[Example, Result, Recording | None]]:
        """Every example that built, by path, with its result and its first published recording on another
        device (of exactly this source), if any: what downloads and views show."""
        first = self.recordings.first if self.recordings else lambda example: None
        return [(o.example, o.result, first(o.example)) for _, o in sorted(self.outcomes.items()) if o.failure is None]

    def recorded_results(self, example: Example) -> list[Result]:
        """The fresh recordings of ``example`` as results (what the error index lists beside the build's)."""
        return self.recordings.results(example) if self.recordings else []

    def checked(self, example: Example) -> list[Recording]:
        """The fresh recordings of ``example`` on the build's device: the other releases it was checked on."""
        return self.recordings.checked(example) if self.recordings else []

    def verdicts(self, example: Example) -> list[Verdict]:
        """What the build's run and every fresh recording say of each check of ``example`` that declares the releases
        where it holds, or failed somewhere (recordings/declared.py)."""
        outcome = self.outcomes.get(example.path)
        fresh = self.recordings.fresh(example) if self.recordings else []
        return declared.verdicts(example, outcome.result if outcome else None, fresh)

    def declaration_problems(self) -> list[str]:
        """Each check whose declared range (``holds=``) the environments contradict, or that fails somewhere and
        declares none: one message each, naming the example, the cell's line and the releases."""
        return [p for path, example in sorted(self.loaded().items()) if path in self.outcomes
                for v in self.verdicts(example) if (p := v.problem(example))]  # fmt: skip

    def checked_elsewhere(self, example: Example) -> list[Recording]:
        """The whole recordings of ``example`` on another device (a GPU): what the checks line adds for it."""
        return self.recordings.checked_elsewhere(example) if self.recordings else []

    def tree(self, src_uri: str, lang: str) -> tuple[Pages, str]:
        """The pages of the language tree of page ``src_uri`` (by their path in it), and that page's path there."""
        first = src_uri.split("/", 1)[0]
        scope = f"{first}/" if first == lang else ""
        pages = {uri.removeprefix(scope): value for uri, value in self.pages.items() if uri.startswith(scope)}
        return pages, src_uri.removeprefix(scope)


# Warnings held back while an example fails under `mkdocs serve`: they follow from the failure.
#
# A failed example's blocks show an error box instead of its cells, so the anchors other pages link to
# (the error index, ``errors/all.md``, links each error to its cell) are missing for as long as it fails,
# and MkDocs' link checks say so about pages the contributor never touched. Those warnings are held back
# while the build knows of a failed example, and one line counts them: fix the example, and any that
# remain are real. Only links and anchors are held; every other warning passes.
_KNOCK_ON = ("anchor", "contains a link")  # MkDocs' link validation (mkdocs.structure.pages)


class KnockOn(logging.Filter):
    """A filter on the handlers of MkDocs' logger: drops (and counts) warnings about links and anchors."""

    def __init__(self) -> None:
        super().__init__()
        self.held = 0

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno == logging.WARNING and not record.name.startswith("mkdocs.plugins.mkdocs_examples"):
            text = record.getMessage()
            if any(word in text for word in _KNOCK_ON):
                self.held += 1
                return False
        return True

    def attach(self) -> None:
        for handler in logging.getLogger("mkdocs").handlers:
            handler.addFilter(self)

    def detach(self) -> int:
        """Stop holding back; how many warnings were held."""
        for handler in logging.getLogger("mkdocs").handlers:
            handler.removeFilter(self)
        return self.held
