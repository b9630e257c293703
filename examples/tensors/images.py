# %% [markdown]
# Images as tensors: (H, W, C) to (C, H, W) with permute, a batch dimension,
# uint8 to float in [0, 1], per-channel mean and std of a dataset,
# normalising and undoing it for display, resizing with F.interpolate, and
# padding with F.pad; torch only, on small synthetic images

# %% [markdown] lang="zh"
# 图像张量：用 `permute` 把 (H, W, C) 换成 (C, H, W)，加上 batch 维，
# 把 `uint8` 换算成 [0, 1] 的浮点数，统计数据集每个通道的均值和标准差，
# 做标准化并在显示前还原，用 `F.interpolate` 缩放，用 `F.pad` 填充边缘；
# 只用 torch，图像是小的合成图像

# %% hwc
import torch

# a 2x3 RGB image as NumPy, PIL and OpenCV hold it: (height, width, channels)
red = torch.arange(6).reshape(2, 3)
img = torch.stack([red, red + 100, red + 200], dim=-1).to(torch.uint8)
print(img.shape)
chw = img.permute(2, 0, 1)  # (channels, height, width), as PyTorch wants
print(chw.shape)
print(chw)  # one plane per channel: red, green, blue
print(torch.equal(chw.permute(1, 2, 0), img))  # and back to (H, W, C)

# %% hwc-checks tags=["remove-cell"]
assert img.shape == (2, 3, 3) and img.dtype == torch.uint8
assert chw.shape == (3, 2, 3)
assert torch.equal(chw[0], red.to(torch.uint8))
assert torch.equal(chw[1], (red + 100).to(torch.uint8))
assert torch.equal(chw[2], (red + 200).to(torch.uint8))
assert torch.equal(chw.permute(1, 2, 0), img)
# permute copies nothing: a view of the same memory, not contiguous
assert chw.data_ptr() == img.data_ptr() and not chw.is_contiguous()
# from_numpy keeps NumPy's (H, W, C)
assert torch.from_numpy(img.numpy()).shape == (2, 3, 3)
# OpenCV's BGR to RGB: reverse the last dimension
bgr = img.flip(-1)
assert torch.equal(bgr[..., 0], img[..., 2]) and torch.equal(bgr.flip(-1), img)
assert torch.equal(img[..., [2, 1, 0]], bgr)

# %% reshape-scrambles
wrong = img.reshape(3, 2, 3)  # the right shape, the wrong pixels
print(wrong[0])  # "red" holds red, green and blue values
print("view too:", torch.equal(img.view(3, 2, 3), wrong))
print("same as permute:", torch.equal(wrong, chw))

