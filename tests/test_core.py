"""The core serves without MkDocs, so that another generator can use it: only mkdocs_examples/mkdocs/ imports
it, and the command line and the superfences fence run, render and record in a process where importing MkDocs fails."""

from __future__ import annotations

import ast
import dataclasses
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

import mkdocs_examples
from mkdocs_examples.mkdocs.config import ExamplesConfig, settings_of
from mkdocs_examples.settings import Settings

PACKAGE = Path(mkdocs_examples.__file__).parent
ADAPTER = PACKAGE / "mkdocs"
SITE = PACKAGE / "site"  # the site plugins: MkDocs plugins, each with its typed options, beside the adapter
FIXTURE = Path(__file__).parent / "site"

# Run first in the subprocess: any import of mkdocs or mkdocs.* raises, as if MkDocs were not installed
NO_MKDOCS = '''
import importlib.abc, sys

class NoMkDocs(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "mkdocs" or name.startswith("mkdocs."):
            raise ImportError(f"no module named {name!r}: MkDocs is not installed here")
        return None

sys.meta_path.insert(0, NoMkDocs())
'''

CORE = '''
import json, pkgutil, importlib, contextlib, io
from pathlib import Path
import yaml

import mkdocs_examples

found = {"modules": []}
for module in pkgutil.walk_packages(mkdocs_examples.__path__, "mkdocs_examples."):
    if module.name.split(".")[1] in ("mkdocs", "site"):
        continue  # the adapter, and the site plugins: MkDocs plugins through and through
    if module.name != "mkdocs_examples.__main__":  # that one runs the command line
        importlib.import_module(module.name)
        found["modules"].append(module.name)

from mkdocs_examples.cli import main

def cli(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(argv))
    return code, out.getvalue()

found["run"] = cli("run", "--show")
found["notebooks"] = cli("notebooks", "notebooks")
found["record"] = cli("record", "--device", "cpu", "--out", "recorded/cpu")

import markdown
from mkdocs_examples import fence

md = markdown.Markdown(
    extensions=["admonition", "pymdownx.highlight", "pymdownx.superfences"],
    extension_configs={"pymdownx.superfences": {"custom_fences": [fence.custom_fence(timeout=10)]}},
)
found["html"] = md.convert("# A page\\n\\n```example\\ntwo.py#answer\\n```\\n")
fence.close()
found["mkdocs"] = sorted(m for m in sys.modules if m == "mkdocs" or m.startswith("mkdocs."))
print(json.dumps(found))
'''


