# %% [markdown]
# Indexing with lists, slices and boolean masks; nonzero and where;
# comparing tensors element by element and as a whole

# %% [markdown] lang="zh"
# 用列表、切片和布尔掩码做索引；`nonzero` 与 `where`；
# 逐元素比较张量与整体比较张量

# %% assign-rows
import torch

x = torch.zeros(5, 3)
src = torch.arange(15.0).view(5, 3)
x[[1, 3, 4]] = src[[1, 3, 4]]
print(x)

# %% assign-slice
x = torch.zeros(5, 3)
x[-2:] = src[-2:]
print(x)

# %% right-side-copies
x = torch.arange(6.0)
picked = x[[0, 1]]
picked[0] = 50.0
sliced = x[2:4]
sliced[0] = 77.0
print(x)

# %% masked-copy
x = torch.arange(6.0)
mask = x > 2
print(mask)
y = x[mask]
y[0] = 100.0
print(y, x)
x[mask] = 0.0
print(x)

# %% chained-wrong
x = torch.arange(6.0)
x[[1, 3]].zero_()
x[x > 2][0] = 100.0
print(x)

# %% chained-right
x[[1, 3]] = 0.0
x[1:3].fill_(-1.0)
print(x)

# %% index-to-mask-note
idx = torch.tensor([3, 7, 2])
bool_mask = torch.zeros(10)
bool_mask[idx] = 1
bool_mask = bool_mask.bool()
print(bool_mask)

# %% index-to-mask
mask = torch.zeros(10, dtype=torch.bool)
mask[idx] = True
print(mask)
print(torch.equal(mask, bool_mask))

# %% nonzero
x = torch.tensor([0, 5, 0, 7])
print(torch.nonzero(x))
print(torch.nonzero(x).shape)
print(torch.nonzero(x).squeeze(1))
print(torch.nonzero(x, as_tuple=True))

# %% nonzero-2d
m = torch.tensor([[0, 1], [2, 0]])
print(torch.nonzero(m))
rows, cols = torch.nonzero(m, as_tuple=True)
print(rows, cols, m[rows, cols])
print(torch.equal(torch.argwhere(m), torch.nonzero(m)))

# %% nonzero-squeeze
x = torch.tensor([0, 0, 9])
found = torch.nonzero(x).squeeze()
print(found, found.shape)

# %% nonzero-squeeze-bug tags=["raises-exception"]
for i in found:
    print(i)

# %% nonzero-squeeze-fix
for i in torch.nonzero(x).squeeze(1):
    print(i)

# %% where
x = torch.tensor([[-1.0, 2.0], [3.0, -4.0]])
print(torch.where(x > 0, x, 0.0))
print(torch.where(x > 0, x, torch.tensor([10.0, 20.0])))
print(x.where(x > 0, 0.0))

# %% where-one-arg
print(torch.where(x > 0))
print(torch.nonzero(x > 0, as_tuple=True))

# %% eq
a = torch.tensor([1, 2, 3, 4, 5, 6, 7])
b = torch.tensor([1, 2, 3, 5, 6, 7, 8])
print(torch.eq(a, b))
print(a == b)
print(torch.sum(torch.eq(a, b)), (a == b).sum().item())

# %% equal
print(torch.equal(a, b), torch.equal(a, a.clone()))
print(torch.equal(a, torch.tensor([1, 2, 3])))

# %% eq-shape-mismatch tags=["raises-exception"]
a == torch.tensor([1, 2, 3])

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
x = torch.zeros(5, 3)
x[[1, 3, 4]] = src[[1, 3, 4]]
assert torch.equal(x[[1, 3, 4]], src[[1, 3, 4]]) and x[[0, 2]].eq(0).all()
x = torch.zeros(5, 3)
x[-2:] = src[-2:]
assert torch.equal(x[-2:], src[-2:]) and x[:-2].eq(0).all()

x = torch.arange(6.0)
picked, sliced = x[[0, 1]], x[2:4]
# advanced indexing on the right: a copy
assert picked.data_ptr() != x.data_ptr()
# a view
assert sliced.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
picked[0] = 50.0
sliced[0] = 77.0
assert torch.equal(x, torch.tensor([0.0, 1.0, 77.0, 3.0, 4.0, 5.0]))

