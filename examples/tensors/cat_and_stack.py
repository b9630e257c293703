# %% [markdown]
# torch.cat joins tensors along a dimension they already have;
# torch.stack adds a new dimension and joins along it

# %% [markdown] lang="zh"
# `torch.cat` 沿张量已有的某个维度拼接；
# `torch.stack` 先新增一个维度，再沿这个新维度拼接

# %% setup
import torch

x = torch.ones(2, 3)
y = torch.zeros(2, 3)

# %% cat
print(torch.cat([x, y], dim=0).shape)
print(torch.cat([x, y], dim=1).shape)
print(torch.cat([x, y], dim=0))

# %% stack
print(torch.stack([x, y, x], dim=0).shape)
print(torch.stack([x, y, x], dim=2).shape)

# %% stack-negative-dim
batch = [torch.randn(2, 3) for _ in range(4)]
print(torch.stack(batch, dim=1).shape)
print(torch.stack(batch, dim=-1).shape)

# %% stack-is-unsqueeze-then-cat
stacked = torch.stack([x, y], dim=1)
via_cat = torch.cat([x.unsqueeze(1), y.unsqueeze(1)], dim=1)
print(torch.equal(stacked, via_cat))

# %% cat-mismatch raises="RuntimeError: Sizes of tensors must match except in dimension 0"
torch.cat([torch.ones(2, 3), torch.ones(2, 4)], dim=0)

# %% stack-mismatch raises="RuntimeError: stack expects each tensor to be equal size"
torch.stack([torch.ones(2, 3), torch.ones(3, 3)])

# %% scalars-cat raises="RuntimeError: zero-dimensional tensor (at position 0) cannot be concatenated"
scalars = [torch.tensor(1), torch.tensor(2), torch.tensor(3)]
torch.cat(scalars)

# %% scalars-stack
print(torch.stack(scalars))

# %% vectors
vectors = [torch.tensor([1, 2]), torch.tensor([3, 4])]
print(torch.cat(vectors))
print(torch.stack(vectors))

# %% stack-sum
total = torch.stack(batch).sum(dim=0)
print(total.shape)
print(torch.allclose(total, batch[0] + batch[1] + batch[2] + batch[3]))

# %% tensor-of-scalars
print(torch.tensor(scalars))

# %% tensor-of-losses
w = torch.tensor(2.0, requires_grad=True)
losses = [w * 1, w * 2, w * 3]
print(torch.tensor(losses))
print(torch.stack(losses))

# %% tensor-of-vectors raises="TypeError: only integer tensors of a single element can be converted to an index"
torch.tensor(vectors)

# %% iterate-then-cat
inp = torch.randn(2, 5)
inp.unsqueeze_(1)
print(inp.shape)
rows = [row for row in inp]
print([row.shape for row in rows])
print(torch.cat(rows, dim=0).shape)

# %% iterate-then-stack
inp = torch.randn(2, 5)
rows = list(inp)
print([row.shape for row in rows])
print(torch.equal(torch.stack(rows), inp))
print(torch.equal(torch.stack(torch.unbind(inp)), inp))

# %% checks tags=["remove-cell"] holds=">=2.13" claim="`torch.cat` takes `out` only as a keyword: given by position, it raises a `TypeError` that counts the positional arguments" about="cat"
# What the page says, checked on every build
import warnings

assert torch.cat([x, y], dim=0).shape == (4, 3)
assert torch.cat([x, y], dim=1).shape == (2, 6)
assert torch.stack([x, y, x], dim=0).shape == (3, 2, 3)
assert torch.stack([x, y, x], dim=2).shape == (2, 3, 3)
assert torch.equal(stacked, via_cat)
assert torch.stack(scalars).shape == (3,)
assert torch.cat(vectors).shape == (4,)
assert torch.stack(vectors).shape == (2, 2)
wide, tall = [torch.ones(2, 3), torch.ones(2, 4)], [
    torch.ones(2, 3), torch.ones(3, 3)
]
for join, bad, words in (
    (torch.cat, wide, "must match except in dimension 0"),
    (torch.stack, tall, "expects each tensor to be equal size"),
    (torch.cat, scalars, "zero-dimensional tensor (at position 0) cannot be"),
):
    try:
        join(bad)
    except RuntimeError as error:
        assert words in str(error), str(error)
    else:
        raise AssertionError(
            f"{join.__name__} accepted tensors it should reject"
        )
try:
    torch.cat([x, y], 0, torch.empty(4, 3))  # out is keyword-only
except TypeError as error:
    assert "positional arguments" in str(error)
else:
    raise AssertionError("torch.cat() should take out only as a keyword")

