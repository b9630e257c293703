# %% [markdown]
# view never copies and needs compatible strides; reshape
# copies only when it must; squeeze without a dim removes
# every size-1 dimension, the batch one included

# %% [markdown] lang="zh"
# `view` 从不复制数据，但要求 stride 兼容；`reshape` 只在必要时才复制；
# 不带 `dim` 的 `squeeze` 会去掉所有大小为 1 的维度，batch 维也不例外

# %% view
import torch

x = torch.arange(6)
v = x.view(2, 3)
print(v)
print(x.view(3, -1))
v[0, 0] = 100
print(x)
print(v.data_ptr() == x.data_ptr())

# %% view-noncontiguous tags=["raises-exception"]
m = torch.arange(6).view(2, 3)
t = m.t()
print(t.is_contiguous())
t.view(6)

# %% view-strides
print(t.view(3, 2, 1).shape, t.view(3, 2, 1).data_ptr() == m.data_ptr())

# %% reshape
r1 = m.reshape(3, 2)
r2 = t.reshape(6)
print(r1.data_ptr() == m.data_ptr())
print(r2.data_ptr() == m.data_ptr(), r2)
print(torch.equal(r2, t.contiguous().view(6)))

# %% squeeze
x = torch.zeros(1, 3, 1, 4)
print(x.squeeze().shape)
print(x.squeeze(0).shape)
print(x.squeeze(1).shape)
print(x.squeeze((0, 2)).shape)

# %% squeeze-batch-setup
def predict(logits):
    # logits: (batch, 1, classes)
    return logits.squeeze().argmax(dim=1)


print(predict(torch.randn(4, 1, 10)).shape)

# %% squeeze-batch-bug tags=["raises-exception"]
predict(torch.randn(1, 1, 10))

# %% squeeze-batch-fix
def predict(logits):
    return logits.squeeze(1).argmax(dim=1)


print(
    predict(torch.randn(4, 1, 10)).shape, predict(torch.randn(1, 1, 10)).shape
)

# %% unsqueeze
x = torch.zeros(2, 3)
print(x.unsqueeze(0).shape, x.unsqueeze(1).shape, x.unsqueeze(-1).shape)
print(x[None].shape, x[:, None].shape)

# %% unsqueeze-inplace
y = x.unsqueeze(0)
print(x.shape, y.shape)
x.unsqueeze_(0)
print(x.shape)

# %% flatten
x = torch.zeros(8, 3, 4, 4)  # (batch, channels, height, width)
print(x.flatten().shape)
print(x.flatten(start_dim=1).shape)
print(x.flatten(0, 1).shape)
print(torch.nn.Flatten()(x).shape)

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
x = torch.arange(6)
v = x.view(2, 3)
assert torch.equal(v, torch.tensor([[0, 1, 2], [3, 4, 5]]))  # row by row
assert x.view(3, -1).shape == (3, 2)
v[0, 0] = 100
assert x[0] == 100 and v.data_ptr() == x.data_ptr()  # view shares, never copies

m = torch.arange(6).view(2, 3)
t = m.t()
assert m.is_contiguous() and not t.is_contiguous()
try:
    t.view(6)
except RuntimeError as error:
    assert "view size is not compatible" in str(error) \
        and ".reshape" in str(error)
else:
    raise AssertionError("view() of a transposed tensor should fail")
# strides allow it: still a view
assert t.view(3, 2, 1).data_ptr() == m.data_ptr()
# contiguous: reshape is a view
assert m.reshape(3, 2).data_ptr() == m.data_ptr()
r2 = t.reshape(6)
assert r2.data_ptr() != m.data_ptr()  # not contiguous: reshape copies
assert torch.equal(r2, torch.tensor([0, 3, 1, 4, 2, 5]))
r2[0] = -1
assert m[0, 0] == 0  # writing to the copy leaves m alone
assert torch.equal(t.contiguous().view(6), t.reshape(6))

x = torch.zeros(1, 3, 1, 4)
assert x.squeeze().shape == (3, 4)
assert x.squeeze(0).shape == (3, 1, 4)
assert x.squeeze(1).shape == x.shape  # size 3: no-op, no error
assert x.squeeze((0, 2)).shape == (3, 4)
assert torch.zeros(1, 1, 10).squeeze().shape == (10,)  # the batch dim is gone
try:
    torch.zeros(1, 1, 10).squeeze().argmax(dim=1)
except IndexError as error:
    assert "Dimension out of range" in str(error)
else:
    raise AssertionError("argmax(dim=1) of a 1-D tensor should fail")
assert predict(torch.randn(1, 1, 10)).shape == (1,)
assert predict(torch.randn(4, 1, 10)).shape == (4,)

x = torch.zeros(2, 3)
assert x.unsqueeze(0).shape == (1, 2, 3) and x.unsqueeze(1).shape == (2, 1, 3)
assert x.unsqueeze(-1).shape == (2, 3, 1)
assert x[None].shape == (1, 2, 3) and x[:, None].shape == (2, 1, 3)
y = x.unsqueeze(0)
assert x.shape == (2, 3)  # unsqueeze leaves x alone
assert y.data_ptr() == x.data_ptr()  # and returns a view of it
# unsqueeze_ changes x itself
assert x.unsqueeze_(0) is x and x.shape == (1, 2, 3)

