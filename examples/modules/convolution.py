# %% [markdown]
# kernel_size, stride, padding and dilation of nn.Conv1d on a tiny input
# with a kernel of ones, so every output is a plain sum of input values; then
# nn.AvgPool2d vs nn.AdaptiveAvgPool2d, and global average pooling

# %% [markdown] lang="zh"
# `nn.Conv1d` 的 `kernel_size`、`stride`、`padding` 和 `dilation`：
# 在很小的输入上使用全 1 的卷积核，每个输出都只是若干输入值的简单求和；
# 然后是 `nn.AvgPool2d` 与 `nn.AdaptiveAvgPool2d` 的区别，以及全局平均池化

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

# %% avg-pool
pool = nn.AvgPool2d(kernel_size=2)  # stride defaults to kernel_size
for size in [(8, 8), (12, 16)]:
    x = torch.randn(1, 3, *size)  # (batch, channels, height, width)
    print(tuple(x.shape), "->", tuple(pool(x).shape))

# %% avg-pool-checks tags=["remove-cell"]
assert pool.stride == 2
assert pool(torch.randn(1, 3, 8, 8)).shape == (1, 3, 4, 4)
assert pool(torch.randn(1, 3, 12, 16)).shape == (1, 3, 6, 8)
x = torch.randn(1, 3, 9, 9)
assert pool(x).shape == (1, 3, 4, 4)  # the last row and column left out
x = torch.arange(16.0).reshape(1, 1, 4, 4)
assert torch.equal(pool(x), torch.tensor([[[[2.5, 4.5], [10.5, 12.5]]]]))

# %% adaptive-pool
pool = nn.AdaptiveAvgPool2d(output_size=(2, 2))
for size in [(8, 8), (12, 16)]:
    x = torch.randn(1, 3, *size)
    print(tuple(x.shape), "->", tuple(pool(x).shape))

# %% adaptive-pool-checks tags=["remove-cell"]
for size in [(8, 8), (12, 16), (5, 7), (2, 2), (1, 1), (100, 3)]:
    assert pool(torch.randn(1, 3, *size)).shape == (1, 3, 2, 2)
# where the size divides evenly, the windows are an AvgPool2d's
x = torch.randn(1, 3, 12, 16)
assert torch.allclose(pool(x), nn.AvgPool2d((6, 8))(x))

# %% adaptive-windows
x = torch.arange(5.0).reshape(1, 1, 5)  # (batch, channels, length)
print(nn.AdaptiveAvgPool1d(2)(x))  # mean of 0, 1, 2 and of 2, 3, 4

# %% adaptive-windows-checks tags=["remove-cell"]
import math