batch = [torch.randn(2, 3) for _ in range(4)]
assert torch.stack(batch, dim=1).shape == (2, 4, 3)
# -1: last dim of the result
assert torch.stack(batch, dim=-1).shape == (2, 3, 4)
for dim in range(-3, 3):  # len(batch) is inserted at dim of the result
    shape = list(torch.stack(batch, dim=dim).shape)
    assert shape.pop(dim) == 4 and shape == [2, 3]
assert torch.allclose(torch.stack(batch).sum(0), sum(batch))
assert torch.allclose(torch.stack(batch).mean(0), sum(batch) / 4)

assert torch.equal(torch.tensor(scalars), torch.tensor([1, 2, 3]))
w = torch.tensor(2.0, requires_grad=True)
losses = [w * 1, w * 2, w * 3]
# the warning below is otherwise given once per process
torch.set_warn_always(True)
try:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        from_list = torch.tensor(losses)
finally:
    torch.set_warn_always(False)
assert any(
    issubclass(w_.category, UserWarning)
    and "requires_grad=True" in str(w_.message)
    for w_ in caught
)
# the graph is lost
assert not from_list.requires_grad and from_list.grad_fn is None
assert from_list.is_leaf
stacked = torch.stack(losses)
assert stacked.grad_fn is not None
assert torch.equal(stacked, torch.tensor([2.0, 4.0, 6.0]))
stacked.sum().backward()
assert w.grad == 6.0  # gradients flow through stack
try:
    torch.tensor(vectors)
except TypeError as error:
    assert "only integer tensors of a single element" in str(error)
else:
    raise AssertionError("torch.tensor() of a list of 1-D tensors should fail")
try:
    torch.tensor([torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])])
except ValueError:
    pass  # float vectors fail too, with another message
else:
    raise AssertionError(
        "torch.tensor() of a list of 1-D float tensors should fail"
    )

inp = torch.randn(2, 5)
rows = list(inp.unsqueeze(1))
assert [r.shape for r in rows] == [(1, 5), (1, 5)]
assert torch.equal(torch.cat(rows, dim=0), inp)
rows = list(inp)
assert [r.shape for r in rows] == [(5,), (5,)]
assert rows[0].data_ptr() == inp.data_ptr()  # iterating gives views, not copies
assert torch.equal(torch.stack(rows), inp)
assert torch.equal(torch.stack(inp.unbind()), inp)

# %% chunk
x = torch.arange(6)
parts = x.chunk(4)  # asks for 4 chunks
print(len(parts), [tuple(p.shape) for p in parts])
print([p.tolist() for p in parts])

# %% chunk-checks tags=["remove-cell"]
import math

assert len(parts) == 3 and [len(p) for p in parts] == [2, 2, 2]
assert len(x.chunk(5)) == 3  # 5 chunks asked: still 3 of 2
# chunk size ceil(n / chunks), as many chunks as that size needs
for n in range(1, 25):
    for chunks in range(1, 10):
        size = math.ceil(n / chunks)
        got = [len(p) for p in torch.arange(n).chunk(chunks)]
        assert got == [len(p) for p in torch.arange(n).split(size)]
        assert len(got) == math.ceil(n / size) <= chunks
assert parts[1].data_ptr() == x[2:].data_ptr()  # views, no copies

# %% split
print([p.tolist() for p in x.split(4)])  # chunks of size 4, the last smaller
print([p.tolist() for p in x.split([1, 2, 3])])  # these sizes, adding up to 6
print([p.tolist() for p in x.tensor_split(4)])  # always 4 parts

# %% split-checks tags=["remove-cell"]
assert [len(p) for p in x.split(4)] == [4, 2]
assert [len(p) for p in x.split([1, 2, 3])] == [1, 2, 3]
assert [len(p) for p in x.tensor_split(4)] == [2, 2, 1, 1]
assert all(torch.equal(a, b) for a, b in
           zip(x.tensor_split(4), torch.tensor_split(x, 4)))
try:
    x.split([1, 2])  # sizes that do not add up to 6
except RuntimeError as error:
    assert "sum exactly" in str(error)
else:
    raise AssertionError("split() took sizes that do not add up")
