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

# %% threshold
x = torch.tensor([[0.2, 0.9, 0.4],
                  [0.7, 0.1, 0.8]])
print(x[x > 0.5])  # 1-D, in row-major order
print(torch.masked_select(x, x > 0.5))
print(torch.where(x > 0.5, x, 0.0))  # keeps the shape

# %% column-mask
keep = torch.tensor([True, False, True])  # one flag per column
print(x[:, keep])
print(torch.masked_select(x, keep))  # the mask broadcasts

# %% column-mask-wrong raises="IndexError: The shape of the mask [3] at index 0 does not match"
x[keep]

# %% threshold-checks tags=["remove-cell"]
picked = x[x > 0.5]
assert picked.dim() == 1 and torch.equal(picked, torch.masked_select(x, x > 0.5))
assert picked.data_ptr() != x.data_ptr()  # a copy
assert torch.where(x > 0.5, x, 0.0).shape == x.shape
assert x[:, keep].shape == (2, 2)
# masked_select broadcasts the mask to x's shape; x[mask] needs its shape
assert torch.equal(torch.masked_select(x, keep), x[keep.expand_as(x)])

# %% assign-shape-mask raises="RuntimeError: shape mismatch: value tensor of shape [6] cannot be broadcast to indexing result of shape [3]"
x = torch.tensor([0.5, -1.0, 2.0, -0.3, 1.5, -2.0])
new = torch.tensor([10.0, 20.0, 30.0, 40.0, 50.0, 60.0])
mask = x > 0  # selects 3 of the 6 elements
x[mask] = new  # 6 values for 3 places

# %% assign-shape-index raises="RuntimeError: shape mismatch: value tensor of shape [6] cannot be broadcast to indexing result of shape [3]"
idx = torch.tensor([0, 2, 4])  # the same 3 places, by index
x[idx] = new

# %% assign-shape-index-checks tags=["remove-cell"]
# the failed assignments wrote nothing
assert torch.equal(x, torch.tensor([0.5, -1.0, 2.0, -0.3, 1.5, -2.0]))
assert x[mask].shape == x[idx].shape == (3,)
assert torch.equal(torch.nonzero(mask).squeeze(1), idx)

# %% assign-shape-fix
y = x.clone()
y[mask] = new[mask]  # the same mask on both sides: 3 values
print(y)
print(torch.where(mask, new, x))  # the same, as a new tensor
y = x.clone()
y[mask] = 0.0  # a single number fits any selection
print(y)

# %% assign-shape-fix-checks tags=["remove-cell"]
expected = torch.tensor([10.0, -1.0, 30.0, -0.3, 50.0, -2.0])
y = x.clone()
y[mask] = new[mask]
assert torch.equal(y, expected)
assert torch.equal(torch.where(mask, new, x), expected)
y = x.clone()
y[idx] = new[idx]  # with an index tensor, index the value the same way
assert torch.equal(y, expected)
y = x.clone()
y[mask] = 0.0
assert torch.equal(y, torch.tensor([0.0, -1.0, 0.0, -0.3, 0.0, -2.0]))

# %% assign-shape-rows
table = torch.zeros(4, 3)
rows = torch.tensor([True, False, True, False])  # selects 2 of the 4 rows
table[rows] = torch.tensor([1.0, 2.0, 3.0])  # (3,) broadcasts to (2, 3)
print(table)

# %% assign-shape-rows-checks tags=["remove-cell"]
assert table[rows].shape == (2, 3)
assert torch.equal(table[rows], torch.tensor([[1.0, 2.0, 3.0]] * 2))
assert table[~rows].eq(0).all()
try:
    table[rows] = torch.ones(4, 3)  # a value for every row, 2 selected
except RuntimeError as error:
    assert "cannot be broadcast to indexing result of shape [2, 3]" in str(error)
else:
    raise AssertionError("4 rows of values went into 2 rows")

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

# %% gather
x = torch.tensor([[10, 11, 12],
                  [20, 21, 22]])
index = torch.tensor([[2, 0],
                      [1, 1]])
out = torch.gather(x, dim=1, index=index)  # or x.gather(1, index)
print(out)

