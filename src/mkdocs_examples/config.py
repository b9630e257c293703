"""The plugin's options, as written under `plugins: - examples:` in mkdocs.yml, how the CLI reads them,
and the Markdown extensions the plugin needs of the site."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mkdocs.config import base
from mkdocs.config import config_options as opt
from mkdocs.exceptions import PluginError

from mkdocs_examples import yaml_files
from mkdocs_examples.environment import DEVICES

REQUIRED_EXTENSIONS = ("pymdownx.superfences", "pymdownx.highlight", "admonition")
RECORDINGS_EXTENSIONS = ("pymdownx.tabbed", "pymdownx.details")  # outputs by device as tabs, by version folded


class RecordConfig(base.Config):
    """How `record` splits the examples between GPU jobs (the GPU workflow reads this too)."""

    shards = opt.Type(int, default=1)  # jobs the examples are split between, by recorded durations
    runner = opt.Type(str, default="gpu")  # the runner label those jobs ask for
    pins = opt.Type(dict, default={})  # example path: a shard number, or a runner label of its own


class VersionsConfig(base.Config):
    """The version matrix the CPU workflow records (recordings/matrix.py; .github/workflows/versions.yml)."""

    python = opt.Type(str, default="3.11")  # the build's Python: every release is recorded under it where it can be
    shards = opt.Type(int, default=1)  # jobs per release, balanced by the CPU recordings' durations
    # minor release ("2.4", quoted): the Pythons PyTorch publishes wheels of it for, "3.8-3.12"
    releases = opt.Type(dict, default={})


class ExamplesConfig(base.Config):
    enabled = opt.Type(bool, default=True)  # false: blocks render without running anything
    # build the site beside site_dir and swap it in at the end: a failed build leaves the last site whole
    atomic_site = opt.Type(bool, default=True)
    execute = opt.Type(bool, default=True)  # false: never run an example; every result must come from the cache
    examples_dir = opt.Type(str, default="examples")  # relative to mkdocs.yml
    cache_dir = opt.Type(str, default=".cache/examples")  # relative to mkdocs.yml
    cache = opt.Type(bool, default=True)  # false: run every example on every build
    preload = opt.Type(list, default=[])  # modules imported once by the worker, before it forks: e.g. [torch]
    jobs = opt.Type(int, default=0)  # examples run at once; 0: one per CPU core
    threads = opt.Type(int, default=1)  # torch threads per example, so outputs do not depend on the machine
    timeout = opt.Type((int, float), default=120)  # seconds one example may take before it is killed
    max_output = opt.Type(int, default=20_000)  # characters of output shown per cell; the rest is cut
    # Limits of one example (README: "Examples are untrusted code"); 0 turns one off
    max_source = opt.Type(int, default=1 << 20)  # bytes of source; a larger example is refused, never run
    max_memory = opt.Type(int, default=4096)  # MiB of memory per example process (RLIMIT_DATA); none on cuda
    max_file_size = opt.Type(int, default=256)  # MiB any file it writes may reach, its captured output too
    # protections of the sandbox this site builds without where the system refuses them (else a strict build
    # fails): "namespaces", "network", "landlock", "process-limit" (README: "Where it runs")
    sandbox_optional = opt.ListOfItems(opt.Choice(("namespaces", "network", "landlock", "process-limit")), default=[])
    device = opt.Choice(("auto", *DEVICES), default="auto")  # auto: cuda where torch sees a GPU
    seed = opt.Type(int, default=0)  # random, numpy and torch seeds set before each example
    # outputs made elsewhere: <recordings>/<environment>/<path>.json, with <environment>/environment.json
    recordings = opt.Type(str, default="recordings")
    # the folders of recordings pages show beside the build's own; empty (the default): every one there
    publish = opt.Type(list, default=[])
    record = opt.SubConfig(RecordConfig)
    versions = opt.SubConfig(VersionsConfig)
    # true (the default): where mkdocs-jupyter is configured, each example that built gets a page of its
    # own, its notebook with the outputs, at <lang>/notebooks/<path>/ (publish/notebook_views.py); false: none
    notebook_views = opt.Type(bool, default=True)
    # true (the default): where recordings are published, a torch picker in the header shows each cell's
    # output recorded with the reader's release on its device, or says it was not (publish/picker.py); false: none
    picker = opt.Type(bool, default=True)
    # true (the default): the site's templates render in a Jinja sandbox that runs no code (templates.py);
    # false: in MkDocs' own environment, where a template can run anything (for templates no stranger writes)
    sandbox_templates = opt.Type(bool, default=True)

    @property
    def folder(self) -> str:
        """The examples folder as messages and tracebacks name it: ``examples/intro/first.py``."""
        return Path(self.examples_dir).as_posix().strip("/")


@dataclass(frozen=True)
class Site:
    """What the command line needs of a site: the plugin's options and where things are."""

    config: ExamplesConfig
    root: Path  # the folder of mkdocs.yml
    watch: list[Path]  # the folders a build reads or writes: examples must not change them
    docs_dir: Path  # the pages

    @property
    def examples_dir(self) -> Path:
        return (self.root / self.config.examples_dir).resolve()


def load_site(config_file: Path) -> Site:
    """The `examples` options of the site ``config_file`` describes, validated as MkDocs would.

    Only this plugin's entry is read: a GPU machine that records examples needs neither the
    theme nor the other plugins installed. :class:`ValueError` says what is wrong.
    """
    data = yaml_files.load(config_file)  # safe: tags are read as None, nothing they name is imported
    if not isinstance(data, dict):
        raise ValueError(f"{config_file}: not a MkDocs configuration")
    if "INHERIT" in data:
        raise ValueError(f"{config_file}: INHERIT is not supported by the command line; name the full file")
    options: Any = None
    for entry in data.get("plugins") or []:
        name, value = next(iter(entry.items())) if isinstance(entry, dict) and len(entry) == 1 else (entry, {})
        if name in ("examples", "mkdocs_examples/examples"):
            options = value or {}
    if options is None:
        raise ValueError(f"{config_file} does not use the `examples` plugin")
    config = ExamplesConfig(config_file_path=str(config_file))
    config.load_dict(options)
    errors, _ = config.validate()
    if errors:
        raise ValueError(f"{config_file}: " + "; ".join(f"examples option {key!r}: {error}" for key, error in errors))
    root = config_file.resolve().parent
    docs_dir = root / str(data.get("docs_dir", "docs"))
    return Site(config, root, [docs_dir, root / str(data.get("site_dir", "site"))], docs_dir)


def check_extensions(extensions: list[str], *, recordings: bool = False) -> None:
    """:class:`PluginError` naming the ``markdown_extensions`` of mkdocs.yml the plugin needs and the site lacks;
    ``recordings``: the site publishes recordings, which need two more."""
    missing = [name for name in REQUIRED_EXTENSIONS if name not in extensions]
    if missing:
        raise PluginError(f"the examples plugin needs these markdown_extensions in mkdocs.yml: {', '.join(missing)}")
    needed = [name for name in RECORDINGS_EXTENSIONS if name not in extensions]
    if recordings and needed:
        raise PluginError(
            "the examples plugin publishes recordings (option `recordings`) and needs the markdown extensions "
            "pymdownx.tabbed (alternate_style: true) and pymdownx.details in mkdocs.yml, to show outputs that "
            f"differ by device as tabs and by version as folded notes; missing: {', '.join(needed)}"
        )
