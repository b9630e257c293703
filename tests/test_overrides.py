"""Material's partials that `overrides/partials/` replaces differ from the installed Material by
one change each (the palette's: its script too), so that an upgrade of Material that edits them shows up here."""

from __future__ import annotations

import re
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
    # a section's nav has a name where it has an index page (axe: landmark-unique)
    "nav-item.html": (
        'id="{{ path }}_label" tabindex="{{ tabindex }}">\n                <span class="md-nav__icon md-icon"></span>',
        'id="{{ path }}_label" tabindex="{{ tabindex }}">\n                <span class="md-nav__icon md-icon"></span>\n'
        '                <span class="md-visually-hidden">{{ nav_item.title | e }}</span>',
    ),
    # the search dialog has a name (axe: aria-dialog-name)
    "search.html": ('role="dialog">', 'role="dialog" aria-label="{{ lang.t(\'search\') }}">'),
    # the toggle not mounted by Material's bundle but by the script after it (palette.js)
    "palette.html": (
        ' data-md-component="palette">',
        " data-palette>",
        "</form>\n",
        '</form>\n<script>{% include "partials/palette.js" %}</script>\n',
    ),
}


def _without_comments(template: str) -> str:
    """The template less its leading `{#- ... -#}` comment: Material's says "generated", ours why."""
    if template.startswith("{#"):
        template = template[template.index("#}") + 2 :].lstrip("\n")
    return template


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_an_overridden_partial_is_materials_with_one_change(name):
    material_text = expected = _without_comments((MATERIAL / name).read_text(encoding="utf-8"))
    changes = CHANGES[name]
    for theirs, ours in zip(changes[::2], changes[1::2], strict=True):
        assert material_text.count(theirs) == 1, f"Material's {name} changed: review overrides/partials/{name}"
        expected = expected.replace(theirs, ours)
    assert _without_comments((OVERRIDES / name).read_text(encoding="utf-8")) == expected


def test_the_chinese_pages_palettes_are_the_themes_with_names_in_chinese():
    """The i18n plugin's zh takes the theme's palettes (YAML merge keys in mkdocs.yml) with the toggle's names in
    Chinese: nothing else may differ."""
    import yaml
    from mkdocs.utils.yaml import get_yaml_loader  # mkdocs.yml has !ENV tags

    config = yaml.load((OVERRIDES.parent.parent / "mkdocs.yml").read_text(encoding="utf-8"), Loader=get_yaml_loader())
    palettes = config["theme"]["palette"]
    i18n = next(p["i18n"] for p in config["plugins"] if isinstance(p, dict) and "i18n" in p)
    zh = next(lang for lang in i18n["languages"] if lang["locale"] == "zh")["theme"]["palette"]
    assert len(zh) == len(palettes)
    for ours, theirs in zip(zh, palettes, strict=True):
        unnamed = [{**palette, "toggle": {**palette["toggle"], "name": ""}} for palette in (ours, theirs)]
        assert unnamed[0] == unnamed[1]
        assert re.search(r"[\u4e00-\u9fff]", ours["toggle"]["name"]), ours