def adaptive_windows(length, out):
    return [(i * length // out, math.ceil((i + 1) * length / out)) for i in range(out)]


assert adaptive_windows(5, 2) == [(0, 3), (2, 5)]  # position 2 is in both
assert torch.equal(nn.AdaptiveAvgPool1d(2)(x), torch.tensor([[[1.0, 3.0]]]))
for length in range(1, 12):
    x = torch.randn(1, 1, length)
    for out in range(1, 6):
        means = [x[0, 0, a:b].mean() for a, b in adaptive_windows(length, out)]
        assert torch.allclose(nn.AdaptiveAvgPool1d(out)(x)[0, 0], torch.stack(means))

# %% global-pool
x = torch.randn(2, 8, 7, 7)
pool = nn.AdaptiveAvgPool2d(1)  # output_size=1: a 1x1 map per channel
print(pool(x).shape)
print(torch.allclose(pool(x), x.mean(dim=(2, 3), keepdim=True)))

# %% global-pool-checks tags=["remove-cell"]
assert pool(x).shape == (2, 8, 1, 1)
assert pool.output_size == 1
for size in [(7, 7), (1, 1), (13, 5)]:
    x = torch.randn(2, 8, *size)
    assert torch.allclose(pool(x), x.mean(dim=(2, 3), keepdim=True))
    assert torch.equal(nn.AdaptiveMaxPool2d(1)(x), x.amax(dim=(2, 3), keepdim=True))

# %% any-size
model = nn.Sequential(
    nn.Conv2d(3, 8, kernel_size=3, padding=1),
    nn.ReLU(),
    nn.AdaptiveAvgPool2d(1),  # (N, 8, H, W) -> (N, 8, 1, 1)
    nn.Flatten(),  # (N, 8)
    nn.Linear(8, 10),  # 10 classes
)
for size in [(32, 32), (45, 60)]:
    x = torch.randn(2, 3, *size)
    print(tuple(x.shape), "->", tuple(model(x).shape))

# %% any-size-checks tags=["remove-cell"]
for size in [(32, 32), (45, 60), (1, 1), (224, 224)]:
    assert model(torch.randn(2, 3, *size)).shape == (2, 10)
# without the pooling, the Linear layer fixes the image size
fixed = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.Flatten(),
                      nn.Linear(8 * 32 * 32, 10))
assert fixed(torch.randn(2, 3, 32, 32)).shape == (2, 10)
try:
    fixed(torch.randn(2, 3, 45, 60))
except RuntimeError as error:
    assert "cannot be multiplied" in str(error)
else:
    raise AssertionError("a Linear layer took a flattened map of another size")

# %% transpose-sizes
down = nn.Conv2d(1, 1, kernel_size=3, stride=2, padding=1)
for size in (7, 8):
    x = torch.randn(1, 1, size, size)
    print(size, "->", down(x).shape[-1])  # both give 4
up = nn.ConvTranspose2d(1, 1, kernel_size=3, stride=2, padding=1)
z = torch.randn(1, 1, 4, 4)
print(4, "->", up(z).shape[-1])  # 7: which size did the 4 come from?

# %% transpose-sizes-checks tags=["remove-cell"]
assert down(torch.randn(1, 1, 7, 7)).shape == (1, 1, 4, 4)
assert down(torch.randn(1, 1, 8, 8)).shape == (1, 1, 4, 4)
assert up(z).shape == (1, 1, 7, 7)
assert up.output_padding == (0, 0)  # the default

# %% transpose-output-padding
up_8 = nn.ConvTranspose2d(1, 1, kernel_size=3, stride=2, padding=1,
                          output_padding=1)
print(up_8(z).shape[-1])  # one more row and column: 8
print(up(z, output_size=(8, 8)).shape[-1])  # or ask for 8 in the call
print(up(z, output_size=(7, 7)).shape[-1])

# %% transpose-output-padding-checks tags=["remove-cell"]
assert up_8(z).shape == (1, 1, 8, 8)
assert up(z, output_size=(8, 8)).shape == (1, 1, 8, 8)
assert up(z, output_size=[1, 1, 8, 8]).shape == (1, 1, 8, 8)  # a full shape
assert up(z, output_size=(7, 7)).shape == (1, 1, 7, 7)
# the same weights: output_size only sets output_padding for this call
up_8.load_state_dict(up.state_dict())
assert torch.equal(up_8(z), up(z, output_size=(8, 8)))
assert torch.equal(up_8(z)[..., :7, :7], up(z))  # the extra row and column
try:
    up(z, output_size=(9, 9))  # beyond what output_padding can reach
except ValueError as error:
    assert "valid sizes range from" in str(error)
else:
    raise AssertionError("ConvTranspose2d gave an output size it cannot reach")

# %% transpose-formula
def transpose_len(length, k, stride=1, padding=0, dilation=1,
                  output_padding=0):
    return ((length - 1) * stride - 2 * padding + dilation * (k - 1)
            + output_padding + 1)


for k, s, p, d, op in [(3, 2, 1, 1, 0), (3, 2, 1, 1, 1), (4, 2, 1, 1, 0),
                       (2, 2, 0, 1, 0), (3, 3, 0, 2, 2), (5, 1, 2, 1, 0)]:
    up = nn.ConvTranspose2d(1, 1, k, stride=s, padding=p, dilation=d,
                            output_padding=op)
    size = up(z).shape[-1]
    assert size == transpose_len(4, k, s, p, d, op)
    print(f"k={k} s={s} p={p} d={d} output_padding={op}: 4 -> {size}")

# %% transpose-formula-checks tags=["remove-cell"]
import itertools

for k, s, p, d in itertools.product((1, 2, 3, 4), (1, 2, 3), (0, 1, 2),
                                    (1, 2)):
    for op in range(max(s, d)):  # smaller than stride or dilation
        up = nn.ConvTranspose1d(1, 1, k, stride=s, padding=p, dilation=d,
                                output_padding=op)
        length = transpose_len(5, k, s, p, d, op)
        if length < 1:
            continue
        assert up(torch.randn(1, 1, 5)).shape[-1] == length
        # the inverse of Conv1d's size: back to where it came from
        conv = nn.Conv1d(1, 1, k, stride=s, padding=p, dilation=d)
        if op < s:
            assert conv(torch.randn(1, 1, length)).shape[-1] == 5
for k, s, p, d, op in [(3, 2, 1, 1, 0), (3, 2, 1, 1, 1), (4, 2, 1, 1, 0),
                       (2, 2, 0, 1, 0), (5, 1, 2, 1, 0)]:  # op < s: Conv2d too
    size = transpose_len(4, k, s, p, d, op)
    conv = nn.Conv2d(1, 1, k, stride=s, padding=p, dilation=d)
    assert conv(torch.randn(1, 1, size, size)).shape == (1, 1, 4, 4)
# stride 2, kernel 4, padding 1: exactly doubles, no output_padding needed
assert nn.ConvTranspose2d(1, 1, 4, stride=2, padding=1)(z).shape == \
    (1, 1, 8, 8)

# %% transpose-output-padding-error raises="RuntimeError: output padding must be smaller than either stride or dilation"
nn.ConvTranspose2d(1, 1, kernel_size=3, stride=2, output_padding=2)(z)

# %% upsample-vs-transpose
x = torch.randn(1, 16, 8, 8)  # a decoder's feature map: 16 channels, 8x8
decoders = {
    "Upsample + Conv2d(k=3)": nn.Sequential(
        nn.Upsample(scale_factor=2, mode="nearest"),
        nn.Conv2d(16, 8, kernel_size=3, padding=1),
    ),
    "ConvTranspose2d(k=3)": nn.ConvTranspose2d(
        16, 8, kernel_size=3, stride=2, padding=1, output_padding=1
    ),
    "ConvTranspose2d(k=4)": nn.ConvTranspose2d(
        16, 8, kernel_size=4, stride=2, padding=1
    ),
}
for name, block in decoders.items():
    count = sum(p.numel() for p in block.parameters())
    print(f"{name}: {tuple(block(x).shape)}, {count} parameters")

# %% upsample-vs-transpose-checks tags=["remove-cell"]
for block in decoders.values():
    assert block(x).shape == (1, 8, 16, 16)
counts = [sum(p.numel() for p in b.parameters()) for b in decoders.values()]
assert counts == [16 * 8 * 3 * 3 + 8, 16 * 8 * 3 * 3 + 8, 16 * 8 * 4 * 4 + 8]
# Upsample has no parameters; size= reaches any size, odd ones too
assert list(nn.Upsample(scale_factor=2).parameters()) == []
assert nn.Upsample(size=(7, 9))(torch.randn(1, 16, 4, 4)).shape == (1, 16, 7, 9)
# nearest upsampling repeats each pixel in a 2x2 block
small = torch.arange(4.0).reshape(1, 1, 2, 2)
assert torch.equal(
    nn.Upsample(scale_factor=2)(small),
    small.repeat_interleave(2, dim=2).repeat_interleave(2, dim=3),
)

# %% checkerboard
def overlap(block):
    # weights of ones, no bias: each output counts the taps that reach it
    for module in block.modules():
        if isinstance(module, (nn.Conv2d, nn.ConvTranspose2d)):
            module.requires_grad_(False)
            module.weight.fill_(1.0)
            if module.bias is not None:
                module.bias.zero_()
    return block(torch.ones(1, 1, 4, 4))[0, 0].int()


print(overlap(nn.ConvTranspose2d(1, 1, kernel_size=3, stride=2, padding=1,
                                 output_padding=1)))
print(overlap(nn.ConvTranspose2d(1, 1, kernel_size=4, stride=2, padding=1)))
print(overlap(nn.Sequential(nn.Upsample(scale_factor=2),
                            nn.Conv2d(1, 1, kernel_size=3, padding=1))))

# %% checkerboard-checks tags=["remove-cell"]
k3 = overlap(nn.ConvTranspose2d(1, 1, 3, stride=2, padding=1, output_padding=1))
row = torch.tensor([1, 2, 1, 2, 1, 2, 1, 1], dtype=torch.int32)
assert torch.equal(k3, torch.outer(row, row))  # 1, 2 and 4 alternate
assert torch.equal(k3[1:-1, 1:-1].unique(), torch.tensor([1, 2, 4],
                                                         dtype=torch.int32))
# without padding, the full output: the same alternation
full = overlap(nn.ConvTranspose2d(1, 1, 3, stride=2))
row = torch.tensor([1, 1, 2, 1, 2, 1, 2, 1, 1], dtype=torch.int32)
assert torch.equal(full, torch.outer(row, row))
# kernel 4, stride 2: even inside, only the border differs
k4 = overlap(nn.ConvTranspose2d(1, 1, 4, stride=2, padding=1))
assert (k4[1:-1, 1:-1] == 4).all()
assert k4[0, 0] == 1 and (k4[0, 1:-1] == 2).all()
# kernel 2, stride 2: no overlap at all
assert (overlap(nn.ConvTranspose2d(1, 1, 2, stride=2)) == 1).all()
# resize, then convolve: 9 everywhere inside, as a plain 3x3 convolution
up_conv = overlap(nn.Sequential(nn.Upsample(scale_factor=2),
                                nn.Conv2d(1, 1, 3, padding=1)))
assert (up_conv[1:-1, 1:-1] == 9).all()
assert up_conv[0, 0] == 4 and (up_conv[0, 1:-1] == 6).all()

# %% align-corners
import warnings

import torch.nn.functional as F

x = torch.arange(4.0).reshape(1, 1, 2, 2)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    y = F.interpolate(x, scale_factor=2, mode="bilinear")  # no align_corners
print(len(caught), "warnings")
y_false = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)
y_true = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True)
print(torch.equal(y, y_false), torch.equal(y, y_true))