# %% reshape-scrambles-checks tags=["remove-cell"]
assert wrong.shape == chw.shape
assert torch.equal(img.view(3, 2, 3), wrong)
assert not torch.equal(wrong, chw)
# the first "channel" mixes values of all three channels
assert {v // 100 for v in wrong[0].flatten().tolist()} == {0, 1, 2}
assert torch.equal(wrong.flatten(), img.flatten())  # the same order in memory
assert torch.equal(wrong[0], img[0, :2])  # the first two pixels, RGB each

# %% batch
batch = chw.unsqueeze(0)  # one image: a batch of 1
print(batch.shape)
print(torch.stack([chw, chw, chw]).shape)  # several images of one size

# %% batch-checks tags=["remove-cell"]
assert batch.shape == (1, 3, 2, 3)
assert torch.equal(batch[0], chw)
assert torch.stack([chw, chw, chw]).shape == (3, 3, 2, 3)
# a convolution also takes one (C, H, W) image without a batch dimension
conv = torch.nn.Conv2d(3, 4, kernel_size=1)
assert conv(chw.float()).shape == (4, 2, 3)
assert torch.allclose(conv(chw.float()), conv(batch.float())[0])

# %% to-float
x = chw.float() / 255  # convert first, then divide
print(x.dtype, x.min().item(), x.max().item())
print(torch.equal(chw / 255, x))  # true division gives float32 as well
print(chw.float().max().item())  # .float() alone keeps 0..255

# %% to-float-checks tags=["remove-cell"]
assert x.dtype == torch.float32 and (chw / 255).dtype == torch.float32
assert torch.equal(chw / 255, x)
assert 0 <= x.min() and x.max() <= 1 and x.max() == 205 / 255
assert chw.float().max() == 205
assert (chw // 2).dtype == torch.uint8  # floor division stays uint8

# %% uint8-wraps
print(chw[2] + 60)  # blue 200..205 brightened: wraps past 255
print(chw[0] - 3)  # red 0..5 darkened: wraps below 0
print((chw[2].float() + 60).clamp(max=255))  # in float, then clamp

# %% uint8-wraps-checks tags=["remove-cell"]
import warnings

with warnings.catch_warnings():
    warnings.simplefilter("error")  # no warning either
    chw[2] + 60, chw[0] - 3
assert (chw[2] + 60).dtype == torch.uint8
assert torch.equal(chw[2] + 60, (red + 4).to(torch.uint8))  # (200 + 60) - 256
assert torch.equal(chw[0] - 3, ((red - 3) % 256).to(torch.uint8))
assert (chw[0] - 3)[0, 0] == 253
assert torch.equal((chw[2].float() + 60).clamp(max=255),
                   torch.full((2, 3), 255.0))

# %% uint8-mean raises="RuntimeError: mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Byte" holds="<2.15" claim="`mean()` of a `uint8` tensor raises a `RuntimeError`"
chw.mean()

# %% uint8-mean-checks tags=["remove-cell"]
assert chw.sum().dtype == torch.int64  # sum() works, mean() does not
assert torch.isclose(x.mean(), chw.float().mean() / 255)

# %% dataset
g = torch.Generator().manual_seed(0)
# 10 RGB images of 8x8, each with its own brightness, red brighter
bright = torch.randint(40, 200, (10, 1, 1, 1), generator=g)
noise = torch.randint(-30, 31, (10, 3, 8, 8), generator=g)
shift = torch.tensor([25, 0, -25]).view(1, 3, 1, 1)
images = (bright + shift + noise).clamp(0, 255).to(torch.uint8)
x = images.float() / 255  # (N, C, H, W)
mean = x.mean(dim=(0, 2, 3))  # over images, height and width
std = x.std(dim=(0, 2, 3), correction=0)
print(images.shape)
print("mean", mean)
print("std ", std)

# %% dataset-checks tags=["remove-cell"]
assert images.shape == (10, 3, 8, 8) and images.dtype == torch.uint8
assert mean.shape == std.shape == (3,)
assert torch.allclose(mean, x.permute(1, 0, 2, 3).reshape(3, -1).mean(dim=1))
assert mean[0] > mean[1] > mean[2]  # red brighter, blue darker

# %% streaming
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(images), batch_size=4)  # 4 + 4 + 2
total = torch.zeros(3, dtype=torch.float64)
total_sq = torch.zeros(3, dtype=torch.float64)
pixels = 0
for (batch,) in loader:
    batch = batch.double() / 255
    total += batch.sum(dim=(0, 2, 3))
    total_sq += (batch**2).sum(dim=(0, 2, 3))
    pixels += batch.numel() // batch.shape[1]  # pixels per channel
stream_mean = total / pixels
stream_std = (total_sq / pixels - stream_mean**2).sqrt()
print("mean", stream_mean.float())
print("std ", stream_std.float())
print("equal:", torch.allclose(stream_mean.float(), mean),
      torch.allclose(stream_std.float(), std))

# %% streaming-checks tags=["remove-cell"]
assert [len(b) for (b,) in loader] == [4, 4, 2]
assert pixels == 10 * 8 * 8
assert torch.allclose(stream_mean.float(), mean)
assert torch.allclose(stream_std.float(), std)
# std() divides by n - 1 unless correction=0: a difference of n / (n - 1)
n = pixels
assert torch.allclose(x.std(dim=(0, 2, 3)), std * (n / (n - 1)) ** 0.5)
# the mean of the batch means is wrong when the last batch is smaller
batch_means = torch.stack([b.double().div(255).mean(dim=(0, 2, 3))
                           for (b,) in loader])
assert not torch.allclose(batch_means.mean(dim=0).float(), mean)

# %% per-image-std
print("mean of per-image std", x.std(dim=(2, 3), correction=0).mean(dim=0))

# %% per-image-std-checks tags=["remove-cell"]
per_image = x.std(dim=(2, 3), correction=0).mean(dim=0)
assert (per_image < std / 2).all()  # misses how images differ from each other
# the per-image means do average to the dataset mean (equal image sizes)
assert torch.allclose(x.mean(dim=(2, 3)).mean(dim=0), mean)

# %% normalise
z = (x - mean[:, None, None]) / std[:, None, None]  # (3, 1, 1) broadcasts
print(mean[:, None, None].shape, z.shape)
z_mean, z_std = z.mean(dim=(0, 2, 3)), z.std(dim=(0, 2, 3), correction=0)
print("mean 0:", torch.allclose(z_mean, torch.zeros(3), atol=1e-6))
print("std 1:", torch.allclose(z_std, torch.ones(3)))
one = (x[0] - mean[:, None, None]) / std[:, None, None]  # one (C, H, W) image
print("one image:", torch.allclose(one, z[0]))

# %% normalise-checks tags=["remove-cell"]
assert mean[:, None, None].shape == (3, 1, 1) == mean.view(3, 1, 1).shape
assert torch.allclose(z.mean(dim=(0, 2, 3)), torch.zeros(3), atol=1e-6)
assert torch.allclose(z.std(dim=(0, 2, 3), correction=0), torch.ones(3))
assert torch.allclose(one, z[0])
assert torch.equal(z[:, 1], (x[:, 1] - mean[1]) / std[1])

# %% normalise-mismatch raises="RuntimeError: The size of tensor a (8) must match the size of tensor b (3) at non-singleton dimension 2"
x[0] - mean  # (3, 8, 8) - (3,): mean lines up with the width

# %% normalise-silent
small = chw.float() / 255  # the 2x3 image: its width is 3
print((small - mean).shape)  # no error, and wrong
print(torch.allclose(small - mean, small - mean[:, None, None]))

# %% normalise-silent-checks tags=["remove-cell"]
# each column, not each channel, loses one channel's mean
for column in range(3):
    assert torch.allclose((small - mean)[:, :, column],
                          small[:, :, column] - mean[column])
assert not torch.allclose(small - mean, small - mean[:, None, None])

# %% denormalise
back = z * std[:, None, None] + mean[:, None, None]
restored = (back * 255).round().clamp(0, 255).to(torch.uint8)
print("round, clamp:", torch.equal(restored, images))
truncated = (back * 255).to(torch.uint8)  # without round(): truncates
print("truncated:", torch.equal(truncated, images))
print((images.int() - truncated.int()).unique())  # some 1 too low

# %% denormalise-checks tags=["remove-cell"]
assert torch.allclose(back, x, atol=1e-6)
assert torch.equal(restored, images)
assert (truncated != images).sum() > 0
assert set((images.int() - truncated.int()).unique().tolist()) == {0, 1}
assert torch.tensor(254.99).to(torch.uint8) == 254  # truncated, not rounded

# %% imshow alt="The first synthetic image, 8 by 8 pixels of noisy colour, shown with the channels last"
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(2, 2))
ax.imshow(restored[0].permute(1, 2, 0))  # (H, W, C) for matplotlib
ax.set_axis_off()

