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
expected = out * (1 - out)
c = out.detach()
assert not c.requires_grad and c.grad_fn is None
assert c.data_ptr() == out.data_ptr()
c.zero_()
assert torch.equal(out, torch.zeros(3))
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
assert torch.equal(a.grad, torch.zeros(3))  # silently wrong
assert not torch.allclose(a.grad, expected.detach())
assert d.is_leaf and torch.equal(d.grad, torch.full((3,), 2.0))