with warnings.catch_warnings(record=True) as caught_upsample:
    warnings.simplefilter("always")
    y_old = F.upsample(x, scale_factor=2, mode="bilinear")  # the old name
for w in caught_upsample:
    print(f"{w.category.__name__}: {w.message}")

# %% align-corners-checks tags=["remove-cell"]
assert caught == []
assert torch.equal(y, y_false) and not torch.equal(y, y_true)
# nn.Upsample and nn.UpsamplingBilinear2d warn neither
with warnings.catch_warnings(record=True) as quiet:
    warnings.simplefilter("always")
    y_module = nn.Upsample(scale_factor=2, mode="bilinear")(x)
    y_bilinear2d = nn.UpsamplingBilinear2d(scale_factor=2)(x)
assert quiet == []
assert torch.equal(y_module, y_false)
assert torch.equal(y_bilinear2d, y_true)  # this one aligns the corners
assert len(caught_upsample) == 1
assert caught_upsample[0].category is UserWarning
message = str(caught_upsample[0].message)
assert "upsample" in message and "deprecated" in message
assert "interpolate" in message
assert torch.equal(y_old, y_false)  # the same result as interpolate
for mode in ("nearest", "area", "nearest-exact"):  # no align_corners there
    try:
        F.interpolate(x, scale_factor=2, mode=mode, align_corners=False)
    except ValueError as error:
        assert "align_corners option can only be set" in str(error)
    else:
        raise AssertionError(f"{mode} took align_corners")

