# %% [markdown]
# Element-wise math functions: torch.exp, torch.abs, torch.clamp, their tensor
# methods and their in-place versions

# %% [markdown] lang="zh"
# 逐元素数学函数：`torch.exp`、`torch.abs`、`torch.clamp`，
# 以及它们对应的张量方法和原地版本

# %% exp-python-number tags=["raises-exception"]
import torch

torch.exp(0)

# %% exp
x = torch.tensor([0, 1, 2])
print(x.dtype)
print(torch.exp(x))
print(torch.exp(x).dtype)
print(torch.exp(torch.tensor(1.0)))

# %% exp-method
x = torch.tensor([1.0, 2.0, 3.0])
print(x.exp())
legacy = torch.FloatTensor([1, 2, 3])  # old style, same float32 tensor
print(torch.equal(legacy, x))

# %% exp-overflow
print(torch.tensor([88.0, 89.0]).exp())
print(torch.tensor([709.0, 710.0], dtype=torch.float64).exp())

# %% abs
a = torch.tensor([1, -2, -3, 4, 5, -6, -7])
print(torch.abs(a))
print(a.abs())

# %% clamp
print(torch.clamp(a, 0, 1))
print(a.clamp(min=-3, max=4))

# %% clamp-one-side
print(torch.clamp(a, min=0))  # negative values become 0, like relu
print(torch.clamp(a, max=2))

# %% clamp-no-bounds tags=["raises-exception"]
torch.clamp(a)

# %% clamp-dtype
print(torch.clamp(a, 0.5, 1.5))
print(torch.clamp(a, 2, 1))  # min > max: every element becomes max

# %% inplace
y = a.clone()
out = y.abs_()
print(y)
print(out is y)
y.clamp_(max=4)
print(y)

# %% inplace-int-exp tags=["raises-exception"]
x = torch.tensor([0, 1, 2])
x.exp_()

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
import math

for call in (lambda: torch.exp(0), lambda: torch.abs(-3)):
    try:
        call()
    except TypeError as error:
        assert "argument 'input' (position 1) must be Tensor, not int" \
            in str(error)
    else:
        raise AssertionError("a Python int should be rejected")
assert torch.exp(torch.tensor([0, 1, 2])).dtype == torch.float32
assert torch.allclose(
    torch.exp(torch.tensor([0, 1, 2])), torch.tensor([1.0, math.e, math.e**2])
)
assert torch.exp(torch.tensor(1.0)).dim() == 0
assert math.isclose(
    math.exp(1), torch.exp(torch.tensor(1.0)).item(), rel_tol=1e-6
)
x = torch.tensor([1.0, 2.0, 3.0])
assert torch.equal(x.exp(), torch.exp(x))
assert torch.equal(
    torch.FloatTensor([1, 2, 3]), torch.tensor([1, 2, 3], dtype=torch.float32)
)
assert torch.FloatTensor([1, 2, 3]).dtype == torch.float32
big = torch.tensor([88.0, 89.0]).exp()
assert math.isfinite(big[0].item()) and math.isinf(big[1].item())
assert torch.isfinite(
    torch.tensor([88.0, 89.0], dtype=torch.float64).exp()
).all()
assert torch.isfinite(torch.tensor(709.0, dtype=torch.float64).exp())
assert torch.isinf(torch.tensor(710.0, dtype=torch.float64).exp())
assert torch.isfinite(torch.softmax(torch.tensor([1000.0, 0.0]), dim=0)).all()
assert torch.equal(torch.abs(a), torch.tensor([1, 2, 3, 4, 5, 6, 7]))
assert torch.equal(a.abs(), torch.abs(a)) and torch.abs(a).dtype == torch.int64
assert torch.equal(torch.clamp(a, 0, 1), torch.tensor([1, 0, 0, 1, 1, 0, 0]))
assert torch.equal(
    a.clamp(min=-3, max=4), torch.tensor([1, -2, -3, 4, 4, -3, -3])
)
assert torch.equal(torch.clamp(a, min=0), torch.relu(a))
assert torch.equal(
    torch.clamp(a, max=2), torch.tensor([1, -2, -3, 2, 2, -6, -7])
)
# clip is an alias
assert torch.equal(torch.clip(a, 0, 1), torch.clamp(a, 0, 1))
try:
    torch.clamp(a)
except RuntimeError as error:
    assert "At least one of 'min' or 'max' must not be None" in str(error)
else:
    raise AssertionError("clamp without bounds should fail")
