# %% [markdown]
# Apple silicon GPUs (MPS): is the mps device there, choosing cuda,
# mps or cpu in one place, and what an mps device does on a machine
# without one. Run on Linux: the Mac-only parts are prose on the page

# %% [markdown] lang="zh"
# Apple 芯片的 GPU（MPS）：`mps` 设备是否可用，在一处选好 cuda、mps 或 cpu，
# 以及在没有 MPS 的机器上 `mps` 设备会怎样。本例在 Linux 上运行：
# 只能在 Mac 上运行的内容见页面上的文字

# %% check-mps
import sys

import numpy as np
import torch
from torch import nn

print(torch.backends.mps.is_built())  # was this torch built with MPS?
print(torch.backends.mps.is_available())  # ...and is there a Mac GPU?

# %% check-mps-checks tags=["remove-cell"]
if sys.platform != "darwin":  # only the macOS builds of torch have MPS
    assert not torch.backends.mps.is_built()
    assert not torch.backends.mps.is_available()
# available implies built
assert torch.backends.mps.is_built() or not torch.backends.mps.is_available()

# %% pick-device
if torch.cuda.is_available():
    device = torch.device("cuda")
elif torch.backends.mps.is_available():
    device = torch.device("mps")
else:
    device = torch.device("cpu")
print(device)

model = nn.Linear(3, 2).to(device)
x = torch.ones(4, 3, device=device)
print(model(x).device)

# %% pick-device-checks tags=["remove-cell"]
expected = (
    "cuda" if torch.cuda.is_available()
    else "mps" if torch.backends.mps.is_available()
    else "cpu"
)
assert device.type == expected
assert model(x).device.type == device.type
assert next(model.parameters()).device.type == device.type
if sys.platform != "darwin" and not torch.cuda.is_available():
    assert device == torch.device("cpu")  # this site's build machine

# %% accelerator holds=">=2.7" claim="`torch.accelerator.current_accelerator(check_available=True)` gives the usable accelerator, or `None`"
device = torch.accelerator.current_accelerator(check_available=True)
device = device or torch.device("cpu")  # no usable accelerator: the CPU
print(device)
print(torch.accelerator.current_accelerator())  # the one torch was built for

# %% accelerator-checks tags=["remove-cell"] holds=">=2.7" claim="On a CPU-only torch, `torch.accelerator.current_accelerator()` returns `None`"
assert device.type == expected  # the same choice as the three-way one
found = torch.accelerator.current_accelerator()
cpu_only = torch.version.cuda is None and torch.version.hip is None
if cpu_only and sys.platform == "linux":
    assert found is None  # this site's build: a CPU-only torch
if torch.version.cuda is not None:  # a CUDA build, with or without a GPU
    assert found.type == "cuda"
    # check_available=True: None where the build's accelerator is missing
    checked = torch.accelerator.current_accelerator(check_available=True)
    assert (checked is not None) == torch.cuda.is_available()

# %% mps-device-object
mps = torch.device("mps")
print(mps, mps.type, mps.index)

# %% mps-device-object-checks tags=["remove-cell"]
assert mps.type == "mps" and mps.index is None
assert torch.device("mps:0").index == 0

# %% to-mps-here tags=["raises-exception"]
x = torch.ones(3)
x.to(mps)  # this torch has no MPS

# %% to-mps-here-checks tags=["remove-cell"]
if not torch.backends.mps.is_built():
    try:
        torch.ones(3).to(mps)
    except RuntimeError as error:
        assert "mps" in str(error).lower()
    else:
        raise AssertionError("a torch without MPS moved a tensor to mps")
    try:
        nn.Linear(3, 2).to("mps")  # a model fails the same way
    except RuntimeError as error:
        assert "mps" in str(error).lower()
    else:
        raise AssertionError("a torch without MPS moved a model to mps")

# %% float64
x = torch.from_numpy(np.array([0.5, 1.5]))  # NumPy's default: float64
print(x.dtype)
x = x.to(device, torch.float32)  # device and dtype in one call
print(x.dtype, x.device.type == device.type)
print(torch.tensor([0.5, 1.5]).dtype)  # Python floats: float32 already

# %% float64-checks tags=["remove-cell"]
assert torch.from_numpy(np.array([0.5])).dtype == torch.float64
assert x.dtype == torch.float32 and x.device.type == device.type
assert torch.tensor([0.5, 1.5]).dtype == torch.float32

# %% mps-api-checks tags=["remove-cell"]
# The Mac-only functions the page names exist in this torch; they need a Mac
# to run
for name in (
    "empty_cache",
    "current_allocated_memory",
    "driver_allocated_memory",
    "synchronize",
    "manual_seed",
):
    assert callable(getattr(torch.mps, name)), name
assert callable(torch.backends.mps.is_available)
assert callable(torch.backends.mps.is_built)
if not torch.backends.mps.is_built():
    for name in (
        "current_allocated_memory",
        "driver_allocated_memory",
        "empty_cache",
        "synchronize",
    ):
        try:
            getattr(torch.mps, name)()  # needs the MPS backend
        except RuntimeError as error:
            assert "MPS" in str(error), name
        else:
            raise AssertionError(f"torch.mps.{name} ran without MPS")

# %% mps-fraction raises="ValueError: Invalid fraction value: 2.5. Allowed range: 0~2"
# the limit PYTORCH_MPS_HIGH_WATERMARK_RATIO sets, set from Python
torch.mps.set_per_process_memory_fraction(2.5)

# %% mps-fraction-checks tags=["remove-cell"]
import inspect

doc = inspect.getdoc(torch.mps.set_per_process_memory_fraction)
assert "recommendedMaxWorkingSetSize" in doc  # a share of Metal's recommended size
assert "Passing 0 to fraction means unlimited allocations" in doc
assert "may cause system failure" in doc
for fraction in (0.0, 2.0):  # the ends of the range pass the check
    try:
        torch.mps.set_per_process_memory_fraction(fraction)
    except ValueError:
        raise AssertionError(f"{fraction} refused")
    except RuntimeError:
        assert not torch.backends.mps.is_available()  # no MPS to set it on

# %% made-in-forward raises="RuntimeError"
class Scale(nn.Module):
    def forward(self, x):
        weight = torch.ones(x.shape[-1])  # made on the CPU, wherever x is
        return x * weight


x = torch.ones(4, 3, device="meta")  # meta: a device every torch has
Scale()(x)

# %% made-in-forward-checks tags=["remove-cell"]
assert x.device.type == "meta" and torch.ones(3).device.type == "cpu"

# %% made-in-forward-fix
class Scale(nn.Module):
    def __init__(self, size):
        super().__init__()
        # a buffer moves with model.to(device), like a parameter
        self.register_buffer("weight", torch.ones(size))

    def forward(self, x):
        bias = torch.zeros(x.shape[-1], device=x.device)  # on x's device
        return x * self.weight + bias


model = nn.Sequential(nn.Linear(3, 3), Scale(3)).to("meta")
x = torch.ones(4, 3)  # on the CPU, as a DataLoader gives it
x = x.to(next(model.parameters()).device)  # to the model's device
y = model(x)
print(model[1].weight.device, x.device, y.device, y.shape)

# %% made-in-forward-fix-checks tags=["remove-cell"]
assert model[1].weight.device.type == "meta" and y.device.type == "meta"
assert y.shape == (4, 3)
try:
    model(torch.ones(4, 3))  # the input left on the CPU fails the same way
except RuntimeError:
    pass
else:
    raise AssertionError("a CPU input ran through a meta model")