# %% gather-loop
# the rule for dim=1: out[i][j] = x[i][index[i][j]]
looped = torch.empty_like(index)
for i in range(index.shape[0]):
    for j in range(index.shape[1]):
        looped[i, j] = x[i, index[i, j]]
print(torch.equal(out, looped))

# %% gather-loop-checks tags=["remove-cell"]
assert torch.equal(out, looped) and out.shape == index.shape
assert torch.equal(out, torch.tensor([[12, 10], [21, 21]]))
assert torch.equal(x.gather(1, index), out)

# %% gather-dim0
# dim=0: out[i][j] = x[index[i][j]][j], a row number for each column
index = torch.tensor([[1, 0, 1]])
print(x.gather(0, index))

# %% gather-dim0-checks tags=["remove-cell"]
looped = torch.tensor([[x[index[i, j], j] for j in range(index.shape[1])]
                       for i in range(index.shape[0])])
assert torch.equal(x.gather(0, index), looped)
assert torch.equal(x.gather(0, index), torch.tensor([[20, 11, 22]]))

# %% gather-target
import torch.nn.functional as F

logits = torch.randn(4, 3)  # 4 samples, 3 classes
target = torch.tensor([2, 0, 1, 2])
log_probs = F.log_softmax(logits, dim=1)
# target has shape (4,); gather wants an index with log_probs' 2 dimensions
picked = log_probs.gather(1, target.unsqueeze(1)).squeeze(1)
print(picked)
print(log_probs[torch.arange(4), target])  # the same by advanced indexing
print(-picked.mean(), F.cross_entropy(logits, target))

# %% gather-target-checks tags=["remove-cell"]
assert picked.shape == (4,)
assert torch.equal(picked, log_probs[torch.arange(4), target])
assert torch.equal(picked, torch.stack([log_probs[i, t]
                                        for i, t in enumerate(target)]))
assert torch.allclose(-picked.mean(), F.nll_loss(log_probs, target))
assert torch.allclose(-picked.mean(), F.cross_entropy(logits, target))

# %% gather-ndim tags=["raises-exception"]
log_probs.gather(1, target)

# %% gather-ndim-checks tags=["remove-cell"]
try:
    log_probs.gather(1, target)
except RuntimeError as error:
    assert "same number of dimensions" in str(error)
else:
    raise AssertionError("a 1-D index into a 2-D tensor should fail")

# %% gather-float-index tags=["raises-exception"]
log_probs.gather(1, target.float().unsqueeze(1))

# %% gather-int32 holds=">=2.8" claim="`gather` takes an `int32` index, not only an `int64` one"
print(log_probs.gather(1, target.int().unsqueeze(1)).squeeze(1))

# %% gather-int32-checks tags=["remove-cell"] holds=">=2.8" claim="A float index makes `gather` say that it takes `int32` or `int64` indices" about="gather-float-index"
try:
    log_probs.gather(1, target.float().unsqueeze(1))
except RuntimeError as error:
    assert "Expected dtype int32/int64 for index" in str(error)
else:
    raise AssertionError("a float index should fail")
assert torch.equal(log_probs.gather(1, target.int().unsqueeze(1)).squeeze(1),
                   picked)

# %% gather-long-checks tags=["remove-cell"]
# .long() works on every release
assert torch.equal(
    log_probs.gather(1, target.float().long().unsqueeze(1)).squeeze(1), picked
)

# %% gather-size tags=["raises-exception"]
x.gather(1, torch.tensor([[0], [1], [2]]))  # 3 rows of indices, x has 2

# %% gather-size-checks tags=["remove-cell"]
try:
    x.gather(1, torch.tensor([[0], [1], [2]]))
except RuntimeError as error:
    assert "Size does not match at dimension 0" in str(error)
else:
    raise AssertionError("an index with more rows than x should fail")
# fewer rows than x is allowed: only the first rows are read
assert torch.equal(x.gather(1, torch.tensor([[2]])), torch.tensor([[12]]))
try:
    x.gather(1, torch.tensor([[3]]))
except RuntimeError as error:
    assert "out of bounds" in str(error)
else:
    raise AssertionError("an index past the end should fail")