# %% align-corners-nearest raises="ValueError: align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear"
F.interpolate(x, scale_factor=2, mode="nearest", align_corners=False)

# %% recompute-scale-factor
x = torch.arange(5.0).reshape(1, 1, 5)  # one row of 5 values
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    y = F.interpolate(x, scale_factor=1.5, mode="linear")
print(len(caught), "warnings")
y_recomputed = F.interpolate(
    x, scale_factor=1.5, mode="linear", recompute_scale_factor=True
)
print(y.shape, y_recomputed.shape)  # floor(5 * 1.5) = 7
print(y.round(decimals=3))
print(y_recomputed.round(decimals=3))
print(torch.equal(y_recomputed, F.interpolate(x, size=7, mode="linear")))

# %% recompute-scale-factor-checks tags=["remove-cell"]
import inspect
import math

assert caught == []
assert y.shape == y_recomputed.shape == (1, 1, 7)
# unset is the same as False: the scale factor is used as given
assert torch.equal(
    y, F.interpolate(x, scale_factor=1.5, mode="linear", recompute_scale_factor=False)
)
assert not torch.equal(y, y_recomputed)
# given 1.5, the last output falls short of the last input; 5/7 reaches it
assert y[0, 0, -1] < 4 and y_recomputed[0, 0, -1] == 4
assert torch.equal(y_recomputed, F.interpolate(x, size=7, mode="linear"))
# both settings give floor(size * scale), and warn of nothing
with warnings.catch_warnings(record=True) as caught_sizes:
    warnings.simplefilter("always")
    for n in (5, 7, 10, 33):
        for scale in (0.3, 1.5, 2.7):
            for mode in ("nearest", "bilinear"):
                image = torch.zeros(1, 1, n, n)
                for recompute in (None, False, True):
                    out = F.interpolate(image, scale_factor=scale, mode=mode,
                                        recompute_scale_factor=recompute)
                    assert out.shape[-2:] == (math.floor(n * scale),) * 2
            up = nn.Upsample(scale_factor=scale, mode="bilinear")(image)
            assert up.shape[-1] == math.floor(n * scale)
assert caught_sizes == []
assert "recompute_scale_factor" in inspect.signature(nn.Upsample).parameters
# with a size, recompute_scale_factor=True is an error
try:
    F.interpolate(x, size=7, recompute_scale_factor=True)
except ValueError as error:
    assert "recompute_scale_factor is not meaningful with an explicit size" \
        in str(error)
else:
    raise AssertionError("size with recompute_scale_factor=True should fail")

# %% groups-shapes
import torch.nn.functional as F

for groups in (1, 2, 4):
    conv = nn.Conv2d(4, 8, 3, groups=groups)
    n = sum(p.numel() for p in conv.parameters())
    print(groups, tuple(conv.weight.shape), n)

