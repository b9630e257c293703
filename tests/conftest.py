from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from mkdocs_examples.engine import Engine, Outcome
from mkdocs_examples.runner import Options


class Runner:
    """Write example scripts into a folder and run them through one real engine."""

    def __init__(self, root: Path, engine: Engine) -> None:
        self.root, self.engine = root, engine

    def write(self, path: str, source: str) -> str:
        file = self.root / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(textwrap.dedent(source))
        return path

    def run(self, *paths: str) -> dict[str, Outcome]:
        return self.engine.run([self.engine.load(p) for p in paths])

    def one(self, source: str, path: str = "demo.py") -> Outcome:
        return self.run(self.write(path, source))[path]


@pytest.fixture(scope="module")
def runner(tmp_path_factory) -> Runner:
    """One worker (torch preloaded) for a whole test module, no disk cache."""
    root = tmp_path_factory.mktemp("examples")
    engine = Engine(root, None, options=Options(max_output=2000), preload=["torch"], jobs=2, timeout=3)
    yield Runner(root, engine)
    engine.close()
