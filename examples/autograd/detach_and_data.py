# %% [markdown]
# detach() and .data both return a tensor that shares
# storage with the original and is cut off from the graph;
# only detach() lets autograd notice in-place changes

# %% [markdown] lang="zh"
# `detach()` 和 `.data` 都返回一个与原张量共享存储、脱离计算图的张量；
# 只有 `detach()` 能让 autograd 察觉到之后的原地修改

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

# %% detached-mixed
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
target = a.sigmoid().detach()  # e.g. a target computed from the model itself
loss = ((a - target) ** 2).sum()
loss.backward()  # fine: loss still depends on a
print(a.grad)
print(torch.equal(a.grad, 2 * (a - target)))

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
expected = (out * (1 - out)).detach()  # sigmoid'(x)
for cut in (out.detach(), out.data):  # both: no graph, same storage, no copy
    assert not cut.requires_grad and cut.grad_fn is None
    assert cut.data_ptr() == out.data_ptr()
assert torch.equal(out.grad_fn._saved_result, out)  # sigmoid saved its output
c = out.detach()
c.zero_()
assert out._version == c._version == 1  # detach() shares the version counter
assert torch.equal(out, torch.zeros(3))
assert out.grad_fn is not None  # out stays in the graph
try:
    out.sum().backward()
except RuntimeError as error:
    assert "modified by an inplace operation" in str(error)
else:
    raise AssertionError(
        "backward through a detach()-modified tensor should fail"
    )

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
c = out.data
c.zero_()
assert c._version == 1 and out._version == 0  # .data has a counter of its own
out.sum().backward()
assert torch.equal(a.grad, torch.zeros(3))  # no error, and silently wrong
assert not torch.allclose(a.grad, expected)

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
a.sigmoid().sum().backward()
assert torch.allclose(a.grad, expected)  # the right gradient

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
d = a.sigmoid().detach()
try:
    d.sum().backward()
except RuntimeError as error:
    message = \
        "element 0 of tensors does not require grad and does not have a grad_fn"
    assert message in str(error)
else:
    raise AssertionError("backward from detached tensors only should fail")
assert d.is_leaf  # a detached tensor is a leaf
d.requires_grad_()
(d * 2).sum().backward()
assert d.is_leaf and torch.equal(d.grad, torch.full((3,), 2.0))
assert a.grad is None  # gradients stop at the new leaf

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
target = a.sigmoid().detach()
# no error when something still requires grad
((a - target) ** 2).sum().backward()
# no gradient through target: otherwise a.grad would include -sigmoid'(a) terms
assert torch.allclose(a.grad, 2 * (a - target))
with_path = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
((with_path - with_path.sigmoid()) ** 2).sum().backward()
assert not torch.allclose(with_path.grad, a.grad)
