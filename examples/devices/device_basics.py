# %% [markdown]
# torch.device, the device-choosing idiom, and why
# Module.to() needs no assignment while Tensor.to()
# does. dtype changes stand in for device moves on CPU

# %% [markdown] lang="zh"
# `torch.device`、选择设备的惯用写法，以及为什么 `Module.to()` 不需要赋值，
# 而 `Tensor.to()` 需要。在 CPU 上用 dtype 转换代替设备迁移来演示

# %% device-idiom
import torch
from torch import nn

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
print(device)

# %% module-to
model = nn.Linear(3, 2)
weight = model.weight
returned = model.to(torch.float64)  # no assignment needed
print(returned is model)
print(model.weight.dtype, model.weight is weight)
model = model.to(device)  # assigning is harmless: it is the same object

# %% tensor-to-wrong
x = torch.ones(3)
x.to(torch.float64)  # the result is thrown away
print(x.dtype)

# %% tensor-to-right
x = x.to(torch.float64)
print(x.dtype)

# %% tensor-to-same
x = torch.ones(3)
print(x.to("cpu") is x)
print(x.to(torch.float32) is x)
print(x.to("cpu", copy=True) is x)

# %% no-inplace-to tags=["raises-exception"]
x.to_(torch.float64)

# %% cuda-to tags=["requires-cuda"]
x = torch.ones(3)
x.to("cuda")  # a new tensor on the GPU, thrown away
assert x.device.type == "cpu"
x = x.to("cuda")
assert x.is_cuda
assert model.to("cuda") is model and model.weight.is_cuda

# %% where-is-it
x = torch.ones(3)
print(x.device, x.is_cuda, x.get_device())
print(next(model.parameters()).device)

# %% where-is-it-cuda tags=["requires-cuda"]
x = torch.ones(3, device="cuda:0")
print(x.device, x.is_cuda, x.get_device())
assert x.is_cuda and x.get_device() == 0 and x.device.index == 0

# %% cuda-vs-cuda0
print(torch.device("cuda") == torch.device("cuda:0"))
print(torch.device("cuda").index, torch.device("cuda:0").index)
print(torch.device("cuda", 0) == torch.device("cuda:0"))

# %% cuda-means-current tags=["requires-cuda"]
x = torch.ones(3, device="cuda")  # lands on the current device
print(x.device, torch.cuda.current_device())
assert x.device.index == torch.cuda.current_device()
# the tensor's device always has an index
assert x.device != torch.device("cuda")
assert x.device.type == "cuda"  # compare .type to ask "is it on a GPU?"

# %% cuda-device-context tags=["requires-cuda"]
last = torch.cuda.device_count() - 1
with torch.cuda.device(last):
    a = torch.ones(3, device="cuda")  # "cuda" now means cuda:last
    b = torch.ones(3)  # no device given: still the CPU
print(a.device, b.device)
assert a.device.index == last and b.device.type == "cpu"
assert torch.cuda.current_device() == 0  # restored on exit

# %% default-device
print(torch.get_default_device())
with torch.device("meta"):
    y = torch.ones(2, 3)
    layer = nn.Linear(1000, 1000)
    z = torch.ones(2, device="cpu")  # an explicit device= wins
print(y.device, layer.weight.device, z.device)
print(torch.get_default_device())

# %% default-device-cuda tags=["requires-cuda"]
with torch.device("cuda"):
    x = torch.ones(3)
print(x.device)
assert x.is_cuda and torch.get_default_device().type == "cpu"

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
assert device.type == ("cuda" if torch.cuda.is_available() else "cpu")
# Module.to is in place
assert returned is model and weight.dtype == torch.float64
assert model.weight is weight  # the same Parameter objects, converted

x = torch.ones(3)
x.to(torch.float64)
assert x.dtype == torch.float32  # Tensor.to does not change x
y64 = x.to(torch.float64)
assert y64 is not x and y64.dtype == torch.float64
# nothing to change: same tensor
assert x.to("cpu") is x and x.to(torch.float32) is x
assert x.to("cpu", copy=True) is not x
assert not hasattr(torch.Tensor, "to_")
try:
    x.to_(torch.float64)
except AttributeError as error:
    assert "'Tensor' object has no attribute 'to_'" in str(error)
else:
    raise AssertionError("Tensor.to_ should not exist")

x = torch.ones(3)
assert x.device == torch.device("cpu") and x.device.index is None
assert not x.is_cuda and x.get_device() == -1
assert not hasattr(nn.Linear(3, 2), "device")  # modules have no .device

assert torch.device("cuda") != torch.device("cuda:0")
assert torch.device("cuda").index is None and torch.device("cuda:0").index == 0
assert torch.device("cuda", 0) == torch.device("cuda:0")

assert torch.get_default_device() == torch.device("cpu")
assert y.device.type == "meta" and layer.weight.device.type == "meta"
assert z.device.type == "cpu" and y.is_meta
torch.set_default_device("meta")  # the same, outside any block
assert torch.ones(1).device.type == "meta"
torch.set_default_device("cpu")
assert torch.get_default_device() == torch.device("cpu")
advice = torch.cuda.set_device.__doc__
assert "discouraged in favor of" in advice and "CUDA_VISIBLE_DEVICES" in advice

# %% check-gpu
print(torch.cuda.is_available())  # can this torch use a GPU here?
print(torch.cuda.device_count())  # how many GPUs it sees
model = nn.Linear(3, 2).to(device)
x = torch.ones(1, 3, device=device)
print(next(model.parameters()).device, x.device)  # where the work runs

# %% check-gpu-checks tags=["remove-cell"]
assert torch.cuda.is_available() == (torch.cuda.device_count() > 0)
assert next(model.parameters()).device.type == device.type == x.device.type
if not torch.cuda.is_available():
    assert x.device == torch.device("cpu")

# %% check-gpu-cuda tags=["requires-cuda"]
index = torch.cuda.current_device()
print(index, torch.cuda.get_device_name(index))
print(torch.cuda.memory_allocated(index) > 0)  # our tensors hold its memory
assert index == 0 and model.weight.is_cuda and x.is_cuda
assert torch.cuda.memory_allocated(index) > 0

# %% default-tensor-type
import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.set_default_tensor_type(torch.DoubleTensor)  # the old way
print(caught[0].category.__name__)
print(str(caught[0].message).split(" (Triggered")[0])
torch.set_default_dtype(torch.float64)  # the replacement
print(torch.zeros(1).dtype, torch.tensor([1.5]).dtype, torch.tensor([1]).dtype)
torch.set_default_dtype(torch.float32)  # it is global: restore it
print(torch.zeros(1).dtype)

# %% default-tensor-type-checks tags=["remove-cell"]
message = str(caught[0].message)
assert caught[0].category is UserWarning
assert message.startswith(
    "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
    "torch.set_default_dtype() and torch.set_default_device() as alternatives."
)
torch.set_default_dtype(torch.float64)
assert torch.zeros(1).dtype == torch.float64 and torch.tensor([1.5]).dtype == torch.float64
assert torch.tensor([1]).dtype == torch.int64  # integers are not affected
torch.set_default_dtype(torch.float32)
assert torch.zeros(1).dtype == torch.float32 == torch.get_default_dtype()
try:
    torch.set_default_dtype(torch.int64)
except TypeError as error:
    assert "only floating-point types are supported as the default type" in str(error)
else:
    raise AssertionError("set_default_dtype should refuse an integer dtype")
