"""Lighthouse (mobile) on the built site, served gzipped as GitHub Pages serves it: `make lighthouse`.

    .venv/bin/python tools/lighthouse.py [SITE] [--page PATH ...]

Installs npm's `lighthouse` (the release pinned below) into .cache/lighthouse/ the first time (needs
npm), runs it with its default mobile settings (a mid-range phone, simulated slow 4G and a CPU four
times slower) on the home page, a content page, errors/cuda and the changes page in both languages,
prints the four scores of each page and, for every score under the bar, what Lighthouse found; exits
1 if any page is under the bar. Each page is audited five times (`--runs`) and its median run counts,
as Lighthouse's documentation on variability advises (the median of five halves the spread of one run):
the performance score of one run moves by several points with the load of the machine, and here, in
about a third of the runs (13 of 40 in one `make lighthouse`), Chromium held the page's first paint back
by a second or two, whatever the page (one stripped of its scripts too; none in 8 runs with its paint
holding turned off), which costs that run 4 to 6 points. The browser: $CHROME_PATH, else the one the
browser tests drive (Debian's `chromium-headless-shell`, tools/search_queries.py): the held first paints
came in most runs with Debian's `chromium` (22 of 29 runs of one `make lighthouse`), a heavier browser
around the same Blink on a machine of two cores. The reports are kept in .cache/lighthouse/reports/.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from links import site_base  # tools/links.py
from pages_server import served  # tools/pages_server.py
from search_queries import chromium  # tools/search_queries.py

ROOT = Path(__file__).resolve().parent.parent
LIGHTHOUSE = "12.8.2"  # npm's lighthouse, pinned: the last release that runs on Debian's Node.js 20 (13 needs 22.19)
FOLDER = ROOT / ".cache" / "lighthouse"
PAGES = ["", "tensors/cat-and-stack/", "errors/cuda/", "changes/"]  # each in both languages
BAR = {"performance": 95, "accessibility": 100, "best-practices": 100, "seo": 100}


def installed() -> Path:
    """The lighthouse command of the pinned release, installed into .cache/lighthouse/ if it is not there."""
    command = FOLDER / "node_modules" / ".bin" / "lighthouse"
    package = FOLDER / "node_modules" / "lighthouse" / "package.json"
    if not (command.exists() and json.loads(package.read_text())["version"] == LIGHTHOUSE):
        FOLDER.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(FOLDER), f"lighthouse@{LIGHTHOUSE}"],
            check=True,
        )
    return command


def audit(command: Path, url: str, report: Path) -> dict[str, object]:
    """Lighthouse's report of ``url`` (mobile, its default), as JSON."""
    env = dict(os.environ, CHROME_PATH=os.environ.get("CHROME_PATH") or chromium())
    subprocess.run(
        [str(command), url, "--quiet", "--output=json", f"--output-path={report}",
         "--only-categories=performance,accessibility,best-practices,seo",
         "--chrome-flags=--headless --no-sandbox --disable-gpu"],
        check=True, env=env,
    )  # fmt: skip
    return json.loads(report.read_text(encoding="utf-8"))


def scores(report: dict) -> dict[str, int]:
    return {name: round(category["score"] * 100) for name, category in report["categories"].items()}


def failing(report: dict, category: str) -> list[str]:
    """The audits that cost ``category`` points: their titles, and what they found."""
    found = []
    for ref in report["categories"][category]["auditRefs"]:
        result = report["audits"][ref["id"]]
        if ref["weight"] and result["score"] is not None and result["score"] < 1:
            found.append(f"{result['title']}: {result.get('displayValue') or result['score']}")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", nargs="?", type=Path, default=ROOT / "site")
    parser.add_argument("--page", action="append", help="a path under the site (default: the eight pages)")
    parser.add_argument("--runs", type=int, default=5, help="audits of each page; the median run counts (default: 5)")
    args = parser.parse_args()
    command = installed()
    pages = args.page or [f"{lang}{path}" for lang in ("", "zh/") for path in PAGES]
    reports = FOLDER / "reports"
    reports.mkdir(parents=True, exist_ok=True)
    under = 0
    with served(args.site) as base_url:
        for path in pages:
            url = f"{base_url}{site_base(ROOT / 'mkdocs.yml')}{path}"
            stem = path.strip("/").replace("/", "-") or "home"
            runs = sorted((audit(command, url, reports / f"{stem}.{i}.json") for i in range(args.runs)),
                          key=lambda report: scores(report)["performance"])  # fmt: skip
            report = runs[len(runs) // 2]
            got = scores(report)
            each = " ".join(str(scores(run)["performance"]) for run in runs)
            print(f"{'/' + path:32} " + "  ".join(f"{name} {got[name]:3}" for name in BAR) + f"  (runs: {each})",
                  flush=True)  # fmt: skip
            for name, bar in BAR.items():
                if got[name] < bar:
                    under += 1
                    for line in failing(report, name):
                        print(f"    {name}: {line}")
    return 1 if under else 0


if __name__ == "__main__":
    sys.exit(main())
