# %% [markdown]
# Shape and dtype errors: each one reproduced, explained by the page, then fixed
# (among them mean() of integers, subtracting bool tensors, float class targets)

# %% [markdown] lang="zh"
# 形状与 dtype 的报错：逐个复现，由页面解释原因，再给出修复
# （其中包括整数张量的 `mean()`、bool 张量相减、浮点类型的类别 target）

# %% setup
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

# %% linear-shapes tags=["raises-exception"]
model = nn.Linear(in_features=2, out_features=5)
x = torch.randn(4, 3)  # a batch of 4 samples with 3 features each
model(x)

# %% linear-shapes-fix
# in_features = features per sample
model = nn.Linear(in_features=x.shape[-1], out_features=5)
print(model(x).shape)

# %% linear-shapes-fix-checks tags=["remove-cell"]
assert model(x).shape == (4, 5)
# (out_features, in_features): what mat2 refers to, transposed
assert model.weight.shape == (5, 3)

# %% flatten-images tags=["raises-exception"]
images = torch.randn(8, 1, 28, 28)
classifier = nn.Linear(28 * 28, 10)
classifier(images)  # the last dimension is 28, not 784

# %% flatten-images-fix
# keep the batch dimension, flatten the rest
print(classifier(images.flatten(start_dim=1)).shape)

# %% flatten-images-fix-checks tags=["remove-cell"]
assert images.flatten(start_dim=1).shape == (8, 784)
assert classifier(images.flatten(start_dim=1)).shape == (8, 10)

# %% same-dtype tags=["raises-exception"]
features = np.random.rand(4, 3)  # NumPy's default: float64
model = nn.Linear(3, 2)  # parameters: float32
model(torch.from_numpy(features))

# %% same-dtype-fix
# or torch.tensor(features, dtype=torch.float32)
x = torch.from_numpy(features).float()
print(x.dtype, model(x).dtype)

# %% same-dtype-fix-checks tags=["remove-cell"]
assert torch.from_numpy(features).dtype == torch.float64 \
    and model.weight.dtype == torch.float32
assert model(x).dtype == torch.float32

# %% batch-size tags=["raises-exception"]
logits = torch.randn(4, 2, 10)  # 4 sequences of 2 steps, 10 classes
target = torch.randint(0, 10, (4, 2))
# 8 rows of logits, but a (4, 2) target
F.cross_entropy(logits.reshape(-1, 10), target)

# %% batch-size-fix
loss = F.cross_entropy(logits.reshape(-1, 10), target.reshape(-1))  # 8 and 8
print(loss.shape, logits.reshape(-1, 10).shape, target.reshape(-1).shape)

# %% batch-size-fix-checks tags=["remove-cell"]
# the (N, C, d) form agrees
assert torch.allclose(loss, F.cross_entropy(logits.permute(0, 2, 1), target))

# %% broadcast tags=["raises-exception"]
x = torch.ones(2, 3)
y = torch.ones(2, 4)
x + y

# %% broadcast-fix
bias = torch.ones(3)  # matches the last dimension of x
print((x + bias).shape)

# %% broadcast-fix-checks tags=["remove-cell"]
assert (x + bias).shape == (2, 3) and (x + torch.ones(2, 1)).shape == (2, 3)

# %% cat-sizes tags=["raises-exception"]
a = torch.ones(2, 3)
b = torch.ones(3, 4)
torch.cat([a, b], dim=0)

# %% cat-sizes-fix
# every dimension but the joined one must match
print(torch.cat([a, b.T], dim=0).shape)

# %% cat-sizes-fix-checks tags=["remove-cell"]
assert torch.cat([a, b.T], dim=0).shape == (6, 3) \
    and torch.cat([a.T, b], dim=1).shape == (3, 6)

# %% conv-channels tags=["raises-exception"]
conv = nn.Conv2d(in_channels=3, out_channels=16, kernel_size=3)  # expects RGB
gray = torch.randn(1, 1, 28, 28)  # one image, one channel
conv(gray)

# %% conv-channels-fix
# or gray.expand(-1, 3, -1, -1)
conv = nn.Conv2d(in_channels=1, out_channels=16, kernel_size=3)
print(conv(gray).shape)

