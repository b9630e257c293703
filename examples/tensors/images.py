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

# %% permute-gray raises="RuntimeError: permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = 2 is not equal to len(dims) = 3"
gray_hw = torch.zeros(4, 5, dtype=torch.uint8)  # grayscale: (H, W), no C
gray_hw.permute(2, 0, 1)

# %% permute-gray-fix
print(gray_hw.unsqueeze(0).shape)  # (1, H, W): one channel, first
print(gray_hw.unsqueeze(-1).permute(2, 0, 1).shape)  # the same, via (H, W, 1)

# %% permute-gray-fix-checks tags=["remove-cell"]
assert gray_hw.unsqueeze(0).shape == (1, 4, 5)
assert torch.equal(gray_hw.unsqueeze(-1).permute(2, 0, 1), gray_hw.unsqueeze(0))

# %% permute-batch raises="RuntimeError: permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = 4 is not equal to len(dims) = 3"
frames = torch.stack([img, img])  # a batch of (H, W, C) images: (N, H, W, C)
frames.permute(2, 0, 1)

# %% permute-batch-fix
print(frames.permute(0, 3, 1, 2).shape)  # (N, C, H, W)
# movedim names only the dimension that moves: channels last to third last
print(frames.movedim(-1, -3).shape, img.movedim(-1, -3).shape)

# %% permute-batch-fix-checks tags=["remove-cell"]
assert frames.shape == (2, 2, 3, 3)
assert frames.permute(0, 3, 1, 2).shape == (2, 3, 2, 3)
assert torch.equal(frames.movedim(-1, -3), frames.permute(0, 3, 1, 2))
assert torch.equal(img.movedim(-1, -3), chw)  # the same call for one image
assert torch.equal(frames.permute(0, 3, 1, 2)[1], chw)

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

# %% pad-reflect-large raises="RuntimeError: Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (5, 5) at dimension 3 of input [1, 1, 4, 4]"
small = torch.arange(16.0).reshape(1, 1, 4, 4)  # 4 x 4
F.pad(small, (5, 5, 5, 5), mode="reflect")  # 5 pixels on each side

# %% pad-reflect-large-checks tags=["remove-cell"]
# the same limit in the module and in a convolution's padding_mode
for make in (
    lambda: torch.nn.ReflectionPad2d(4)(small),
    lambda: torch.nn.Conv2d(1, 1, 3, padding=4, padding_mode="reflect")(small),
):
    try:
        make()
    except RuntimeError as error:
        assert "Padding size should be less than the corresponding input" \
            in str(error)
    else:
        raise AssertionError("reflect padding of 4 on a size of 4 worked")
assert torch.nn.ReflectionPad2d(3)(small).shape == (1, 1, 10, 10)

# %% pad-reflect-large-fix
print(F.pad(small, (3, 3, 3, 3), mode="reflect").shape)  # 3 < 4: allowed
print(F.pad(small, (5, 5, 5, 5), mode="replicate").shape)  # no limit
print(F.pad(small, (4, 4, 4, 4), mode="circular").shape)  # up to the size
# reflect in two steps: 3, then 2 more on the larger image
steps = F.pad(F.pad(small, (3, 3, 3, 3), mode="reflect"), (2, 2, 2, 2),
              mode="reflect")
print(steps.shape)
print(steps[0, 0, 5])  # the first row of the image, mirrored again and again

# %% pad-reflect-large-fix-checks tags=["remove-cell"]
import numpy as np

assert F.pad(small, (3, 3, 3, 3), mode="reflect").shape == (1, 1, 10, 10)
assert F.pad(small, (5, 5, 5, 5), mode="replicate").shape == (1, 1, 14, 14)
assert F.pad(small, (4, 4, 4, 4), mode="circular").shape == (1, 1, 12, 12)
try:
    F.pad(small, (5, 5, 5, 5), mode="circular")
except RuntimeError as error:
    assert "wrapping around more than once" in str(error)
else:
    raise AssertionError("circular padding past the size worked")
