"""The plugin's options, as written under `plugins: - examples:` in mkdocs.yml."""

from __future__ import annotations

from pathlib import Path

from mkdocs.config import base
from mkdocs.config import config_options as opt


class ExamplesConfig(base.Config):
    enabled = opt.Type(bool, default=True)  # false: blocks render without running anything
    examples_dir = opt.Type(str, default="examples")  # relative to mkdocs.yml
    cache_dir = opt.Type(str, default=".cache/examples")  # relative to mkdocs.yml
    cache = opt.Type(bool, default=True)  # false: run every example on every build
    preload = opt.Type(list, default=[])  # modules imported once by the worker, before it forks: e.g. [torch]
    jobs = opt.Type(int, default=0)  # examples run at once; 0: one per CPU core
    threads = opt.Type(int, default=1)  # torch threads per example, so outputs do not depend on the machine
    timeout = opt.Type((int, float), default=120)  # seconds one example may take before it is killed
    max_output = opt.Type(int, default=20_000)  # characters of output shown per cell; the rest is cut
    device = opt.Choice(("auto", "cpu", "cuda"), default="auto")  # auto: cuda where torch sees a GPU
    seed = opt.Type(int, default=0)  # random, numpy and torch seeds set before each example

    @property
    def folder(self) -> str:
        """The examples folder as messages and tracebacks name it: ``examples/intro/first.py``."""
        return Path(self.examples_dir).as_posix().strip("/")
