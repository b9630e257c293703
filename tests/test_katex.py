"""KaTeX as vendored by tools/vendor_katex.py: the pinned release, and only what the site serves."""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import vendor_katex  # noqa: E402

KATEX = ROOT / "docs" / "assets" / "katex"


def test_the_vendored_katex_is_the_pinned_release_with_its_licence_and_the_fonts_it_names():
    script = (KATEX / "katex.min.js").read_text(encoding="utf-8")
    assert re.findall(r'version:"([^"]+)"', script) == [vendor_katex.VERSION]
    assert "MIT License" in (KATEX / "LICENSE").read_text(encoding="utf-8")
    stylesheet = (KATEX / "katex.min.css").read_text(encoding="utf-8")
    wanted = vendor_katex.fonts(stylesheet)
    assert len(wanted) > 15 and all(name.endswith(".woff2") for name in wanted)
    held = sorted(p.relative_to(KATEX).as_posix() for p in KATEX.rglob("*") if p.is_file())
    assert held == sorted(["LICENSE", "katex.min.css", "katex.min.js", *wanted])  # nothing missing, nothing more


def test_every_font_face_names_a_woff2_file_first():
    """A browser takes the first format it reads: with woff2 first, the left-out woff and ttf are never asked."""
    stylesheet = (KATEX / "katex.min.css").read_text(encoding="utf-8")
    faces = re.findall(r"@font-face\{[^}]*\}", stylesheet)
    assert faces and all(re.search(r"src:url\(fonts/[\w-]+\.woff2\) format\(\"woff2\"\)", face) for face in faces)