# %% conv-channels-fix-checks tags=["remove-cell"]
assert conv(gray).shape == (1, 16, 26, 26)
assert nn.Conv2d(3, 16, 3)(gray.expand(-1, 3, -1, -1)).shape == (1, 16, 26, 26)

# %% conv-dims tags=["raises-exception"]
image = torch.randn(28, 28)  # height and width only
conv(image)

# %% conv-dims-fix
print(conv(image.unsqueeze(0)).shape)  # (channels, H, W): one unbatched image
print(conv(image[None, None]).shape)  # (batch, channels, H, W)

# %% conv-dims-fix-checks tags=["remove-cell"]
assert conv(image.unsqueeze(0)).shape == (16, 26, 26) \
    and conv(image[None, None]).shape == (1, 16, 26, 26)

# %% kernel-size tags=["raises-exception"]
# each: 2 pixels off every edge, 4 off height and width
features = nn.Sequential(nn.Conv2d(3, 8, 5), nn.Conv2d(8, 8, 5))
small = torch.randn(1, 3, 8, 8)  # 8x8 in, 4x4 after the first layer
features(small)

# %% kernel-size-checks tags=["remove-cell"]
# 2 pixels off each edge: 4 off the height, 4 off the width
assert nn.Conv2d(3, 8, 5)(torch.randn(1, 3, 8, 10)).shape == (1, 8, 4, 6)
assert nn.Conv2d(3, 8, 5)(small).shape == (1, 8, 4, 4)  # what the layer got

# %% kernel-size-fix
features = nn.Sequential(nn.Conv2d(3, 8, 5, padding=2),
                         nn.Conv2d(8, 8, 5, padding=2))
print(features(small).shape)  # padding keeps 8x8; or feed larger images

# %% kernel-size-fix-checks tags=["remove-cell"]
assert features(small).shape == (1, 8, 8, 8)

# %% pool-size tags=["raises-exception"]
pool = nn.MaxPool2d(2)  # halves height and width
x = torch.randn(1, 3, 4, 4)
for _ in range(3):  # 4 -> 2 -> 1 -> 0
    x = pool(x)

# %% pool-size-fix
x = torch.randn(1, 3, 4, 4)
head = nn.AdaptiveAvgPool2d(1)  # any size in, 1x1 out
print(pool(pool(x)).shape, head(x).shape)

# %% pool-size-fix-checks tags=["remove-cell"]
assert pool(pool(x)).shape == (1, 3, 1, 1) and head(
    torch.randn(1, 3, 1, 1)
).shape == (1, 3, 1, 1)

# %% rnn-input-size tags=["raises-exception"]
conv = nn.Conv1d(in_channels=10, out_channels=16, kernel_size=3)
lstm = nn.LSTM(input_size=16, hidden_size=32, batch_first=True)
signal = torch.randn(4, 10, 50)  # (batch, channels, time)
lstm(conv(signal))  # conv gives (batch, 16, 48): features in dimension 1

# %% rnn-input-size-fix
# (batch, time, features) for batch_first=True
sequence = conv(signal).transpose(1, 2)
out, (h, c) = lstm(sequence)
print(sequence.shape, out.shape)

# %% rnn-input-size-fix-checks tags=["remove-cell"]
assert sequence.shape == (4, 48, 16) and out.shape == (4, 48, 32)

# %% embedding-dtype tags=["raises-exception"]
embedding = nn.Embedding(num_embeddings=100, embedding_dim=8)
token_ids = torch.tensor([[5.0, 17.0, 42.0]])  # ids read into a float array
embedding(token_ids)

# %% embedding-dtype-fix
print(embedding(token_ids.long()).shape)  # int64 (or int32) indices

# %% embedding-dtype-fix-checks tags=["remove-cell"]
assert embedding(token_ids.long()).shape == (1, 3, 8)
assert embedding(token_ids.int()).shape == (1, 3, 8)  # int32 works too
try:
    # unlike a loss's targets, uint8 does not
    embedding(token_ids.to(torch.uint8))
except RuntimeError as error:
    assert "but got torch.ByteTensor instead" in str(error)
else:
    raise AssertionError("an embedding took uint8 indices")

