# %% [markdown]
# torch.tensor() builds a tensor from data; what a tensor carries (dtype, shape,
# device, autograd attributes), how dtype is chosen and converted, the warning
# for a list of NumPy arrays, and what randn really draws

# %% [markdown] lang="zh"
# `torch.tensor()` 用数据构造张量；张量带有哪些信息（dtype、形状、设备、
# autograd 相关属性），dtype 是如何确定和转换的，由 NumPy 数组组成的列表
# 为什么会引发警告，以及 `randn` 实际采样的是什么

# %% attributes
import numpy as np
import torch

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = w * 2
print(w.dtype, w.shape, w.device)
print(w.requires_grad, w.is_leaf, w.grad_fn)
print(y.requires_grad, y.is_leaf, y.grad_fn.name())

# %% grad-and-data
print(w.grad)
y.sum().backward()
print(w.grad)
print(w.data)

# %% dtype-vs-type
x = torch.tensor([1.0, 2.0])
print(x.dtype)
print(x.type())
print(x.to(torch.float64).dtype, x.to(torch.float64).type())

# %% dtype-vs-type-cuda tags=["requires-cuda"]
x_gpu = x.to("cuda")
print(x_gpu.dtype, x_gpu.device, x_gpu.type())
assert x_gpu.dtype == torch.float32 and x_gpu.type() == "torch.cuda.FloatTensor"

# %% dtype-inference
print(torch.tensor([1, 2]).dtype)
print(torch.tensor([1.0, 2.0]).dtype)
print(torch.tensor([1, 2.5]).dtype)
print(torch.tensor([True, False]).dtype)
print(torch.get_default_dtype())

# %% dtype-numpy
a = np.array([[1.0, 2.0]])
print(a.dtype, torch.tensor(a).dtype)

# %% dtype-numpy-mismatch raises="RuntimeError: mat1 and mat2 must have the same dtype, but got Double and Float"
model = torch.nn.Linear(2, 1)
model(torch.tensor(a))

# %% dtype-explicit
print(torch.tensor(a, dtype=torch.float32).dtype)
print(torch.tensor([1, 2], dtype=torch.float))
print(torch.float is torch.float32, torch.long is torch.int64)

# %% legacy-Tensor
print(torch.Tensor([1, 2]), torch.Tensor([1, 2]).dtype)
print(torch.tensor([1, 2]), torch.tensor([1, 2]).dtype)
print(torch.Tensor(3).shape, torch.tensor(3).shape)

# %% copies
a = np.array([1.0, 2.0, 3.0])
copied = torch.tensor(a)
shared = torch.from_numpy(a)
also_shared = torch.as_tensor(a)
a[0] = 100.0
print(copied)
print(shared)
print(also_shared)

# %% from-tensor
src = torch.ones(2)
y = torch.tensor(src)

# %% from-tensor-right
y = src.detach().clone()
print(y, y.data_ptr() == src.data_ptr())

# %% pin-memory
try:
    x = torch.tensor([1.0, 2.0], pin_memory=True)
    print(x.is_pinned())
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# %% pin-memory-cuda tags=["requires-cuda"]
x = torch.tensor([1.0, 2.0], pin_memory=True)
x_gpu = x.to("cuda", non_blocking=True)
assert x.is_pinned() and x_gpu.is_cuda

# %% randn
x = torch.randn(10_000)
print(f"mean {x.mean():.3f}, std {x.std():.3f}")
print(f"min {x.min():.3f}, max {x.max():.3f}")
print(f"below 0: {(x < 0).float().mean():.3f}, "
      f"above 1: {(x > 1).float().mean():.3f}")

# %% rand
u = torch.rand(10_000)
print(f"min {u.min():.4f}, max {u.max():.4f}, mean {u.mean():.3f}")

# %% randn-like
device = "cuda" if torch.cuda.is_available() else "cpu"
x = torch.randn(2, 3, dtype=torch.float64, device=device)
noise = torch.randn_like(x)
print(noise.shape, noise.dtype, noise.device == x.device)

# %% shape
x = torch.randn(8, 4, 9)
print(x.shape)
print(x.shape == (8, 4, 9), x.shape[0], x.size(1), x.ndim)

