# %% [markdown]
# kernel_size, stride, padding and dilation of nn.Conv1d on a tiny input
# with a kernel of ones, so every output is a plain sum of input values

# %% [markdown] lang="zh"
# `nn.Conv1d` 的 `kernel_size`、`stride`、`padding` 和 `dilation`：
# 在很小的输入上使用全 1 的卷积核，每个输出都只是若干输入值的简单求和

# %% setup
import torch
from torch import nn

x = torch.arange(10.0).reshape(1, 1, 10)  # (batch, channels, length)


def ones_conv(kernel_size, **kwargs):
    conv = nn.Conv1d(1, 1, kernel_size, bias=False, **kwargs)
    with torch.no_grad():
        conv.weight.fill_(1.0)
    # fixed weights: no grad_fn in the printouts
    return conv.requires_grad_(False)


print(x)

# %% kernel
y = ones_conv(3)(x)
print(y)  # 0+1+2, 1+2+3, ...

# %% stride
y = ones_conv(3, stride=2)(x)
print(y)  # windows start at 0, 2, 4, 6

# %% padding
y = ones_conv(3, padding=1)(x)
print(y)  # a zero on each side: 0+0+1, 0+1+2, ..., 8+9+0

# %% dilation
y = ones_conv(3, dilation=2)(x)
print(y)  # 0+2+4, 1+3+5, ...

# %% dilation-as-zeros
sparse = nn.Conv1d(1, 1, kernel_size=5, bias=False).requires_grad_(False)
with torch.no_grad():
    sparse.weight.copy_(torch.tensor([[[1.0, 0.0, 1.0, 0.0, 1.0]]]))
print(sparse(x))

# %% formula
def out_len(length, k, stride=1, padding=0, dilation=1):
    return (length + 2 * padding - dilation * (k - 1) - 1) // stride + 1


for k, s, p, d in [(3, 1, 0, 1), (3, 2, 0, 1), (3, 1, 1, 1), (3, 1, 0, 2),
                   (3, 2, 2, 3), (5, 3, 1, 2)]:
    conv = nn.Conv1d(1, 1, k, stride=s, padding=p, dilation=d)
    length = conv(x).shape[-1]
    assert length == out_len(10, k, s, p, d)
    print(f"k={k} s={s} p={p} d={d}: "
          f"effective kernel {d * (k - 1) + 1}, out {length}")

# %% same-padding
y = ones_conv(3, dilation=2, padding="same")(x)
print(y.shape, y)

# %% conv2d
conv = nn.Conv2d(1, 1, kernel_size=3, dilation=2)
print(conv(torch.randn(1, 1, 7, 7)).shape)

# %% receptive-field
def receptive_field(dilations):
    stack = nn.Sequential(*[ones_conv(3, dilation=d) for d in dilations])
    x = torch.zeros(1, 1, 32, requires_grad=True)
    stack(x)[0, 0, 0].backward()  # which inputs does the first output see?
    return int((x.grad != 0).sum())


print(receptive_field([1, 1, 1]), receptive_field([1, 2, 4]))

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
def sums(offsets, starts):
    return torch.tensor([[[float(sum(i + o for o in offsets if 0 <= i + o < 10))
                           for i in starts]]])


assert torch.equal(ones_conv(3)(x), sums([0, 1, 2], range(8)))
assert torch.equal(
    ones_conv(3)(x), torch.tensor([[[3.0, 6, 9, 12, 15, 18, 21, 24]]])
)
assert torch.equal(
    ones_conv(3, stride=2)(x), torch.tensor([[[3.0, 9, 15, 21]]])
)
assert torch.equal(
    ones_conv(3, padding=1)(x),
    torch.tensor([[[1.0, 3, 6, 9, 12, 15, 18, 21, 24, 17]]])
)
dilated = ones_conv(3, dilation=2)(x)
assert torch.equal(dilated, torch.tensor([[[6.0, 9, 12, 15, 18, 21]]]))
assert torch.equal(ones_conv(3, dilation=2)(x), sums([0, 2, 4], range(6)))
# dilation d is a kernel of size d*(k-1)+1 with zeros between the taps
assert torch.equal(sparse(x), ones_conv(3, dilation=2)(x))
for k, s, p, d in [
    (3, 1, 0, 1), (3, 2, 0, 1), (3, 1, 1, 1), (3, 1, 0, 2), (3, 2, 2, 3),
    (5, 3, 1, 2), (2, 1, 0, 4), (4, 2, 3, 3)
]:
    assert nn.Conv1d(1, 1, k, stride=s, padding=p, dilation=d)(x).shape[-1] \
        == out_len(10, k, s, p, d)
y = ones_conv(3, dilation=2, padding="same")(x)
assert y.shape == (1, 1, 10)
assert torch.equal(y, torch.tensor([[[2.0, 4, 6, 9, 12, 15, 18, 21, 14, 16]]]))
assert conv(torch.randn(1, 1, 7, 7)).shape == (1, 1, 3, 3)
assert receptive_field([1, 1, 1]) == 7 == 1 + 2 * (1 + 1 + 1)
assert receptive_field([1, 2, 4]) == 15 == 1 + 2 * (1 + 2 + 4)
assert receptive_field([1, 2, 4, 8]) == 31
assert receptive_field([1, 1, 1, 1]) == 9  # plain stacking: linear growth
try:
    nn.Conv1d(1, 1, 3, stride=2, padding="same")
except ValueError as error:
    assert "padding='same' is not supported for strided convolutions" \
        in str(error)
else:
    raise AssertionError("padding='same' should require stride=1")
