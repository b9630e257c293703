# %% [markdown]
# A tensor's data takes element_size() * nelement() bytes (x.nbytes);
# its storage, shared by all its views, can be much larger

# %% [markdown] lang="zh"
# 张量的数据占用 `element_size() * nelement()` 字节（即 `x.nbytes`）；
# 而它的存储（storage）由它的所有视图共享，可能大得多

# %% getsizeof-tensor
import sys

import torch

x = torch.zeros(1000, 1000)
print(sys.getsizeof(x))

# %% getsizeof-storage
print(sys.getsizeof(x.storage()))

# %% nbytes
print(x.element_size(), x.nelement())
print(x.element_size() * x.nelement(), x.nbytes)

# %% dtypes
for dtype in (
    torch.float64, torch.float32, torch.float16, torch.int64, torch.bool
):
    y = torch.zeros(1000, 1000, dtype=dtype)
    print(dtype, y.element_size(), y.nbytes)

# %% storage
row = x[0]
print(row.nbytes)
print(row.untyped_storage().nbytes())
print(row.untyped_storage().data_ptr() == x.untyped_storage().data_ptr())

# %% getsizeof-storage-of-view
print(sys.getsizeof(row.untyped_storage()))

# %% keeps-alive
big = torch.zeros(1000, 1000)
first_row = big[0]
del big
print(first_row.untyped_storage().nbytes())
first_row = first_row.clone()
print(first_row.untyped_storage().nbytes())

# %% expand
e = torch.zeros(1, 3).expand(1000, 3)
print(e.shape, e.nbytes, e.untyped_storage().nbytes())

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
import warnings

x = torch.zeros(1000, 1000)
assert sys.getsizeof(x) < 200  # only the Python object, not the 4 MB of data
# the warning is given once per process; let it come again
torch.storage._reset_warn_typed_storage_removal()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    size = sys.getsizeof(x.storage())
assert any(
    issubclass(w.category, UserWarning)
    and "TypedStorage is deprecated" in str(w.message)
    for w in caught
)
# the storage's bytes plus a Python object
assert 4_000_000 < size < 4_000_000 + 1000

assert x.element_size() == 4 and x.nelement() == x.numel() == 1_000_000
assert x.nbytes == x.element_size() * x.nelement() == 4_000_000
sizes = {
    torch.float64: 8, torch.float32: 4, torch.float16: 2, torch.int64: 8,
    torch.bool: 1
}
for dtype, size in sizes.items():
    y = torch.zeros(1000, 1000, dtype=dtype)
    assert y.element_size() == size and y.nbytes == size * 1_000_000

same = x.untyped_storage().data_ptr()
assert x.t().untyped_storage().data_ptr() == same
assert x.view(-1).untyped_storage().data_ptr() == same
row = x[0]
assert row.nbytes == 4000
assert row.untyped_storage().nbytes() == 4_000_000  # the whole matrix
assert row.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
# the whole storage, not the row
assert sys.getsizeof(row.untyped_storage()) > 4_000_000
big = torch.zeros(1000, 1000)
first_row = big[0]
del big
# still holds all of it
assert first_row.untyped_storage().nbytes() == 4_000_000
assert first_row.clone().untyped_storage().nbytes() == 4000

small = torch.zeros(1, 3)
e = small.expand(1000, 3)
assert e.nbytes == 12_000 and e.untyped_storage().nbytes() == 12
assert e.untyped_storage().data_ptr() == small.untyped_storage().data_ptr()
