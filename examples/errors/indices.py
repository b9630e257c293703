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
