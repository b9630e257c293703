# %% [markdown]
# An index out of range: on the CPU an IndexError at the
# right line; on a GPU a device-side assert or, in a kernel
# that checks nothing, an illegal memory access

# %% [markdown] lang="zh"
# 索引越界：在 CPU 上是指向出错那一行的 `IndexError`；在 GPU 上是
# device-side assert，在不做检查的 kernel 里则是 illegal memory access

# %% accelerator-error-checks tags=["remove-cell"] holds=">=2.8" claim="`torch.AcceleratorError`, the type of a CUDA error, is a `RuntimeError`"
import torch

# the type the page names for the CUDA error, a RuntimeError
assert issubclass(torch.AcceleratorError, RuntimeError)

# %% out-of-bounds raises="IndexError: index 5 is out of bounds for dimension 0 with size 5"
import torch

table = torch.arange(15.0).view(5, 3)  # 5 rows: ids 0 to 4
ids = torch.tensor([1, 3, 5])  # ids counted from 1, as in the file
table[ids]

# %% out-of-range-check
def out_of_range(index, size):
    # the entries outside 0 ... size - 1; on a GPU the mask makes it
    # wait for the kernels before it: a check to debug with
    return index[(index < 0) | (index >= size)]


print(out_of_range(ids, len(table)))
print(out_of_range(ids - 1, len(table)))
print(table[ids - 1])

# %% out-of-range-check-checks tags=["remove-cell"]
assert out_of_range(ids, 5).tolist() == [5]
assert out_of_range(ids - 1, 5).numel() == 0
assert torch.equal(table[ids - 1], table[torch.tensor([0, 2, 4])])
# PyTorch's indexing counts negative indices from the end, like Python's:
# -1 is the last row, not an error; a kernel that takes indices does not
assert torch.equal(table[torch.tensor([-1])], table[4:])
assert out_of_range(torch.tensor([-1]), 5).tolist() == [-1]
# the same index in the other indexing operations, on the CPU
for call, kind, words in (
    (lambda: table.index_select(0, ids), IndexError, "index out of range in self"),
    (lambda: table.gather(0, ids.view(3, 1).expand(3, 3)), RuntimeError,
     "index 5 is out of bounds for dimension 0 with size 5"),
):
    try:
        call()
    except kind as error:
        assert words in str(error), error
    else:
        raise AssertionError(f"{words!r} not raised")

# %% too-many-indices raises="IndexError: too many indices for tensor of dimension 1"
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(4, 3)  # 4 samples, 3 features
model = nn.Linear(3, 1)  # one logit per sample: a binary classifier
with torch.no_grad():
    probs = torch.sigmoid(model(x)).squeeze()  # (4, 1) becomes (4,)
print(probs.shape)
probs[:, 1]  # written for two columns, one per class

# %% too-many-indices-fix
print(probs.dim(), tuple(probs.shape))  # one dimension: one index
positive = probs  # one sigmoid output is already P(class 1)
print(positive.round(decimals=3))
with torch.no_grad():
    column = torch.sigmoid(model(x))  # not squeezed: (4, 1), two indices
print(tuple(column.shape), torch.equal(column[:, 0], positive))

# %% too-many-indices-fix-checks tags=["remove-cell"]
assert probs.dim() == 1 and column.dim() == 2
assert torch.equal(column.squeeze(1), positive)
# the message names the tensor's number of dimensions
for tensor, index, dims in (
    (torch.ones(3), (0, 0), 1),
    (torch.ones(2, 3), (0, 0, 0), 2),
    (torch.ones(3), (slice(None), 1), 1),
):
    try:
        tensor[index]
    except IndexError as error:
        assert str(error) == f"too many indices for tensor of dimension {dims}"
    else:
        raise AssertionError(f"{index} indexed a {dims}-D tensor")
# x[0][0] on a vector is two steps: the second indexes a 0-dim tensor
try:
    torch.ones(3)[0][0]
except IndexError as error:
    assert str(error).startswith("invalid index of a 0-dim tensor")
else:
    raise AssertionError("a 0-dim tensor was indexed")
# squeeze() also drops the batch dimension of a batch of one; squeeze(1) keeps it
assert torch.ones(1, 1).squeeze().dim() == 0
assert tuple(torch.ones(1, 1).squeeze(1).shape) == (1,)
assert tuple(torch.ones(4, 1).squeeze(1).shape) == (4,)

# %% float-index raises="IndexError: tensors used as indices must be long, int, byte or bool tensors"
x = torch.arange(10, 60, 10)
rows = torch.tensor([4, 8]) / 2  # division gives floats
print(rows)
x[rows]

# %% float-index-fix
print(x[rows.long()])  # int64 indices
print(x[rows.int()])  # int32 works as well
print(x[x > 25])  # a bool mask, one value per element

# %% float-index-fix-checks tags=["remove-cell"]
assert rows.dtype == torch.float32
assert torch.equal(x[rows.long()], torch.tensor([30, 50]))
assert torch.equal(x[rows.int()], x[rows.long()])
assert torch.equal(x[x > 25], torch.tensor([30, 40, 50]))
assert torch.equal(x[torch.div(torch.tensor([4, 8]), 2, rounding_mode="floor")],
                   torch.tensor([30, 50]))  # floor division keeps int64
assert torch.equal(x[torch.tensor([4, 8]) // 2], torch.tensor([30, 50]))
for index in (torch.tensor([0.0, 1.0]), torch.tensor(1.0)):
    try:
        x[index]
    except IndexError as error:
        assert str(error) == (
            "tensors used as indices must be long, int, byte or bool tensors"
        )
    else:
        raise AssertionError("a float tensor indexed a tensor")

# %% slice-bound raises="TypeError: only integer tensors of a single element can be converted to an index"
starts = torch.tensor([1, 3])  # one start per row
x[starts:]

# %% slice-bound-fix
print(x[torch.tensor(1):])  # a 0-d integer tensor is a bound
print(x[int(starts[0]):], x[starts[1].item():])
for start in starts.tolist():  # one slice per start
    print(x[start:])

# %% slice-bound-fix-checks tags=["remove-cell"]
assert torch.equal(x[torch.tensor(1):], x[1:])
assert torch.equal(x[int(starts[0]):], x[1:])
assert torch.equal(x[starts[1].item():], torch.tensor([40, 50]))
for bound in (torch.tensor([1, 2]), torch.tensor(1.0)):
    try:
        x[bound:]
    except TypeError as error:
        assert str(error) == (
            "only integer tensors of a single element can be converted"
            " to an index"
        )
    else:
        raise AssertionError("a tensor bound was accepted")
try:
    x[1.0:]  # a Python float: Python's own message
except TypeError as error:
    assert str(error) == (
        "slice indices must be integers or None or have an __index__ method"
    )
else:
    raise AssertionError("a float slice bound was accepted")
# split: rows of different lengths in one call
assert [t.tolist() for t in torch.split(x, [1, 3, 1])] == [
    [10], [20, 30, 40], [50]
]