# %% checks tags=["remove-cell"] holds=">=2.7" claim="Copying a tensor with `torch.tensor` warns you to use `sourceTensor.detach().clone()` instead" about="from-tensor"
# What the page says, checked on every build
import warnings

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = w * 2
assert w.is_leaf and w.grad_fn is None and w.requires_grad
assert not y.is_leaf and y.grad_fn is not None and y.requires_grad
assert w.grad is None
y.sum().backward()
assert torch.equal(w.grad, torch.full((3,), 2.0))
assert not w.data.requires_grad and w.data.data_ptr() == w.data_ptr()
assert w.device == torch.device("cpu") and w.shape == (3,)

x = torch.tensor([1.0, 2.0])
assert x.dtype == torch.float32 and isinstance(x.dtype, torch.dtype)
assert x.type() == "torch.FloatTensor" and isinstance(x.type(), str)
assert x.to(torch.float64).type() == "torch.DoubleTensor"

assert torch.tensor([1, 2]).dtype == torch.int64
assert torch.tensor([1.0, 2.0]).dtype == torch.float32
assert torch.tensor([1, 2.5]).dtype == torch.float32
assert torch.tensor([True, False]).dtype == torch.bool
assert torch.get_default_dtype() == torch.float32
a = np.array([[1.0, 2.0]])
assert a.dtype == np.float64 and torch.tensor(a).dtype == torch.float64
try:
    torch.nn.Linear(2, 1)(torch.tensor(a))
except RuntimeError as error:
    assert "same dtype" in str(error) and "Double" in str(error)
else:
    raise AssertionError("a float64 input to a float32 Linear should fail")
# weights: the default dtype
assert torch.nn.Linear(2, 1).weight.dtype == torch.float32
assert torch.nn.Linear(2, 1)(
    torch.tensor(a, dtype=torch.float32)
).dtype == torch.float32
try:
    torch.tensor([1, 2], torch.float)  # dtype is keyword-only
except TypeError as error:
    assert "1 positional argument" in str(error)
else:
    raise AssertionError("torch.tensor() should take dtype only as a keyword")
assert torch.equal(
    torch.tensor([1, 2], dtype=torch.float), torch.tensor([1.0, 2.0])
)
assert torch.float is torch.float32 and torch.long is torch.int64

assert torch.Tensor([1, 2]).dtype == torch.float32
assert torch.Tensor(3).shape == (3,) and torch.tensor(3).shape == ()

a = np.array([1.0, 2.0, 3.0])
copied, shared, also_shared = \
    torch.tensor(a), torch.from_numpy(a), torch.as_tensor(a)
a[0] = 100.0
assert copied[0] == 1.0 and shared[0] == 100.0 and also_shared[0] == 100.0
assert torch.as_tensor(a, dtype=torch.float32)[0] == 100.0
other_dtype = torch.as_tensor(a, dtype=torch.float32)
assert other_dtype.data_ptr() != a.ctypes.data  # another dtype: a copy
assert torch.from_numpy(a).data_ptr() == a.ctypes.data
assert torch.as_tensor(shared) is shared  # a tensor of the right dtype: itself

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.tensor(src)
assert any(
    issubclass(w_.category, UserWarning)
    and "detach().clone()" in str(w_.message)
    for w_ in caught
)
y = src.detach().clone()
assert torch.equal(y, src) and y.data_ptr() != src.data_ptr()

if torch.cuda.is_available():
    assert torch.tensor([1.0], pin_memory=True).is_pinned()
else:
    try:
        torch.tensor([1.0], pin_memory=True)
    except RuntimeError as error:
        # a CPU-only build names pin_memory; a CUDA build run without a GPU, the missing driver
        assert "pin_memory=True requires" in str(error) or "Found no NVIDIA driver" in str(error)
    else:
        raise AssertionError(
            "pin_memory=True without an accelerator should fail"
        )

x = torch.randn(10_000)
assert abs(x.mean()) < 0.05 and abs(x.std() - 1) < 0.05
assert x.min() < -3 and x.max() > 3  # not confined to [0, 1]
assert 0.45 < (x < 0).float().mean() < 0.55 \
    and 0.13 < (x > 1).float().mean() < 0.19