# %% byte-target tags=["raises-exception"]
# segmentation: 3 classes for each pixel of 4x4 images
logits = torch.randn(2, 3, 4, 4)
# class masks stored as bytes
mask = torch.randint(0, 3, (2, 4, 4), dtype=torch.uint8)
F.cross_entropy(logits, mask)

# %% byte-target-fix
print(F.cross_entropy(logits, mask.long()))

# %% byte-target-fix-checks tags=["remove-cell"]
flat = F.cross_entropy(
    logits.permute(0, 2, 3, 1).reshape(-1, 3), mask.reshape(-1)
)
# (N, C): uint8 works
assert torch.allclose(F.cross_entropy(logits, mask.long()), flat)

# %% invalid-shape tags=["raises-exception"]
x = torch.arange(9)
x.view(2, 5)

# %% invalid-shape-fix
# the sizes must multiply to 9; -1 infers one
print(x.view(3, 3).shape, x.view(-1, 3).shape)

# %% invalid-shape-fix-checks tags=["remove-cell"]
assert x.view(3, 3).shape == x.view(-1, 3).shape == (3, 3) and x.numel() == 9

# %% view-stride tags=["raises-exception"]
x = torch.arange(6).view(2, 3).T  # a transposed view: not contiguous
x.view(6)

# %% view-stride-fix
print(x.reshape(6), x.contiguous().view(6))  # reshape copies when it must

# %% view-stride-fix-checks tags=["remove-cell"]
assert not x.is_contiguous() and torch.equal(
    x.reshape(6), torch.tensor([0, 3, 1, 4, 2, 5])
)

# %% dim-range tags=["raises-exception"]
x = torch.ones(2, 3)
x.sum(dim=2)  # dimensions are 0 and 1 (or -2 and -1)

# %% dim-range-fix
print(x.sum(dim=1), x.sum(dim=-1))

# %% dim-range-fix-checks tags=["remove-cell"]
assert torch.equal(x.sum(dim=1), x.sum(dim=-1)) and x.dim() == 2

# %% no-dims raises="IndexError: Dimension specified as 0 but tensor has no dimensions"
model = nn.Linear(3, 1)
x = torch.randn(1, 3)  # a batch of one sample
y = model(x).squeeze()  # (1, 1) -> (): every dimension of size 1 goes
print(y.shape)
batch_size = y.size(0)

# %% no-dims-checks tags=["remove-cell"]
assert y.dim() == 0 and y.shape == ()
# the same message from the other calls the page names
for call in (lambda: y.unbind(), lambda: y.roll(1, 0), lambda: y.stride(0)):
    try:
        call()
    except IndexError as error:
        assert str(error).startswith(
            "Dimension specified as 0 but tensor has no dimensions"), error
    else:
        raise AssertionError("a 0-d tensor took dimension 0")
# y.shape[0] is a Python tuple's IndexError
try:
    y.shape[0]
except IndexError as error:
    assert str(error) == "tuple index out of range", error
else:
    raise AssertionError("shape[0] of a 0-d tensor")

# %% no-dims-fix
y = model(x).squeeze(1)  # only the feature dimension: (batch,)
print(y.shape, y.size(0))

loss = torch.tensor(0.75)  # a loss is 0-d
print(loss.reshape(1).shape, loss.unsqueeze(0).shape, loss.dim())
losses = [torch.tensor(0.5), torch.tensor(0.25)]
print(torch.stack(losses))  # 0-d tensors stacked: shape (2,)

# %% no-dims-fix-checks tags=["remove-cell"]
assert y.shape == (1,) and y.size(0) == 1
assert loss.reshape(1).shape == (1,) and loss.unsqueeze(0).shape == (1,)
assert torch.equal(torch.stack(losses), torch.tensor([0.5, 0.25]))
assert torch.atleast_1d(loss).shape == (1,)
assert model(torch.randn(4, 3)).squeeze().shape == (4,)  # fine for 4 samples

# %% int-grad tags=["raises-exception"]
weights = torch.tensor([1, 2, 3], requires_grad=True)  # integers: no gradient

# %% int-grad-fix
# or dtype=torch.float32
weights = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
print(weights.dtype, weights.requires_grad)

