# %% [markdown]
# A trailing underscore marks an in-place operation; autograd forbids it
# on leaves that require grad and detects it on tensors saved for backward

# %% [markdown] lang="zh"
# 以下划线结尾的方法是原地操作：autograd 不允许原地修改需要梯度的叶子节点，
# 为反向传播保存下来的张量若被原地修改，也会被它检测出来

# %% underscore
import torch

x = torch.tensor([-1.0, 2.0, -3.0])
y = x.abs()  # a new tensor, x unchanged
print(x, y)
z = x.abs_()  # x itself changed, and returned
print(x, z)
print(z is x, z.data_ptr() == x.data_ptr())

# %% legacy-type
print(x.type(), x.dtype)

# %% augmented-assignment
x = torch.zeros(3)
alias = x  # another name for the same tensor
x += 1  # in place: still the same tensor
print(x is alias, x.data_ptr() == alias.data_ptr(), alias)
x = x + 1  # a new tensor, bound to the name x
print(x is alias, x.data_ptr() == alias.data_ptr(), alias)

# %% leaf-in-place tags=["raises-exception"]
w = torch.ones(3, requires_grad=True)
w.add_(1)

# %% leaf-augmented tags=["raises-exception"]
w += 1

# %% saved-modified tags=["raises-exception"]
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = x * 2
y = h**2  # pow saves h for the backward pass
print(h._version)
h.add_(1)  # changes h after it was saved
print(h._version)
y.sum().backward()

# %% not-saved
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = x * 2  # its gradient needs only the number 2, not x or h
h.add_(1)
h.sum().backward()
print(x.grad)

# %% checks tags=["remove-cell"] holds=">=2.13" claim="The error for a saved tensor changed in place names the forward operation (`Add`), not its backward node (`AddBackward0`)" about="saved-modified"
# What the page says, checked on every build
x = torch.tensor([-1.0, 2.0, -3.0])
y = x.abs()
assert y is not x and y.data_ptr() != x.data_ptr()
assert torch.equal(x, torch.tensor([-1.0, 2.0, -3.0]))  # abs() leaves x alone
z = x.abs_()
assert z is x and torch.equal(x, torch.tensor([1.0, 2.0, 3.0]))
assert x.type() == "torch.FloatTensor" and x.dtype == torch.float32
assert type(x) is torch.Tensor

x = torch.zeros(3)
alias = x
before_id, before_ptr, before_version = id(x), x.data_ptr(), x._version
x += 1
assert id(x) == before_id and x.data_ptr() == before_ptr
assert x._version == before_version + 1  # counted as an in-place change
assert torch.equal(alias, torch.ones(3))  # the other name sees the change
x = x + 1
assert id(x) != before_id and x.data_ptr() != before_ptr
assert torch.equal(alias, torch.ones(3)) and torch.equal(
    x, torch.full((3,), 2.0)
)

for update in (lambda w: w.add_(1), lambda w: w.__iadd__(1)):
    w = torch.ones(3, requires_grad=True)
    try:
        update(w)
    except RuntimeError as error:
        assert \
            "a leaf Variable that requires grad is being used in an in-place" \
            in str(error)
    else:
        raise AssertionError(
            "in-place on a leaf that requires grad should fail"
        )

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = x * 2
y = h**2
assert y.grad_fn._saved_self is h  # pow saved h
assert h._version == 0
h.add_(1)
assert h._version == 1
try:
    y.sum().backward()
except RuntimeError as error:
    message = str(error)
    assert "variables needed for gradient computation has been modified" \
        in message
    assert "modified by an inplace operation" in message
    assert "[torch.FloatTensor [3]]" in message  # type and shape
    assert "output 0 of Add, is at version 1; expected version 0 instead" \
        in message
else:
    raise AssertionError("backward should detect the in-place change")