assert steps.shape == (1, 1, 14, 14)
# the steps give what NumPy's reflect gives for a padding of 5 at once
assert np.array_equal(steps[0, 0].numpy(),
                      np.pad(small[0, 0].numpy(), 5, mode="reflect"))
assert torch.equal(steps[0, 0, 5, 5:9], small[0, 0, 0])

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


# %% [markdown]
# The cells below need torchvision. They run where torch and torchvision
# match (each torch release's own environment, from PyPI); the site's build
# runs a CPU torch that PyPI's torchvision does not load with, and shows what
# they printed there

# %% [markdown] lang="zh"
# 下面的单元需要 torchvision，只在 torch 与 torchvision 版本配套的环境里运行
# （从 PyPI 安装的各个 torch 版本的环境）；本站构建用的是 CPU 版 torch，
# PyPI 上的 torchvision 在它上面加载不了，页面上显示的是那些环境打印的结果

# %% tv-totensor-tensor tags=["requires-torchvision"] raises="TypeError: pic should be PIL Image or ndarray. Got <class 'torch.Tensor'>"
import numpy as np
import torch
from PIL import Image
from torchvision import transforms

# a 4x5 RGB image, as PIL and NumPy hold it: (H, W, C) uint8
array = np.arange(60, dtype=np.uint8).reshape(4, 5, 3) * 4
pil_image = Image.fromarray(array)
# as read_image gives
tensor_image = torch.from_numpy(array).permute(2, 0, 1)
transform = transforms.Compose([
    transforms.ToTensor(),
    transforms.Normalize(mean=[0.5, 0.5, 0.5], std=[0.25, 0.25, 0.25]),
])
print(transform(pil_image).shape)  # a PIL image: fine
transform(tensor_image)  # a tensor: ToTensor refuses it

# %% tv-totensor-tensor-checks tags=["remove-cell"]
assert transform(pil_image).shape == (3, 4, 5)
assert transform(array).shape == (3, 4, 5)  # a NumPy array: fine too
for twice in (transforms.ToTensor()(pil_image), tensor_image):
    try:
        transforms.ToTensor()(twice)
    except TypeError as error:
        assert str(error) == "pic should be PIL Image or ndarray. Got <class 'torch.Tensor'>"
    else:
        raise AssertionError("ToTensor should refuse a tensor")
# ToPILImage refuses the other way round: a PIL image
try:
    transforms.ToPILImage()(pil_image)
except TypeError as error:
    assert str(error).startswith("pic should be Tensor or ndarray. Got <class 'PIL.Image.Image'>")
else:
    raise AssertionError("ToPILImage should refuse a PIL image")

# %% tv-totensor-fix tags=["requires-torchvision"]
from torchvision.transforms import v2

transform_v2 = v2.Compose([
    v2.ToImage(),  # PIL image, ndarray or tensor: (C, H, W)
    v2.ToDtype(torch.float32, scale=True),  # uint8 0..255 to float 0..1
    v2.Normalize(mean=[0.5, 0.5, 0.5], std=[0.25, 0.25, 0.25]),
])
from_pil = transform_v2(pil_image)
from_tensor = transform_v2(tensor_image)
print(type(from_tensor).__name__, from_tensor.shape, from_tensor.dtype)
print(torch.equal(from_pil, from_tensor))
print(torch.allclose(from_tensor, transform(pil_image), atol=1e-6))
# or drop ToTensor: the tensor is already (C, H, W), only scale it
no_totensor = transforms.Normalize(mean=[0.5, 0.5, 0.5], std=[0.25, 0.25, 0.25])
print(torch.allclose(no_totensor(tensor_image.float() / 255), from_tensor,
                     atol=1e-6))

# %% tv-totensor-fix-checks tags=["remove-cell"]
from torchvision import tv_tensors