# %% int-grad-fix-checks tags=["remove-cell"]
assert weights.dtype == torch.float32 and weights.requires_grad

# %% mean-int tags=["raises-exception"]
labels = torch.tensor([2, 0, 1, 1])  # class indices: int64
labels.mean()

# %% mean-int-fix
print(labels.float().mean(), labels.mean(dtype=torch.float32))
predictions = torch.tensor([2, 1, 1, 1])
# a bool tensor has no mean either: convert it first
accuracy = (predictions == labels).float().mean()
print(accuracy)

# %% mean-int-fix-checks tags=["remove-cell"]
assert labels.dtype == torch.int64 and labels.sum().dtype == torch.int64
assert labels.float().mean() == 1.0 == labels.mean(dtype=torch.float32)
assert accuracy == 0.75
for tensor, name in ((labels, "Long"), (predictions == labels, "Bool")):
    try:
        tensor.mean()
    except RuntimeError as error:
        assert "mean(): could not infer output dtype" in str(error)
        assert str(error).endswith(f"Got: {name}"), str(error)
    else:
        raise AssertionError(f"mean() of a {name} tensor worked")

# %% bool-sub tags=["raises-exception"]
mask = torch.tensor([True, False, True])
1 - mask  # meant: the mask inverted

# %% bool-sub-two tags=["raises-exception"]
seen = torch.tensor([True, True, False])
seen - mask  # meant: where the two differ

# %% bool-sub-fix
print(~mask, mask.logical_not())  # inverted
print(seen ^ mask, seen.logical_xor(mask))  # where they differ
print(1 - mask.float())  # numbers, if numbers are what you want

# %% bool-sub-fix-checks tags=["remove-cell"]
assert torch.equal(~mask, torch.tensor([False, True, False]))
assert torch.equal(seen ^ mask, torch.tensor([False, True, True]))
assert torch.equal(1 - mask.float(), torch.tensor([0.0, 1.0, 0.0]))
try:
    -mask
except RuntimeError as error:  # negation is refused the same way
    assert "Negation, the `-` operator, on a bool tensor" in str(error)
else:
    raise AssertionError("-mask worked")
assert torch.equal(mask + mask, mask | mask)  # + is allowed: a logical or

# %% float-target tags=["raises-exception"]
logits = torch.randn(3, 4)  # 3 samples, 4 classes
targets = torch.tensor([0.0, 3.0, 1.0])  # class indices read as floats
F.cross_entropy(logits, targets)

# %% float-target-fix
print(F.cross_entropy(logits, targets.long()))

# %% float-target-fix-checks tags=["remove-cell"] holds=">=2.12" claim="The error for a float target of `cross_entropy` names the dtypes it takes, `Long` or `Byte`" about="float-target"
for loss_fn in (F.cross_entropy, F.nll_loss):
    for dtype, name in ((torch.float32, "Float"), (torch.int32, "Int")):
        try:
            loss_fn(logits, targets.to(dtype))
        except RuntimeError as error:
            assert str(error) == \
                f"expected target dtype to be Long or Byte, but got {name}"
        else:
            raise AssertionError(f"{loss_fn.__name__} took {name} targets")
# float targets of the input's shape are class probabilities, not an error
probabilities = F.one_hot(targets.long(), 4).float()
assert torch.allclose(
    F.cross_entropy(logits, probabilities),
    F.cross_entropy(logits, targets.long()),
)

# %% mm-dtype tags=["raises-exception"]
x = torch.randn(4, 3)  # float32 features
components = np.random.rand(3, 2)  # a projection computed with NumPy: float64
x @ torch.from_numpy(components)

# %% mm-dtype-linear tags=["raises-exception"]
model = nn.Linear(3, 2, bias=False)  # no bias: the same error as torch.mm
model(torch.from_numpy(np.random.rand(4, 3)))

# %% mm-dtype-fix
# or build the array as float32: components.astype(np.float32)
print((x @ torch.from_numpy(components).float()).dtype)

