"""Material's partials that `overrides/partials/` replaces differ from the installed Material by
one change each, so that an upgrade of Material that edits them shows up here."""

from __future__ import annotations

from pathlib import Path

import material
import pytest

OVERRIDES = Path(__file__).parent.parent / "overrides" / "partials"
MATERIAL = Path(material.__file__).parent / "templates" / "partials"

CHANGES = {  # partial: (Material's text, ours)
    # no `data-md-component="source"`: no stars and forks fetched from api.github.com
    "source.html": (' class="md-source" data-md-component="source">', ' class="md-source">'),
    # the reader's language marked in the switcher
    "alternate.html": (
        'class="md-select__link">',
        'class="md-select__link"{% if alt.lang == config.theme.language %} aria-current="true"{% endif %}>',
    ),
    # the last-updated date labelled in words
    "source-file.html": (
        'clock-edit-outline.svg" %}\n    </span>\n    {{ date }}',
        "clock-edit-outline.svg\" %}\n    </span>\n    {{ lang.t('source.file.date.updated') }}"
        '{{ "：" if config.theme.language == "zh" else ": " }}{{ date }}',
    ),
    # the search dialog has a name (axe: aria-dialog-name)
    "search.html": ('role="dialog">', 'role="dialog" aria-label="{{ lang.t(\'search\') }}">'),
}


def _without_comments(template: str) -> str:
    """The template less its leading `{#- ... -#}` comment: Material's says "generated", ours why."""
    if template.startswith("{#"):
        template = template[template.index("#}") + 2 :].lstrip("\n")
    return template


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_an_overridden_partial_is_materials_with_one_change(name):
    theirs, ours = CHANGES[name]
    material_text = _without_comments((MATERIAL / name).read_text(encoding="utf-8"))
    assert material_text.count(theirs) == 1, f"Material's {name} changed: review overrides/partials/{name}"
    assert _without_comments((OVERRIDES / name).read_text(encoding="utf-8")) == material_text.replace(theirs, ours)
