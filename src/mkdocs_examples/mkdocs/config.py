"""The plugin's options, as written under `plugins: - examples:` in mkdocs.yml (their plain values, which the
core and the command line take, are ``settings.Settings``), and the Markdown extensions the plugin needs."""

from __future__ import annotations

from mkdocs.config import base
from mkdocs.config import config_options as opt
from mkdocs.exceptions import PluginError

from mkdocs_examples.environment import DEVICES
from mkdocs_examples.settings import PROTECTIONS, REQUIRE_SANDBOX, RecordSettings, Settings, VersionsSettings

REQUIRED_EXTENSIONS = ("pymdownx.superfences", "pymdownx.highlight", "admonition")
RECORDINGS_EXTENSIONS = ("pymdownx.tabbed", "pymdownx.details")  # outputs by device as tabs, by version folded
# every option's default, written once: settings.py
_DEFAULT, _RECORD, _VERSIONS = Settings(), RecordSettings(), VersionsSettings()


class RecordConfig(base.Config):
    """How `record` splits the examples between GPU jobs (the GPU workflow reads this too)."""

    shards = opt.Type(int, default=_RECORD.shards)  # jobs the examples are split between, by recorded durations
    runner = opt.Type(str, default=_RECORD.runner)  # the runner label those jobs ask for
    pins = opt.Type(dict, default=_RECORD.pins)  # example path: a shard number, or a runner label of its own


class VersionsConfig(base.Config):
    """The version matrix the CPU workflow records (recordings/matrix.py; .github/workflows/versions.yml)."""

    # the build's Python: every release is recorded under it where it can be
    python = opt.Type(str, default=_VERSIONS.python)
    shards = opt.Type(int, default=_VERSIONS.shards)  # jobs per release, balanced by the CPU recordings' durations
    # minor release ("2.4", quoted): the Pythons PyTorch publishes wheels of it for, "3.8-3.12"
    releases = opt.Type(dict, default=_VERSIONS.releases)


class ExamplesConfig(base.Config):
    enabled = opt.Type(bool, default=_DEFAULT.enabled)  # false: blocks render without running anything
    # build the site beside site_dir and swap it in at the end: a failed build leaves the last site whole
    atomic_site = opt.Type(bool, default=_DEFAULT.atomic_site)
    # false: never run an example; every result must come from the cache
    execute = opt.Type(bool, default=_DEFAULT.execute)
    examples_dir = opt.Type(str, default=_DEFAULT.examples_dir)  # relative to mkdocs.yml
    cache_dir = opt.Type(str, default=_DEFAULT.cache_dir)  # relative to mkdocs.yml
    cache = opt.Type(bool, default=_DEFAULT.cache)  # false: run every example on every build
    # modules imported once by the worker, before it forks: e.g. [torch]
    preload = opt.Type(list, default=_DEFAULT.preload)
    jobs = opt.Type(int, default=_DEFAULT.jobs)  # examples run at once; 0: one per CPU core
    # torch threads per example, so outputs do not depend on the machine
    threads = opt.Type(int, default=_DEFAULT.threads)
    timeout = opt.Type((int, float), default=_DEFAULT.timeout)  # seconds one example may take before it is killed
    max_output = opt.Type(int, default=_DEFAULT.max_output)  # characters of output shown per cell; the rest is cut
    # Limits of one example (README: "Examples are untrusted code"); 0 turns one off
    max_source = opt.Type(int, default=_DEFAULT.max_source)  # bytes of source; a larger example is refused, never run
    # MiB of memory per example process (RLIMIT_DATA); none on cuda
    max_memory = opt.Type(int, default=_DEFAULT.max_memory)
    # MiB any file it writes may reach, its captured output too
    max_file_size = opt.Type(int, default=_DEFAULT.max_file_size)
    # files and folders in each of its writable folders: its own, /tmp, /dev/shm (tmpfs nr_inodes)
    max_files = opt.Type(int, default=_DEFAULT.max_files)
    # MiB its own folder may hold (a tmpfs, in memory)
    max_folder_size = opt.Type(int, default=_DEFAULT.max_folder_size)
    max_output_bytes = opt.Type(int, default=_DEFAULT.max_output_bytes)  # bytes of text all its cells show together
    max_figures = opt.Type(int, default=_DEFAULT.max_figures)  # figures one cell may show
    max_figures_bytes = opt.Type(int, default=_DEFAULT.max_figures_bytes)  # bytes of PNG all its figures add up to
    # Budgets of the built site, in MiB (publish/weight.py): past one, `mkdocs build --strict` fails
    max_page_size = opt.Type((int, float), default=_DEFAULT.max_page_size)  # one page's HTML
    max_site_size = opt.Type((int, float), default=_DEFAULT.max_site_size)  # every file of the site, all languages
    # protections of the sandbox this site builds without where the system refuses them (else a strict build
    # fails): "namespaces", "network", "landlock", "process-limit", "memory" (README: "Where it runs")
    sandbox_optional = opt.ListOfItems(opt.Choice(PROTECTIONS), default=_DEFAULT.sandbox_optional)
    # "ci" (the default): a protection missing beyond sandbox_optional fails run, record and the build where the
    # variable CI is set, and elsewhere is said once in the log; "always": it fails everywhere; "never": nowhere.
    # Where required, a cached result made without a protection is not used: the example runs again
    require_sandbox = opt.Choice(REQUIRE_SANDBOX, default=_DEFAULT.require_sandbox)
    device = opt.Choice(("auto", *DEVICES), default=_DEFAULT.device)  # auto: cuda where torch sees a GPU
    seed = opt.Type(int, default=_DEFAULT.seed)  # random, numpy and torch seeds set before each example
    # outputs made elsewhere: <recordings>/<environment>/<path>.json, with <environment>/environment.json
    recordings = opt.Type(str, default=_DEFAULT.recordings)
    # the folders of recordings pages show beside the build's own; empty (the default): every one there
    publish = opt.Type(list, default=_DEFAULT.publish)
    record = opt.SubConfig(RecordConfig)
    versions = opt.SubConfig(VersionsConfig)
    # true (the default): where mkdocs-jupyter is configured, each example that built gets a page of its
    # own, its notebook with the outputs, at <lang>/notebooks/<path>/ (publish/notebook_views.py); false: none
    notebook_views = opt.Type(bool, default=_DEFAULT.notebook_views)
    # true (the default): where recordings are published, a torch picker in the header shows each cell's
    # output recorded with the reader's release on its device, or says it was not (publish/picker.py); false: none
    picker = opt.Type(bool, default=_DEFAULT.picker)
    # true (the default): the site's templates render in a Jinja sandbox that runs no code (templates.py);
    # false: in MkDocs' own environment, where a template can run anything (for templates no stranger writes)
    sandbox_templates = opt.Type(bool, default=_DEFAULT.sandbox_templates)


def settings_of(config: ExamplesConfig) -> Settings:
    """The options MkDocs validated, as the plain values the core takes."""
    return Settings.from_mapping(config)


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