# %% take-along-dim
print(torch.take_along_dim(log_probs, target.unsqueeze(1), dim=1).squeeze(1))
# the index broadcasts: one column number for every row
print(torch.take_along_dim(x, torch.tensor([[2]]), dim=1))
print(x.gather(1, torch.tensor([[2]])))

# %% take-along-dim-checks tags=["remove-cell"]
assert torch.equal(
    torch.take_along_dim(log_probs, target.unsqueeze(1), dim=1).squeeze(1),
    picked,
)
assert torch.equal(torch.take_along_dim(x, torch.tensor([[2]]), dim=1),
                   torch.tensor([[12], [22]]))
assert x.gather(1, torch.tensor([[2]])).shape == (1, 1)
try:
    torch.take_along_dim(x, torch.tensor([[2]], dtype=torch.int32), dim=1)
except RuntimeError as error:  # unlike gather, int32 is refused
    assert "should be Long but got Int" in str(error)
else:
    raise AssertionError("take_along_dim took an int32 index")

# %% isin
a = torch.tensor([3, 1, 4, 1, 5, 9, 2, 6])
b = torch.tensor([1, 2, 3])
mask = torch.isin(a, b)
print(mask)
print(a[mask])
print(a[torch.isin(a, b, invert=True)])

# %% isin-checks tags=["remove-cell"]
assert mask.dtype == torch.bool and mask.shape == a.shape
assert a[mask].tolist() == [v for v in a.tolist() if v in {1, 2, 3}]
assert torch.equal(torch.isin(a, b, invert=True), ~mask)
assert a[~mask].tolist() == [4, 5, 9, 6]

# %% isin-broadcast
# a table of every pair: len(a) x len(b) booleans
table = a[:, None] == b
print(table.shape, table.dtype)
print(table.any(1))

# %% isin-broadcast-checks tags=["remove-cell"]
assert table.shape == (8, 3) and table.element_size() == 1
assert torch.equal(table.any(1), mask)

# %% isin-large
a_big = torch.arange(1_000_000)
b_big = torch.arange(0, 2_000_000, 2)
# the table would need one byte per pair
print(round(a_big.numel() * b_big.numel() / 2**30), "GiB")
print(torch.isin(a_big, b_big).sum().item())

# %% isin-large-checks tags=["remove-cell"]
# no machine holds that table: isin does not build it
assert a_big.numel() * b_big.numel() > 2**39
assert torch.equal(torch.isin(a_big, b_big), a_big % 2 == 0)

# %% scatter-dim0
index = torch.tensor([[0, 1, 2, 0],
                      [2, 0, 0, 1]])
src = torch.arange(1.0, 9.0).view(2, 4)
# out[index[i, j], j] = src[i, j]
out = torch.zeros(3, 4).scatter(0, index, src)
print(out)

# %% scatter-dim0-checks tags=["remove-cell"]
assert out.tolist() == [[1, 6, 7, 4], [0, 2, 0, 8], [5, 0, 3, 0]]
loop = torch.zeros(3, 4)
for i in range(2):
    for j in range(4):
        loop[index[i, j], j] = src[i, j]
assert torch.equal(out, loop)
# scatter writes back what gather reads
assert torch.equal(out.gather(0, index), src)

# %% scatter-dim1
index = torch.tensor([[3, 0], [1, 2], [0, 2]])
src = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
# out[i, index[i, j]] = src[i, j]
out = torch.zeros(3, 4).scatter(1, index, src)
print(out)

# %% scatter-dim1-checks tags=["remove-cell"]
assert out.tolist() == [[2, 0, 0, 1], [0, 3, 4, 0], [5, 0, 6, 0]]
loop = torch.zeros(3, 4)
for i in range(3):
    for j in range(2):
        loop[i, index[i, j]] = src[i, j]
assert torch.equal(out, loop)
twice = torch.zeros(1, 4).scatter(1, torch.tensor([[0, 0]]),
                                  torch.tensor([[5.0, 6.0]]))
assert twice[0, 0].item() in (5.0, 6.0)  # a duplicate index: one of them, unspecified

# %% one-hot-scatter
labels = torch.tensor([2, 0, 1])
one_hot = torch.zeros(3, 4).scatter_(1, labels.unsqueeze(1), 1.0)
print(one_hot)