# %% groups-shapes-checks tags=["remove-cell"]
for groups, shape, n in ((1, (8, 4, 3, 3), 296), (2, (8, 2, 3, 3), 152),
                         (4, (8, 1, 3, 3), 80)):
    conv = nn.Conv2d(4, 8, 3, groups=groups)
    assert tuple(conv.weight.shape) == shape  # (out, in / groups, k, k)
    assert sum(p.numel() for p in conv.parameters()) == n == 8 * 4 // groups * 9 + 8

# %% depthwise
torch.manual_seed(0)
x = torch.randn(1, 3, 6, 6)
depthwise = nn.Conv2d(3, 3, 3, padding=1, groups=3, bias=False)
y = depthwise(x)
# the same thing, one channel at a time with its own 1-channel kernel
parts = [F.conv2d(x[:, c:c + 1], depthwise.weight[c:c + 1], padding=1)
         for c in range(3)]
print(tuple(depthwise.weight.shape))
print(torch.allclose(y, torch.cat(parts, dim=1), atol=1e-6))

# %% depthwise-checks tags=["remove-cell"]
assert tuple(depthwise.weight.shape) == (3, 1, 3, 3)
assert torch.allclose(y, torch.cat(parts, dim=1), atol=1e-6)
# out = in * 2: each input channel gets two kernels, outputs grouped by channel
mult = nn.Conv2d(3, 6, 3, padding=1, groups=3, bias=False)
ym = mult(x)
for c in range(3):
    ref = F.conv2d(x[:, c:c + 1], mult.weight[2 * c:2 * c + 2], padding=1)
    assert torch.allclose(ym[:, 2 * c:2 * c + 2], ref, atol=1e-6)

# %% separable
def count(module):
    return sum(p.numel() for p in module.parameters())


full = nn.Conv2d(32, 64, 3, padding=1)
separable = nn.Sequential(
    # depthwise: one 3x3 per channel
    nn.Conv2d(32, 32, 3, padding=1, groups=32),
    nn.Conv2d(32, 64, 1),  # pointwise: mixes the channels
)
x = torch.randn(1, 32, 8, 8)
print(full(x).shape, separable(x).shape)
print(count(full), count(separable))

# %% separable-checks tags=["remove-cell"]
assert full(x).shape == separable(x).shape == (1, 64, 8, 8)
assert count(full) == 64 * 32 * 9 + 64 == 18496
assert count(separable) == 32 * 9 + 32 + 64 * 32 + 64 == 2432

# %% groups-in-channels raises="ValueError: in_channels must be divisible by groups"
nn.Conv2d(6, 8, 3, groups=4)

# %% groups-out-channels raises="ValueError: out_channels must be divisible by groups"
nn.Conv2d(4, 6, 3, groups=4)

# %% unfold
import torch.nn.functional as F

img = torch.arange(16.0).reshape(1, 1, 4, 4)  # (N, C, H, W)
patches = F.unfold(img, kernel_size=2, stride=2)
print(patches.shape)  # (N, C * 2 * 2, L): one column per patch
print(patches[0, :, 0])  # the top-left patch, flattened

# %% unfold-checks tags=["remove-cell"]
assert patches.shape == (1, 4, 4)
assert torch.equal(patches[0, :, 0], torch.tensor([0.0, 1.0, 4.0, 5.0]))
assert torch.equal(patches[0, :, 3], torch.tensor([10.0, 11.0, 14.0, 15.0]))

# %% tensor-unfold
grid = img.unfold(2, 2, 2).unfold(3, 2, 2)  # (N, C, rows, cols, 2, 2)
print(grid.shape)
# (N, L, C, k, k): one small image per patch
print(grid.permute(0, 2, 3, 1, 4, 5).reshape(1, 4, 1, 2, 2)[0, 0])

# %% tensor-unfold-checks tags=["remove-cell"]
assert grid.shape == (1, 1, 2, 2, 2, 2)
per_patch = grid.permute(0, 2, 3, 1, 4, 5).reshape(1, 4, 1, 2, 2)
# the same patches, in the same order, as F.unfold's columns
assert torch.equal(per_patch.reshape(1, 4, 4).transpose(1, 2), patches)

# %% fold
print(torch.equal(F.fold(patches, (4, 4), kernel_size=2, stride=2), img))

# %% fold-checks tags=["remove-cell"]
assert torch.equal(F.fold(patches, (4, 4), kernel_size=2, stride=2), img)
# overlapping patches are summed where they overlap, not averaged
overlap = F.fold(F.unfold(img, 2, stride=1), (4, 4), 2, stride=1)
assert overlap[0, 0, 1, 1] == 4 * img[0, 0, 1, 1]