def _mkdocs_imports(file: Path) -> list[str]:
    """The imports of MkDocs in ``file``, and of the adapter: ``line: module`` (not those for type hints only)."""
    found = []
    tree = ast.parse(file.read_text(encoding="utf-8"))
    for hints in [n for n in ast.walk(tree) if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING"]:
        hints.body = []
    for node in ast.walk(tree):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        for name in names:
            if name.split(".")[0] == "mkdocs" or name.startswith("mkdocs_examples.mkdocs"):
                found.append(f"{node.lineno}: {name}")
    return found


def test_only_the_adapter_imports_mkdocs_and_its_modules_are_those_its_manual_names():
    core = [f for f in PACKAGE.rglob("*.py") if ADAPTER not in f.parents and SITE not in f.parents]
    assert len(core) > 50
    found = {f.relative_to(PACKAGE).as_posix(): imports for f in core if (imports := _mkdocs_imports(f))}
    assert found == {}, "only mkdocs_examples/mkdocs/ and the site plugins may import MkDocs"
    modules = sorted(f.name for f in ADAPTER.glob("*.py") if f.name != "__init__.py")
    assert modules == ["config.py", "i18n.py", "pages.py", "plugin.py", "upstream.py"]
    assert sorted(p.name for p in ADAPTER.iterdir() if p.name != "__pycache__") == ["__init__.py", *modules]


def test_the_adapter_imports_the_real_mkdocs():
    from mkdocs.config import base

    from mkdocs_examples.mkdocs import config

    assert config.base is base and Path(base.__file__).parent.parent.name == "mkdocs"


def test_the_core_settings_are_the_plugins_options():
    config = ExamplesConfig()
    assert config.validate() == ([], [])
    assert settings_of(config) == Settings()  # the same defaults
    assert {name for name, _ in ExamplesConfig._schema} == set(Settings.__dataclass_fields__)  # the same names
    options = {"jobs": 3, "device": "cpu", "sandbox_optional": ["network"], "record": {"shards": 2}, "timeout": 1.5}
    config = ExamplesConfig()
    config.load_dict(options)
    assert config.validate()[0] == []
    assert settings_of(config) == Settings.from_mapping(options)
    assert settings_of(config).record.shards == 2 and settings_of(config).record.runner == "gpu"


def test_the_readmes_table_of_options_gives_each_option_with_its_default():
    """The engine's README lists every option with the default Settings holds, and each sub-option of `record`
    and `versions` it names with its default: the table is checked against the one place defaults are written."""
    readme = (PACKAGE / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \| ?(.*?) ?\| (.*) \|$", readme, re.M)
    assert [name for name, _, _ in rows] and {name for name, _, _ in rows} == set(Settings.__dataclass_fields__)
    default = Settings()
    for name, written, meaning in rows:
        value = getattr(default, name)
        if dataclasses.is_dataclass(value):  # record, versions: the defaults of their options, in their meaning
            assert written == "", name
            said = dict(re.findall(r"`(\w+)` \([^()]*?default ([^(),]+)\)", meaning))
            assert said and {sub: yaml.safe_load(text.strip("` ")) for sub, text in said.items()} == {
                sub: getattr(value, sub) for sub in said
            }, name
        else:
            assert yaml.safe_load(written.strip("`")) == value, f"{name}: the README says {written}, Settings {value!r}"


def test_the_core_refuses_what_mkdocs_refuses():
    for wrong in ({"jobs": "two"}, {"device": "tpu"}, {"sandbox_optional": ["namespace"]}, {"record": {"shards": "x"}}):
        config = ExamplesConfig()
        config.load_dict(wrong)
        assert config.validate()[0], wrong
        try:
            Settings.from_mapping(wrong)
        except ValueError as error:
            assert str(next(iter(wrong))) in str(error)
        else:
            raise AssertionError(f"{wrong}: accepted")


def test_the_core_runs_renders_and_records_where_mkdocs_cannot_be_imported(tmp_path):
    site = tmp_path / "site"
    shutil.copytree(FIXTURE, site)
    done = subprocess.run(
        [sys.executable, "-c", NO_MKDOCS + "\nimport mkdocs\n"], capture_output=True, text=True, cwd=site
    )
    assert "MkDocs is not installed here" in done.stderr  # the guard works
    done = subprocess.run([sys.executable, "-c", NO_MKDOCS + CORE], capture_output=True, text=True, cwd=site)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.splitlines()[-1])
    assert len(found["modules"]) > 50 and "mkdocs_examples.cli" in found["modules"]
    assert "mkdocs_examples.fence" in found["modules"] and "mkdocs_examples.page_markdown" in found["modules"]
    code, out = found["run"]
    assert code == 0 and "answer: 42" in out and "2 examples in " in out
    code, out = found["notebooks"]
    assert code == 0 and (site / "notebooks" / "two.ipynb").is_file()
    code, out = found["record"]
    recorded = json.loads((site / "recorded" / "cpu" / "two.json").read_text())
    assert code == 0 and recorded["env"]["device"] == "cpu" and "answer: 42" in json.dumps(recorded["cells"])
    html = found["html"]
    assert "<h1>A page</h1>" in html and "answer: 42" in html and 'class="highlight' in html
    assert "x = 6 * 7" not in html  # one cell: the fence named `answer`
    assert found["mkdocs"] == []
