"""A template in overrides/ runs no code at build time, whoever wrote it: the examples plugin renders
the site's templates in a Jinja sandbox (src/mkdocs_examples/templates.py), and a hostile template
fails the build with an error that names its file and line. Each payload writes a file if it runs."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from helpers import build_site
from jinja2 import Environment, FileSystemBytecodeCache, FileSystemLoader
from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import Abort, PluginError
from mkdocs.structure.files import Files

POPEN = "popen('touch ' ~ marker).read()"  # what each payload reaches for; `marker` is a file of tmp_path

PAYLOADS = {
    "cycler": "{{ cycler.__init__.__globals__.os." + POPEN + " }}",
    "lipsum": "{{ lipsum.__globals__['os']." + POPEN + " }}",
    "joiner": "{{ joiner.__init__.__globals__.os." + POPEN + " }}",
    "namespace": "{{ namespace.__init__.__globals__.os." + POPEN + " }}",
    "template reference": "{{ self._TemplateReference__context.cycler.__init__.__globals__.os." + POPEN + " }}",
    "subclasses": "{% for c in ''.__class__.__mro__[1].__subclasses__() %}{% if c.__name__ == 'Popen' %}"
    "{{ c(['touch', marker]).wait() }}{% endif %}{% endfor %}",
    "attr filter": "{{ (cycler|attr('__init__')|attr('__globals__'))['os']." + POPEN + " }}",
    "format": "{{ '{0.__init__.__globals__[os].popen}'.format(cycler) }}",
    "a test of an attribute": "{% if cycler.__init__ %}{% endif %}",
    # MkDocs keeps each hook of `hooks:` in config.plugins as its module
    "a hook's module": "{{ config.plugins['hooks/hook.py'].os." + POPEN + " }}",
    # a public method that hands back MkDocs' own environment, without a sandbox
    "theme.get_env": "{{ config.theme.get_env().from_string(\"{{ cycler.__init__.__globals__.os.popen('touch "
    "' ~ marker).read() }}\").render(marker=marker) }}",
    "a plugin's method": "{{ config.plugins['examples'].on_startup(command='serve', dirty=True) }}",
}


def _site(root: Path, template: str, *, name: str = "main.html") -> Path:
    """A one-page Material site with the examples plugin (running nothing), a hook, and ``template`` in overrides/."""
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    (root / "hooks").mkdir()
    (root / "hooks" / "hook.py").write_text("import os  # noqa: F401\n", encoding="utf-8")
    (root / "overrides" / name).parent.mkdir(parents=True, exist_ok=True)
    (root / "overrides" / name).write_text(template, encoding="utf-8")
    (root / "mkdocs.yml").write_text(
        "site_name: Hostile\ntheme: {name: material, custom_dir: overrides}\n"
        "plugins: [{examples: {enabled: false}}]\nhooks: [hooks/hook.py]\n"
        "markdown_extensions: [admonition, pymdownx.highlight, pymdownx.superfences]\n",
        encoding="utf-8",
    )
    return root / "mkdocs.yml"


def _env(mkdocs_yml: Path, env: Environment | None = None) -> tuple[MkDocsConfig, Environment]:
    """The site's configuration and its Jinja environment after the plugins' ``on_env``, as a build makes them."""
    config = load_config(str(mkdocs_yml))
    config = config.plugins.on_config(config)
    return config, config.plugins.on_env(env or config.theme.get_env(), config=config, files=Files([]))


@pytest.mark.parametrize("payload", sorted(PAYLOADS))
def test_a_hostile_template_is_refused_naming_its_line(tmp_path, payload):
    config, env = _env(_site(tmp_path, "{% set marker = '" + str(tmp_path / "ran") + "' %}\n" + PAYLOADS[payload]))
    with pytest.raises(PluginError, match=r"^overrides/main\.html:2: refused by the template sandbox: .+ \(README"):
        env.get_template("main.html").render(config=config)
    assert not (tmp_path / "ran").exists()


def test_the_build_fails_naming_the_partial_and_its_line(tmp_path, caplog):
    _site(tmp_path, "{% extends 'base.html' %}\n{% block footer %}{% include 'partials/x.html' %}{% endblock %}\n")
    marker = tmp_path / "ran"
    partial = "{#- a partial -#}\n\n<p>{{ cycler.__init__.__globals__.os.popen('touch " + str(marker) + "') }}</p>\n"
    (tmp_path / "overrides" / "partials").mkdir()
    (tmp_path / "overrides" / "partials" / "x.html").write_text(partial, encoding="utf-8")
    with caplog.at_level(logging.ERROR), pytest.raises(Abort):
        build_site(tmp_path, strict=True)
    errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert any(
        e.startswith("overrides/partials/x.html:3: refused by the template sandbox: access to attribute '__init__'")
        for e in errors
    ), errors
    assert not (tmp_path / "ran").exists()


def test_code_compiled_without_the_sandbox_is_not_taken_from_the_bytecode_cache(tmp_path):
    """Jinja compiles a call for the sandbox as ``environment.call``: a plain compile of the same template,
    kept under the same key of a shared cache (the plugin examples-render-cache keeps one), would call anything."""
    mkdocs_yml = _site(tmp_path, "{{ config.theme.get_env() }}\n")
    loader = FileSystemLoader(str(tmp_path / "overrides"))
    cache = tmp_path / "jinja"
    cache.mkdir()
    Environment(loader=loader, bytecode_cache=FileSystemBytecodeCache(str(cache))).get_template("main.html")
    config, env = _env(mkdocs_yml, Environment(loader=loader))
    env.bytecode_cache = FileSystemBytecodeCache(str(cache))  # as examples-render-cache's on_env sets it, later
    with pytest.raises(PluginError, match=r"^overrides/main\.html:1: .* calling Theme\.\w+\(\) is refused"):
        env.get_template("main.html").render(config=config)


def test_the_theme_renders_with_what_it_needs(tmp_path):
    """Macros, blocks, loops, cycler, joiner, namespace, gettext, str.format and the methods of data still work."""
    template = (
        "{% macro m(x) %}[{{ x }}]{% endmacro %}{% set ns = namespace(n=0) %}{% set j = joiner('|') %}"
        "{% for i in range(3) %}{% set ns.n = ns.n + i %}{{ j() }}{{ loop.cycle('a', 'b') }}{{ m(i) }}{% endfor %}"
        " {{ ns.n }} {{ '{}-{}'.format(1, 2) }} {{ 'a,b'.split(',') | join('+') }} {{ {'k': 1}.get('k') }}"
        " {{ config.extra.get('x', 'none') }} {{ config.theme.language }} {% trans %}Hi{% endtrans %}\n"
    )
    config, env = _env(_site(tmp_path, template))
    assert env.get_template("main.html").render(config=config) == "a[0]|b[1]|a[2] 3 1-2 a+b 1 none en Hi"