assert torch.clamp(a, 0.5, 1.5).dtype == torch.float32
assert torch.equal(torch.clamp(a, 2, 1), torch.ones(7, dtype=torch.int64))
y = a.clone()
assert y.abs_() is y and torch.equal(y, torch.abs(a))
assert y.clamp_(max=4) is y and torch.equal(
    y, torch.tensor([1, 2, 3, 4, 4, 4, 4])
)
# a itself untouched
assert torch.equal(a, torch.tensor([1, -2, -3, 4, 5, -6, -7]))
for call in (
    lambda: torch.tensor([0, 1, 2]).exp_(),
    lambda: torch.tensor([0, 1, 2]).clamp_(0.5, 1.5),
):
    try:
        call()
    except RuntimeError as error:
        assert "result type Float can't be cast to the desired output type" in (
            str(error)
        )
    else:
        raise AssertionError(
            "an int tensor cannot hold a float result in place"
        )

# %% floor-divide
a = torch.tensor([-7.0, 7.0])
print(a // 2)  # floor, like Python: -3.5 becomes -4
print(torch.div(a, 2, rounding_mode="floor"))
print(torch.div(a, 2, rounding_mode="trunc"))  # toward zero: -3.5 becomes -3
print(torch.div(a, 2))  # rounding_mode=None: true division

# %% floor-divide-checks tags=["remove-cell"]
import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    floor = a // 2
    assert torch.equal(floor, torch.tensor([-4.0, 3.0]))
    assert torch.equal(a.__floordiv__(2), floor)
    assert torch.equal(torch.floor_divide(a, 2), floor)
    assert torch.equal(torch.div(a, 2, rounding_mode="floor"), floor)
    assert torch.equal(torch.div(a, 2, rounding_mode="trunc"), torch.tensor([-3.0, 3.0]))
    assert torch.equal(torch.div(a, 2), torch.tensor([-3.5, 3.5]))
    assert torch.equal(torch.div(a, 2, rounding_mode=None), a / 2)
    # integers as well
    n = torch.tensor([-7, 7])
    assert torch.equal(n // 2, torch.tensor([-4, 3])) and (n // 2).dtype == torch.int64
    assert torch.equal(torch.div(n, 2, rounding_mode="trunc"), torch.tensor([-3, 3]))
    assert (n // 2).tolist() == [-7 // 2, 7 // 2]  # the same as Python's //
assert not caught, [str(w.message) for w in caught]

# %% out-resized
import textwrap

total = torch.empty(())  # a 0-d accumulator, reused as out=
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.add(torch.ones(3), 1, out=total)  # the result has shape [3]
message = str(caught[0].message).split(" (Triggered")[0]  # no C++ file
print(textwrap.fill(message, 76, break_on_hyphens=False))
print(total.shape, total)

# %% out-resized-checks tags=["remove-cell"]
assert len(caught) == 1 and caught[0].category is UserWarning
assert message.startswith(
    "An output with one or more elements was resized since it had shape [], "
    "which does not match the required output shape [3]. This behavior is "
    "deprecated"
)
assert message.endswith("to zero elements with t.resize_(0).")
assert total.shape == (3,) and torch.equal(total, torch.full((3,), 2.0))

# %% out-resized-fix
x = torch.ones(3)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out = torch.empty(3)  # best: the result's shape
    torch.add(x, 1, out=out)
    empty = torch.empty(0)  # zero elements: resized silently
    torch.add(x, 1, out=empty)
    total.resize_(0)  # or empty a reused tensor first
    torch.add(x, 1, out=total)
    y = torch.add(x, 1)  # or no out= at all
print(out.shape, empty.shape, total.shape, y.shape, len(caught))

# %% out-resized-fix-checks tags=["remove-cell"]
assert not caught, [str(w.message) for w in caught]
for t in (out, empty, total, y):
    assert torch.equal(t, torch.full((3,), 2.0))

# %% std-one-value
x = torch.tensor([3.0])  # one value
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    std, var = x.std(), x.var()  # divide by N - 1 = 0
for warning in caught:  # each without its C++ file name
    message = str(warning.message).split(" (Triggered")[0]
    line = f"{warning.category.__name__}: {message}"
    print(textwrap.fill(line, 76, break_on_hyphens=False))
print(std, var)

# %% std-one-value-checks tags=["remove-cell"]
assert [w.category for w in caught] == [UserWarning, UserWarning]
assert str(caught[0].message).startswith("std(): degrees of freedom is <= 0")
assert str(caught[1].message).startswith("var(): degrees of freedom is <= 0")
assert torch.isnan(std) and torch.isnan(var)

# %% std-batch-of-one
def standardize(batch):  # per feature, over the batch
    return (batch - batch.mean(dim=0)) / (batch.std(dim=0) + 1e-5)


batch = torch.randn(1, 4)  # the last batch of an epoch may hold one sample
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out = standardize(batch)
print(out)
warning = caught[0]
print(f"{warning.category.__name__}: {str(warning.message)[:34]}")

# %% std-batch-of-one-checks tags=["remove-cell"]
assert len(caught) == 1 and caught[0].category is UserWarning
assert str(caught[0].message).startswith("std(): degrees of freedom is <= 0")
assert torch.isnan(out).all()
# a batch of two is fine
assert torch.isfinite(standardize(torch.randn(2, 4))).all()

# %% std-correction
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(x.std(correction=0), x.var(correction=0))  # divide by N
    print(x.std(unbiased=False))  # the older spelling of correction=0
    print(batch.std(dim=0, correction=0))
    y = torch.tensor([1.0, 2.0, 3.0, 4.0])
    print(y.std(), y.std(correction=0))  # N - 1 = 3 against N = 4
print("warnings:", len(caught))

# %% std-correction-checks tags=["remove-cell"]
import math

assert not caught, [str(w.message) for w in caught]
assert x.std(correction=0) == 0 and x.var(correction=0) == 0
assert x.std(unbiased=False) == 0
assert torch.equal(batch.std(dim=0, correction=0), torch.zeros(4))
assert math.isclose(y.var().item(), 5 / 3, rel_tol=1e-6)  # sum of squares 5
assert math.isclose(y.var(correction=0).item(), 5 / 4, rel_tol=1e-6)
assert torch.allclose(y.std(correction=0), y.std() * math.sqrt(3 / 4))
# the same as torch.var_mean and torch.std_mean
assert torch.equal(torch.std_mean(y, correction=0)[0], y.std(correction=0))
# BatchNorm normalises with the correction=0 variance
from torch import nn

bn = nn.BatchNorm1d(4, affine=False)
z = torch.randn(3, 4)
expected = (z - z.mean(dim=0)) / torch.sqrt(z.var(dim=0, correction=0) + bn.eps)
assert torch.allclose(bn(z), expected, atol=1e-6)
# LayerNorm, over the features of each sample, is finite on a batch of one
assert torch.isfinite(nn.LayerNorm(4)(batch)).all()
# and BatchNorm in train mode refuses a batch of one
try:
    bn(batch)
except ValueError as error:
    assert "Expected more than 1 value per channel when training" in str(error)
else:
    raise AssertionError("BatchNorm took a batch of one")

# %% nan-to-num
x = torch.tensor([1.0, float("nan"), float("inf"), -float("inf")])
print(torch.nan_to_num(x))  # inf becomes the largest float32, not 0
print(torch.finfo(torch.float32).max)
print(torch.nan_to_num(x.half()))  # the largest float16
print(torch.nan_to_num(x, nan=0.0, posinf=0.0, neginf=0.0))

# %% nan-to-num-checks tags=["remove-cell"]
big = torch.finfo(torch.float32).max
assert torch.equal(torch.nan_to_num(x), torch.tensor([1.0, 0.0, big, -big]))
assert torch.nan_to_num(x).dtype == torch.float32
assert torch.equal(
    torch.nan_to_num(x.half()),
    torch.tensor([1.0, 0.0, 65504.0, -65504.0], dtype=torch.float16),
)
assert torch.equal(
    torch.nan_to_num(x, nan=0.0, posinf=0.0, neginf=0.0),
    torch.tensor([1.0, 0.0, 0.0, 0.0]),
)
# nan= alone leaves the infinities at the largest finite values
assert torch.equal(torch.nan_to_num(x, nan=0.0), torch.nan_to_num(x))
# x itself untouched
assert torch.isnan(x[1]) and torch.isinf(x[2:]).all()

# %% nan-to-num-inplace
y = x.clone()
out = y.nan_to_num_(nan=0.0, posinf=1e4, neginf=-1e4)  # in place
print(y, out is y)
z = torch.where(torch.isfinite(x), x, 0.0)  # every non-finite value to 0
print(z)

# %% nan-to-num-inplace-checks tags=["remove-cell"]
assert out is y
assert torch.equal(y, torch.tensor([1.0, 0.0, 1e4, -1e4]))
assert z.dtype == torch.float32
assert torch.equal(z, torch.tensor([1.0, 0.0, 0.0, 0.0]))
assert torch.equal(z, torch.nan_to_num(x, nan=0.0, posinf=0.0, neginf=0.0))
# an integer 0 works as well and keeps the dtype
assert torch.equal(torch.where(torch.isfinite(x), x, 0), z)

# %% quantile-too-large raises="RuntimeError: quantile() input tensor is too large" holds="<2.14" claim="`torch.quantile` refuses more than 2**24 values along the dimension it reduces"
x = torch.linspace(0, 1, 2**24 + 1)  # 16,777,217 values, 64 MiB
torch.quantile(x, 0.5)

# %% quantile-too-large-checks tags=["remove-cell"]
assert x.numel() == 2**24 + 1 and x.dtype == torch.float32
# one value fewer is accepted (zeros expanded: no 64 MiB copy, a faster sort)
assert torch.quantile(torch.zeros(1).expand(2**24), 0.5) == 0
# the limit is on the length of the reduced dimension, not on numel()
rows = torch.zeros(1).expand(2, 2**23 + 1)
assert rows.numel() > 2**24
assert torch.equal(torch.quantile(rows, 0.5, dim=1), torch.zeros(2))
# float16 and bfloat16 are refused: float32 is the smallest input that reaches it
for dtype in (torch.float16, torch.bfloat16, torch.uint8):
    try:
        torch.quantile(torch.ones(3, dtype=dtype), 0.5)
    except RuntimeError as error:
        assert "input tensor must be either float or double dtype" in str(error)
    else:
        raise AssertionError(f"quantile took a {dtype} tensor")

# %% quantile-nan-too-large-checks tags=["remove-cell"] holds="<2.14" claim="`torch.nanquantile` has the same limit"
# nanquantile has the same limit
try:
    torch.nanquantile(torch.zeros(1).expand(2**24 + 1), 0.5)
except RuntimeError as error:
    assert str(error).startswith("quantile() input tensor is too large")
else:
    raise AssertionError("nanquantile took 2**24 + 1 values")

# %% quantile-large-fixes
import numpy

n = x.numel()
k = round(0.5 * (n - 1)) + 1  # 0.5 * (n - 1) is a whole number here
print(torch.kthvalue(x, k).values)
sample = x[torch.randint(n, (1_000_000,))]  # a random subsample
print(torch.quantile(sample, 0.5))
print(numpy.quantile(x.numpy(), 0.5))

# %% quantile-large-fixes-checks tags=["remove-cell"]
assert torch.kthvalue(x, k).values == 0.5
assert abs(torch.quantile(sample, 0.5).item() - 0.5) < 0.01
assert numpy.quantile(x.numpy(), 0.5) == 0.5
del x, sample  # free the 64 MiB

# %% quantile-kthvalue
y = torch.tensor([10.0, 1.0, 4.0, 20.0, 3.0])  # 5 values
print("q     rank  linear  kthvalue  lower")
for q in (0.25, 0.5, 0.6):
    rank = q * (len(y) - 1)  # where quantile looks in the sorted values
    k = int(rank) + 1  # kthvalue counts from 1
    linear = torch.quantile(y, q).item()
    kth = torch.kthvalue(y, k).values.item()
    lower = torch.quantile(y, q, interpolation="lower").item()
    print(f"{q:<5} {rank:<5.1f} {linear:<7.1f} {kth:<9.1f} {lower:.1f}")

# %% quantile-kthvalue-checks tags=["remove-cell"]
import math

n = len(y)
# numpy.quantile's default is the same linear interpolation
for q in (0.1, 0.25, 0.6, 0.9):
    assert math.isclose(numpy.quantile(y.numpy(), q), torch.quantile(y, q).item(), rel_tol=1e-6)
assert torch.equal(torch.sort(y).values, torch.tensor([1.0, 3.0, 4.0, 10.0, 20.0]))
# a whole rank: linear == kthvalue(rank + 1)
for q in (0.0, 0.25, 0.5, 0.75, 1.0):
    k = round(q * (n - 1)) + 1
    assert torch.quantile(y, q) == torch.kthvalue(y, k).values, q
# a rank between two values: linear interpolates, kthvalue does not
assert math.isclose(torch.quantile(y, 0.6).item(), 4 + 0.4 * (10 - 4), rel_tol=1e-6)
assert torch.kthvalue(y, 3).values == 4 and torch.quantile(y, 0.6) != 4
# lower always matches kthvalue(floor(rank) + 1), higher kthvalue(ceil(rank) + 1)
z = torch.randn(101)
for q in (0.125, 0.375, 0.5625, 0.9375):  # exact in float32 and float64
    rank = q * (z.numel() - 1)
    lo = torch.kthvalue(z, math.floor(rank) + 1).values
    hi = torch.kthvalue(z, math.ceil(rank) + 1).values
    assert torch.quantile(z, q, interpolation="lower") == lo, q
    assert torch.quantile(z, q, interpolation="higher") == hi, q
    # and linear is the straight line between them
    expected = lo + (rank - math.floor(rank)) * (hi - lo)
    assert torch.allclose(torch.quantile(z, q), expected, atol=1e-6), q