# %% mm-dtype-fix-checks tags=["remove-cell"]
for a, b, words in ((x, torch.from_numpy(components), "float != double"),
                    (torch.from_numpy(components).T, x.T, "double != float")):
    for product in (torch.mm, torch.matmul):
        try:
            product(a, b)
        except RuntimeError as error:
            assert str(error) == \
                f"expected m1 and m2 to have the same dtype, but got: {words}"
        else:
            raise AssertionError("float32 times float64 worked")
try:
    nn.Linear(3, 2, bias=False)(torch.from_numpy(np.random.rand(4, 3)))
except RuntimeError as error:  # without bias, not the mat1 and mat2 wording
    assert "expected m1 and m2 to have the same dtype" in str(error)
else:
    raise AssertionError("a float64 input to a float32 layer worked")
assert (x @ torch.from_numpy(components).float()).dtype == torch.float32
# NumPy's default float is float64, PyTorch's is float32
assert np.array([1.0]).dtype == np.float64 and components.dtype == np.float64
assert torch.get_default_dtype() == torch.float32
assert components.astype(np.float32).dtype == np.float32
assert (x @ torch.from_numpy(components.astype(np.float32))).dtype \
    == torch.float32

# %% scalar-type-weight tags=["raises-exception"]
logits = torch.randn(6, 3)  # 6 samples, 3 classes
target = torch.tensor([0, 0, 0, 0, 1, 2])
counts = np.bincount(target.numpy())
class_weight = counts.sum() / (len(counts) * counts)  # NumPy: float64
F.cross_entropy(logits, target, weight=torch.from_numpy(class_weight))

# %% scalar-type-bmm tags=["raises-exception"]
x = torch.randn(2, 4, 3)  # a batch of 2 matrices, float32
w = torch.from_numpy(np.random.rand(2, 3, 5))  # float64
x @ w

# %% scalar-type-fix
weight = torch.from_numpy(class_weight).float()
print(F.cross_entropy(logits, target, weight=weight))
print((x @ w.float()).shape)

# %% scalar-type-fix-checks tags=["remove-cell"]
assert class_weight.dtype == np.float64 and weight.dtype == torch.float32
for product in (torch.bmm, torch.matmul):
    try:
        product(x, w)
    except RuntimeError as error:
        assert str(error) == "expected scalar type Float but found Double"
    else:
        raise AssertionError("float32 times float64 worked")
try:
    torch.bmm(w.transpose(1, 2), x.transpose(1, 2))
except RuntimeError as error:  # the first tensor's dtype is the expected one
    assert str(error) == "expected scalar type Double but found Float"
else:
    raise AssertionError("float64 times float32 worked")
try:
    torch.einsum("bij,bjk->bik", x, w)
except RuntimeError as error:  # einsum multiplies batches the same way
    assert str(error) == "expected scalar type Float but found Double"
else:
    raise AssertionError("einsum of float32 and float64 worked")
assert (x @ w.float()).shape == (2, 4, 5)

# %% bce-double tags=["raises-exception"]
probs = torch.sigmoid(torch.randn(4))  # float32
labels = torch.from_numpy(np.array([1.0, 0.0, 1.0, 1.0]))  # float64
nn.BCELoss()(probs, labels)

# %% mse-double
loss = F.mse_loss(probs, labels)  # no error: the loss is float64
print(loss.dtype)

# %% bce-double-fix
print(nn.BCELoss()(probs, labels.float()).dtype)

# %% bce-double-fix-checks tags=["remove-cell"] holds=">=2.12" claim="The backward pass of `F.mse_loss` with a `float32` input and a `float64` target sends `float32` gradients to `float32` parameters" about="mse-double"
assert labels.dtype == torch.float64 and probs.dtype == torch.float32
try:
    F.binary_cross_entropy(probs, labels)
except RuntimeError as error:
    assert str(error) == "Found dtype Double but expected Float"
else:
    raise AssertionError("binary_cross_entropy took a float64 target")
assert loss.dtype == torch.float64
# the float64 loss still sends float32 gradients to float32 parameters
model = nn.Linear(3, 1)
F.mse_loss(model(torch.randn(4, 3)).squeeze(1), labels).backward()
assert model.weight.grad.dtype == torch.float32
assert nn.BCELoss()(probs, labels.float()).dtype == torch.float32

