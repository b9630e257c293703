"""The plugin's options as plain values, and the site they belong to, as the core reads them without MkDocs.

:class:`Settings` holds every option of ``plugins: - examples:`` in mkdocs.yml with its default, the one place
each default is written: those of the options every run gets come from ``results.Options``, MkDocs' typed schema
(``mkdocs/config.py``) takes its defaults from here, and a test checks the README's table of options against them.
Two ways make one: the command line reads mkdocs.yml itself (:func:`load_site`, which needs no
MkDocs installed), and the MkDocs adapter hands over the options MkDocs validated
(``mkdocs/config.py``, whose typed schema comments each option). Both go through
:meth:`Settings.from_mapping`, and a test keeps the two lists of options the same.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, get_type_hints

from mkdocs_examples import yaml_files
from mkdocs_examples.environment import DEVICES
from mkdocs_examples.results import Options

PROTECTIONS = ("namespaces", "network", "landlock", "process-limit", "memory")  # what `sandbox_optional` may name
REQUIRE_SANDBOX = ("ci", "always", "never")  # `require_sandbox`: "ci", where the variable CI says so
_TYPES: dict[str, tuple[type, ...]] = {"bool": (bool,), "int": (int,), "float": (int, float), "str": (str,),
                                       "list": (list,), "dict": (dict,)}  # fmt: skip


_RUN = Options()  # the defaults of the options every run gets are the runs' own (results.py)


@dataclass(frozen=True)
class RecordSettings:
    """``record:``: how `record` splits the examples between GPU jobs."""

    shards: int = 1
    runner: str = "gpu"
    pins: dict = field(default_factory=dict)


@dataclass(frozen=True)
class VersionsSettings:
    """``versions:``: the version matrix the CPU workflow records (recordings/matrix.py)."""

    python: str = "3.11"
    shards: int = 1
    releases: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Settings:
    """Every option of the plugin (README: "Options"), validated."""

    enabled: bool = True
    atomic_site: bool = True
    execute: bool = True
    examples_dir: str = "examples"
    cache_dir: str = ".cache/examples"
    cache: bool = True
    preload: list = field(default_factory=list)
    jobs: int = 0
    threads: int = _RUN.threads
    timeout: float = 120
    max_output: int = _RUN.max_output
    max_source: int = _RUN.max_source
    max_memory: int = _RUN.max_memory
    max_file_size: int = _RUN.max_file_size
    max_files: int = _RUN.max_files
    max_folder_size: int = _RUN.max_folder_size
    max_output_bytes: int = _RUN.max_output_bytes
    max_figures: int = _RUN.max_figures
    max_figures_bytes: int = _RUN.max_figures_bytes
    max_page_size: float = 4
    max_site_size: float = 128
    sandbox_optional: list = field(default_factory=list)
    require_sandbox: str = "ci"
    device: str = "auto"
    seed: int = _RUN.seed
    recordings: str = "recordings"
    publish: list = field(default_factory=list)
    record: RecordSettings = field(default_factory=RecordSettings)
    versions: VersionsSettings = field(default_factory=VersionsSettings)
    notebook_views: bool = True
    picker: bool = True
    sandbox_templates: bool = True

    def required_protections(self, environ: Mapping[str, str] = os.environ) -> frozenset[str]:
        """The protections every run must have, and every cached result must have run under: all but
        ``sandbox_optional`` where the sandbox is required (``require_sandbox``: always, or under CI), else none."""
        required = self.require_sandbox == "always" or (self.require_sandbox == "ci" and in_ci(environ))
        return frozenset(PROTECTIONS) - set(self.sandbox_optional) if required else frozenset()

    @property
    def folder(self) -> str:
        """The examples folder as messages and tracebacks name it: ``examples/intro/first.py``."""
        return Path(self.examples_dir).as_posix().strip("/")

    @classmethod
    def from_mapping(cls, options: Mapping[str, Any]) -> Settings:
        """The settings ``options`` give (unknown names ignored, as MkDocs only warns of them);
        :class:`ValueError` naming each option whose value is wrong."""
        errors: list[str] = []
        values = _read(cls, options, errors, "")
        if errors:
            raise ValueError("; ".join(errors))
        return cls(**values)


def in_ci(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether this runs in CI: the variable ``CI`` set, as GitHub Actions, GitLab and most CI services set it."""
    return environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _read(kind: type, options: Mapping[str, Any], errors: list[str], within: str) -> dict[str, Any]:
    hints = get_type_hints(kind)
    values: dict[str, Any] = {}
    for option in fields(kind):
        if option.name not in options or options[option.name] is None:  # MkDocs: an empty option is its default
            continue
        value: Any = options[option.name]
        name, hint = f"{within}{option.name}", hints[option.name]
        if isinstance(hint, type) and hint.__name__.endswith("Settings"):
            if not isinstance(value, Mapping):
                errors.append(f"examples option {name!r}: expected a mapping of options")
            else:
                values[option.name] = hint(**_read(hint, value, errors, f"{name}."))
            continue
        wanted = _TYPES[hint.__name__]
        typed = isinstance(value, wanted)  # a bool, not a narrowing: `value` stays Any below
        if not typed:
            errors.append(f"examples option {name!r}: expected {' or '.join(t.__name__ for t in wanted)}, "
                          f"got {type(value).__name__}")  # fmt: skip
        elif name == "device" and value not in ("auto", *DEVICES):
            errors.append(f"examples option 'device': expected one of auto, {', '.join(DEVICES)}, got {value!r}")
        elif name == "require_sandbox" and value not in REQUIRE_SANDBOX:
            errors.append(f"examples option 'require_sandbox': expected one of {', '.join(REQUIRE_SANDBOX)}, "
                          f"got {value!r}")  # fmt: skip
        elif name == "sandbox_optional" and (wrong := [v for v in value if v not in PROTECTIONS]):
            errors.append(f"examples option 'sandbox_optional': expected some of {', '.join(PROTECTIONS)}, "
                          f"got {', '.join(map(repr, wrong))}")  # fmt: skip
        else:
            values[option.name] = value
    return values


@dataclass(frozen=True)
class Site:
    """What the command line needs of a site: the plugin's options and where things are."""

    config: Settings
    root: Path  # the folder of mkdocs.yml
    watch: list[Path]  # the folders a build reads or writes: examples must not change them
    docs_dir: Path  # the pages

    @property
    def examples_dir(self) -> Path:
        return (self.root / self.config.examples_dir).resolve()


def load_site(config_file: Path) -> Site:
    """The `examples` options of the site ``config_file`` describes, validated, without MkDocs.

    Only this plugin's entry is read: a GPU machine that records examples needs neither the
    theme nor the other plugins installed, nor MkDocs itself. :class:`ValueError` says what is wrong.
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
    if not isinstance(options, Mapping):
        raise ValueError(f"{config_file}: the options of the `examples` plugin are not a mapping")
    try:
        config = Settings.from_mapping(options)
    except ValueError as error:
        raise ValueError(f"{config_file}: {error}") from None
    root = config_file.resolve().parent
    docs_dir = root / str(data.get("docs_dir", "docs"))
    return Site(config, root, [docs_dir, root / str(data.get("site_dir", "site"))], docs_dir)
