# %% [markdown]
# Broadcasting: how element-wise operations combine tensors of different shapes,
# when it fails, and when it silently gives a result of the wrong shape

# %% [markdown] lang="zh"
# 广播：逐元素运算如何组合形状不同的张量，什么时候会报错，
# 以及什么时候会悄无声息地给出形状错误的结果

# %% rules
import torch

print(torch.broadcast_shapes((3, 4), (4,)))  # (4,) is treated as (1, 4)
print(torch.broadcast_shapes((3, 1), (1, 4)))  # size 1 stretches on both sides
print(torch.broadcast_shapes((2, 2), (2, 2, 2)))  # a missing dim counts as 1
print(torch.broadcast_shapes((2, 1, 3), (4, 1)))

# %% outer
col = torch.tensor([[0], [10], [20]])  # (3, 1)
row = torch.tensor([1, 2, 3, 4])  # (4,)
print(col + row)

# %% no-copy
x = torch.ones(3, 4)
v = torch.tensor([1.0, 2.0, 3.0, 4.0])
stretched = v.expand(3, 4)  # what broadcasting does to v, made visible
print(stretched)
print(stretched.stride(), stretched.data_ptr() == v.data_ptr())

# %% mismatch tags=["raises-exception"]
torch.ones(2, 3) + torch.ones(2, 4)

# %% broadcast-shapes-mismatch tags=["raises-exception"]
torch.broadcast_shapes((2, 3), (2, 4))

# %% column-minus-vector
target = torch.tensor([1.0, 2.0, 3.0, 4.0])  # (N,)
prediction = target.unsqueeze(1)  # (N, 1), as a Linear(..., 1) layer outputs
diff = prediction - target
print(diff.shape)
print(diff)
print((diff**2).mean())  # a perfect prediction, and yet not zero

# %% mse-warning
loss_fn = torch.nn.MSELoss()
print(loss_fn(prediction, target))

# %% mse-fixed
print(loss_fn(prediction.squeeze(1), target))
print(loss_fn(prediction, target.unsqueeze(1)))

# %% inplace-left tags=["raises-exception"]
y = torch.zeros(3)
y += torch.ones(2, 3)

# %% inplace-right
y = torch.zeros(2, 3)
y += torch.ones(3)  # the right operand may broadcast
print(y)

# %% checks tags=["remove-cell"] holds=">=2.9" claim="The error of `torch.broadcast_shapes` says which dimension and which argument do not broadcast" about="broadcast-shapes-mismatch"
# What the page says, checked on every build
import warnings

assert torch.broadcast_shapes((3, 4), (4,)) == (3, 4)
assert torch.broadcast_shapes((3, 1), (1, 4)) == (3, 4)
assert torch.broadcast_shapes((2, 2), (2, 2, 2)) == (2, 2, 2)
assert torch.broadcast_shapes((2, 1, 3), (4, 1)) == (2, 4, 3)
assert (torch.ones(2, 1, 3) * torch.ones(4, 1)).shape == (2, 4, 3)
assert torch.equal(
    col + row, torch.tensor([[1, 2, 3, 4], [11, 12, 13, 14], [21, 22, 23, 24]])
)
assert stretched.stride() == (0, 1) and stretched.data_ptr() == v.data_ptr()
assert torch.equal(x * v, x * stretched)
try:
    torch.ones(2, 3) + torch.ones(2, 4)
except RuntimeError as error:
    assert (
        "The size of tensor a (3) must match the size of tensor b (4) "
        "at non-singleton dimension 1" in str(error)
    )
else:
    raise AssertionError("(2, 3) + (2, 4) should not broadcast")
try:
    torch.broadcast_shapes((2, 3), (2, 4))
except RuntimeError as error:
    assert "Attempting to broadcast a dimension of length 4" in str(error)
else:
    raise AssertionError("broadcast_shapes((2, 3), (2, 4)) should fail")
assert diff.shape == (4, 4)
assert (diff**2).mean().item() == 2.5
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    wrong = loss_fn(prediction, target)
    right = loss_fn(prediction.squeeze(1), target)
