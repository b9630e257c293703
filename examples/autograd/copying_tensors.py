# %% [markdown]
# clone() copies and stays in the graph, detach() shares memory and leaves it;
# clone().detach() (or detach().clone()) is the copy to use, not torch.tensor(x)

# %% [markdown] lang="zh"
# `clone()` 复制数据并留在计算图中，`detach()` 共享内存并脱离计算图；
# 要复制张量，应该用 `clone().detach()`（或 `detach().clone()`），
# 而不是 `torch.tensor(x)`

# %% clone
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
c = x.clone()
print(c.requires_grad, c.grad_fn.name())
print("same memory:", c.data_ptr() == x.data_ptr())
(c * 2).sum().backward()
print(x.grad)

# %% detach
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
d = x.detach()
print(d.requires_grad, d.grad_fn)
print("same memory:", d.data_ptr() == x.data_ptr())
d[0] = 10.0
print(x)

# %% clone-detach
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
a = x.clone().detach()
b = x.detach().clone()
for copy in (a, b):
    print(copy, copy.is_leaf, copy.data_ptr() == x.data_ptr())
assert torch.equal(a, b) and a.grad_fn is None and b.grad_fn is None

# %% torch-tensor
t = torch.tensor(x)
print(t, t.is_leaf, t.data_ptr() == x.data_ptr())

# %% item-one-element tags=["raises-exception"]
x.item()

# %% new-leaf
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = x.clone().detach().requires_grad_(True)
print(w.is_leaf, w.requires_grad, w.grad_fn)
(w * 3).sum().backward()
print(w.grad, x.grad)

# %% clone-without-parens tags=["raises-exception"]
w = x.clone.detach().requires_grad_(True)

# %% to-after-requires-grad
x = torch.tensor([1.0, 2.0, 3.0])
w = x.clone().detach().requires_grad_(True).to(torch.float64)
print(w.is_leaf, w.grad_fn.name())

# %% optimizer-non-leaf tags=["raises-exception"]
optimizer = torch.optim.SGD([w], lr=0.1)

# %% to-then-requires-grad
w = x.clone().detach().to(torch.float64).requires_grad_(True)
print(w.is_leaf, w.grad_fn)
optimizer = torch.optim.SGD([w], lr=0.1)

# %% cuda tags=["requires-cuda"]
bad = x.clone().detach().requires_grad_(True).to("cuda")
good = x.clone().detach().to("cuda").requires_grad_(True)
print(bad.is_leaf, bad.grad_fn.name(), good.is_leaf)
assert not bad.is_leaf and good.is_leaf \
    and bad.grad_fn.name() == "ToCopyBackward0"

# %% create-on-device
device = "cuda" if torch.cuda.is_available() else "cpu"
w = torch.randn(3, device=device, requires_grad=True)
print(w.device, w.is_leaf)
optimizer = torch.optim.SGD([w], lr=0.1)

# %% checks tags=["remove-cell"] holds=">=2.7" claim="Copying a tensor with `torch.tensor` warns you to use `sourceTensor.detach().clone()` instead" about="torch-tensor"
# What the page says, checked on every build
import warnings

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)

# clone(): new memory, in the graph, gradient flows back to x
c = x.clone()
assert c.requires_grad and type(c.grad_fn).__name__ == "CloneBackward0"
assert c.data_ptr() != x.data_ptr() and not c.is_leaf
(c * 2).sum().backward()
assert torch.equal(x.grad, torch.full((3,), 2.0))

# detach(): same memory, out of the graph, writes show through
y = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
d = y.detach()
assert not d.requires_grad and d.grad_fn is None \
    and d.data_ptr() == y.data_ptr()
d[0] = 10.0
assert y[0].item() == 10.0

# clone().detach() and detach().clone(): the same result, new memory, no graph
for copy in (y.clone().detach(), y.detach().clone()):
    assert torch.equal(copy, y) and copy.data_ptr() != y.data_ptr()
    assert copy.is_leaf and not copy.requires_grad and copy.grad_fn is None
assert y.detach().clone().grad_fn is None

# torch.tensor(x): the same copy, with a
# UserWarning recommending detach().clone()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    t = torch.tensor(y)
    t2 = torch.tensor(y, requires_grad=True)
messages = [
    str(w.message) for w in caught if issubclass(w.category, UserWarning)
]
assert len(messages) == 2, messages
assert all("To copy construct from a tensor" in m for m in messages)
assert all("sourceTensor.detach().clone()" in m for m in messages)
assert all(
    "sourceTensor.detach().clone().requires_grad_(True)" in m for m in messages
)
# the documentation of torch.tensor says the same
doc = " ".join(torch.tensor.__doc__.split())
assert "``torch.tensor(t)`` is equivalent to ``t.detach().clone()``" in doc
assert "is equivalent to ``t.detach().clone().requires_grad_(True)``" in doc
assert torch.equal(t, y) and t.data_ptr() != y.data_ptr()
assert t.is_leaf and not t.requires_grad and t.dtype == y.dtype
assert t2.is_leaf and t2.requires_grad and t2.grad_fn is None

# item() only converts one-element tensors
try:
    y.item()
except RuntimeError as error:
    assert "a Tensor with 3 elements cannot be converted to Scalar" \
        in str(error)
else:
    raise AssertionError("item() on three elements should fail")
assert isinstance(torch.tensor([5.0]).item(), float)

# the recommended new leaf: gradients stop at it
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = x.clone().detach().requires_grad_(True)
assert w.is_leaf and w.requires_grad and w.grad_fn is None
(w * 3).sum().backward()
assert torch.equal(w.grad, torch.full((3,), 3.0)) and x.grad is None

# the note's typo
try:
    x.clone.detach()
except AttributeError as error:
    assert "'builtin_function_or_method' object has no attribute 'detach'" \
        in str(error)
else:
    raise AssertionError("x.clone.detach() should fail")

# requires_grad_() before .to(): a non-leaf
# with ToCopyBackward0, refused by optimizers
x = torch.tensor([1.0, 2.0, 3.0])
leaf = x.clone().detach().requires_grad_(True)
w = leaf.to(torch.float64)
assert not w.is_leaf and type(w.grad_fn).__name__ == "ToCopyBackward0"
try:
    torch.optim.SGD([w], lr=0.1)
except ValueError as error:
    assert "can't optimize a non-leaf Tensor" in str(error)
else:
    raise AssertionError("SGD should refuse a non-leaf tensor")
w.sum().backward()
# the gradient reaches the float32 leaf
assert torch.equal(leaf.grad, torch.ones(3))

# .to() first, then requires_grad_(): a leaf, accepted
w = x.clone().detach().to(torch.float64).requires_grad_(True)
assert w.is_leaf and w.grad_fn is None and w.dtype == torch.float64
torch.optim.SGD([w], lr=0.1)

# created directly on the device: a leaf
device = "cuda" if torch.cuda.is_available() else "cpu"
w = torch.randn(3, device=device, requires_grad=True)
assert w.is_leaf and w.device.type == device
