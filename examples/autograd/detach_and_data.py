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

# %% detach-or-requires-grad
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x.detach()  # a new tensor: no graph, same storage
print(y.requires_grad, x.requires_grad)  # x itself is unchanged
z = x.requires_grad_(False)  # changes x itself, and returns it
print(x.requires_grad, z is x)

# %% detach-or-requires-grad-checks tags=["remove-cell"]
assert y is not x and y.data_ptr() == x.data_ptr() and y.is_leaf
assert not x.requires_grad and z is x and x.is_leaf
# setting the attribute works too, on a leaf
x.requires_grad = True
assert x.requires_grad

# %% requires-grad-non-leaf raises="RuntimeError: you can only change requires_grad flags of leaf variables."
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2  # computed from x: not a leaf
y.requires_grad_(False)

# %% requires-grad-non-leaf-checks tags=["remove-cell"]
assert not y.is_leaf and y.requires_grad  # unchanged by the failed call
try:
    y.requires_grad_(False)
except RuntimeError as error:
    assert "var_no_grad = var.detach()" in str(error)  # the message's own advice
else:
    raise AssertionError("requires_grad_(False) on a non-leaf should fail")
assert not y.detach().requires_grad and y.requires_grad

# %% freeze
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
for p in model[0].parameters():
    p.requires_grad_(False)  # parameters are leaves: freeze them in place
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
before = model[0].weight.clone()
x = torch.randn(8, 3)
loss = model(x).pow(2).mean()
loss.backward()
optimizer.step()
print(model[0].weight.grad, model[2].weight.grad.shape)
print(torch.equal(model[0].weight, before))

# %% freeze-checks tags=["remove-cell"]
assert model[0].weight.grad is None and model[0].bias.grad is None
assert model[2].weight.grad is not None
assert torch.equal(model[0].weight, before)  # the optimizer skipped them
# detach() would not freeze anything: it leaves p, which the model uses, as it was
assert not model[2].weight.detach().requires_grad
assert model[2].weight.requires_grad
# Module.requires_grad_ does the same for every parameter of a module
model[2].requires_grad_(False)
assert not any(p.requires_grad for p in model.parameters())

# %% stop-gradient
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
x = torch.randn(8, 3)
h = model[1](model[0](x))
loss = model[2](h.detach()).pow(2).mean()  # no gradient into model[0] from here
loss.backward()
print(model[0].weight.grad, model[2].weight.grad.shape)
print(model[0].weight.requires_grad)  # still trainable through h itself

# %% stop-gradient-checks tags=["remove-cell"]
assert model[0].weight.grad is None and model[2].weight.grad is not None
assert model[0].weight.requires_grad and h.requires_grad and h.grad_fn is not None
# another loss that uses h itself does reach model[0]
h.pow(2).mean().backward()
assert model[0].weight.grad is not None and model[0].weight.grad.abs().sum() > 0

# %% detach-view raises="RuntimeError: Can't detach views in-place. Use detach() instead."
t = torch.ones(4, requires_grad=True)
v = (t * 2)[:2]  # a slice is a view of (t * 2)
v.detach_()

# %% detach-view-checks tags=["remove-cell"]
for make_view in (lambda: (t * 2)[:2], lambda: (t * 1).view(2, 2)):
    try:
        make_view().detach_()
    except RuntimeError as error:
        assert str(error).startswith("Can't detach views in-place. Use detach() instead.")
    else:
        raise AssertionError("no error")

# %% detach-view-fix
v = (t * 2)[:2]
v = v.detach()  # a new tensor, out of the graph
u = t * 2  # not a view
u.detach_()  # in place works here
print(v.requires_grad, u.requires_grad, u.grad_fn)

# %% detach-view-fix-checks tags=["remove-cell"]
assert not v.requires_grad and not u.requires_grad and u.grad_fn is None

# %% grad-bucket-view raises="RuntimeError: Can't detach views in-place."
from torch import nn

w = nn.Parameter(torch.zeros(4))
# a stand-in for a DDP bucket: all gradients in one tensor
bucket = torch.ones(8)
# with gradient_as_bucket_view=True, .grad is a view into it
w.grad = bucket[:4]
w.grad.detach_()  # old hand-written zeroing: p.grad.detach_(); p.grad.zero_()

# %% grad-bucket-view-fix
optimizer = torch.optim.SGD([w], lr=0.1)
optimizer.zero_grad()  # sets .grad to None, no detach_()
print(w.grad)

# %% grad-bucket-view-fix-checks tags=["remove-cell"]
assert w.grad is None
w.grad = bucket[:4]
optimizer.zero_grad(set_to_none=False)  # zeroes the view in place, no error either
assert torch.equal(bucket, torch.tensor([0.0] * 4 + [1.0] * 4))
