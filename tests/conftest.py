from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import textwrap
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import jinja2
import mkdocs.theme
import pytest
from filelock import FileLock, Timeout
from helpers import ROOT, search_queries

from mkdocs_examples.execute.engine import Engine, Outcome
from mkdocs_examples.results import Options

# The modules that take longest, first. pytest-xdist hands whole modules to its workers (`--dist
# loadfile`) in collection order (`--no-loadscope-reorder`): a long module handed out last holds up
# the end of the run while the other workers idle. The first one builds the real site (`real_site`),
# which the second does not wait for; the third (every downloaded notebook, a kernel per core) waits
# for it, idle meanwhile, and is the longest after that. The rest follow in their own order.
LONGEST_FIRST = [
    "test_browser_axe.py", "test_browser_anchors.py", "test_plain_run.py", "test_notebooks_run.py",
    "test_hostile.py", "test_site.py", "test_browser_search.py", "test_reproducible.py", "test_browser.py",
    "test_site_plugins.py",
    "test_tools.py", "test_markup.py", "test_runner.py", "test_recordings.py", "test_notebook_views.py",
    "test_sandbox.py",
]  # fmt: skip


# The slow lane (`make test-slow`, beside `make test`): what needs the real site built (a minute of building
# before its first test), and what runs every example again as a reader would (minutes of CPU)
SLOW_FIXTURES = {"real_site"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))
    for item in items:
        if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


class _CompiledTemplates(jinja2.BytecodeCache):
    """Jinja's compiled templates, kept in memory for a whole test process."""

    def __init__(self) -> None:
        self.compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if bucket.key in self.compiled:
            bucket.bytecode_from_string(self.compiled[bucket.key])  # ignored if the source has changed since

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.compiled[bucket.key] = bucket.bytecode_to_string()


@pytest.fixture(scope="session", autouse=True)
def _templates_compiled_once():
    """Material's templates compiled once per test process, not once per build: MkDocs makes a new Jinja
    environment for each build, and the suite builds in-process some 190 times, each language counted (a
    build of the fixture site took 0.33 CPU-s, 0.12 with this). Jinja checks each template's source against what it
    compiled; a plugin's own `on_env` (the real site's examples-render-cache) still sets a cache of its own."""
    get_env, compiled = mkdocs.theme.Theme.get_env, _CompiledTemplates()

    def with_compiled_templates(theme: mkdocs.theme.Theme) -> jinja2.Environment:
        env = get_env(theme)
        env.bytecode_cache = compiled
        return env

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(mkdocs.theme.Theme, "get_env", with_compiled_templates)
        yield


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


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[Logged] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(Logged(record.levelno, record.getMessage()))


@dataclass(frozen=True)
class Logged:
    """A log record of the real site's build, as it travels between pytest-xdist's workers."""

    levelno: int
    message: str

    def getMessage(self) -> str:
        return self.message


# What a build neither reads nor needs: outputs, caches, environments (.git it reads: the pages' dates)
NOT_SOURCES = {".venv", ".cache", "site", "build", ".pytest_cache", ".ruff_cache", ".mypy_cache"}


def copy_project(into: Path, *, caches: bool = False) -> Path:
    """The project's sources under ``into`` (docs, examples, data, .git...); with ``caches``, a copy of
    its ``.cache`` too, so that a build there starts as warm as one here and writes nothing here. Not
    ``.cache/releases``: the virtualenvs of release recordings (GB each), which no build reads."""

    def ignore(folder: str, names: list[str]) -> set[str]:
        top = Path(folder) == ROOT
        return {n for n in names if n == "__pycache__" or n.endswith(".egg-info") or (top and n in NOT_SOURCES)}

    shutil.copytree(ROOT, into, ignore=ignore)
    if caches and (ROOT / ".cache").is_dir():
        shutil.copytree(ROOT / ".cache", into / ".cache", ignore=shutil.ignore_patterns("base", "releases", "*.tmp"))
    return into


@pytest.fixture(scope="session")
def real_site(tmp_path_factory, worker_id) -> tuple[Path, list[Logged]]:
    """The project's own site, built once per test run with `--strict`, and what it logged.

    It is built from a copy of the project (``real_project``), its caches copied too: no test
    writes into this checkout. Under pytest-xdist every worker asks for it: the first builds
    it, behind a lock, into the folder that all workers share; the others wait for it and read
    what it logged.
    """
    shared = tmp_path_factory.getbasetemp()
    if worker_id != "master":
        shared = shared.parent
    site, log = shared / "real" / "site", shared / "real" / "log.json"
    with FileLock(shared / "real.lock"):
        if not log.exists():
            log.parent.mkdir(exist_ok=True)
            records = _build_real_site(copy_project(site.parent / "project", caches=True), site)
            log.write_text(json.dumps([asdict(r) for r in records]))
    return site, [Logged(**r) for r in json.loads(log.read_text())]


