# %% [markdown]
# An API your torch does not have: which release is running, comparing
# torch.__version__ properly, checking for an API with hasattr, and a local
# torch.py that hides the real torch

# %% [markdown] lang="zh"
# 你的 torch 里没有的 API：确认运行的是哪个版本，正确比较 `torch.__version__`，
# 用 `hasattr` 检查 API 是否存在，以及本地的 `torch.py` 把真正的 torch 挡住

# %% setup
import inspect
import subprocess
import sys

import torch
from torch import nn

# %% version tags=["environment"]
print(torch.__version__, type(torch.__version__).__name__)
print(torch.__version__ >= "2.4", torch.__version__ >= (2, 4))

# %% version-checks tags=["remove-cell"]
assert isinstance(torch.__version__, str)
assert torch.__version__ >= "2.4" and torch.__version__ >= (2, 4)
assert not torch.__version__ >= "99.0"

# %% version-strings
from torch.torch_version import TorchVersion

print("2.10.0" >= "2.4")  # plain strings: compared character by character
print(float("2.10.0"[:3]))  # the first three characters of 2.10
print(TorchVersion("2.10.0") >= "2.4")  # compared as versions
print(TorchVersion("2.4.0a0+git1234") >= "2.4")  # a pre-release of 2.4

# %% version-strings-checks tags=["remove-cell"]
assert not "2.10.0" >= "2.4" and float("2.10.0"[:3]) == 2.1
assert TorchVersion("2.10.0") >= "2.4"
assert not TorchVersion("2.4.0a0+git1234") >= "2.4"
assert TorchVersion("2.4.0a0+git1234") >= "2.4.0a0"

# %% shadow
import os

os.makedirs("project")
with open("project/torch.py", "w") as file:  # a script named torch.py
    file.write("print('my experiment')\n")
with open("project/train.py", "w") as file:
    file.write(
        "import torch\n"
        "print(torch.__file__)\n"
        "model = torch.compile(torch.nn.Linear(2, 1))\n"
    )
child = subprocess.run(
    [sys.executable, "train.py"], cwd="project", capture_output=True,
    text=True,
)
folder = os.path.abspath("project") + os.sep
print(child.stdout.strip().replace(folder, "project/"))
print(child.stderr.splitlines()[-1].replace(folder, "project/"))

# %% shadow-checks tags=["remove-cell"]
assert child.returncode == 1
assert child.stdout.splitlines() == ["my experiment", folder + "torch.py"]
assert child.stderr.splitlines()[-1].startswith(
    "AttributeError: module 'torch' has no attribute 'compile'"
), child.stderr

# %% shadow-fix
os.rename("project/torch.py", "project/experiment.py")
with open("project/fft.py", "w") as file:  # a top-level fft module
    file.write("print('my fft')\n")
with open("project/train.py", "a") as file:
    file.write(
        "print(hasattr(torch, 'compile'), type(torch.fft).__name__)\n"
        "print(torch.fft.rfft2(torch.ones(2, 4)).shape)\n"
    )
child = subprocess.run(
    [sys.executable, "train.py"], cwd="project", capture_output=True,
    text=True,
)
print(child.stdout.strip())
print("exit status", child.returncode)

# %% shadow-fix-checks tags=["remove-cell"]
assert child.returncode == 0, child.stderr
lines = child.stdout.splitlines()
assert lines[0].endswith("__init__.py") and not lines[0].startswith(folder)
assert lines[1:] == ["True module", "torch.Size([2, 3])"], child.stdout
assert "my fft" not in child.stdout

# %% hasattr
from torch.optim import lr_scheduler

print(hasattr(torch, "compile"))
print(hasattr(lr_scheduler, "LRScheduler"))
print(hasattr(lr_scheduler, "_LRScheduler"))
parameters = inspect.signature(nn.CrossEntropyLoss).parameters
print("label_smoothing" in parameters)

# %% hasattr-checks tags=["remove-cell"]
assert hasattr(torch, "compile")
assert hasattr(lr_scheduler, "LRScheduler")
assert hasattr(lr_scheduler, "_LRScheduler")
assert "label_smoothing" in parameters

# %% import-fallback
try:
    from torch.optim.lr_scheduler import LRScheduler
except ImportError:  # the name in older releases
    from torch.optim.lr_scheduler import _LRScheduler as LRScheduler

print(LRScheduler.__name__, issubclass(lr_scheduler.StepLR, LRScheduler))

# %% import-fallback-checks tags=["remove-cell"]
assert LRScheduler.__name__ == "LRScheduler"
assert issubclass(lr_scheduler.StepLR, LRScheduler)

# %% keyword raises="TypeError: …__init__() got an unexpected keyword argument 'label_smoothing'"
loss_fn = nn.NLLLoss(label_smoothing=0.1)

# %% keyword-fix
print("label_smoothing" in inspect.signature(nn.NLLLoss).parameters)
logits = torch.tensor([[2.0, 0.5, -1.0]])
target = torch.tensor([0])
smoothed = nn.CrossEntropyLoss(label_smoothing=0.1)(logits, target)
plain = nn.NLLLoss()(logits.log_softmax(dim=1), target)
print(f"{smoothed:.4f} {plain:.4f}")

# %% keyword-fix-checks tags=["remove-cell"]
assert "label_smoothing" not in inspect.signature(nn.NLLLoss).parameters
assert torch.allclose(plain, nn.CrossEntropyLoss()(logits, target))
assert smoothed > plain