# %% conv-as-matmul
torch.manual_seed(0)
x = torch.randn(1, 2, 6, 6)
w = torch.randn(5, 2, 3, 3)  # 5 filters of 2 channels, 3x3
columns = F.unfold(x, 3)  # (1, 2 * 3 * 3, 16): every 3x3 window
out = (w.view(5, -1) @ columns).view(1, 5, 4, 4)
print(torch.allclose(out, F.conv2d(x, w), atol=1e-5))

# %% conv-as-matmul-checks tags=["remove-cell"]
assert columns.shape == (1, 18, 16)
assert torch.allclose(out, F.conv2d(x, w), atol=1e-5)
# a ViT patch embedding: a linear layer on 16 non-overlapping patches
proj = torch.nn.Linear(2 * 3 * 3, 8)
tokens = proj(F.unfold(torch.randn(1, 2, 12, 12), 3, stride=3).transpose(1, 2))
assert tokens.shape == (1, 16, 8)

# %% pool-no-named-warning
import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    y = F.max_pool2d(torch.randn(1, 1, 4, 4), 2)
print(y.shape, len(caught))  # no warning

# %% pool-no-named-warning-checks tags=["remove-cell"]
assert y.shape == (1, 1, 2, 2) and not caught
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    nn.MaxPool2d(2)(torch.randn(1, 1, 4, 4))
    nn.AdaptiveMaxPool2d(1)(torch.randn(1, 1, 4, 4))
assert not caught

# %% same-strided raises="ValueError: padding='same' is not supported for strided convolutions"
nn.Conv2d(1, 1, kernel_size=3, stride=2, padding="same")

# %% same-strided-checks tags=["remove-cell"]
for conv_type in (nn.Conv1d, nn.Conv2d, nn.Conv3d):
    try:
        conv_type(1, 1, 3, stride=2, padding="same")
    except ValueError as error:
        assert "not supported for strided convolutions" in str(error)
    else:
        raise AssertionError(f"{conv_type.__name__} took a stride with 'same'")
# strided: a number instead; kernel 3, stride 2, padding 1 gives ceil(L / 2)
for length in range(3, 12):
    out = nn.Conv1d(1, 1, 3, stride=2, padding=1)(torch.randn(1, 1, length))
    assert out.shape[-1] == math.ceil(length / 2)

# %% same-even-kernel
x = torch.arange(10.0).reshape(1, 1, 10)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    y = ones_conv(4, padding="same")(x)  # an even kernel
for w in caught:
    message = str(w.message).split(" (Triggered")[0]  # drop the C++ source line
    print(f"{w.category.__name__}: {message}")
print(y)

# %% same-even-kernel-checks tags=["remove-cell"]
assert len(caught) == 1 and caught[0].category is UserWarning
assert str(caught[0].message).startswith(
    "Using padding='same' with even kernel lengths and odd dilation may require"
    " a zero-padded copy of the input be created"
)
assert y.shape == x.shape
# a window of 4 from x[i - 1] to x[i + 2]: one zero before, two after
assert torch.equal(y, torch.tensor([[[3.0, 6, 10, 14, 18, 22, 26, 30, 24, 17]]]))
# once per process: a second layer does not warn again
with warnings.catch_warnings(record=True) as again:
    warnings.simplefilter("always")
    ones_conv(2, padding="same")(x)
assert again == []

# %% same-even-pad
plain = ones_conv(4)  # the same weights, padding=0
with warnings.catch_warnings(record=True) as caught_pad:
    warnings.simplefilter("always")
    right = plain(F.pad(x, (1, 2)))  # 1 zero on the left, 2 on the right
left = plain(F.pad(x, (2, 1)))  # 2 on the left, 1 on the right
print(torch.equal(y, right), torch.equal(y, left))

# %% same-even-pad-checks tags=["remove-cell"]
assert torch.equal(y, right) and not torch.equal(y, left)
assert caught_pad == []
# F.pad returns a new, longer tensor: a padded copy of the input
padded = F.pad(x, (1, 2))
assert padded.shape[-1] == 13 and padded.data_ptr() != x.data_ptr()
# every even kernel: (k - 1) // 2 on the left, the rest on the right;
# in 2-D the same for height and width: more at the bottom and the right
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the warning is the cell's above
    for k in (2, 4, 6):
        total = k - 1
        lo, hi = total // 2, total - total // 2
        assert torch.equal(ones_conv(k, padding="same")(x),
                           ones_conv(k)(F.pad(x, (lo, hi))))
        image = torch.randn(1, 2, 7, 9)
        conv2d = nn.Conv2d(2, 3, kernel_size=k, padding="same")
        same = conv2d(image)
        by_hand = F.conv2d(F.pad(image, (lo, hi, lo, hi)), conv2d.weight,
                           conv2d.bias)
        assert torch.allclose(same, by_hand, atol=1e-6)
        assert same.shape[-2:] == image.shape[-2:]
