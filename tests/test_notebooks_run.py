"""Every notebook the site offers for download, in each language, run top to bottom in a Jupyter kernel on this
CPU, as "Run all" runs it: a reader's notebook must not stop. A Chinese notebook whose code cells hold the English
one's code, their comments aside (`code`), stops where the English one stops: only the others run again.

The module's fixture runs all of them at once, a kernel per core (nbclient's asyncio API, one process), while
pytest-xdist's other workers go on with the other modules; each notebook then has a test of its own that says
where it stopped. Each kernel is forked from a process that has imported ipykernel and the site's `preload`
modules (tests/forked_kernels.py: it saves about 1.3 s of CPU a kernel, most of this module's cost), so a
notebook's cells run in a real ipykernel driven by nbclient, in a namespace of their own. It runs in `make test-slow`
(about 120 kernels); `-m "slow and not notebooks"` leaves it out.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import re
import tempfile
import time
import tokenize
from dataclasses import replace
from pathlib import Path

import nbformat
import pytest
from conftest import Cores, core_count
from forked_kernels import kernel_folder, serving

from mkdocs_examples.execute.engine import run_options
from mkdocs_examples.settings import load_site
from mkdocs_examples.source.cells import find_examples

ROOT = Path(__file__).parent.parent
EXAMPLES = find_examples(ROOT / "examples", [])
LANGUAGES = {"en": "", "zh": "zh/"}  # each language's folder in the site
CELL_TIMEOUT = 300  # seconds, for one cell: a loaded machine runs the slowest example's cells in well under that

pytestmark = [pytest.mark.notebooks, pytest.mark.slow]


@pytest.fixture(scope="module")
def stops(real_site, cores) -> dict[tuple[str, str], str | None]:
    """Where each downloaded notebook stopped (``None``: it ran to its end), by language and example path."""
    site, _ = real_site
    notebooks = {(lang, path): site / prefix / "downloads" / path.replace(".py", ".ipynb")
                 for lang, prefix in LANGUAGES.items() for path in EXAMPLES}  # fmt: skip
    same = {path for path in EXAMPLES if (english := code(notebooks["en", path])) is not None
            and english == code(notebooks["zh", path])}  # fmt: skip
    notebooks = {key: notebook for key, notebook in notebooks.items() if not (key[0] == "zh" and key[1] in same)}
    jobs = core_count()
    started = time.monotonic()
    config = load_site(ROOT / "mkdocs.yml").config
    with serving(config.preload, options=replace(run_options(config), device="cpu")) as server:
        stopped = asyncio.run(_run_all(notebooks, jobs, server.kernel, cores))
    print(f"{len(notebooks)} notebooks, {jobs} kernels at a time: {time.monotonic() - started:.0f} s")
    return stopped | {("zh", path): stopped["en", path] for path in same}


def code(notebook: Path) -> list[list[tuple[int, str]]] | None:
    """The code the notebook at ``notebook`` runs: each code cell's tokens, comments and blank lines left out;
    None where it has none to compare (no such file, or a cell that is not Python's tokens)."""
    if not notebook.exists():
        return None
    cells = []
    try:
        for cell in nbformat.read(notebook, as_version=4).cells:
            if cell.cell_type == "code":
                tokens = tokenize.generate_tokens(io.StringIO(cell.source.replace("\r", "\n")).readline)
                cells.append([(t.type, t.string) for t in tokens if t.type not in (tokenize.COMMENT, tokenize.NL)])
    except (tokenize.TokenError, SyntaxError):
        return None
    return cells


async def _run_all(
    notebooks: dict[tuple[str, str], Path], jobs: int, kernel: str, cores: Cores
) -> dict[tuple[str, str], str | None]:
    turns = asyncio.Semaphore(jobs)

    async def run(path: Path) -> str | None:
        async with turns:
            with contextlib.ExitStack() as held:  # a core of the machine's for each kernel (conftest.Cores)
                await asyncio.to_thread(held.enter_context, cores.held(1))
                return await _run(path, kernel)

    stopped = await asyncio.gather(*(run(path) for path in notebooks.values()))
    return dict(zip(notebooks, stopped, strict=True))


async def _run(path: Path, kernel: str) -> str | None:
    """Why the notebook at ``path`` stopped, or ``None``: run in a folder of its own, as a reader's download is."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    if not path.exists():
        return "not downloadable: the site has no such notebook"
    nb = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory() as folder:
        box, config = kernel_folder(Path(folder))
        client = NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name=kernel, config=config,
                                resources={"metadata": {"path": str(box)}})  # fmt: skip
        try:
            await client.async_execute()
        except (CellExecutionError, CellTimeoutError) as error:
            return _plain(str(error))
    return None


def _plain(message: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", message)  # the traceback's colours


def test_the_site_offers_just_these_notebooks(real_site):
    site, _ = real_site
    for prefix in LANGUAGES.values():
        offered = sorted(p.relative_to(site / prefix / "downloads").as_posix()
                         for p in (site / prefix / "downloads").rglob("*.ipynb"))  # fmt: skip
        assert offered == sorted(path.replace(".py", ".ipynb") for path in EXAMPLES)
    assert len(EXAMPLES) > 50


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("path", EXAMPLES)
def test_the_downloaded_notebook_runs_to_its_end_on_a_cpu(stops, lang, path):
    stopped = stops[lang, path]
    assert stopped is None, f"{LANGUAGES[lang]}downloads/{path.replace('.py', '.ipynb')} stopped:\n{stopped}"
