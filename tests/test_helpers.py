"""The engine's one helper per concern: languages (mkdocs/i18n.py), YAML (yaml_files.py), its texts (texts.py).

Languages are asked of stand-ins for MkDocs' config and pages, the shape MkDocs and
mkdocs-static-i18n give them; the real builds are in test_site.py, test_site_plugins.py and the real site.
"""

from __future__ import annotations

import re
import subprocess
import sys
from types import SimpleNamespace

import pytest

from mkdocs_examples import yaml_files
from mkdocs_examples.mkdocs import i18n
from mkdocs_examples.texts import TEXT, text


def config(theme: dict | None = None, **static_i18n):
    """A MkDocs config; with mkdocs-static-i18n when its attributes are given."""
    plugins = {}
    if static_i18n:
        settings = {"config": {"enabled": True}, "current_language": None, "building": False, **static_i18n}
        plugins["i18n"] = SimpleNamespace(**settings)
    return SimpleNamespace(plugins=plugins, theme=theme if theme is not None else {"language": "en"})


def page(src_uri: str, **file):
    return SimpleNamespace(file=SimpleNamespace(src_uri=src_uri, **file))


ZH_BUILD = {"default_language": "en", "build_languages": ["en", "zh"], "current_language": "zh", "building": True}


def test_the_languages_of_a_build_with_static_i18n():
    outer = config(**{**ZH_BUILD, "current_language": "en", "building": False})
    nested = config(**ZH_BUILD)
    assert i18n.languages(nested) == ["en", "zh"] and i18n.default_language(nested) == "en"
    assert (i18n.build_language(outer), i18n.build_language(nested)) == ("en", "zh")
    assert (i18n.prefix(outer), i18n.prefix(nested), i18n.prefix(outer, "zh")) == ("", "zh/", "zh/")
    assert (i18n.is_nested_build(outer), i18n.is_nested_build(nested)) == (False, True)
    # the default language second in the configuration, and listed first
    assert i18n.languages(config(**{**ZH_BUILD, "default_language": "zh"})) == ["zh", "en"]


def test_the_languages_of_a_build_without_static_i18n():
    for theme, lang in (({"language": "zh"}, "zh"), ({"locale": "fr"}, "fr"), ({}, "en")):
        single = config(theme)
        assert i18n.languages(single) == [lang] and i18n.build_language(single) == lang
        assert i18n.default_language(single) == lang and i18n.prefix(single) == ""
        assert not i18n.is_nested_build(single)
    disabled = config(**{**ZH_BUILD, "config": {"enabled": False}})
    assert i18n.languages(disabled) == ["en"] and not i18n.is_nested_build(disabled)


def test_the_language_of_a_page():
    nested = config(**ZH_BUILD)
    assert i18n.page_language(page("en/x.md", locale="en"), nested) == "en"  # static-i18n's locale (a fallback page)
    assert i18n.page_language(page("zh/notebooks/x.ipynb"), nested) == "zh"  # a file added under zh/
    assert i18n.page_language(page("notebooks/x.ipynb"), nested) == "zh"  # this build's language
    single = config({"language": "en"})
    assert i18n.page_language(page("zh/x.md"), single) == "zh"  # a folder of a language the engine speaks
    assert i18n.page_language(page("guide/x.md"), single) == "en"


def test_the_child_side_never_imports_the_language_helper():
    check = "import sys, mkdocs_examples.execute.child.worker; print('mkdocs_examples.mkdocs.i18n' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
    check = "import sys, mkdocs_examples.mkdocs.i18n; print('mkdocs' in sys.modules)"  # and it needs no MkDocs itself
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_yaml_is_read_safely_and_errors_name_the_file_and_line(tmp_path):
    marker = tmp_path / "ran"
    file = tmp_path / "mkdocs.yml"
    file.write_text(
        f'site_name: x\nrun: !!python/object/apply:os.system ["touch {marker}"]\n'
        "slug: !!python/name:pymdownx.slugs.uslugify\nsecret: !ENV [HOME]\nlist: [1, 2]\n"
    )
    assert yaml_files.load(file) == {"site_name": "x", "run": None, "slug": None, "secret": None, "list": [1, 2]}
    assert not marker.exists()
    file.write_text("site_name: x\nnav:\n  - a.md\n  b: c\n")
    with pytest.raises(ValueError, match=rf"^{re.escape(str(file))}:4: not valid YAML \(.+\); fix the file$"):
        yaml_files.load(file)


def test_every_language_has_every_text_with_the_same_placeholders():
    english = TEXT["en"]
    for lang, texts in TEXT.items():
        assert texts.keys() == english.keys(), lang
        for key, value in texts.items():
            assert set(re.findall(r"\{(\w+)", value)) == set(re.findall(r"\{(\w+)", english[key])), (lang, key)
    assert text("fr") is TEXT["en"] and text("zh")["view"] == "笔记本视图"