# odd kernels, or an even kernel with an even dilation: the same on both sides
for k, d in ((3, 1), (5, 1), (3, 2), (4, 2)):
    half = d * (k - 1) // 2
    assert torch.equal(ones_conv(k, dilation=d, padding="same")(x),
                       ones_conv(k, dilation=d, padding=half)(x))

# %% ceil-mode
x = torch.arange(1.0, 6.0).reshape(1, 1, 5)  # length 5
pool = nn.MaxPool1d(kernel_size=2, stride=2, padding=1, ceil_mode=True)
print(pool(x))
# the documented formula, rounded up: (5 + 2*1 - 1*(2 - 1) - 1) / 2 + 1
print(math.ceil((5 + 2 * 1 - 1 * (2 - 1) - 1) / 2 + 1))

# %% ceil-mode-checks tags=["remove-cell"]
assert torch.equal(pool(x), torch.tensor([[[1.0, 3.0, 5.0]]]))
assert pool(x).shape[-1] == 3
assert math.ceil((5 + 2 - 1 - 1) / 2 + 1) == 4
# without ceil_mode the same layer also gives 3
assert nn.MaxPool1d(2, 2, padding=1)(x).shape[-1] == 3
# the windows hold (pad, 1), (2, 3), (4, 5): their maxima are inputs 0, 2, 4
_, where = nn.MaxPool1d(2, 2, padding=1, ceil_mode=True, return_indices=True)(x)
assert where.tolist() == [[[0, 2, 4]]]
# the fourth window would start at position 6 of the padded input (0-based):
# the right padding, since 5 inputs + 1 zero of left padding end at 6
padded = F.pad(x, (1, 1), value=float("-inf"))
assert padded.shape[-1] == 7 and padded[0, 0, 6] == float("-inf")

# %% pool-out
def pool_out(length, k, stride, padding=0, dilation=1, ceil_mode=False):
    span = length + 2 * padding - dilation * (k - 1) - 1
    out = (span + (stride - 1 if ceil_mode else 0)) // stride + 1
    # a last window that would start in the right padding is dropped
    if ceil_mode and (out - 1) * stride >= length + padding:
        out -= 1
    return out


print("k s p  ceil_mode    L =", *range(4, 10))
for k, s, p in [(2, 2, 0), (2, 2, 1), (3, 2, 1)]:
    for ceil_mode in (False, True):
        row = []
        for length in range(4, 10):
            pool = nn.MaxPool1d(k, s, padding=p, ceil_mode=ceil_mode)
            out = pool(torch.zeros(1, 1, length)).shape[-1]
            assert out == pool_out(length, k, s, p, ceil_mode=ceil_mode)
            row.append(out)
        print(f"{k} {s} {p}  {ceil_mode!s:<5}      out =", *row)

# %% pool-out-checks tags=["remove-cell"]
# the helper matches MaxPool1d and AvgPool1d over a grid, dilation included
for length, k, s, p, d in itertools.product(
    range(1, 13), range(1, 5), range(1, 5), range(3), range(1, 3)
):
    if p > k // 2 or d * (k - 1) + 1 > length + 2 * p:
        continue  # settings the layers refuse
    for ceil_mode in (False, True):
        got = nn.MaxPool1d(k, s, p, d, ceil_mode=ceil_mode)(
            torch.zeros(1, 1, length)).shape[-1]
        assert got == pool_out(length, k, s, p, d, ceil_mode), (length, k, s, p, d)
        if d == 1:
            got = nn.AvgPool1d(k, s, p, ceil_mode=ceil_mode)(
                torch.zeros(1, 1, length)).shape[-1]
            assert got == pool_out(length, k, s, p, 1, ceil_mode)
# the table's values: for k=2, s=2, padding=1, ceil_mode changes nothing
assert [pool_out(n, 2, 2, 1, ceil_mode=True) for n in range(4, 10)] \
    == [3, 3, 4, 4, 5, 5] == [pool_out(n, 2, 2, 1) for n in range(4, 10)]
assert [pool_out(n, 2, 2, 0, ceil_mode=True) for n in range(4, 10)] \
    == [2, 3, 3, 4, 4, 5]
assert [pool_out(n, 2, 2, 0) for n in range(4, 10)] == [2, 2, 3, 3, 4, 4]
# k=2, s=2: without padding ceil_mode adds one output at odd lengths only;
# with padding=1 it changes nothing at any length
for n in range(2, 60):
    no_pad = [nn.MaxPool1d(2, 2, ceil_mode=c)(torch.zeros(1, 1, n)).shape[-1]
              for c in (False, True)]
    assert no_pad[1] - no_pad[0] == n % 2
    pad = [nn.MaxPool1d(2, 2, 1, ceil_mode=c)(torch.zeros(1, 1, n)).shape[-1]
           for c in (False, True)]
    assert pad[0] == pad[1]