assert isinstance(from_tensor, tv_tensors.Image)
assert isinstance(from_tensor, torch.Tensor)  # a subclass of Tensor
assert from_tensor.shape == (3, 4, 5) and from_tensor.dtype == torch.float32
assert torch.equal(from_pil, from_tensor)
assert torch.allclose(from_tensor, transform(pil_image), atol=1e-6)
assert torch.allclose(transform_v2(array), from_tensor)  # ndarray too
assert torch.allclose(no_totensor(tensor_image.float() / 255), from_tensor,
                      atol=1e-6)
# a float tensor is not scaled again: scale=True divides integers only
once = v2.ToDtype(torch.float32, scale=True)(tensor_image)
assert torch.equal(v2.ToDtype(torch.float32, scale=True)(once), once)

# %% tv-v2-totensor tags=["requires-torchvision"]
import warnings

from torchvision.transforms import v2

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    old = v2.ToTensor()  # warns when it is created
for w in caught:
    print(f"{w.category.__name__}: {w.message}")
new = v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])
# a 16x16 RGB image with all 256 values of uint8
values = np.arange(256, dtype=np.uint8).reshape(16, 16)
pil_image = Image.fromarray(np.stack([values, 255 - values, values // 2], -1))
a, b = old(pil_image), new(pil_image)
print(a.shape, b.shape, a.dtype, b.dtype)
print("differ by less than 1e-7:", (a - b).abs().max().item() < 1e-7)
print("same uint8:", torch.equal((a * 255).round(), (b * 255).round()))

# %% tv-v2-totensor-checks tags=["remove-cell"]
assert [w.category for w in caught] == [UserWarning]
assert str(caught[0].message).startswith(
    "The transform `ToTensor()` is deprecated and will be removed")
assert "v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])" in str(
    caught[0].message)
assert a.shape == b.shape == (3, 16, 16)
assert a.dtype == b.dtype == torch.float32
assert torch.allclose(a, b, rtol=0, atol=1e-7)  # equal up to float rounding
assert torch.equal((a * 255).round(), (b * 255).round())
assert torch.equal((b * 255).round().to(torch.uint8),
                   torch.from_numpy(np.array(pil_image)).permute(2, 0, 1))
# the classic transforms.ToTensor does not warn, and matches v2.ToTensor
with warnings.catch_warnings():
    warnings.simplefilter("error")
    classic = transforms.ToTensor()(pil_image)
assert torch.equal(classic, a)
assert type(a) is torch.Tensor and isinstance(b, tv_tensors.Image)

# %% tv-make-grid tags=["requires-torchvision"]
from torchvision.utils import make_grid

torch.manual_seed(0)
images = torch.rand(10, 3, 8, 6)  # N=10 images of H=8, W=6, in [0, 1]
grid = make_grid(images, nrow=4, padding=2)  # 4 images per row: 3 rows
print(grid.shape)
rows = (10 + 4 - 1) // 4  # ceil(N / nrow)
# (C, rows*(H+p)+p, nrow*(W+p)+p)
print((3, rows * (8 + 2) + 2, 4 * (6 + 2) + 2))
white = make_grid(images, nrow=4, padding=2, pad_value=1.0)
print(grid[:, 0, 0], white[:, 0, 0])  # the padding: 0 by default

# %% tv-make-grid-checks tags=["remove-cell"]
def grid_shape(n, c, h, w, nrow, padding):
    rows = -(-n // nrow)
    cols = min(nrow, n)
    return (c, rows * (h + padding) + padding, cols * (w + padding) + padding)


assert grid.shape == grid_shape(10, 3, 8, 6, nrow=4, padding=2) == (3, 32, 34)
for n, nrow, padding in [(2, 8, 2), (8, 8, 2), (9, 3, 0), (5, 2, 4), (16, 5, 1)]:
    out = make_grid(torch.rand(n, 3, 8, 6), nrow=nrow, padding=padding)
    assert out.shape == grid_shape(n, 3, 8, 6, nrow, padding), (n, nrow, padding)
# image i sits at row i // nrow, column i % nrow
for i in (0, 5, 9):
    top, left = 2 + (i // 4) * 10, 2 + (i % 4) * 8
    assert torch.equal(grid[:, top:top + 8, left:left + 6], images[i])
assert torch.equal(grid[:, 0], torch.zeros(3, 34))  # padding 0 by default
assert torch.equal(white[:, 0], torch.ones(3, 34))
assert torch.equal(white[:, -1], torch.ones(3, 34))
# the empty places of the last row are padding too
assert torch.equal(grid[:, 22:, 18:], torch.zeros(3, 10, 16))
assert torch.equal(white[:, 22:, 18:], torch.ones(3, 10, 16))
# one-channel images come out with three channels
assert make_grid(torch.rand(4, 1, 8, 6), nrow=2).shape == (3, 22, 18)
# one image, with or without its batch dimension: returned without padding
assert torch.equal(make_grid(images[:1]), images[0])
assert torch.equal(make_grid(images[0]), images[0])

# %% tv-make-grid-normalize tags=["requires-torchvision"]
z = (images - 0.5) / 0.25  # normalised: values outside [0, 1]
print(round(z.min().item(), 2), round(z.max().item(), 2))
shown = make_grid(z, nrow=4, normalize=True)  # min to 0, max to 1
print(shown.min().item(), shown.max().item())

# %% tv-make-grid-normalize-checks tags=["remove-cell"]
assert z.min() < 0 and z.max() > 1
assert shown.min() == 0 and shown.max() == 1
# normalize=True: (z - z.min()) / (z.max() - z.min()) over the whole batch
low, high = z.min(), z.max()
assert torch.allclose(shown, make_grid((z - low) / (high - low), nrow=4),
                      atol=1e-6)
assert not torch.allclose(shown, grid, atol=1e-6)  # not the original image
# scale_each=True: each image to its own min and max
each = make_grid(z, nrow=4, normalize=True, scale_each=True)
assert torch.allclose(each[:, 2:10, 2:8], (z[0] - z[0].min()) / (z[0].max() - z[0].min()),
                      atol=1e-6)
# value_range=: a fixed range instead of the min and max, clamped
fixed = make_grid(z, nrow=4, normalize=True, value_range=(-2.0, 2.0))
assert torch.allclose(fixed, make_grid(((z + 2) / 4).clamp(0, 1), nrow=4), atol=1e-6)
# to undo the normalisation itself: multiply by the std and add the mean
assert torch.allclose(make_grid(z * 0.25 + 0.5, nrow=4), grid, atol=1e-6)

# %% tv-save-image tags=["requires-torchvision"]
from torchvision.utils import save_image

save_image(images, "grid.png", nrow=4, padding=2)  # make_grid, then a PNG
saved = Image.open("grid.png")
print(saved.size, saved.mode)  # (width, height)
pixels = torch.from_numpy(np.array(saved)).permute(2, 0, 1)
expected = (grid * 255 + 0.5).clamp(0, 255).to(torch.uint8)
print(torch.equal(pixels, expected))

# %% tv-save-image-checks tags=["remove-cell"]
assert saved.size == (34, 32) and saved.mode == "RGB"
assert torch.equal(pixels, expected)
# save_image takes make_grid's arguments; a single (C, H, W) image too
save_image(images[0], "one.png")
assert Image.open("one.png").size == (6, 8)
save_image(images, "grid.jpg", nrow=4)  # the format from the extension
assert Image.open("grid.jpg").format == "JPEG" and saved.format == "PNG"
save_image(z, "normalised.png", nrow=4, normalize=True)
again = torch.from_numpy(np.array(Image.open("normalised.png"))).permute(2, 0, 1)
assert torch.equal(again, (shown * 255 + 0.5).clamp(0, 255).to(torch.uint8))
# without normalize=, values outside [0, 1] are clamped
save_image(z, "clamped.png", nrow=4)
clamped = torch.from_numpy(np.array(Image.open("clamped.png"))).permute(2, 0, 1)
assert clamped.max() == 255 and clamped.min() == 0

# %% tv-boxes-invalid tags=["requires-torchvision"] raises="AssertionError: All bounding boxes should have positive height and width. Found invalid box [20.0, 5.0, 20.0, 25.0] for target at index 0."
from torchvision.models.detection import fasterrcnn_resnet50_fpn

torch.manual_seed(0)
# random weights, nothing to download; 2 classes: background and one object
model = fasterrcnn_resnet50_fpn(weights=None, weights_backbone=None,
                                num_classes=2, min_size=64, max_size=64)
model.train()  # training: it takes targets and returns losses
images = [torch.rand(3, 64, 64)]
boxes = torch.tensor([[10.0, 10.0, 30.0, 40.0],  # (x1, y1, x2, y2)
                      [20.0, 5.0, 20.0, 25.0]])  # x2 == x1: no width
labels = torch.tensor([1, 1])
losses = model(images, [{"boxes": boxes, "labels": labels}])

# %% tv-boxes-invalid-checks tags=["remove-cell"]
def message(model, boxes):
    try:
        model(images, [{"boxes": boxes, "labels": torch.ones(len(boxes), dtype=torch.int64)}])
    except AssertionError as error:
        return str(error)
    return None


# x2 < x1 or y2 < y1 too; the first bad box is named
three = torch.tensor([[10.0, 10.0, 30.0, 40.0], [5.0, 5.0, 5.0, 9.0],
                      [20.0, 5.0, 20.0, 25.0]])
assert message(model, three).endswith(
    "Found invalid box [5.0, 5.0, 5.0, 9.0] for target at index 0.")
assert message(model, torch.tensor([[30.0, 10.0, 10.0, 40.0]])) is not None
assert message(model, torch.tensor([[10.0, 40.0, 30.0, 10.0]])) is not None
# the index is that of the image in the batch
try:
    model(images * 2, [{"boxes": boxes[:1], "labels": labels[:1]},
                       {"boxes": boxes, "labels": labels}])
except AssertionError as error:
    assert str(error).endswith("for target at index 1.")
else:
    raise AssertionError("the second target has a box without width")
# the box is named after the model's own resize: min_size=128 doubles 64
bigger = fasterrcnn_resnet50_fpn(weights=None, weights_backbone=None,
                                 num_classes=2, min_size=128, max_size=128).train()
assert message(bigger, boxes).endswith(
    "Found invalid box [40.0, 10.0, 40.0, 50.0] for target at index 0.")
# in eval mode it needs no targets; given some, it checks them too
model.eval()
with torch.no_grad():
    assert isinstance(model(images), list)
    assert message(model, boxes) is not None
model.train()
# the default resize: the shorter side to 800 pixels
default = fasterrcnn_resnet50_fpn(weights=None, weights_backbone=None, num_classes=2)
assert default.transform.min_size == (800,)
# Mask R-CNN and Keypoint R-CNN are built on the same class
from torchvision.models.detection import KeypointRCNN, MaskRCNN
from torchvision.models.detection.generalized_rcnn import GeneralizedRCNN

assert issubclass(MaskRCNN, GeneralizedRCNN) and issubclass(KeypointRCNN, GeneralizedRCNN)

# %% tv-boxes-filter tags=["requires-torchvision"]
from torchvision.ops import box_area

boxes = torch.tensor([[10.0, 10.0, 30.0, 40.0],
                      [40.0, 10.0, 50.0, 20.0]])
cropped = boxes.clone()
cropped[:, 0::2] = cropped[:, 0::2].clamp(0, 32)  # image cropped to x < 32
print(cropped)
print(box_area(cropped))
keep = (cropped[:, 2:] > cropped[:, :2]).all(dim=1)  # x2 > x1 and y2 > y1
print(keep)
target = {"boxes": cropped[keep], "labels": labels[keep]}  # labels too
losses = model(images, [target])
print(sorted(losses))

# %% tv-boxes-filter-checks tags=["remove-cell"]
assert torch.equal(cropped[1], torch.tensor([32.0, 10.0, 32.0, 20.0]))
assert torch.equal(box_area(cropped), torch.tensor([600.0, 0.0]))
assert keep.tolist() == [True, False]
assert all(v.dim() == 0 and torch.isfinite(v) for v in losses.values())
assert sorted(losses) == ["loss_box_reg", "loss_classifier", "loss_objectness",
                          "loss_rpn_box_reg"]
# box_area > 0 misses a box with both corners swapped: (-20) * (-30) > 0
swapped = torch.tensor([[30.0, 40.0, 10.0, 10.0]])
assert box_area(swapped).item() == 600.0
assert not (swapped[:, 2:] > swapped[:, :2]).all(dim=1).item()
# an image with no box left trains too: boxes of shape (0, 4)
empty = {"boxes": torch.zeros(0, 4), "labels": torch.zeros(0, dtype=torch.int64)}
assert sorted(model(images, [empty])) == sorted(losses)

# %% tv-box-convert tags=["requires-torchvision"]
from torchvision.ops import box_convert

coco = torch.tensor([[30.0, 40.0, 20.0, 10.0]])  # COCO: x, y, width, height
# read as x1, y1, x2, y2: invalid
print((coco[:, 2:] > coco[:, :2]).all(dim=1))
xyxy = box_convert(coco, in_fmt="xywh", out_fmt="xyxy")
print(xyxy)
print((xyxy[:, 2:] > xyxy[:, :2]).all(dim=1))

# %% tv-box-convert-checks tags=["remove-cell"]
assert torch.equal(xyxy, torch.tensor([[30.0, 40.0, 50.0, 50.0]]))
assert torch.equal(box_convert(xyxy, in_fmt="xyxy", out_fmt="xywh"), coco)
# cxcywh: the centre, then width and height
assert torch.equal(box_convert(coco, in_fmt="xywh", out_fmt="cxcywh"),
                   torch.tensor([[40.0, 45.0, 20.0, 10.0]]))
# a small xywh box near the origin passes the check as xyxy: wrong, no error
small = torch.tensor([[10.0, 10.0, 20.0, 30.0]])
assert (small[:, 2:] > small[:, :2]).all()
assert not torch.equal(box_convert(small, "xywh", "xyxy"), small)
# v2.SanitizeBoundingBoxes drops degenerate boxes and their labels
from torchvision import tv_tensors
from torchvision.transforms import v2

sample = {
    "image": tv_tensors.Image(images[0]),
    "boxes": tv_tensors.BoundingBoxes(cropped, format="XYXY", canvas_size=(64, 64)),
    "labels": labels,
}
clean = v2.SanitizeBoundingBoxes()(sample)
assert torch.equal(clean["boxes"], cropped[:1]) and clean["labels"].tolist() == [1]

# %% tv-random-resized-crop tags=["requires-torchvision"]
from torchvision import transforms

crop = transforms.RandomResizedCrop(32)
print(crop.scale, [round(r, 4) for r in crop.ratio], crop.antialias)

image = torch.zeros(3, 100, 100)
for scale in ((0.08, 1.0), (0.5, 1.0)):
    # (top, left, height, width) of 1000 boxes, as the transform draws them
    boxes = torch.tensor([crop.get_params(image, scale, crop.ratio)
                          for _ in range(1000)])
    h, w = boxes[:, 2].float(), boxes[:, 3].float()
    area, aspect = h * w / (100 * 100), w / h
    print(f"scale={scale}: area {area.min():.2f} to {area.max():.2f},",
          f"width/height {aspect.min():.2f} to {aspect.max():.2f}")
print(crop(image).shape)  # every crop is then resized to size

# %% tv-random-resized-crop-checks tags=["remove-cell"]
import inspect

defaults = inspect.signature(transforms.RandomResizedCrop).parameters
assert defaults["scale"].default == (0.08, 1.0)
assert defaults["ratio"].default == (3 / 4, 4 / 3)
assert defaults["antialias"].default is True
for scale in ((0.08, 1.0), (0.5, 1.0)):
    for _ in range(1000):
        i, j, h, w = crop.get_params(image, scale, crop.ratio)
        assert 0 <= i <= 100 - h and 0 <= j <= 100 - w  # inside the image
        # up to rounding to whole pixels
        assert scale[0] - 0.02 <= h * w / 10000 <= scale[1]
        assert 3 / 4 - 0.02 <= w / h <= 4 / 3 + 0.02
# no box of the ratio range fits a 10 x 200 strip: after 10 tries, a centre
# crop of the full height, its width clamped to height * 4/3
strip = torch.zeros(3, 10, 200)
fallback = {crop.get_params(strip, (0.9, 1.0), crop.ratio) for _ in range(20)}
assert fallback == {(0, 93, 10, 13)}

# %% to-pil-float raises="TypeError: Cannot handle this data type: (1, 1, 3), <f4"
import numpy as np
from PIL import Image

torch.manual_seed(0)
x = torch.rand(3, 4, 5)  # a float image in [0, 1], (C, H, W)
Image.fromarray(x.permute(1, 2, 0).numpy())

# %% to-pil-float-checks tags=["remove-cell"]
# without the permute the message names another shape
try:
    Image.fromarray(x.numpy())
except TypeError as error:
    assert str(error).startswith("Cannot handle this data type")
    assert "(1, 1, 5), <f4" in str(error)
else:
    raise AssertionError("a (C, H, W) float array became an image")

# %% to-pil-fix
pixels = (x.clamp(0, 1) * 255).round().to(torch.uint8)
image = Image.fromarray(pixels.permute(1, 2, 0).numpy())
print(image.mode, image.size)  # size is (width, height)

# %% to-pil-fix-checks tags=["remove-cell"]
assert image.mode == "RGB" and image.size == (5, 4)
assert np.array_equal(np.asarray(image), pixels.permute(1, 2, 0).numpy())

# %% to-pil-gray
gray = Image.fromarray(x[0].numpy())  # one channel of floats: no error
print(gray.mode)  # 32-bit float pixels, which PNG cannot store

# %% to-pil-gray-checks tags=["remove-cell"]
assert gray.mode == "F"
import io

try:
    gray.save(io.BytesIO(), format="PNG")
except OSError as error:
    assert str(error) == "cannot write mode F as PNG"
else:
    raise AssertionError("PNG stored float pixels")
gray8 = Image.fromarray((x[0] * 255).round().to(torch.uint8).numpy())
assert gray8.mode == "L" and gray8.size == (5, 4)

# %% float-wraps
pixels_f = torch.tensor([-0.1, 0.0, 0.5, 1.0, 1.2])  # two outside [0, 1]
print(pixels_f.mul(255))
print(pixels_f.mul(255).byte())  # no clamp: the values wrap around

# %% float-wraps-checks tags=["remove-cell"]
wrapped = pixels_f.mul(255).byte()
assert wrapped.tolist() == [231, 0, 127, 255, 50]
# modulo 256 of the value truncated toward zero
assert torch.equal(wrapped,
                   (pixels_f.mul(255).trunc().long() % 256).to(torch.uint8))
assert wrapped[0] > wrapped[2] > wrapped[4]  # the darkest became the brightest

# %% float-wraps-torchvision tags=["remove-cell", "requires-torchvision"]
# torchvision's to_pil_image converts a float tensor with mul(255).byte()
import numpy as np
from torchvision.transforms.functional import to_pil_image

rgb = to_pil_image(pixels_f.reshape(1, 1, 5).repeat(3, 1, 1))
assert np.asarray(rgb)[0, :, 0].tolist() == [231, 0, 127, 255, 50]

# %% float-wraps-fix
print(pixels_f.clamp(0, 1).mul(255).byte())  # clamp first
normalised = (pixels_f.clamp(0, 1) - 0.5) / 0.25  # mean 0.5, std 0.25
print(normalised.mul(255).byte())  # converted as it is: false colours
print((normalised * 0.25 + 0.5).clamp(0, 1).mul(255).byte())  # undo first

# %% float-wraps-fix-checks tags=["remove-cell"]
assert pixels_f.clamp(0, 1).mul(255).byte().tolist() == [0, 0, 127, 255, 255]
assert normalised.min() == -2 and normalised.max() == 2
assert not torch.equal(normalised.mul(255).byte(),
                       pixels_f.clamp(0, 1).mul(255).byte())
assert torch.equal((normalised * 0.25 + 0.5).clamp(0, 1).mul(255).byte(),
                   pixels_f.clamp(0, 1).mul(255).byte())

# %% normalise-gray raises="RuntimeError: output with shape [1, 28, 28] doesn't match the broadcast shape [3, 28, 28]"
gray = torch.rand(1, 28, 28)  # MNIST-sized, one channel
mean = torch.tensor([0.485, 0.456, 0.406])[:, None, None]  # ImageNet statistics
gray.sub_(mean)  # in place, as torchvision's Normalize does

# %% normalise-gray-checks tags=["remove-cell"]
# out of place, the same statistics silently give three channels
assert (gray - mean).shape == (3, 28, 28)

# %% normalise-gray-fix
# MNIST
gray_mean, gray_std = torch.tensor([0.1307]), torch.tensor([0.3081])
print(((gray - gray_mean[:, None, None]) / gray_std[:, None, None]).shape)
rgb = gray.expand(3, -1, -1)  # or make three channels first
print(((rgb - mean) / 0.226).shape)

# %% normalise-gray-fix-checks tags=["remove-cell"]
assert gray.sub(gray_mean[:, None, None]).shape == (1, 28, 28)
assert rgb.shape == (3, 28, 28)
# expand makes a view: the three channels share the memory of one
assert rgb.stride(0) == 0


# %% rgba raises="RuntimeError: The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 0"
Image.new("RGBA", (5, 4), (255, 0, 0, 128)).save("logo.png")  # with alpha
with Image.open("logo.png") as image:
    print(image.mode)
    x = torch.from_numpy(np.array(image)).permute(2, 0, 1) / 255
print(x.shape)  # four channels: R, G, B and alpha
rgb_mean = torch.tensor([0.485, 0.456, 0.406])[:, None, None]
rgb_std = torch.tensor([0.229, 0.224, 0.225])[:, None, None]
(x - rgb_mean) / rgb_std  # what Normalize does

# %% rgba-checks tags=["remove-cell"]
assert x.shape == (4, 4, 5) and rgb_mean.shape == (3, 1, 1)
try:
    x.clone().sub_(rgb_mean)  # in place, as Normalize does: the same error
except RuntimeError as error:
    assert "size of tensor a (4) must match the size of tensor b (3)" in str(
        error)
else:
    raise AssertionError("four channels were normalised with three")

# %% rgba-fix
with Image.open("logo.png") as image:
    pixels = np.array(image.convert("RGB"))  # alpha dropped
print(pixels.shape)
x = torch.from_numpy(pixels).permute(2, 0, 1) / 255
print(((x - rgb_mean) / rgb_std).shape)
for mode in ("P", "L"):  # a palette PNG, a greyscale PNG
    Image.new(mode, (5, 4)).save(f"{mode}.png")
    with Image.open(f"{mode}.png") as image:
        print(mode, np.array(image).shape, np.array(image.convert("RGB")).shape)

# %% rgba-fix-checks tags=["remove-cell"]
assert pixels.shape == (4, 5, 3) and x.shape == (3, 4, 5)
assert pixels[0, 0].tolist() == [255, 0, 0]  # the colour, without alpha
with Image.open("logo.png") as image:
    four = torch.from_numpy(np.array(image)).permute(2, 0, 1)
assert torch.equal(four[:3], torch.from_numpy(pixels).permute(2, 0, 1))
for mode in ("P", "L"):
    with Image.open(f"{mode}.png") as image:
        assert image.mode == mode and np.array(image).shape == (4, 5)
        assert np.array(image.convert("RGB")).shape == (4, 5, 3)
# np.asarray of an image is read-only: from_numpy warns, np.array copies
import warnings

with Image.open("logo.png") as image:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.from_numpy(np.asarray(image))
    assert any("not writable" in str(w.message) for w in caught)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        torch.from_numpy(np.array(image))