# %% one-hot-target raises="RuntimeError: 0D or 1D target tensor expected, multi-target not supported"
logits = torch.randn(3, 4)  # 3 samples, 4 classes
one_hot = F.one_hot(torch.tensor([0, 3, 1]), num_classes=4)  # (3, 4)
F.nll_loss(logits.log_softmax(dim=1), one_hot)

# %% one-hot-target-fix
labels = one_hot.argmax(dim=1)  # back to class indices, shape (3,)
print(labels)
print(round(F.nll_loss(logits.log_softmax(dim=1), labels).item(), 4))

# %% one-hot-target-fix-checks tags=["remove-cell"]
assert torch.equal(labels, torch.tensor([0, 3, 1]))
assert torch.allclose(
    F.nll_loss(logits.log_softmax(dim=1), labels),
    F.cross_entropy(logits, labels),
)
try:  # float one-hot rows are refused too
    F.nll_loss(logits.log_softmax(dim=1), one_hot.float())
except RuntimeError as error:
    assert "multi-target not supported" in str(error)
else:
    raise AssertionError("nll_loss accepted float one-hot rows")

# %% linear-3d
model = nn.Linear(in_features=8, out_features=5)
x = torch.randn(2, 6, 8)  # 2 sequences of 6 steps, 8 features per step
y = model(x)
print(x.shape, "->", y.shape)
# one (sequence, step) row through the layer on its own: the same values
assert torch.allclose(y[1, 4], model(x[1, 4]), atol=1e-6)

# %% linear-3d-checks tags=["remove-cell"]
assert y.shape == (2, 6, 5) and model.weight.shape == (5, 8)
# every row, one at a time, and the rows flattened into a 2-D batch
rows = torch.stack([torch.stack([model(x[b, s]) for s in range(6)]) for b in range(2)])
assert torch.allclose(y, rows, atol=1e-6)
assert torch.allclose(y, model(x.reshape(-1, 8)).reshape(2, 6, 5), atol=1e-6)
# any number of leading dimensions, any sequence length
assert model(torch.randn(3, 10, 8)).shape == (3, 10, 5)
assert model(torch.randn(2, 3, 4, 8)).shape == (2, 3, 4, 5)
try:  # the error counts the folded rows: 2 x 6 = 12
    nn.Linear(2, 5)(x)
except RuntimeError as error:
    # torch 2.15 names the operation first: "addmm: mat1 and mat2 ..."
    assert str(error).endswith("mat1 and mat2 shapes cannot be multiplied (12x8 and 2x5)")
else:
    raise AssertionError("Linear(2, 5) took 8 features")

# %% batchnorm-dims raises="ValueError: expected 4D input (got 2D input)"
x = torch.randn(8, 32)  # a batch of 8 flattened samples
model = nn.Sequential(nn.Linear(32, 16), nn.BatchNorm2d(16), nn.ReLU())
model(x)  # Linear gives (8, 16): 2-D

# %% batchnorm-dims-fix
model = nn.Sequential(nn.Linear(32, 16), nn.BatchNorm1d(16), nn.ReLU())
print(model(x).shape)
print(nn.BatchNorm1d(16)(torch.randn(8, 16, 10)).shape)  # (N, C, L)
print(nn.BatchNorm2d(16)(torch.randn(8, 16, 5, 5)).shape)  # (N, C, H, W)

# %% batchnorm-dims-fix-checks tags=["remove-cell"]
assert model(x).shape == (8, 16)
# what each takes and refuses, by number of dimensions
for norm, shapes in ((nn.BatchNorm1d(16), {2: True, 3: True, 1: False, 4: False}),
                     (nn.BatchNorm2d(16), {4: True, 2: False, 3: False, 5: False})):
    for dims, taken in shapes.items():
        shape = (8, 16, 5, 5, 5)[:dims] if dims > 1 else (16,)
        try:
            assert norm(torch.randn(shape)).shape == shape
        except ValueError as error:
            assert not taken and f"(got {dims}D input)" in str(error), (norm, dims)
        else:
            assert taken, (norm, dims)
# the features must be in dimension 1: (N, L, C) is refused
try:
    nn.BatchNorm1d(16)(torch.randn(8, 10, 16))
except RuntimeError as error:
    assert "running_mean should contain 10 elements not 16" in str(error)