@pytest.fixture(scope="session")
def real_project(real_site) -> Path:
    """The copy of the project the real site was built from, with the caches that build left."""
    return real_site[0].parent / "project"


def _build_real_site(root: Path, site: Path) -> list[Logged]:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    config = load_config(str(root / "mkdocs.yml"), site_dir=str(site), strict=True)
    handler = _Records()
    logging.getLogger("mkdocs").addHandler(handler)
    config.plugins.on_startup(command="build", dirty=False)
    try:
        build(config)
    finally:
        config.plugins.on_shutdown()
        logging.getLogger("mkdocs").removeHandler(handler)
    return handler.records


class Cores:
    """The machine's cores, shared between the slow lane's passes that run examples (the second build, the
    plain scripts, the notebooks), across pytest-xdist's workers: a pass holds a core for each example it runs
    at a time, and waits while they are held. Passes side by side would give each example a fraction of the
    share of a core that the build gives it, and an example that bounds a process of its own by the clock
    (workers_spawn's `hogwild.py`, 120 s) would run past its bound. A core is a file lock under ``folder``."""

    def __init__(self, folder: Path, count: int) -> None:
        self.locks, self.count = [folder / f"core-{i}.lock" for i in range(count)], count

    @contextlib.contextmanager
    def held(self, wanted: int) -> Iterator[None]:
        """Hold ``wanted`` cores (all of them, where it is more) until the block ends; all at once or none,
        so that two passes that each hold some never wait for each other."""
        wanted = min(wanted, self.count)
        while len(got := self._free(wanted)) < wanted:
            for lock in got:
                lock.release()
            time.sleep(0.5)
        try:
            yield
        finally:
            for lock in got:
                lock.release()

    def _free(self, wanted: int) -> list[FileLock]:
        """Up to ``wanted`` of the cores no one holds, now taken. A new lock object for each try: one object is
        reentrant, and threads of one process share them."""
        got = []
        for path in self.locks:
            if len(got) == wanted:
                break
            lock = FileLock(path, thread_local=False)
            with contextlib.suppress(Timeout):
                lock.acquire(timeout=0)
                got.append(lock)
        return got


def core_count() -> int:
    """The cores this process may use (os.sched_getaffinity is Linux's; macOS counts every core)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@pytest.fixture(scope="session")
def cores(tmp_path_factory, worker_id) -> Cores:
    """The machine's cores, shared by every pytest-xdist worker of this run (their common folder)."""
    shared = tmp_path_factory.getbasetemp()
    return Cores(shared.parent if worker_id != "master" else shared, core_count())


def _checkout_state() -> dict[str, tuple[int, int]]:
    """Size and modification time of each file the checkout's builds leave: caches, site, sources."""
    state = {}
    for folder in (".cache", "site", "docs", "examples", "recordings", "notebooks"):
        for file in (ROOT / folder).rglob("*"):
            if file.is_file():
                stat = file.stat()
                state[file.relative_to(ROOT).as_posix()] = (stat.st_size, stat.st_mtime_ns)
    return state


@pytest.fixture(scope="session", autouse=True)
def _checkout_left_alone():
    """No test writes into the checkout: builds run in copies (`copy_project`), from folders of their own.
    Checked where nothing else runs beside the tests (CI): on a developer's machine a build, `make serve`
    or an editor may write there meanwhile, and the last test would be blamed for it."""
    if not os.environ.get("CI"):
        yield
        return
    before = _checkout_state()
    yield
    after = _checkout_state()
    changed = sorted(path for path in before.keys() | after.keys() if before.get(path) != after.get(path))
    assert not changed, f"the tests changed {len(changed)} file(s) of the checkout, e.g. {changed[:5]}"


# -- the browser: Debian's headless Chromium driven by Playwright -----------------------------------

CHROMIUM = search_queries.chromium()


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium for one test module (Playwright's sync API is not shared between modules:
    a module that runs an event loop of its own, as Jupyter's client does, would break it)."""
    if not os.path.exists(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail("CI must run the browser tests: .ci/run installs Debian's chromium-headless-shell")
        pytest.skip("no Chromium: apt-get install chromium-headless-shell (or chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=search_queries.ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    """A new tab of a desktop's size."""
    tab = browser.new_page(viewport={"width": 1280, "height": 900})
    yield tab
    tab.close()


@pytest.fixture(scope="session")
def base_url(real_site):
    """The real site, served as GitHub Pages serves it, for the whole test process."""
    with search_queries.served(real_site[0]) as url:
        yield url
