"""The site is written beside site_dir and swapped in at the end (publish/staging.py): a failed build, or
one cut short, leaves the last site as it was, and no folder of its own behind."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from helpers import build_site, tree
from mkdocs.exceptions import Abort
from mkdocs.structure.pages import Page

from mkdocs_examples.publish.staging import Staging

FIXTURE = Path(__file__).parent / "site"


@pytest.fixture
def built(tmp_path) -> Path:
    root = shutil.copytree(FIXTURE, tmp_path / "site")
    for lang in ("en", "zh"):
        (root / "docs" / lang / "old.md").write_text("# Old\n")
    build_site(root)
    assert (root / "site" / "old" / "index.html").exists()
    return root


def leftovers(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.name.startswith(".site."))


def test_a_build_replaces_the_whole_site_and_leaves_no_folder_of_its_own(built):
    for lang in ("en", "zh"):
        (built / "docs" / lang / "old.md").unlink()
    build_site(built)
    assert not (built / "site" / "old").exists()  # the new site, not the new pages over the old ones
    assert (built / "site" / "index.html").exists() and (built / "site" / "zh" / "index.html").exists()
    assert leftovers(built) == []


def test_a_strict_build_that_warns_at_the_end_leaves_the_last_site_as_it_was(built):
    before = tree(built / "site")
    page = built / "docs" / "en" / "index.md"
    page.write_text(page.read_text() + "\n[broken](nowhere.md)\n")  # a warning: strict stops after writing pages
    with pytest.raises(Abort, match="in strict mode"):
        build_site(built, strict=True)
    assert tree(built / "site") == before and leftovers(built) == []


def test_a_build_cut_short_while_it_writes_pages_leaves_the_last_site_as_it_was(built, monkeypatch):
    before = tree(built / "site")
    written, real = [], Page.render

    def render(self, config, files):
        written.append(self.file.src_uri)
        if len(written) == 2:
            raise KeyboardInterrupt  # Ctrl-C, halfway through the pages
        real(self, config, files)

    monkeypatch.setattr(Page, "render", render)
    with pytest.raises(KeyboardInterrupt):
        build_site(built)
    assert tree(built / "site") == before and leftovers(built) == []


def test_what_a_build_that_died_left_beside_the_site_is_removed_by_the_next(built):
    dead = built / ".site.building-999999999"  # no such process
    (dead / "half").mkdir(parents=True)
    alive = built / f".site.building-{os.getppid()}"  # a build still running in another process
    alive.mkdir()
    staging = Staging(built / "site")
    staging.start()
    staging.discard()
    assert not dead.exists() and alive.exists()