x = torch.arange(6.0)
mask = x > 2
assert mask.dtype == torch.bool
y = x[mask]
assert y.shape == (3,) and y.data_ptr() != x.data_ptr()
y[0] = 100.0
assert x[3] == 3.0  # the masked copy does not write back
# always 1-D
assert torch.zeros(2, 3)[torch.ones(2, 3, dtype=torch.bool)].shape == (6,)
x[mask] = 0.0
# on the left of =: in place
assert torch.equal(x, torch.tensor([0.0, 1.0, 2.0, 0.0, 0.0, 0.0]))

x = torch.arange(6.0)
x[[1, 3]].zero_()
x[x > 2][0] = 100.0
assert torch.equal(x, torch.arange(6.0))  # both silently did nothing
x[[1, 3]] = 0.0
x[1:3].fill_(-1.0)
assert torch.equal(x, torch.tensor([0.0, -1.0, -1.0, 0.0, 4.0, 5.0]))

idx = torch.tensor([3, 7, 2])
mask = torch.zeros(10, dtype=torch.bool)
mask[idx] = True
assert torch.equal(mask, bool_mask) and bool_mask.dtype == torch.bool
assert mask.dtype == torch.bool and mask.sum() == 3 and mask[[2, 3, 7]].all()
# and back
assert torch.equal(torch.nonzero(mask).squeeze(1), idx.sort().values)

x = torch.tensor([0, 5, 0, 7])
# (matches, ndim), not the input's shape
assert torch.nonzero(x).shape == (2, 1)
assert torch.equal(torch.nonzero(x).squeeze(1), torch.tensor([1, 3]))
(only,) = torch.nonzero(x, as_tuple=True)
assert torch.equal(only, torch.tensor([1, 3]))
m = torch.tensor([[0, 1], [2, 0]])
assert torch.nonzero(m).shape == (2, 2)
rows, cols = torch.nonzero(m, as_tuple=True)
assert torch.equal(m[rows, cols], torch.tensor([1, 2]))
assert torch.equal(torch.argwhere(m), torch.nonzero(m))
x = torch.tensor([0, 0, 9])
# one match: squeeze() gives a 0-d tensor
assert torch.nonzero(x).squeeze().shape == ()
try:
    iter(torch.nonzero(x).squeeze())
except TypeError as error:
    assert "iteration over a 0-d tensor" in str(error)
else:
    raise AssertionError("iterating a 0-d tensor should fail")
assert torch.nonzero(x).squeeze(1).shape == (1,)

x = torch.tensor([[-1.0, 2.0], [3.0, -4.0]])
assert torch.equal(
    torch.where(x > 0, x, 0.0), torch.tensor([[0.0, 2.0], [3.0, 0.0]])
)
assert torch.equal(
    torch.where(x > 0, x, torch.tensor([10.0, 20.0])),
    torch.tensor([[10.0, 2.0], [3.0, 20.0]]),  # other broadcast along the rows
)
assert torch.equal(x.where(x > 0, 0.0), torch.where(x > 0, x, 0.0))
one_arg = torch.where(x > 0)
assert isinstance(one_arg, tuple) and len(one_arg) == 2
as_tuple = torch.nonzero(x > 0, as_tuple=True)
assert all(torch.equal(p, q) for p, q in zip(one_arg, as_tuple))

a = torch.tensor([1, 2, 3, 4, 5, 6, 7])
b = torch.tensor([1, 2, 3, 5, 6, 7, 8])
assert torch.equal(torch.eq(a, b), a == b) \
    and torch.eq(a, b).dtype == torch.bool
assert torch.sum(torch.eq(a, b)) == 3 and isinstance((a == b).sum().item(), int)
assert torch.equal(a, a.clone()) is True and torch.equal(a, b) is False
# different shapes: just False
assert torch.equal(a, torch.tensor([1, 2, 3])) is False
try:
    a == torch.tensor([1, 2, 3])
except RuntimeError as error:
    assert "must match the size" in str(error)
else:
    raise AssertionError("== on shapes that do not broadcast should fail")