else:
    raise AssertionError("BatchNorm1d(16) took a (8, 10, 16) input")
# BatchNorm1d normalises each feature over the batch
model.train()
z = model[1](model[0](x))
assert torch.allclose(z.mean(dim=0), torch.zeros(16), atol=1e-5)

# %% batchnorm-seq raises="RuntimeError: running_mean should contain 10 elements not 16"
x = torch.randn(8, 10, 16)  # (batch, seq, features): 16 features last
nn.BatchNorm1d(16)(x)

# %% batchnorm-seq-fix
norm = nn.BatchNorm1d(16)
y = norm(x.transpose(1, 2)).transpose(1, 2)  # (N, L, C) -> (N, C, L) and back
print(y.shape)
mean = y.detach().mean(dim=(0, 1))  # per feature
std = y.detach().std(dim=(0, 1), correction=0)
print(bool(mean.abs().max() < 1e-5), std.round(decimals=3))

# %% batchnorm-seq-fix-checks tags=["remove-cell"]
assert y.shape == x.shape and mean.abs().max() < 1e-5
assert torch.allclose(std, torch.ones(16), atol=1e-3)
# each of the 16 features, normalised over the batch and the time steps
var = x.var(dim=(0, 1), correction=0)
assert torch.allclose(y, (x - x.mean(dim=(0, 1))) / (var + norm.eps).sqrt(), atol=1e-5)
assert norm.running_mean.shape == (16,)
# LayerNorm(16) takes (N, L, C) as it is, but normalises each time step alone
z = nn.LayerNorm(16)(x)
assert torch.allclose(z.mean(dim=-1), torch.zeros(8, 10), atol=1e-5)
assert not torch.allclose(z, y, atol=1e-3)

# %% layernorm-shape raises="RuntimeError: Given normalized_shape=[8], expected input with shape [*, 8], but got input of size[4, 12]"
norm = nn.LayerNorm(8)
x = torch.randn(4, 12)  # 4 samples of 12 features
norm(x)

# %% layernorm-shape-fix
norm = nn.LayerNorm(x.shape[-1])  # the size of the last dimension
print(norm(x).shape)
x = torch.randn(2, 6, 12)  # (batch, seq, features)
print(nn.LayerNorm(12)(x).shape)  # each of the 2 x 6 rows of 12
print(nn.LayerNorm(x.shape[-2:])(x).shape)  # each sample's 6 x 12 values

# %% layernorm-shape-fix-checks tags=["remove-cell"]
def normalised(y, dims):
    mean = y.mean(dim=dims)
    var = y.var(dim=dims, correction=0)
    return torch.allclose(mean, torch.zeros_like(mean), atol=1e-5) and \
        torch.allclose(var, torch.ones_like(var), atol=1e-2)


assert norm(torch.randn(4, 12)).shape == (4, 12)
assert normalised(norm(torch.randn(4, 12)), (-1,))
assert normalised(nn.LayerNorm(12)(x), (-1,))
assert normalised(nn.LayerNorm(x.shape[-2:])(x), (-2, -1))
assert nn.LayerNorm(x.shape[-2:]).weight.shape == (6, 12) \
    == nn.LayerNorm(x.shape[-2:]).bias.shape
assert nn.LayerNorm(8)(torch.randn(3, 5, 8)).shape == (3, 5, 8)  # (*, 8)
assert nn.LayerNorm(8)(torch.randn(8)).shape == (8,)
# features in dimension 1: move them last, or normalise (C, H, W) together
images = torch.randn(2, 8, 4, 4)
assert nn.LayerNorm(8)(images.permute(0, 2, 3, 1)).shape == (2, 4, 4, 8)
assert normalised(nn.LayerNorm(8)(images.permute(0, 2, 3, 1)), (-1,))
assert normalised(nn.LayerNorm(images.shape[1:])(images), (-3, -2, -1))
try:  # the last dimensions, not the first ones
    nn.LayerNorm([2, 6])(x)
except RuntimeError as error:
    assert "expected input with shape [*, 2, 6]" in str(error)
else:
    raise AssertionError("LayerNorm([2, 6]) took a (2, 6, 12) input")