# %% imshow-checks tags=["remove-cell"]
assert restored[0].permute(1, 2, 0).shape == (8, 8, 3)
assert ax.get_images()[0].get_array().shape == (8, 8, 3)

# %% imshow-chw raises="TypeError: Invalid shape (3, 8, 8) for image data"
ax.imshow(restored[0])  # (C, H, W)

# %% resize
import torch.nn.functional as F

bigger = F.interpolate(x, size=(16, 16), mode="bilinear")  # (N, C, H, W)
print(bigger.shape)
one = F.interpolate(x[0].unsqueeze(0), size=(16, 16), mode="bilinear")[0]
print(one.shape)

# %% resize-checks tags=["remove-cell"]
assert bigger.shape == (10, 3, 16, 16) and one.shape == (3, 16, 16)
assert torch.allclose(one, bigger[0])
# the default mode is nearest: every pixel repeated twice in each direction
assert torch.equal(F.interpolate(x, size=(16, 16)),
                   x.repeat_interleave(2, dim=2).repeat_interleave(2, dim=3))

# %% resize-3d raises="ValueError: Input and output must have the same number of spatial dimensions, but got input with spatial dimensions of [8] and output size of (16, 16)."
F.interpolate(x[0], size=(16, 16), mode="bilinear")  # x[0] is (C, H, W)

