"""tools/pytorch_inventory.py: PyTorch's docs sources -> the names they publish, as Sphinx lays them out."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import pytorch_inventory  # noqa: E402

TORCH_MD = """\
# torch

```{eval-rst}
.. automodule:: torch
.. currentmodule:: torch
```

```{eval-rst}
.. autosummary::
   :toctree: generated
   :nosignatures:

   cat
   autograd.grad_mode.set_grad_enabled
```

Prose naming {py:func}`torch.not_published` links, but publishes nothing.

```{eval-rst}
.. autoclass:: SymInt
   :members:
```

<!-- to be documented
```{eval-rst}
.. py:module:: torch.hidden_in_a_comment
```
-->
"""

TENSORS_RST = """\
torch.Tensor
============

.. currentmodule:: torch

.. class:: Tensor()

   The tensor.

.. autosummary::
    :toctree: generated
    :nosignatures:

    Tensor.abs
    Tensor.to

.. autosummary::
    :nosignatures:

    Tensor.listed_without_a_page
"""

NN_INIT_MD = """\
# torch.nn.init

```{eval-rst}
.. currentmodule:: torch.nn.init
.. autofunction:: calculate_gain
.. autofunction:: xavier_uniform_
```

```{autosummary}
:toctree: generated
:nosignatures:

~torch.nn.utils.clip_grad_norm_
```
"""


def fake_docs(root: Path) -> Path:
    source = root / "docs" / "source"
    (source / "notes").mkdir(parents=True)
    (source / "torch.md").write_text(TORCH_MD)
    (source / "tensors.rst").write_text(TENSORS_RST)
    (source / "nn.init.md").write_text(NN_INIT_MD)
    (source / "notes" / "faq.rst").write_text(".. autofunction:: torch.cat\n")  # torch.md comes first: kept
    return source


EXPECTED = {
    "torch": "torch.html#module-torch",
    "torch.cat": "generated/torch.cat.html#torch.cat",
    "torch.autograd.grad_mode.set_grad_enabled": (
        "generated/torch.autograd.grad_mode.set_grad_enabled.html#torch.autograd.grad_mode.set_grad_enabled"
    ),
    "torch.SymInt": "torch.html#torch.SymInt",
    "torch.Tensor": "tensors.html#torch.Tensor",
    "torch.Tensor.abs": "generated/torch.Tensor.abs.html#torch.Tensor.abs",
    "torch.Tensor.to": "generated/torch.Tensor.to.html#torch.Tensor.to",
    "torch.nn.init.calculate_gain": "nn.init.html#torch.nn.init.calculate_gain",
    "torch.nn.init.xavier_uniform_": "nn.init.html#torch.nn.init.xavier_uniform_",
    "torch.nn.utils.clip_grad_norm_": "generated/torch.nn.utils.clip_grad_norm_.html#torch.nn.utils.clip_grad_norm_",
}


def test_the_inventory_holds_what_sphinx_publishes_from_a_docs_folder(tmp_path):
    assert pytorch_inventory.inventory(fake_docs(tmp_path)) == EXPECTED
    assert pytorch_inventory.inventory(tmp_path) == EXPECTED  # the checkout's root works too


def test_the_inventory_reads_a_git_directory_at_head(tmp_path):
    fake_docs(tmp_path / "work")
    git = ["git", "-C", str(tmp_path / "work"), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "docs"], check=True)
    (tmp_path / "work" / "docs" / "source" / "torch.md").unlink()  # not committed: HEAD still has it
    assert pytorch_inventory.inventory(tmp_path / "work" / ".git") == EXPECTED


def test_the_script_writes_a_sorted_file_and_refuses_a_folder_without_docs(tmp_path, capsys):
    out = tmp_path / "api.json"
    assert pytorch_inventory.main([str(fake_docs(tmp_path)), "--out", str(out), "--describe", "test"]) == 0
    data = json.loads(out.read_text())
    assert {k: data[k] for k in ("source", "names")} == {"source": "test", "names": EXPECTED}
    assert list(data["names"]) == sorted(EXPECTED)
    assert data["aliases"]["torch.set_grad_enabled"] == "torch.autograd.grad_mode.set_grad_enabled"
    assert "torch.float32" in data["values"] and data["torch"] == torch_version()
    del data["aliases"]["torch.set_grad_enabled"]
    out.write_text(json.dumps(data))
    assert pytorch_inventory.main(["--out", str(out)]) == 0  # no SOURCE: the names kept, the rest read again
    again = json.loads(out.read_text())
    assert again["names"] == EXPECTED and again["source"] == "test" and "torch.set_grad_enabled" in again["aliases"]
    (tmp_path / "empty").mkdir()
    assert pytorch_inventory.main([str(tmp_path / "empty"), "--out", str(out)]) == 1
    assert "no documented names" in capsys.readouterr().err


def torch_version() -> str:
    import torch

    return torch.__version__


def fake_torch() -> ModuleType:
    """A torch of three modules: a function documented where it is defined and exported above it, a value,
    and a documented class with a value and a method; no torch.utils (only an import would load it)."""
    torch, autograd = ModuleType("torch"), ModuleType("torch.autograd")
    grad_mode = ModuleType("torch.autograd.grad_mode")

    def set_grad_enabled() -> None: ...

    set_grad_enabled.__module__, set_grad_enabled.__qualname__ = "torch.autograd.grad_mode", "set_grad_enabled"

    class Tensor:
        dtype = "a value"

        def abs(self) -> None: ...

    Tensor.__module__ = "torch"
    torch.autograd, autograd.grad_mode = autograd, grad_mode  # type: ignore[attr-defined]
    torch.set_grad_enabled = autograd.set_grad_enabled = grad_mode.set_grad_enabled = set_grad_enabled  # type: ignore[attr-defined]
    torch.float32, torch.Tensor = object(), Tensor  # type: ignore[attr-defined]
    return torch


def test_aliases_and_values_come_from_the_namespaces_of_the_documented_names():
    names = {
        "torch.autograd.grad_mode.set_grad_enabled": "a.html#x", "torch.Tensor": "t.html#t",
        "torch.Tensor.abs": "t.html#abs", "torch.utils.model_dump": "torch.html#module-torch.utils.model_dump",
    }  # fmt: skip
    aliases, values = pytorch_inventory.aliases_and_values(names, fake_torch())
    documented = "torch.autograd.grad_mode.set_grad_enabled"
    assert aliases == {"torch.set_grad_enabled": documented, "torch.autograd.set_grad_enabled": documented}
    assert values == ["torch.Tensor.dtype", "torch.float32"]


def test_the_kept_inventory_holds_the_aliases_and_values_of_the_pinned_torch():
    """data/pytorch_api.json's aliases and values are what tools/pytorch_inventory.py reads from the installed
    torch: after a new torch, `python tools/pytorch_inventory.py` (no SOURCE) writes them again."""
    kept = json.loads((ROOT / "data" / "pytorch_api.json").read_text())
    assert kept["torch"] == torch_version()
    assert pytorch_inventory.aliases_and_values(kept["names"]) == (kept["aliases"], kept["values"])


def test_every_name_of_the_kept_inventory_exists_in_the_pinned_torch():
    """data/pytorch_api.json comes from docs sources of recent commits, not of 2.13.0 (design/site.md,
    "What readers get": API links): each name they document must still be one the installed torch has, or
    the file is from another release."""
    import importlib

    def exists(name: str) -> bool:
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):  # the longest importable module, then attributes
            try:
                value = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            for part in parts[cut:]:
                if not hasattr(value, part):
                    return False
                value = getattr(value, part)
            return True
        return False

    names = json.loads((ROOT / "data" / "pytorch_api.json").read_text())["names"]
    assert len(names) > 1500
    assert [name for name in names if not exists(name)] == []