# %% one-hot-scatter-checks tags=["remove-cell"]
import torch.nn.functional as F

assert torch.equal(one_hot, F.one_hot(labels, 4).float())

# %% scatter-add
values = torch.tensor([1.0, 2.0, 3.0])
index = torch.tensor([0, 2, 0])  # slot 0 twice
print(torch.zeros(3).scatter_add(0, index, values))
print(torch.zeros(3).index_add(0, index, values))
print(torch.zeros(3).scatter_reduce(0, index, values, reduce="amax",
                                    include_self=False))

# %% scatter-add-checks tags=["remove-cell"]
assert torch.zeros(3).scatter_add(0, index, values).tolist() == [4, 0, 2]
assert torch.zeros(3).index_add(0, index, values).tolist() == [4, 0, 2]
amax = torch.zeros(3).scatter_reduce(0, index, values, reduce="amax",
                                     include_self=False)
assert amax.tolist() == [3, 0, 2]  # slots no index names keep their value
mean = torch.zeros(3).scatter_reduce(0, index, values, reduce="mean",
                                     include_self=False)
assert mean.tolist() == [2, 0, 2]
with_self = torch.full((3,), 10.0).scatter_reduce(0, index, values, reduce="amax")
assert with_self.tolist() == [10, 10, 10]  # include_self=True counts the 10s

# %% scatter-ndim raises="RuntimeError: Index tensor must have the same number of dimensions as self tensor"
torch.zeros(3, 4).scatter(1, torch.tensor([0, 1, 2]), 1.0)

# %% scatter-bounds raises="RuntimeError: index 4 is out of bounds for dimension 1 with size 4"
torch.zeros(3, 4).scatter(1, torch.tensor([[4], [0], [1]]), 1.0)

# %% unique
t = torch.tensor([3, 1, 3, 2, 1, 3])
values, inverse, counts = torch.unique(
    t, return_inverse=True, return_counts=True
)
print(values, inverse, counts)
print(values[inverse])  # t again

# %% unique-checks tags=["remove-cell"]
assert values.tolist() == [1, 2, 3]
assert inverse.tolist() == [2, 0, 2, 1, 0, 2] and counts.tolist() == [2, 1, 3]
assert torch.equal(values[inverse], t)
assert torch.equal(counts, torch.bincount(inverse))

# %% unique-more
# runs only
print(torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 1])))
rows = torch.tensor([[1, 2], [3, 4], [1, 2]])
print(torch.unique(rows, dim=0))  # unique rows

# %% unique-more-checks tags=["remove-cell"]
assert torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 1])).tolist() == [1, 2, 1]
assert torch.unique(rows, dim=0).tolist() == [[1, 2], [3, 4]]
u, inv = torch.unique(rows, dim=0, return_inverse=True)
assert inv.tolist() == [0, 1, 0] and torch.equal(u[inv], rows)

# %% unique-first-order
n = len(t)
first = torch.full((len(values),), n).scatter_reduce(
    0, inverse, torch.arange(n), reduce="amin")  # first position of each value
print(first)
print(t[first.sort().values])  # in order of first appearance

# %% unique-first-order-checks tags=["remove-cell"]
assert first.tolist() == [1, 3, 0]
assert t[first.sort().values].tolist() == [3, 1, 2]
assert t[first.sort().values].tolist() == list(dict.fromkeys(t.tolist()))

# %% uint8-mask
import warnings

x = torch.arange(4.0)
# from NumPy, .byte() or old code
mask = torch.tensor([1, 0, 1, 0], dtype=torch.uint8)
torch.set_warn_always(True)  # otherwise torch warns once per process
try:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        print(x[mask])  # still selects like a mask, but warns
finally:
    torch.set_warn_always(False)
for w in caught:
    print(f"{w.category.__name__}: {str(w.message).split(' (Triggered')[0]}")

# %% uint8-mask-checks tags=["remove-cell"]
messages = [str(w.message) for w in caught if w.category is UserWarning]
assert any(
    m.startswith(
        "indexing with dtype torch.uint8 is now deprecated, "
        "please use a dtype torch.bool instead."
    )
    for m in messages
)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    assert torch.equal(x[mask], torch.tensor([0.0, 2.0]))