# %% resize-3d-int
# a 3-D input is (N, C, length): only the last dimension is resized
print(F.interpolate(x[0], size=16).shape)

# %% resize-3d-int-checks tags=["remove-cell"]
assert F.interpolate(x[0], size=16).shape == (3, 8, 16)
assert F.interpolate(x[0], scale_factor=2).shape == (3, 8, 16)

# %% mask
mask = torch.tensor([[0, 0, 2, 2],
                     [0, 0, 2, 2],
                     [1, 1, 2, 2],
                     [1, 1, 2, 2]])  # class indices of a segmentation
m = mask[None, None].float()  # (1, 1, 4, 4), as float
nearest = F.interpolate(m, size=(3, 3), mode="nearest")[0, 0].long()
linear = F.interpolate(m, size=(3, 3), mode="bilinear")[0, 0]
print(nearest)
print(linear)
print(linear.round().long())  # a 1 between 0 and 2: a class not there

# %% mask-checks tags=["remove-cell"]
assert set(nearest.unique().tolist()) <= {0, 1, 2}
assert torch.equal(nearest, mask[[0, 1, 2]][:, [0, 1, 2]])
up = F.interpolate(m, size=(6, 6), mode="nearest")
assert set(up.unique().tolist()) == {0.0, 1.0, 2.0}
assert not set(F.interpolate(m, size=(6, 6), mode="bilinear")
               .unique().tolist()) <= {0.0, 1.0, 2.0}
assert linear[0, 1] == 1.0 and (mask[0] != 1).all()  # row 0 has no 1
assert linear.round().long()[0, 1] == 1

# %% antialias
lines = torch.tensor([1.0, 0, 0, 0]).repeat(4).expand(4, 16)  # thin lines
lines = lines[None, None]  # (1, 1, 4, 16): 1 in every fourth column
for aa in (False, True):
    out = F.interpolate(lines, size=(1, 4), mode="bilinear", antialias=aa)
    print(f"antialias={aa}:", out.flatten())
print("area:", F.interpolate(lines, size=(1, 4), mode="area").flatten())

# %% antialias-checks tags=["remove-cell"]
assert lines.mean() == 0.25
aliased = F.interpolate(lines, size=(1, 4), mode="bilinear")
smooth = F.interpolate(lines, size=(1, 4), mode="bilinear", antialias=True)
assert torch.equal(aliased, torch.zeros(1, 1, 1, 4))  # the lines are gone
assert ((smooth - 0.25).abs() < 0.1).all()  # close to the true mean
# away from the edges, exactly the mean
assert torch.allclose(smooth[..., 1:3], torch.full((2,), 0.25))
assert torch.allclose(F.interpolate(lines, size=(1, 4), mode="area"),
                      torch.full((1, 1, 1, 4), 0.25))
cubic = F.interpolate(lines, size=(1, 4), mode="bicubic", antialias=True)
assert ((cubic - 0.25).abs() < 0.1).all()
# area, shrinking by a whole factor, is average pooling
assert torch.allclose(F.interpolate(x, size=(4, 4), mode="area"),
                      F.avg_pool2d(x, 2))

# %% align-corners
two = torch.tensor([[[[0.0, 1.0]]]])  # two pixels, made four wide
print(F.interpolate(two, size=(1, 4), mode="bilinear").flatten())
print(F.interpolate(two, size=(1, 4), mode="bilinear",
                    align_corners=True).flatten())