assert len(caught) == 1 and caught[0].category is UserWarning
message = str(caught[0].message)
assert "Using a target size (torch.Size([4]))" in message
assert "different to the input size (torch.Size([4, 1]))" in message
assert "broadcasting" in message
assert wrong.item() == 2.5 and right.item() == 0.0
assert loss_fn(prediction, target.unsqueeze(1)).item() == 0.0
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.nn.functional.l1_loss(prediction, target)
assert len(caught) == 1 and "Using a target size" in str(caught[0].message)
# with the (N, N) broadcast, the best (N,
# 1) prediction is the mean of the targets
best = torch.full((4, 1), target.mean().item(), requires_grad=True)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    loss_fn(best, target).backward()
assert torch.allclose(best.grad, torch.zeros(4, 1))
try:
    y = torch.zeros(3)
    y += torch.ones(2, 3)
except RuntimeError as error:
    assert "output with shape [3] doesn't match the broadcast shape [2, 3]" in (
        str(error)
    )
else:
    raise AssertionError("an in-place op should not broadcast its left operand")
try:
    torch.ones(3, 1).mul_(torch.ones(1, 3))
except RuntimeError as error:
    assert "doesn't match the broadcast shape [3, 3]" in str(error)
else:
    raise AssertionError("mul_ should not broadcast its left operand")
y = torch.zeros(2, 3)
y += torch.ones(3)
assert torch.equal(y, torch.ones(2, 3))

# %% expand-repeat
x = torch.tensor([[1, 2, 3]])  # (1, 3)
e = x.expand(4, 3)  # the new size; -1 keeps one: x.expand(4, -1)
r = x.repeat(4, 1)  # how many times along each dimension
print(torch.equal(e, r))
print(e.stride(), e.data_ptr() == x.data_ptr())  # a view, stride 0
print(r.stride(), r.data_ptr() == x.data_ptr())  # a copy of 12 elements

# %% expand-repeat-checks tags=["remove-cell"]
assert torch.equal(e, r) and e.shape == r.shape == (4, 3)
assert torch.equal(x.expand(4, -1), e)
assert e.stride() == (0, 1) and e.data_ptr() == x.data_ptr()
assert e.untyped_storage().nbytes() == 3 * 8  # still the 3 elements of x
assert r.stride() == (3, 1) and r.data_ptr() != x.data_ptr()
assert r.untyped_storage().nbytes() == 12 * 8
# cat does not broadcast: a learned token joins a batch through expand
token, batch = torch.zeros(1, 1, 4), torch.ones(2, 5, 4)
try:
    torch.cat([token, batch], dim=1)
except RuntimeError as error:
    assert "Sizes of tensors must match" in str(error)
else:
    raise AssertionError("cat broadcast its inputs")
assert torch.cat([token.expand(2, -1, -1), batch], dim=1).shape == (2, 6, 4)

# %% expand-size-one raises="RuntimeError: The expanded size of the tensor (6) must match the existing size (3) at non-singleton dimension 1"
x.expand(4, 6)

# %% repeat-tiles
print(x.repeat(4, 2))  # any size: the whole tensor, tiled
y = torch.tensor([1, 2, 3])
print(y.repeat(2))  # the whole tensor, twice
print(y.repeat_interleave(2))  # each element, twice

# %% repeat-tiles-checks tags=["remove-cell"]
assert x.repeat(4, 2).shape == (4, 6)
assert y.repeat(2).tolist() == [1, 2, 3, 1, 2, 3]
assert y.repeat_interleave(2).tolist() == [1, 1, 2, 2, 3, 3]
# more repetitions than dimensions add dimensions in front
assert x.repeat(2, 1, 1).shape == (2, 1, 3)
# NumPy's repeat repeats each element: torch's repeat_interleave
import numpy as np

assert np.repeat(y.numpy(), 2).tolist() == y.repeat_interleave(2).tolist()
assert np.tile(y.numpy(), 2).tolist() == y.repeat(2).tolist()

# %% expand-write-all raises="RuntimeError: unsupported operation: more than one element of the written-to tensor refers to a single memory location"
e.add_(1)

# %% expand-write-one
e[0, 0] = 100  # one element of one row...
print(e)  # ...is the element of every row
print(x)

# %% expand-write-one-checks tags=["remove-cell"]
assert e[:, 0].tolist() == [100] * 4 and x[0, 0] == 100
assert r[:, 0].tolist() == [1] * 4  # the copy is not touched
r[0, 0] = -1
assert r[1:, 0].tolist() == [1] * 3  # each row of a repeat is its own
