# %% [markdown]
# detach() and .data both return a tensor that shares storage with the original
# and is cut off from the graph; only detach() lets autograd notice in-place changes

# %% detach-shares-storage
import torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
c = out.detach()
print(c.requires_grad, c.grad_fn)
print(c.data_ptr() == out.data_ptr())
c.zero_()
print(out)

# %% detach-caught tags=["raises-exception"]
out.sum().backward()

# %% data-silent
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
c = out.data
c.zero_()
out.sum().backward()
print(a.grad)

# %% right-gradient
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
out.sum().backward()
print(a.grad)

# %% detached-backward tags=["raises-exception"]
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
d = a.sigmoid().detach()
d.sum().backward()

# %% new-leaf
d.requires_grad_()
(d * 2).sum().backward()
print(d.is_leaf, d.grad)
print(a.grad)

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
expected = (out * (1 - out)).detach()  # sigmoid'(x)
for cut in (out.detach(), out.data):  # both: no graph, same storage, no copy
    assert not cut.requires_grad and cut.grad_fn is None
    assert cut.data_ptr() == out.data_ptr()
c = out.detach()
c.zero_()
assert torch.equal(out, torch.zeros(3)) and out.grad_fn is not None  # out stays in the graph
try:
    out.sum().backward()
except RuntimeError as error:
    assert "modified by an inplace operation" in str(error)
else:
    raise AssertionError("backward through a detach()-modified tensor should fail")

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
out.data.zero_()
out.sum().backward()
assert torch.equal(a.grad, torch.zeros(3))  # no error, and silently wrong
assert not torch.allclose(a.grad, expected)

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
a.sigmoid().sum().backward()
assert torch.allclose(a.grad, expected)  # the right gradient

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
d = a.sigmoid().detach().requires_grad_()
(d * 2).sum().backward()
assert d.is_leaf and torch.equal(d.grad, torch.full((3,), 2.0))
assert a.grad is None  # gradients stop at the new leaf
