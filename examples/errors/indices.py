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