u = torch.rand(10_000)
assert u.min() >= 0 and u.max() < 1

x = torch.randn(2, 3, dtype=torch.float64)
noise = torch.randn_like(x)
assert noise.shape == x.shape and noise.dtype == torch.float64
assert noise.device == x.device
x = torch.randn(8, 4, 9)
assert isinstance(x.shape, torch.Size) and isinstance(x.shape, tuple)
batch, channels, length = x.shape
assert (batch, channels, length) == (8, 4, 9) and x.shape[0] == 8
assert x.shape == (8, 4, 9) and x.size() == x.shape and x.size(1) == 4 \
    and x.ndim == 3

# %% tensor-is-Tensor
x = torch.tensor([1, 2])  # a function that returns a torch.Tensor
print(type(x), isinstance(x, torch.Tensor))

# %% tensor-is-Tensor-checks tags=["remove-cell"]
assert type(x) is torch.Tensor and isinstance(x, torch.Tensor)
assert not isinstance(torch.tensor, type) and isinstance(torch.Tensor, type)

# %% shape-list
x = torch.zeros(2, 3)
dims = list(x.shape)  # a plain list of Python ints
print(dims, type(dims[0]).__name__)
print(x.tolist())  # the values, not the shape

# %% shape-list-checks tags=["remove-cell"]
assert dims == [2, 3] and type(dims) is list
assert all(type(d) is int for d in dims)
assert list(x.size()) == dims and tuple(x.shape) == (2, 3)
assert x.tolist() == [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]

# %% convert
x = torch.tensor([1.0, 2.0])  # float32: the legacy torch.FloatTensor
print(x.double().dtype, x.to(torch.float64).dtype, x.type(torch.float64).dtype)
print(x.half().dtype, x.long().dtype, x.dtype)
print(x.float() is x, x.to(torch.float32) is x)  # already float32: x itself

# %% convert-type-string
print(x.type(), x.double().type())  # no argument: a string, not a dtype
print(x.type(torch.DoubleTensor).dtype, isinstance(x, torch.FloatTensor))

# %% convert-like
device = "cuda" if torch.cuda.is_available() else "cpu"
weight = torch.zeros(3, dtype=torch.float64, device=device)
y = x.to(weight)  # the dtype and device of weight
print(y.dtype, y.device == weight.device)
y = x.to(device, torch.float64)  # or a device and a dtype at once
print(y.dtype, y.device == weight.device)

# %% convert-checks tags=["remove-cell"]
x = torch.tensor([1.0, 2.0])
for converted, dtype in [
    (x.double(), torch.float64), (x.to(torch.float64), torch.float64),
    (x.type(torch.float64), torch.float64), (x.half(), torch.float16),
    (x.long(), torch.int64), (x.type(torch.DoubleTensor), torch.float64),
    (x.type("torch.DoubleTensor"), torch.float64),
]:
    # a new tensor of that dtype, x unchanged
    assert converted.dtype == dtype and converted is not x
    assert converted.data_ptr() != x.data_ptr()
    assert torch.equal(converted.double(), x.double())
assert x.dtype == torch.float32
assert x.float() is x and x.to(torch.float32) is x
assert x.to(torch.float32, copy=True) is not x
assert x.type() == "torch.FloatTensor" and isinstance(x.type(), str)
assert x.double().type() == "torch.DoubleTensor"
assert x.dtype == torch.float32 and isinstance(x.dtype, torch.dtype)
assert isinstance(x, torch.FloatTensor) and not isinstance(x, torch.DoubleTensor)
assert isinstance(x.double(), torch.DoubleTensor)
weight = torch.zeros(3, dtype=torch.float64)
assert x.to(weight).dtype == torch.float64
assert x.to(weight).device == weight.device
assert x.to("cpu", torch.float64).dtype == torch.float64
assert x.to("cpu").device == torch.device("cpu") and x.to("cpu").dtype == x.dtype
# the fix for the float64 input of dtype-numpy-mismatch
a = np.array([[1.0, 2.0]])
assert torch.nn.Linear(2, 1)(torch.tensor(a).float()).dtype == torch.float32

