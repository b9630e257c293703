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

# %% warning-in-library
import os
import subprocess
from pathlib import Path

# a library that still calls tensor.storage(), and a script that uses it
Path("old_library.py").write_text('''\
import torch


def tensor_bytes(x):
    return x.storage().nbytes()
''')
Path("train.py").write_text('''\
import torch
import old_library

print(old_library.tensor_bytes(torch.zeros(10)))
print(old_library.tensor_bytes(torch.zeros(20)))
''')


def run(*options):  # run train.py in a new Python; keep what it printed
    done = subprocess.run([sys.executable, *options, "train.py"],
                          capture_output=True, text=True)
    stderr = done.stderr.replace(os.getcwd() + os.sep, "")
    return done.stdout, stderr.splitlines()


out, err = run()
print(out, end="")
print("\n".join(err))

# %% warning-in-library-checks tags=["remove-cell"]
# the warning names the library's line, not torch's and not the script's
assert out == "40\n80\n"
assert err[0].startswith("old_library.py:5: UserWarning: TypedStorage is deprecated")
assert err[1].strip() == "return x.storage().nbytes()"
# two calls, one warning: it is given once per process
assert sum("TypedStorage is deprecated" in line for line in err) == 1

# %% warning-traceback
out, err = run("-W", "error::UserWarning")
torch_dir = os.path.dirname(torch.__file__)
for line in err:  # the frames outside torch, and the exception
    if line.startswith("  File") and torch_dir not in line:
        print(line)
print(err[-1][:60], "…")

# %% warning-traceback-checks tags=["remove-cell"]
# -W error turns the warning into an exception: the traceback leads to the call
frames = [line for line in err if line.startswith("  File")]
assert 'File "train.py", line 4, in <module>' in frames[0]
assert 'File "old_library.py", line 5, in tensor_bytes' in frames[1]
assert err[-1].startswith("UserWarning: TypedStorage is deprecated")
assert out == ""

# %% warning-filter
Path("train.py").write_text('''\
import warnings

import torch

# until old_library stops calling tensor.storage()
warnings.filterwarnings("ignore", message="TypedStorage is deprecated")
import old_library

print(old_library.tensor_bytes(torch.zeros(10)))
''')
out, err = run()
print(out, end="")
print(err)

# %% warning-filter-checks tags=["remove-cell"]
assert out == "40\n" and err == []
# the fix in the library: untyped_storage() gives the same bytes, no warning
with warnings.catch_warnings():
    warnings.simplefilter("error")
    assert torch.zeros(10).untyped_storage().nbytes() == 40
# torch.FloatStorage(...) gives the same warning as tensor.storage()
torch.storage._reset_warn_typed_storage_removal()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.FloatStorage(3)
assert any("TypedStorage is deprecated" in str(w.message) for w in caught)
