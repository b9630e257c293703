"""Vendor KaTeX into docs/assets/katex/: the maths of the pages, rendered by the site's own files.

    python tools/vendor_katex.py            # the release pinned below, checked against its integrity
    python tools/vendor_katex.py 0.19.2     # another release: prints its integrity, to pin here

KaTeX comes from the npm registry (`npm pack katex@VERSION`), unmodified: its licence,
``katex.min.js``, ``katex.min.css`` and the woff2 fonts the stylesheet names first (every
browser that reads woff2 asks for no other format, so the woff and ttf copies are left out).
``docs/assets/maths.js`` loads them on the pages that have a formula only. Needs npm and
the network; the build and the tests need neither.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

VERSION = "0.19.1"
INTEGRITY = "sha512-jG8uKntjSEcm2EpQOh0XturpPuuC9r3Sq5HLHdsFdWZT27E672SF19QEi+of0/YeOy15lDgRhKvr5614uRrEfA=="
ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "docs" / "assets" / "katex"
FILES = ("LICENSE", "dist/katex.min.js", "dist/katex.min.css")


def fonts(stylesheet: str) -> list[str]:
    """The font files ``katex.min.css`` asks a browser that reads woff2 for: ``fonts/KaTeX_AMS-Regular.woff2``..."""
    return sorted(set(re.findall(r"url\((fonts/[\w-]+\.woff2)\)", stylesheet)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("version", nargs="?", default=VERSION)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        packed = subprocess.run(
            ["npm", "pack", f"katex@{args.version}", "--json"], cwd=folder, capture_output=True, text=True
        )
        if packed.returncode != 0:
            print(f"npm pack katex@{args.version} failed:\n{packed.stderr}", file=sys.stderr)
            return 1
        (info,) = json.loads(packed.stdout)
        if args.version == VERSION and info["integrity"] != INTEGRITY:
            print(f"katex@{VERSION}: integrity {info['integrity']}, not {INTEGRITY}: refused", file=sys.stderr)
            return 1
        with tarfile.open(folder / info["filename"]) as tar:
            tar.extractall(folder, filter="data")
        package = folder / "package"
        stylesheet = (package / "dist" / "katex.min.css").read_text(encoding="utf-8")
        wanted = [*FILES, *(f"dist/{font}" for font in fonts(stylesheet))]
        shutil.rmtree(TARGET, ignore_errors=True)
        for name in wanted:
            target = TARGET / name.removeprefix("dist/")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(package / name, target)
    print(f"katex@{args.version} ({info['integrity']}): {len(wanted)} files in {TARGET.relative_to(ROOT)}")
    if args.version != VERSION:
        print(f"pin it: VERSION = {args.version!r}, INTEGRITY = {info['integrity']!r} in {Path(__file__).name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