assert [pool_out(n, 3, 2, 1, ceil_mode=True) for n in range(4, 10)] \
    == [3, 3, 4, 4, 5, 5]
assert [pool_out(n, 3, 2, 1) for n in range(4, 10)] == [2, 3, 3, 4, 4, 5]
# the plain ceil formula without the rule overcounts (2, 2, 1) at odd lengths
assert math.ceil((7 + 2 - 1 - 1) / 2 + 1) == 5 != pool_out(7, 2, 2, 1, ceil_mode=True)
# in 2-D each dimension follows the same rule
pool2d = nn.MaxPool2d(2, 2, padding=1, ceil_mode=True)
assert pool2d(torch.zeros(1, 1, 5, 6)).shape[-2:] == (
    pool_out(5, 2, 2, 1, ceil_mode=True), pool_out(6, 2, 2, 1, ceil_mode=True)
) == (3, 4)

# %% pixel-shuffle
x = torch.arange(8.0).reshape(1, 8, 1, 1)  # 8 = 2 channels * 2**2
y = nn.PixelShuffle(2)(x)
print(tuple(x.shape), "->", tuple(y.shape))
print(y)
features = torch.randn(1, 12, 5, 7)  # (N, C * r**2, H, W) with C=3, r=2
print(tuple(F.pixel_shuffle(features, 2).shape))  # (N, C, H * r, W * r)

# %% pixel-shuffle-checks tags=["remove-cell"]
assert y.shape == (1, 2, 2, 2)
assert torch.equal(y[0, 0], torch.tensor([[0.0, 1.0], [2.0, 3.0]]))
assert torch.equal(y[0, 1], torch.tensor([[4.0, 5.0], [6.0, 7.0]]))
assert F.pixel_shuffle(features, 2).shape == (1, 3, 10, 14)
# output[c, h*r + i, w*r + j] = input[c*r*r + i*r + j, h, w]
out = F.pixel_shuffle(features, 2)
for c, i, j in itertools.product(range(3), range(2), range(2)):
    assert torch.equal(out[0, c, i::2, j::2], features[0, c * 4 + i * 2 + j])
# no parameters: a rearrangement only
assert list(nn.PixelShuffle(2).parameters()) == []

# %% pixel-shuffle-error raises="RuntimeError: pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but input.size(-3)=3 is not divisible by 4"
nn.PixelShuffle(2)(torch.randn(1, 3, 8, 8))  # 3 channels, r = 2

# %% pixel-shuffle-conv
r = 2
upsample = nn.Sequential(
    nn.Conv2d(16, 3 * r**2, kernel_size=3, padding=1),  # out_channels * r**2
    nn.PixelShuffle(r),
)
features = torch.randn(1, 16, 8, 8)
print(tuple(upsample[0](features).shape), tuple(upsample(features).shape))

# %% pixel-shuffle-conv-checks tags=["remove-cell"]
assert upsample[0](features).shape == (1, 12, 8, 8)
assert upsample(features).shape == (1, 3, 16, 16)
for factor in (2, 3, 4):
    block = nn.Sequential(nn.Conv2d(16, 5 * factor**2, 1), nn.PixelShuffle(factor))
    assert block(features).shape == (1, 5, 8 * factor, 8 * factor)

# %% pixel-unshuffle
image = torch.randn(1, 3, 8, 8)
down = F.pixel_unshuffle(image, 2)  # (C, H * r, W * r) -> (C * r**2, H, W)
print(tuple(image.shape), "->", tuple(down.shape))
print(torch.equal(F.pixel_shuffle(down, 2), image))

# %% pixel-unshuffle-checks tags=["remove-cell"]
assert down.shape == (1, 12, 4, 4)
assert torch.equal(F.pixel_shuffle(down, 2), image)
assert torch.equal(nn.PixelUnshuffle(2)(image), down)
# the height and width must be divisible by the factor
try:
    F.pixel_unshuffle(torch.randn(1, 3, 5, 8), 2)
except RuntimeError as error:
    assert "pixel_unshuffle expects height to be divisible by downscale_factor" \
        in str(error)
else:
    raise AssertionError("pixel_unshuffle took an odd height")
try:
    F.pixel_unshuffle(torch.randn(1, 3, 8, 5), 2)
except RuntimeError as error:
    assert "pixel_unshuffle expects width to be divisible by downscale_factor" \
        in str(error)
else:
    raise AssertionError("pixel_unshuffle took an odd width")