# tensor_split: n parts, the first n % parts one longer
for n in range(0, 25):
    for k in range(1, 10):
        got = [len(p) for p in torch.arange(n).tensor_split(k)]
        assert len(got) == k and sum(got) == n
        assert got == [n // k + 1] * (n % k) + [n // k] * (k - n % k)
        assert max(got) - min(got) <= 1
# more parts than elements: empty ones at the end
assert [len(p) for p in torch.arange(2).tensor_split(4)] == [1, 1, 0, 0]
# along another dimension, as chunk and split do
m = torch.arange(12).reshape(2, 6)
assert [tuple(p.shape) for p in m.tensor_split(4, dim=1)] == \
    [(2, 2), (2, 2), (2, 1), (2, 1)]
assert [tuple(p.shape) for p in m.chunk(4, dim=1)] == [(2, 2)] * 3
assert [tuple(p.shape) for p in m.split(4, dim=1)] == [(2, 4), (2, 2)]
# views of x, and cat puts them back together
for pieces in (x.chunk(4), x.split(4), x.split([1, 2, 3]), x.tensor_split(4)):
    assert all(p.untyped_storage().data_ptr()
               == x.untyped_storage().data_ptr() for p in pieces)
    assert torch.equal(torch.cat(pieces), x)

# %% empty-list-cat raises="ValueError: torch.cat(): expected a non-empty list of Tensors" holds=">=2.9" claim="`torch.cat` of an empty list raises a `ValueError`"
torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
batches = []  # an empty dataset, or a filter that dropped every item
outputs = []
for x in batches:
    outputs.append(model(x))
torch.cat(outputs)

# %% empty-list-stack raises="RuntimeError: stack expects a non-empty TensorList"
torch.stack(outputs)

# %% empty-list-checks tags=["remove-cell"] holds=">=2.9" claim="`torch.cat` and `torch.stack` of an empty list raise different types of exception"
# the two functions raise different types of exception
for join, kind in ((torch.cat, ValueError), (torch.stack, RuntimeError)):
    try:
        join([])
    except kind:
        pass
    else:
        raise AssertionError(f"{join.__name__} joined an empty list")

# %% empty-list-fix
if not outputs:
    print("no batches: check len(dataset) and the DataLoader")
# or start from an empty tensor of the right width
result = torch.cat([torch.empty(0, 2)] + outputs)
print(result.shape)

# %% empty-list-fix-checks tags=["remove-cell"]
assert result.shape == (0, 2)
# with batches the empty start changes nothing
outputs = [model(torch.ones(3, 4)), model(torch.ones(1, 4))]
full = torch.cat([torch.empty(0, 2)] + outputs)
assert full.shape == (4, 2) and torch.equal(full, torch.cat(outputs))
# a drop_last loader with fewer items than one batch yields nothing
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.ones(3, 4)), batch_size=4, drop_last=True)
assert len(loader) == 0 and list(loader) == []

# %% cat-not-a-list raises="TypeError"
a = torch.ones(2, 3)
b = torch.zeros(2, 3)
torch.cat(a, b, 0)  # the tensors are not in a list

# %% cat-not-a-list-checks tags=["remove-cell"] holds=">=2.13" claim="`torch.cat(a, b, 0)` and `torch.cat(a, b)` raise a `TypeError` that counts the arguments or names the `tensors` argument"
for call, words in (
    (lambda: torch.cat(a, b, 0),
     "cat() takes from 1 to 2 positional arguments but 3 were given"),
    (lambda: torch.cat(a, b), "cat(): argument 'tensors' (position 1) "
     "must be tuple of Tensors, not Tensor"),
    (lambda: torch.stack(a, b), "stack(): argument 'tensors' (position 1) "
     "must be tuple of Tensors, not Tensor"),
):
    try:
        call()
    except TypeError as error:
        assert str(error) == words, str(error)
    else:
        raise AssertionError("tensors not in a list were joined")

# %% cat-numpy raises="TypeError: expected Tensor as element 0 in argument 0, but got numpy.ndarray"
import numpy as np

arrays = [np.ones((2, 3)), np.zeros((2, 3))]
torch.cat(arrays)

# %% cat-numpy-checks tags=["remove-cell"]
for join in (torch.cat, torch.stack):
    try:
        join([a, np.zeros((2, 3))])
    except TypeError as error:
        assert str(error) == (
            "expected Tensor as element 1 in argument 0, but got numpy.ndarray"
        ), str(error)
    else:
        raise AssertionError(f"{join.__name__} took a NumPy array")

# %% cat-fix
print(torch.cat((a, b), dim=0).shape)  # one sequence, then dim
print(torch.stack([a, b]).shape)  # stack: the same rule
print(np.concatenate(arrays).shape)  # NumPy arrays: join them in NumPy
# or convert each array first
print(torch.cat([torch.from_numpy(x) for x in arrays]).dtype)

# %% cat-fix-checks tags=["remove-cell"]
assert torch.cat((a, b), dim=0).shape == (4, 3)
assert torch.equal(torch.cat((a, b), 0), torch.cat([a, b], dim=0))
assert torch.stack([a, b]).shape == (2, 2, 3)
assert np.concatenate(arrays).shape == (4, 3)
joined = torch.cat([torch.from_numpy(x) for x in arrays])
assert joined.dtype == torch.float64 and joined.shape == (4, 3)
assert torch.equal(joined, torch.from_numpy(np.concatenate(arrays)))
