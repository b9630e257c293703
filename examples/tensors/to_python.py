# %% [markdown]
# item() for one element, tolist() for many, list() for 0-d tensors;
# .numpy() and torch.from_numpy() share memory

# %% [markdown] lang="zh"
# 单个元素用 `item()`，多个元素用 `tolist()`，`list()` 得到的是 0 维张量；
# `.numpy()` 和 `torch.from_numpy()` 共享内存

# %% item
import numpy as np
import torch

x = torch.tensor([1])
print(x.item(), type(x.item()))
print(torch.tensor([[2.5]]).item(), type(torch.tensor(2.5).item()))
print(torch.tensor(True).item())

# %% item-float32
print(torch.tensor(0.1).item())

# %% item-many tags=["raises-exception"]
y = torch.tensor([2, 3, 4, 5])
y.item()

# %% float-many tags=["raises-exception"]
float(torch.tensor([2.0, 3.0]))

# %% tolist
t1 = torch.tensor([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
print(t1.tolist())
print(torch.tensor([[1.0, 2.0], [3.0, 4.0]]).tolist())
print(torch.tensor(5).tolist())

# %% list
print(list(t1))
print(list(torch.tensor([[1, 2], [3, 4]])))

# %% requires-grad
w = torch.tensor([1.0, 2.0], requires_grad=True)
print(w.sum().item(), w.tolist())

# %% numpy-requires-grad tags=["raises-exception"]
w.numpy()

# %% numpy-detach
print(w.detach().numpy())
print(w.numpy(force=True))

# %% numpy-shares
x = torch.tensor([1.0, 2.0, 3.0])
a = x.numpy()
a[0] = 100.0
print(x)
x.add_(1)
print(a)

# %% numpy-copy
a = x.numpy().copy()
a[0] = -1.0
print(x)

# %% numpy-cuda tags=["requires-cuda"]
x_gpu = torch.ones(2, device="cuda")
print(x_gpu.cpu().numpy())
try:
    x_gpu.numpy()
except TypeError as error:
    print(error)
else:
    raise AssertionError("numpy() of a CUDA tensor should fail")
assert np.array_equal(x_gpu.numpy(force=True), np.ones(2, dtype=np.float32))

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
assert torch.tensor([1]).item() == 1 and type(torch.tensor([1]).item()) is int
value = torch.tensor([[2.5]]).item()
assert type(value) is float and value == 2.5
assert type(torch.tensor(True).item()) is bool
# float32 rounding, seen as a Python float
assert torch.tensor(0.1).item() != 0.1
# exactly the float32 value
assert torch.tensor(0.1).item() == float(np.float32(0.1))
assert torch.tensor(0.1, dtype=torch.float64).item() == 0.1
for make_scalar, kind, words in (
    (
        lambda: torch.tensor([2, 3, 4, 5]).item(),
        RuntimeError,
        "4 elements cannot be"
    ),
    (
        lambda: float(torch.tensor([2.0, 3.0])),
        ValueError,
        "only one element tensors"
    ),
    (lambda: int(torch.tensor([2, 3])), ValueError, "only one element tensors"),
):
    try:
        make_scalar()
    except kind as error:
        assert words in str(error)
    else:
        raise AssertionError(f"expected {kind.__name__}")
assert float(torch.tensor([2.0])) == 2.0

assert t1.tolist() == list(range(1, 11)) and all(
    type(v) is int for v in t1.tolist()
)
assert torch.tensor([[1.0, 2.0], [3.0, 4.0]]).tolist() == [
    [1.0, 2.0], [3.0, 4.0]
]
assert torch.tensor(5).tolist() == 5  # a 0-d tensor gives a number, not a list
items = list(t1)
assert len(items) == 10
assert all(isinstance(v, torch.Tensor) and v.dim() == 0 for v in items)
assert [r.shape for r in list(torch.tensor([[1, 2], [3, 4]]))] == [(2,), (2,)]

w = torch.tensor([1.0, 2.0], requires_grad=True)
assert w.sum().item() == 3.0 and w.tolist() == [1.0, 2.0]
try:
    w.numpy()
except RuntimeError as error:
    assert "requires grad" in str(error) and "detach().numpy()" in str(error)
else:
    raise AssertionError("numpy() of a tensor that requires grad should fail")
assert np.array_equal(
    w.detach().numpy(), np.array([1.0, 2.0], dtype=np.float32)
)
assert np.array_equal(w.numpy(force=True), w.detach().numpy())

x = torch.tensor([1.0, 2.0, 3.0])
a = x.numpy()
assert a.dtype == np.float32
a[0] = 100.0
assert x[0] == 100.0
x.add_(1)
assert a[0] == 101.0
b = x.numpy().copy()
b[0] = -1.0
# the copy is independent
assert x[0] == 101.0 and b.ctypes.data != x.data_ptr()

# %% item-digits
x = torch.tensor(1.2)
print(x)
print(x.item())
print(torch.tensor(1.2, dtype=torch.float64).item())
# round only what you show
print(round(x.item(), 4), f"{x.item():.4f}")

# %% item-digits-checks tags=["remove-cell"]
# the nearest float32 to 1.2, widened to a Python float
assert x.dtype == torch.float32
assert x.item() == float(np.float32(1.2)) and x.item() != 1.2
assert repr(x.item()) == "1.2000000476837158"
# float64 holds the nearest double, which Python prints as 1.2
assert torch.tensor(1.2, dtype=torch.float64).item() == 1.2
assert round(x.item(), 4) == 1.2 and f"{x.item():.4f}" == "1.2000"
assert str(x) == "tensor(1.2000)"

# %% print-rounds
x = torch.tensor([0.99999, 1e-5])
print(x)
# the usual advice against e-notation
torch.set_printoptions(sci_mode=False)
print(x)
print(x == torch.tensor([1.0, 0.0]))

# %% print-rounds-checks tags=["remove-cell"] holds=">=2.9" claim="With `sci_mode=False` and the default precision, `1e-5` prints as `0.0000`" about="print-rounds"
# default printing: 4 decimals, e-notation for a tiny value
torch.set_printoptions(profile="default")
assert str(x) == "tensor([9.9999e-01, 1.0000e-05])"
torch.set_printoptions(sci_mode=False)
assert str(x) == "tensor([1.0000, 0.0000])"
assert x[1] != 0 and x[0] != 1

# %% print-precision
torch.set_printoptions(precision=8, sci_mode=False)
print(x)
print(x.tolist())
# back to the defaults
torch.set_printoptions(profile="default")
print(x)

# %% print-precision-checks tags=["remove-cell"]
torch.set_printoptions(precision=8, sci_mode=False)
assert str(x) == "tensor([0.99998999, 0.00001000])"
assert x.tolist() == [float(np.float32(0.99999)), float(np.float32(1e-5))]
torch.set_printoptions(profile="default")
# the default profile also turns e-notation back to automatic
assert str(x) == "tensor([9.9999e-01, 1.0000e-05])"
assert str(torch.tensor([0.5, 2.0])) == "tensor([0.5000, 2.0000])"