x = torch.zeros(8, 3, 4, 4)
# both start at dim 0
assert x.flatten().shape == torch.flatten(x).shape == (384,)
assert x.flatten(start_dim=1).shape == (8, 48)
assert x.flatten(0, 1).shape == (24, 4, 4)
assert torch.nn.Flatten()(x).shape == (8, 48)  # nn.Flatten starts at dim 1
assert x.flatten(start_dim=1).data_ptr() == x.data_ptr()  # a view when it can
# a copy when it must
assert x.transpose(0, 1).flatten().data_ptr() != x.data_ptr()

# %% contiguous
x = torch.arange(24).view(2, 3, 4)  # (batch, channels, length)
y = x.permute(0, 2, 1)  # (batch, length, channels): a view, nothing moved
print(y.is_contiguous(), y.stride())
c = y.contiguous()  # copies the elements into row-major order
print(c.is_contiguous(), c.stride(), c.data_ptr() == x.data_ptr())
print(c.view(2, -1).shape)
print(x.contiguous() is x)  # already contiguous: x itself, no copy

# %% contiguous-checks tags=["remove-cell"]
assert y.data_ptr() == x.data_ptr() and y.stride() == (12, 1, 4)
assert torch.equal(c, y) and c.stride() == (12, 3, 1)
assert c.data_ptr() != x.data_ptr()
try:
    y.view(2, -1)
except RuntimeError as error:
    assert "view size is not compatible" in str(error)
else:
    raise AssertionError("view() of a permuted tensor should fail")
# reshape calls contiguous() for you when it must
assert torch.equal(y.reshape(2, -1), c.view(2, -1))
assert y.reshape(2, -1).data_ptr() != x.data_ptr()
assert x.contiguous() is x
c[0, 0, 0] = 100
assert x[0, 0, 0] == 0  # the copy is new memory

# %% transpose-permute
x = torch.arange(24).view(2, 3, 4)  # (batch, channels, length)
print(x.transpose(1, 2).shape)  # swaps two dimensions
print(x.permute(2, 0, 1).shape)  # every dimension, in its new order
print(torch.equal(x.transpose(1, 2), x.permute(0, 2, 1)))
y = x.permute(2, 0, 1)
print(y.data_ptr() == x.data_ptr(), y.is_contiguous())

# %% transpose-permute-checks tags=["remove-cell"]
assert x.transpose(1, 2).shape == (2, 4, 3) and y.shape == (4, 2, 3)
# two transposes make the same permutation
assert torch.equal(y, x.transpose(1, 2).transpose(0, 1))
assert torch.equal(x.transpose(1, 2), x.permute(0, 2, 1))
# views of the same memory, strides reordered, nothing copied
assert y.data_ptr() == x.data_ptr() and y.stride() == (1, 12, 4)
assert not y.is_contiguous() and not x.transpose(1, 2).is_contiguous()
assert torch.equal(x[0].t(), x[0].transpose(0, 1))  # t(): 2-D only

# %% permute-all-dims raises="RuntimeError: permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions"
x.permute(2, 0)

# %% permute-not-reshape
x = torch.tensor([[[1, 2, 3], [10, 20, 30]]])  # (batch, channels, length)
print(x.permute(0, 2, 1))  # (batch, length, channels)
print(x.reshape(1, 3, 2))  # the same shape, the elements in their old order

# %% permute-not-reshape-checks tags=["remove-cell"]
# permute: position i holds channel 0 and channel 1 of position i
assert torch.equal(x.permute(0, 2, 1)[0], torch.tensor([[1, 10], [2, 20], [3, 30]]))
# reshape and view keep the row-major order: the channels are mixed up
assert torch.equal(x.reshape(1, 3, 2), x.view(1, 3, 2))
assert torch.equal(x.reshape(1, 3, 2)[0], torch.tensor([[1, 2], [3, 10], [20, 30]]))

# %% T-3d
import textwrap
import warnings

x = torch.arange(24).reshape(2, 3, 4)  # a batch of two 3x4 matrices
torch.set_warn_always(True)  # PyTorch warns once per process otherwise
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    reversed_dims = x.T  # warns: reverses all three dimensions
torch.set_warn_always(False)
message = str(caught[0].message).split(" (Triggered")[0]  # no C++ file
print(textwrap.fill(message, 76, break_on_hyphens=False))
print(reversed_dims.shape)

# %% T-3d-checks tags=["remove-cell"]
assert len(caught) == 1 and caught[0].category is UserWarning
assert message.startswith(
    "The use of `x.T` on tensors of dimension other than 2 to reverse their "
    "shape is deprecated and it will throw an error in a future release."
)
assert "Consider `x.mT` to transpose batches of matrices" in message
assert reversed_dims.shape == (4, 3, 2)
assert torch.equal(reversed_dims, x.permute(2, 1, 0))

# %% T-3d-fix
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.set_warn_always(True)
    print(x.mT.shape)  # each matrix transposed: (2, 4, 3)
    print(torch.equal(x.mT, x.transpose(-2, -1)))
    print(x.permute(2, 1, 0).shape)  # all dimensions reversed, silently
    torch.set_warn_always(False)
print(len(caught))

# %% T-3d-fix-checks tags=["remove-cell"]
assert not caught, [str(w.message) for w in caught]
assert x.mT.shape == (2, 4, 3) and torch.equal(x.mT[1], x[1].T)
assert torch.equal(x.mT, x.transpose(-2, -1))
assert x.permute(2, 1, 0).shape == (4, 3, 2)
# a 1-D tensor warns too, and .T changes nothing there
torch.set_warn_always(True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    assert torch.arange(3).T.shape == (3,)
    assert x[0].T.shape == (4, 3)  # 2-D: a plain transpose
torch.set_warn_always(False)
assert len(caught) == 1 and "`x.T`" in str(caught[0].message)