# %% convert-truncate
x = torch.tensor([-1.7, -0.5, 0.5, 1.7])
print(x.long())  # toward zero: -1.7 becomes -1, not -2
print(x.floor().long(), x.round().long())

# %% convert-truncate-checks tags=["remove-cell"]
assert x.long().tolist() == [-1, 0, 0, 1]
assert x.int().tolist() == [-1, 0, 0, 1] and x.int().dtype == torch.int32
assert torch.equal(x.long(), x.trunc().long())
assert x.floor().long().tolist() == [-2, -1, 0, 1]
assert x.round().long().tolist() == [-2, 0, 0, 2]  # halves to even

# %% uint8-setitem raises="RuntimeError: value cannot be converted to type uint8_t without overflow"
pixels = torch.tensor([0, 100, 250], dtype=torch.uint8)  # 0 to 255
pixels[0] = 300

# %% uint8-fill raises="RuntimeError: value cannot be converted to type uint8_t without overflow"
pixels.fill_(300)

# %% uint8-tensor raises="RuntimeError: value cannot be converted to type uint8 without overflow"
torch.tensor([255, 300], dtype=torch.uint8)

# %% uint8-silent
pixels[0] = -1  # accepted: stored as 255
print(pixels)
print(pixels + 10)  # uint8 arithmetic wraps modulo 256, no error
print(pixels.to(torch.int64) + 10)  # convert first

# %% uint8-silent-checks tags=["remove-cell"]
assert pixels.tolist() == [255, 100, 250]
assert (pixels + 10).dtype == torch.uint8
assert (pixels + 10).tolist() == [9, 110, 4]
assert (pixels.to(torch.int64) + 10).tolist() == [265, 110, 260]
# the failed assignments left pixels as they were
assert pixels[1:].tolist() == [100, 250]

# %% count-mask
x = torch.rand(1000)
above = (x > 0.5).sum()  # counting a bool mask: the sum is int64
print(above.dtype, above.item(), type(above.item()).__name__)
ones = torch.ones(300, dtype=torch.uint8)
print(ones.sum(), ones.sum().dtype)  # 300, not 300 % 256

# %% count-mask-checks tags=["remove-cell"]
assert above.dtype == torch.int64 and isinstance(above.item(), int)
assert above.item() == int((x > 0.5).long().sum())
assert ones.sum().dtype == torch.int64 and ones.sum().item() == 300
assert (x > 0.5).to(torch.uint8).sum().item() == above.item()
assert ones.cumsum(0).dtype == torch.int64  # cumsum promotes as well
# a sum kept in uint8 on purpose still wraps
assert ones.sum(dtype=torch.uint8).item() == 300 % 256

# %% list-of-arrays
arrays = [np.full(3, float(i)) for i in range(4)]  # e.g. one array per sample
x = torch.tensor(arrays)

# %% list-of-arrays-right
print(x.shape, x.dtype)
stacked = np.stack(arrays)  # one (4, 3) array: the one copy
x_stacked = torch.from_numpy(stacked)  # shares it, no second copy
x_array = torch.tensor(np.array(arrays))
print(x_stacked.shape, torch.equal(x, x_stacked), torch.equal(x, x_array))

# %% list-of-arrays-checks tags=["remove-cell"]
import warnings

MESSAGE = (
    "Creating a tensor from a list of numpy.ndarrays is extremely slow. "
    "Please consider converting the list to a single numpy.ndarray with "
    "numpy.array() before converting to a tensor."
)


def warned(make):
    # PyTorch warns once per process; set_warn_always: every time
    before = torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            make()
    finally:
        torch.set_warn_always(before)
    return [str(w_.message) for w_ in caught if w_.category is UserWarning]


assert any(m.startswith(MESSAGE) for m in warned(lambda: torch.tensor(arrays)))
assert not warned(lambda: torch.from_numpy(np.stack(arrays)))
assert not warned(lambda: torch.tensor(np.array(arrays)))
with warnings.catch_warnings(record=True) as caught:  # once per process
    warnings.simplefilter("always")
    torch.tensor(arrays)
