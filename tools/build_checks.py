"""MkDocs hooks of PyTorch Tips (mkdocs.yml: ``hooks``): the content checks the strict build runs.

Every page has its twin embedding the same cells (tools/twins.py), the Chinese text follows the
wording rules, and no page still holds the template's sentences (tools/wording.py). Each problem is
a warning, so a strict build fails naming it, as `make test` does; they run once per build, in the
default language's (static-i18n builds each other language again, with every hook).
"""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import get_plugin_logger

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the tools beside this file, as `python tools/x.py` has
import twins
import wording

log = get_plugin_logger("content-checks")


def on_pre_build(config: MkDocsConfig) -> None:
    config_file = Path(config.config_file_path)
    langs = twins.languages(config_file)
    if config.theme.get("language") not in (None, langs[0]):  # another language's build of the same site
        return
    root = config_file.parent
    report = twins.check(Path(config.docs_dir), langs)
    problems = [] if report.ok else twins.text(report).splitlines()
    problems += wording.problems(root)
    for problem in problems:
        log.warning(problem)
