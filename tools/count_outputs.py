"""Count, per environment, the cells of the built site that show an output of it: python tools/count_outputs.py site

Reads what the torch picker publishes (``<site>/outputs/examples/<path>.json``: each cell a page
compares across environments, with the environments that have an output for it), so that a
change to recordings can be checked to lose none: run it on a build before and after.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path


def count(site: Path) -> dict[str, int]:
    """Cells with an output, by environment (``build`` is the site's own run)."""
    found: Counter[str] = Counter()
    for file in sorted((site / "outputs" / "examples").rglob("*.json")):
        for by_environment in json.loads(file.read_text(encoding="utf-8"))["cells"].values():
            found.update(by_environment.keys())
    return dict(sorted(found.items()))


if __name__ == "__main__":
    if len(sys.argv) != 2 or not (Path(sys.argv[1]) / "outputs").is_dir():
        sys.exit("usage: python tools/count_outputs.py SITE_DIR (a site built with recordings: it has outputs/)")
    print(json.dumps(count(Path(sys.argv[1])), indent=1))