assert not [w_ for w_ in caught if "numpy.ndarrays" in str(w_.message)]
assert x.shape == (4, 3) and x.dtype == torch.float64
assert torch.equal(x, x_stacked) and torch.equal(x, x_array)
assert x_stacked.dtype == x_array.dtype == torch.float64
assert x_stacked.data_ptr() == stacked.ctypes.data  # from_numpy: no copy
assert torch.equal(x[2], torch.full((3,), 2.0, dtype=torch.float64))

# %% arange-float
for start in (0, 1):
    x = torch.arange(start, 1.3, 0.1)  # the end, 1.3, is excluded
    print(len(x), x[-2:])  # from 1: 1.3 is in, one element too many
print((1.3 - 0) / 0.1, (1.3 - 1) / 0.1)  # the length is ceil() of these
extra = [i / 10 for i in range(13)  # starts 0.0, 0.1, ..., 1.2
         if len(torch.arange(i / 10, 1.3, 0.1)) > 13 - i]
print("one element too many from", extra)

# %% arange-float-checks tags=["remove-cell"]
import math

assert len(torch.arange(0, 1.3, 0.1)) == 13
assert len(torch.arange(1, 1.3, 0.1)) == 4  # one more than 0.3 / 0.1
assert torch.isclose(torch.arange(1, 1.3, 0.1)[-1], torch.tensor(1.3))
assert (1.3 - 1) / 0.1 > 3 and (1.3 - 0) / 0.1 == 13
# the length is ceil((end - start) / step), computed with Python's floats
for start in [i / 10 for i in range(11)]:
    for end in [start + i / 10 for i in range(1, 15)]:
        for step in (0.1, 0.2, 0.5):
            assert len(torch.arange(start, end, step)) \
                == math.ceil((end - start) / step)
assert extra == [0.7, 1.0, 1.2]
assert all(torch.isclose(torch.arange(s, 1.3, 0.1)[-1], torch.tensor(1.3))
           for s in extra)

# %% arange-fixed
print(torch.linspace(1, 1.2, steps=3))  # 3 values, both ends included
print(torch.arange(10, 13) / 10)  # integer steps, then scale
print(torch.arange(3) * 0.1 + 1)

# %% arange-fixed-checks tags=["remove-cell"]
expected = torch.tensor([1.0, 1.1, 1.2])
assert torch.allclose(torch.linspace(1, 1.2, steps=3), expected)
assert torch.allclose(torch.arange(10, 13) / 10, expected)
assert torch.allclose(torch.arange(3) * 0.1 + 1, expected)
assert (torch.arange(10, 13) / 10).dtype == torch.float32
# the documentation's advice: an end a little below 1.3
assert len(torch.arange(1, 1.3 - 1e-6, 0.1)) == 3
for steps in range(1, 40):  # linspace: always steps values
    assert len(torch.linspace(0.1, 1.3, steps)) == steps
for n in range(1, 40):  # integer arange: always end - start values
    assert len(torch.arange(n, 2 * n) / 10) == n

# %% range-vs-arange
import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    r = torch.range(0, 5)
for w in caught:
    print(f"{w.category.__name__}: {w.message}")
print(r, r.dtype)  # the end, 5, is in; float32
a = torch.arange(0, 5)
print(a, a.dtype)  # the end is left out; int64 from int arguments
print(torch.arange(0.0, 5).dtype)  # a float argument: float32

# %% range-vs-arange-checks tags=["remove-cell"]
assert [w.category for w in caught] == [UserWarning]
assert str(caught[0].message).startswith(
    "torch.range is deprecated and will be removed in a future release "
    "because its behavior is inconsistent with Python's range builtin. "
    "Instead, use torch.arange, which produces values in [start, end)."
)
assert r.dtype == torch.float32 and r.tolist() == [0, 1, 2, 3, 4, 5]
assert a.dtype == torch.int64 and a.tolist() == list(range(0, 5))
assert torch.arange(0.0, 5).dtype == torch.float32