# out of place, the saved tensor keeps its old values: backward works
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = x * 2
y = h**2
h = h + 1  # a new tensor; the saved h is untouched
y.sum().backward()
assert torch.equal(x.grad, 8 * x.detach())  # d/dx (2x)^2 = 8x

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = x * 2
assert h.grad_fn._saved_self is None  # x * 2 saved neither x nor h
h.add_(1)
h.sum().backward()
assert torch.equal(x.grad, torch.full((3,), 2.0))  # right gradient

# under no_grad the in-place update of a leaf is allowed; it stays the same leaf
w = torch.ones(3, requires_grad=True)
(w * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
ptr = w.data_ptr()
with torch.no_grad():
    w -= 0.1 * w.grad
assert w.is_leaf and w.requires_grad and w.grad_fn is None \
    and w.data_ptr() == ptr
assert torch.allclose(w, torch.tensor([0.9, 0.8, 0.7]))

# an optimizer step is the same kind of update: in place, not recorded
optimizer = torch.optim.SGD([w], lr=0.1)
optimizer.step()
assert w.is_leaf and w.grad_fn is None and w.data_ptr() == ptr
assert torch.allclose(w, torch.tensor([0.8, 0.6, 0.4]))

# %% unbind-view raises="RuntimeError: Output 0 of … is a view and is being modified inplace"
torch.manual_seed(0)
x = torch.randn(3, 4, requires_grad=True)
h = x * 2
for row in h:  # iterating unbinds h into views of its rows
    row -= row.mean()  # in place on one of those views

# %% unbind-fix
def center_loop(h):
    rows = [row - row.mean() for row in h]  # out of place: a new tensor per row
    return torch.stack(rows)


def center_clone(h):
    rows = []
    for row in h:
        row = row.clone()  # a copy is no view: in place is allowed
        row -= row.mean()
        rows.append(row)
    return torch.stack(rows)


def center_vectorised(h):
    return h - h.mean(dim=1, keepdim=True)  # all rows at once, by broadcasting


grads = []
for center in (center_loop, center_clone, center_vectorised):
    x.grad = None
    (center(x * 2) * torch.arange(4.0)).sum().backward()
    grads.append(x.grad.clone())
print(grads[2])
print(torch.allclose(grads[0], grads[2]), torch.allclose(grads[1], grads[2]))

# %% unbind-fix-checks tags=["remove-cell"]
# every row of the three results has mean zero and the same values
h = x.detach() * 2
for center in (center_loop, center_clone):
    assert torch.allclose(center(h), center_vectorised(h))
assert torch.allclose(center_vectorised(h).mean(dim=1), torch.zeros(3), atol=1e-6)
assert all(torch.allclose(g, grads[2]) for g in grads)
# the gradient of (h - mean) * w is 2 * (w - mean(w)) on each row
expected = (2 * (torch.arange(4.0) - 1.5)).expand(3, 4)
assert torch.allclose(grads[2], expected)

# the failing cell: the message names unbind and says what to do
h = x * 2
try:
    for row in h:
        row -= row.mean()
except RuntimeError as error:
    message = str(error)
    assert message.startswith("Output 0 of Unbind")  # UnbindBackward0 on some releases
    assert "is a view and is being modified inplace" in message
    assert "returns multiple views" in message
    assert "replace the inplace operation by an out-of-place one" in message
else:
    raise AssertionError("in place on a row of an unbound tensor should fail")

# split and chunk return several views too: the same error
for pieces in (h.split(2), h.chunk(2)):
    try:
        pieces[0].mul_(2)
    except RuntimeError as error:
        assert "is a view and is being modified inplace" in str(error)
    else:
        raise AssertionError("in place on a piece of split or chunk should fail")

# without autograd the loop changes h itself, through the views
h = x.detach() * 2
for row in h:
    row -= row.mean()
assert torch.allclose(h, center_vectorised(x.detach() * 2))
h = x * 2
with torch.no_grad():  # not recorded: allowed too
    for row in h:
        row -= row.mean()
assert torch.allclose(h.detach(), center_vectorised(x.detach() * 2))
