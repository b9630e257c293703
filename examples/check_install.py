# %% [markdown]
# What the installed PyTorch is and which accelerators it can use

# %% [markdown] lang="zh"
# 已安装的是哪个版本的 PyTorch，以及它能使用哪些加速器

# %% versions tags=["environment"]
import platform

import torch

print("torch", torch.__version__)
print("Python", platform.python_version())
print("built with CUDA:", torch.version.cuda)  # None for a CPU-only build
print("CUDA available:", torch.cuda.is_available())
if torch.cuda.is_available():
    print("GPU:", torch.cuda.get_device_name(0))

# %% checks tags=["remove-cell"]
# A CUDA device can only be available to a build that has CUDA (or ROCm) in it
if torch.cuda.is_available():
    assert torch.version.cuda is not None or torch.version.hip is not None
if torch.version.cuda is None and torch.version.hip is None:
    assert not torch.cuda.is_available() and torch.cuda.device_count() == 0
assert torch.__version__.split("+")[0].count(".") == 2