# %% range-replace
print(torch.arange(0, 5 + 1))  # torch.range(0, 5) without the warning
print(torch.arange(0, 5 + 1, dtype=torch.float32))  # and in its dtype
print(torch.linspace(0, 1, steps=11))  # a float step with both ends in

# %% range-replace-checks tags=["remove-cell"]
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    assert torch.equal(torch.arange(0, 5 + 1, dtype=torch.float32),
                       torch.range(0, 5))
    old = torch.range(0, 1, 0.1)
assert torch.equal(torch.arange(0, 5 + 1), torch.tensor([0, 1, 2, 3, 4, 5]))
fixed = torch.linspace(0, 1, steps=11)
assert len(fixed) == len(old) == 11 and fixed[0] == 0 and fixed[-1] == 1
assert torch.allclose(fixed, old)

# %% not-writable
import textwrap
import warnings

a = np.arange(3.0)
a.flags.writeable = False  # read-only, as np.frombuffer(bytes) gives
torch.set_warn_always(True)  # PyTorch warns once per process: every time here
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    x = torch.from_numpy(a)
torch.set_warn_always(False)
message = str(caught[0].message).split(" (Triggered")[0]  # no C++ file
print(textwrap.fill(message, 76, break_on_hyphens=False))
print(x.data_ptr() == a.ctypes.data)  # x uses the array's read-only memory

# %% not-writable-checks tags=["remove-cell"]
assert len(caught) == 1 and caught[0].category is UserWarning
assert message.startswith(
    "The given NumPy array is not writable, and PyTorch does not support "
    "non-writable tensors.")
assert "undefined behavior" in message
assert x.data_ptr() == a.ctypes.data and not a.flags.writeable
from PIL import Image

# torch.as_tensor shares too; np.frombuffer and broadcast_to are read-only
read_only = [a, np.frombuffer(b"\x01\x02\x03\x04", dtype=np.uint8),
             np.broadcast_to(np.arange(3.0), (2, 3)),
             np.asarray(Image.new("RGB", (4, 3)))]  # np.asarray of a PIL image
for array in read_only:
    assert not array.flags.writeable
    for convert in (torch.from_numpy, torch.as_tensor):
        assert any("not writable" in m for m in warned(lambda: convert(array)))
with warnings.catch_warnings(record=True) as caught:  # once per process
    warnings.simplefilter("always")
    torch.from_numpy(a)
    torch.from_numpy(a)
assert len([w_ for w_ in caught if "not writable" in str(w_.message)]) == 1