# %% align-corners-checks tags=["remove-cell"]
assert torch.allclose(F.interpolate(two, size=(1, 4), mode="bilinear"),
                      torch.tensor([0.0, 0.25, 0.75, 1.0]))
assert torch.allclose(
    F.interpolate(two, size=(1, 4), mode="bilinear", align_corners=True),
    torch.tensor([0.0, 1 / 3, 2 / 3, 1.0]))
assert torch.equal(
    F.interpolate(two, size=(1, 4), mode="bilinear"),
    F.interpolate(two, size=(1, 4), mode="bilinear", align_corners=False))

# %% pad
square = torch.arange(1.0, 10.0).reshape(1, 1, 3, 3)
# (left, right, top, bottom): the last dimension comes first
print(F.pad(square, (1, 2, 0, 1), value=0)[0, 0])
print(F.pad(square, (1, 1, 1, 1), mode="reflect")[0, 0])
print(F.pad(square, (1, 1, 1, 1), mode="replicate")[0, 0])

# %% pad-checks tags=["remove-cell"]
padded = F.pad(square, (1, 2, 0, 1), value=0)
assert padded.shape == (1, 1, 4, 6)
assert torch.equal(padded[0, 0, :3, 1:4], square[0, 0])
assert padded[0, 0, :, 0].eq(0).all() and padded[0, 0, :, 4:].eq(0).all()
assert padded[0, 0, 3].eq(0).all()
reflected = F.pad(square, (1, 1, 1, 1), mode="reflect")[0, 0]
assert torch.equal(reflected[1, :], torch.tensor([2.0, 1, 2, 3, 2]))
assert reflected[0, 0] == 5  # the edge itself is not repeated
replicated = F.pad(square, (1, 1, 1, 1), mode="replicate")[0, 0]
assert torch.equal(replicated[0, :], torch.tensor([1.0, 1, 2, 3, 3]))

# %% joint-transform
torch.manual_seed(2)
image = torch.rand(3, 8, 8)  # (C, H, W) float


def labels_of(image):
    return (image.mean(dim=0) > 0.5).long()  # (H, W) class ids 0 and 1


mask = labels_of(image)


def random_params(height, width, size):
    top = int(torch.randint(0, height - size + 1, ()))
    left = int(torch.randint(0, width - size + 1, ()))
    flip = bool(torch.rand(()) < 0.5)
    turns = int(torch.randint(0, 4, ()))  # rotation by turns * 90 degrees
    return top, left, flip, turns


def transform(t, top, left, flip, turns, size):
    # the last two dimensions are H and W: (C, H, W) and (H, W) alike
    t = t[..., top:top + size, left:left + size]
    if flip:
        t = t.flip(-1)
    return torch.rot90(t, turns, dims=(-2, -1))


params = random_params(8, 8, size=5)  # drawn once, for both
image_t = transform(image, *params, size=5)
mask_t = transform(mask, *params, size=5)
print(params)  # top, left, flip, turns
print(tuple(image_t.shape), tuple(mask_t.shape), mask_t.dtype)
print(torch.equal(mask_t, labels_of(image_t)))  # still aligned

# %% joint-transform-checks tags=["remove-cell"]
assert image_t.shape == (3, 5, 5) and mask_t.shape == (5, 5)
assert mask_t.dtype == torch.int64 and image_t.dtype == torch.float32
assert set(mask_t.unique().tolist()) <= {0, 1}
assert torch.equal(mask_t, labels_of(image_t))
# crop, flip and rot90 only move pixels: no new values
assert set(image_t.flatten().tolist()) <= set(image.flatten().tolist())
# aligned for every draw, and the draws differ
seen = set()
for _ in range(50):
    p = random_params(8, 8, size=5)
    seen.add(p)
    assert torch.equal(transform(mask, *p, size=5),
                       labels_of(transform(image, *p, size=5)))
assert len(seen) > 10 and {p[2] for p in seen} == {False, True}
assert {p[3] for p in seen} == {0, 1, 2, 3}
# rot90 turns counter-clockwise: the top row becomes the left column
assert torch.equal(torch.rot90(mask, 1, dims=(-2, -1))[:, 0], mask[0].flip(0))