# %% uint8-mask-fix
print(x[mask.bool()])  # the same selection, no warning
print(x[x % 2 == 0])  # a comparison gives a bool mask directly

# %% uint8-mask-fix-checks tags=["remove-cell"]
torch.set_warn_always(True)
try:
    with warnings.catch_warnings(record=True) as quiet:
        warnings.simplefilter("always")
        assert torch.equal(x[mask.bool()], torch.tensor([0.0, 2.0]))
        assert (x % 2 == 0).dtype == torch.bool
finally:
    torch.set_warn_always(False)
assert not quiet
import numpy as np

# a NumPy uint8 array becomes a uint8 tensor, the usual source of such masks
assert torch.from_numpy(np.array([1, 0, 1, 0], dtype=np.uint8)).dtype == torch.uint8
assert torch.ones(2).byte().dtype == torch.uint8

# %% reverse-slice raises="ValueError: step must be greater than zero"
x = torch.arange(6)
x[::-1]

# %% reverse-flip
x = torch.arange(6).reshape(2, 3)
print(torch.flip(x, dims=(0,)))  # the rows in reverse order
print(x.flip(1))  # each row reversed
print(x.flip(0, 1))  # both dimensions

# %% reverse-flip-checks tags=["remove-cell"]
assert torch.equal(torch.flip(x, dims=(0,)), torch.tensor([[3, 4, 5], [0, 1, 2]]))
assert torch.equal(x.flip(0), torch.flip(x, dims=(0,)))
assert torch.equal(x.flip(1), torch.tensor([[2, 1, 0], [5, 4, 3]]))
assert torch.equal(x.flip(0, 1), x.flip(-1).flip(0))
assert torch.equal(x.flip(0, 1), torch.tensor([[5, 4, 3], [2, 1, 0]]))
# a negative step is refused in every dimension, not only the first
try:
    x[:, ::-1]
except ValueError as error:
    assert str(error) == "step must be greater than zero"
else:
    raise AssertionError("a negative step was accepted")
# same as NumPy's reversal
assert x.flip(0).tolist() == x.numpy()[::-1].tolist()

# %% reverse-copy
import numpy as np

y = x.flip(0)
y[0, 0] = 100
print(x[1, 0], y.data_ptr() == x.data_ptr())  # flip copied
a = np.arange(6).reshape(2, 3)
b = a[::-1]  # in NumPy a view, with a negative stride
print(np.shares_memory(a, b), b.strides)

# %% reverse-copy-checks tags=["remove-cell"]
assert x[1, 0] == 3 and y[0, 0] == 100
assert y.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
assert y.is_contiguous()
assert np.shares_memory(a, b) and b.strides[0] < 0

# %% reverse-numpy raises="ValueError: At least one stride in the given numpy array is negative"
torch.from_numpy(b)

# %% reverse-numpy-checks tags=["remove-cell"]
# torch.tensor, torch.as_tensor and np.flip fail the same way
for make in (
    lambda: torch.tensor(b),
    lambda: torch.as_tensor(b),
    lambda: torch.from_numpy(np.flip(a, 0)),
    lambda: torch.from_numpy(a[..., ::-1]),  # as in BGR to RGB
):
    try:
        make()
    except ValueError as error:
        assert str(error).startswith(
            "At least one stride in the given numpy array is negative"
        )
        assert "array.copy()" in str(error)
    else:
        raise AssertionError("a negative stride was accepted")

# %% reverse-numpy-fix
c = torch.from_numpy(b.copy())  # a copy has positive strides
print(c)
print(np.shares_memory(c.numpy(), a))

# %% reverse-numpy-fix-checks tags=["remove-cell"]
assert torch.equal(c, torch.tensor([[3, 4, 5], [0, 1, 2]]))
assert not np.shares_memory(c.numpy(), a)
assert torch.equal(torch.from_numpy(np.ascontiguousarray(b)), c)
# or flip the tensor instead: from_numpy shares, then flip copies
assert torch.equal(torch.from_numpy(a).flip(0), c)
assert not np.shares_memory(torch.from_numpy(a).flip(0).numpy(), a)