# %% not-writable-fixed
torch.set_warn_always(True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    from_copy = torch.from_numpy(a.copy())  # a writable copy, then share it
    from_array = torch.from_numpy(np.array(a))  # np.array copies too
    copied = torch.tensor(a)  # torch.tensor always copies
torch.set_warn_always(False)
print(len(caught), torch.equal(from_copy, copied), torch.equal(from_array, x))

# %% not-writable-fixed-checks tags=["remove-cell"]
assert caught == []
for fixed in (from_copy, from_array, copied):
    assert torch.equal(fixed, x) and fixed.data_ptr() != a.ctypes.data
assert a.copy().flags.writeable and np.array(a).flags.writeable
for array in read_only:
    assert not warned(lambda: torch.from_numpy(array.copy()))
    assert not warned(lambda: torch.from_numpy(np.array(array)))
    assert not warned(lambda: torch.tensor(array))
img = Image.new("RGB", (4, 3))
assert np.array(img).flags.writeable
assert not warned(lambda: torch.from_numpy(np.array(img)))

# %% meshgrid-indexing
a = torch.tensor([1, 2])
b = torch.tensor([10, 20, 30])
torch.set_warn_always(True)  # PyTorch warns once per process: every time here
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    X, Y = torch.meshgrid(a, b)  # no indexing: warns
torch.set_warn_always(False)
message = str(caught[0].message).split(" (Triggered")[0]  # no C++ file
print(textwrap.fill(message, 76, break_on_hyphens=False))
print(X.shape)
print(X)
print(Y)

# %% meshgrid-indexing-checks tags=["remove-cell"]
assert len(caught) == 1 and caught[0].category is UserWarning
assert message == ("torch.meshgrid: in an upcoming release, it will be required "
                   "to pass the indexing argument.")
Xij, Yij = torch.meshgrid(a, b, indexing="ij")
assert torch.equal(X, Xij) and torch.equal(Y, Yij)  # the default is "ij"
assert X.shape == (len(a), len(b)) == (2, 3)
assert torch.equal(X[:, 0], a) and torch.equal(Y[0], b)

# %% meshgrid-xy
Xij, Yij = torch.meshgrid(a, b, indexing="ij")  # the old default: rows follow a
# NumPy's default: rows follow b
Xxy, Yxy = torch.meshgrid(a, b, indexing="xy")
print(Xij.shape, Xxy.shape)
print(Xxy)
Xnp, Ynp = np.meshgrid(a.numpy(), b.numpy())
print(np.array_equal(Xxy.numpy(), Xnp), torch.equal(Xxy, Xij.T))

# %% meshgrid-xy-checks tags=["remove-cell"]
assert Xij.shape == (2, 3) and Xxy.shape == (3, 2)
assert np.array_equal(Xxy.numpy(), Xnp) and np.array_equal(Yxy.numpy(), Ynp)
assert torch.equal(Xxy, Xij.T) and torch.equal(Yxy, Yij.T)
Xnp_ij, _ = np.meshgrid(a.numpy(), b.numpy(), indexing="ij")
assert np.array_equal(Xij.numpy(), Xnp_ij)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.set_warn_always(True)
    torch.meshgrid(a, b, indexing="ij")
    torch.meshgrid(a, b, indexing="xy")
    torch.set_warn_always(False)
assert not [w_ for w_ in caught if "meshgrid" in str(w_.message)]  # no warning

# %% negative-size raises="RuntimeError: Trying to create tensor with negative dimension -106: [256, 1024, -106]"
in_size, kernel, stride = 3, 216, 2  # an input smaller than the kernel
width = (in_size - kernel) // stride + 1
print(width)
torch.empty(256, 1024, width)

# %% negative-size-layer raises="RuntimeError: Trying to create tensor with negative dimension -5: [-5, 10]"
hidden = 16 - 21  # a width computed from a config
torch.nn.Linear(10, hidden)  # the weight is [out_features, in_features]

# %% negative-size-layer-checks tags=["remove-cell"]
for make, message in (
    (lambda: torch.ones(2, -3),
     "Trying to create tensor with negative dimension -3: [2, -3]"),
    (lambda: torch.nn.Conv2d(3, -1, 3),
     "Trying to create tensor with negative dimension -1: [-1, 3, 3, 3]"),
):
    try:
        make()
    except RuntimeError as error:
        assert str(error) == message, str(error)
    else:
        raise AssertionError(f"{message!r} not raised")

# %% negative-size-zeros-checks tags=["remove-cell"] holds=">=2.9" about="negative-size-layer" claim="`torch.zeros` with a negative size raises `zeros: Dimension size must be non-negative.`"
try:
    torch.zeros(2, -3)
except RuntimeError as error:
    assert str(error) == "zeros: Dimension size must be non-negative.", str(error)
else:
    raise AssertionError("torch.zeros(2, -3) raised nothing")

# %% negative-size-fix
def conv_width(in_size, kernel, stride):
    width = (in_size - kernel) // stride + 1
    assert width > 0, f"input {in_size} is smaller than kernel {kernel}"
    return width

print(conv_width(224, 216, 2))
try:
    conv_width(5, 216, 2)
except AssertionError as error:
    print("AssertionError:", error)
torch.manual_seed(0)
model = torch.nn.LazyLinear(3)  # in_features from the first input
print(model(torch.ones(2, 7)).shape, model.weight.shape)

# %% negative-size-fix-checks tags=["remove-cell"]
assert conv_width(224, 216, 2) == 5
try:
    conv_width(5, 216, 2)
except AssertionError as error:
    assert str(error) == "input 5 is smaller than kernel 216"
else:
    raise AssertionError("a negative width passed")
assert model.in_features == 7 and tuple(model.weight.shape) == (3, 7)
assert torch.empty(256, 1024, 0).shape == (256, 1024, 0)  # zero is allowed