# %% joint-transform-wrong
image_w = transform(image, *random_params(8, 8, size=5), size=5)
mask_w = transform(mask, *random_params(8, 8, size=5), size=5)  # new draw
print(torch.equal(mask_w, labels_of(image_w)))
print(int((mask_w != labels_of(image_w)).sum()), "of 25 pixels mislabelled")

# %% joint-transform-wrong-checks tags=["remove-cell"]
assert not torch.equal(mask_w, labels_of(image_w))
assert (mask_w != labels_of(image_w)).sum() > 0

# %% grid-sample-identity
x = torch.arange(12.0).view(1, 1, 3, 4)  # (N, C, H, W)
theta = torch.tensor([[[1.0, 0, 0], [0, 1.0, 0]]])  # the identity, (N, 2, 3)
grid = F.affine_grid(theta, size=(1, 1, 3, 4), align_corners=False)
print(tuple(grid.shape))  # (N, H_out, W_out, 2)
print(grid[0, 0, :, 0])  # x along the first row: left to right
print(grid[0, :, 0, 1])  # y down the first column: top to bottom
out = F.grid_sample(x, grid, align_corners=False)
print(torch.allclose(out, x))

# %% grid-sample-identity-checks tags=["remove-cell"]
assert grid.shape == (1, 3, 4, 2)
assert torch.allclose(grid[0, 0, :, 0], torch.tensor([-0.75, -0.25, 0.25, 0.75]))
assert torch.allclose(grid[0, :, 0, 1], torch.tensor([-2 / 3, 0, 2 / 3]))
# the first coordinate varies along the width, the second along the height
assert torch.allclose(grid[0, :, 1, 0], grid[0, 0, 1, 0].expand(3))
assert torch.allclose(out, x)
# (y, x) order instead: a square image comes out transposed
square = torch.arange(9.0).view(1, 1, 3, 3)
g3 = F.affine_grid(theta, size=(1, 1, 3, 3), align_corners=False)
swapped = F.grid_sample(square, g3.flip(-1), align_corners=False)
assert torch.allclose(swapped, square.transpose(-2, -1))

# %% grid-sample-flip
flipped = grid.clone()
flipped[..., 0] = -flipped[..., 0]  # mirror x: left and right swap
out = F.grid_sample(x, flipped, align_corners=False)
print(out[0, 0])
print(torch.allclose(out, x.flip(-1)))

# %% grid-sample-flip-checks tags=["remove-cell"]
assert torch.allclose(out, x.flip(-1))
assert not torch.allclose(out, x.flip(-2))

# %% grid-sample-align-corners
for align in (False, True):
    g = F.affine_grid(theta, size=(1, 1, 3, 4), align_corners=align)
    print(align, g[0, 0, :, 0])
# sample at x = -1 on the middle row (y = 0)
edge = torch.tensor([[[[-1.0, 0.0]]]])  # (N, H_out, W_out, 2)
print(x[0, 0, 1])
for align in (False, True):
    print(align, F.grid_sample(x, edge, align_corners=align).item())

# %% grid-sample-align-corners-checks tags=["remove-cell"]
g_true = F.affine_grid(theta, size=(1, 1, 3, 4), align_corners=True)
assert torch.allclose(g_true[0, 0, :, 0], torch.tensor([-1, -1 / 3, 1 / 3, 1]))
assert torch.allclose(F.grid_sample(x, g_true, align_corners=True), x)
# align_corners=False: -1 is the outer edge of the first pixel, half way to
# the zero padding; True: -1 is the centre of the first pixel
assert F.grid_sample(x, edge, align_corners=False).item() == x[0, 0, 1, 0] / 2
assert F.grid_sample(x, edge, align_corners=True).item() == x[0, 0, 1, 0]
# a grid made for one setting, sampled with the other, is shifted
mixed = F.grid_sample(x, g_true, align_corners=False)
assert not torch.allclose(mixed, x)
# without align_corners, both take it as False
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    assert torch.equal(F.affine_grid(theta, size=(1, 1, 3, 4)), grid)
    assert torch.equal(F.grid_sample(x, edge),
                       F.grid_sample(x, edge, align_corners=False))
