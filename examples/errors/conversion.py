# %% [markdown]
# Errors when tensors become NumPy arrays, Python
# numbers, booleans, or are built from lists

# %% [markdown] lang="zh"
# 张量转换时的报错：转成 NumPy 数组、Python 数值或布尔值，
# 以及从列表构造张量

# %% setup
import torch

# %% numpy-grad tags=["raises-exception"]
w = torch.randn(3, requires_grad=True)
y = w * 2
y.numpy()

# %% numpy-grad-fix
print(y.detach().numpy())  # a view of the same memory, outside the graph

# %% numpy-grad-fix-checks tags=["remove-cell"]
array = y.detach().numpy()
array[0] = 100.0
assert y[0].item() == 100.0  # shared memory: the array and the tensor are one

# %% numpy-cuda tags=["requires-cuda", "raises-exception"]
x = torch.ones(3, device="cuda")
x.numpy()

# %% numpy-cuda-fix tags=["requires-cuda"]
print(x.cpu().numpy())  # copy to host memory first
assert (x.cpu().numpy() == 1).all()

# %% bool-ambiguous tags=["raises-exception"]
x = torch.tensor([1, -2, 3])
if x > 0:  # three answers, one if
    print("positive")

# %% bool-ambiguous-fix
print(bool((x > 0).all()), bool((x > 0).any()))  # say which question you mean

# %% bool-ambiguous-fix-checks tags=["remove-cell"]
assert not (x > 0).all() and (x > 0).any() and bool(torch.tensor([5]) > 0)

# %% float-many tags=["raises-exception"]
loss_per_sample = torch.tensor([0.5, 0.25, 0.125])
float(loss_per_sample)

# %% float-many-fix
# reduce first, or take a list
print(float(loss_per_sample.mean()), loss_per_sample.tolist())

# %% float-many-fix-checks tags=["remove-cell"]
assert abs(float(loss_per_sample.mean()) - 0.875 / 3) < 1e-7 \
    and loss_per_sample.tolist() == [0.5, 0.25, 0.125]

# %% item-many tags=["raises-exception"]
loss_per_sample.item()

# %% item-many-fix
print(loss_per_sample.sum().item())

# %% item-many-fix-checks tags=["remove-cell"]
assert loss_per_sample.sum().item() == 0.875

# %% zero-dim-index tags=["raises-exception"]
loss = loss_per_sample.mean()  # a 0-dim tensor: no dimension to index
print(loss.shape)
total = loss.data[0]  # old code, from when a loss was a 1-element tensor

# %% zero-dim-index-fix
total = loss.item()
print(total, type(total).__name__)

# %% zero-dim-index-fix-checks tags=["remove-cell"]
assert loss.dim() == 0 and isinstance(total, float) \
    and abs(total - 0.875 / 3) < 1e-7
# indexing with an empty tuple is what works on 0 dims
assert loss[()].item() == total

# %% ragged tags=["raises-exception"]
torch.tensor([[1, 2, 3], [4, 5]])  # rows of different lengths

# %% ragged-fix
from torch.nn.utils.rnn import pad_sequence

rows = [torch.tensor([1, 2, 3]), torch.tensor([4, 5])]
print(pad_sequence(rows, batch_first=True))  # padded with 0 to the longest

# %% ragged-fix-checks tags=["remove-cell"]
assert torch.equal(
    pad_sequence(rows, batch_first=True), torch.tensor([[1, 2, 3], [4, 5, 0]])
)

# %% tensor-of-tensors tags=["raises-exception"]
vectors = [torch.ones(2), torch.zeros(2)]
torch.tensor(vectors)

# %% tensor-of-tensors-fix
print(torch.stack(vectors))  # joins tensors along a new first dimension

# %% tensor-of-tensors-fix-checks tags=["remove-cell"]
assert torch.stack(vectors).shape == (2, 2)

# %% object-array tags=["raises-exception"]
import numpy as np

# rows of different lengths, or a pandas column of mixed values:
# NumPy keeps Python objects
features = np.array([np.zeros(3), np.ones(2)], dtype=object)
print(features.dtype)
torch.tensor(features)

# %% object-array-fix
# rows of one length: a real float array, which torch reads
features = np.array([[0.0, 0.5, 1.0], [2.0, 3.0, 4.0]], dtype=object)
print(torch.from_numpy(features.astype(np.float32)))

# %% object-array-fix-checks tags=["remove-cell"]
assert features.dtype == object
assert torch.from_numpy(features.astype(np.float32)).dtype == torch.float32
# from_numpy refuses an object array the same way
try:
    torch.from_numpy(np.array([np.zeros(3), np.ones(2)], dtype=object))
except TypeError as error:
    assert "numpy.object_" in str(error)
else:
    raise AssertionError("an object array converted")

# %% numpy-bfloat16 raises="TypeError: Got unsupported ScalarType BFloat16"
x = torch.tensor([1.0, 0.5, -2.25], dtype=torch.bfloat16)
x.numpy()

# %% numpy-bfloat16-fix
print(x.float().numpy())  # every bfloat16 value is exact in float32
print(x.tolist())  # Python floats, no NumPy needed
print(x.view(torch.int16).numpy())  # the raw 16 bits of each value

# %% numpy-bfloat16-fix-checks tags=["remove-cell"]
array = x.float().numpy()
assert array.dtype == np.float32 and array.tolist() == [1.0, 0.5, -2.25]
# exact: back to bfloat16 gives the same tensor
assert torch.equal(torch.from_numpy(array).bfloat16(), x)
assert x.tolist() == [1.0, 0.5, -2.25]
assert x.view(torch.int16).numpy().dtype == np.int16
# float32 keeps every bfloat16 value: the upper 16 bits of the float32 pattern
bits = x.float().view(torch.int32) >> 16
assert torch.equal(bits.short(), x.view(torch.int16))
# float16 is the one half-precision dtype NumPy has
assert torch.ones(2, dtype=torch.float16).numpy().dtype == np.float16
# a bfloat16 tensor that requires grad needs detach() first, as above
w = torch.ones(2, dtype=torch.bfloat16, requires_grad=True)
assert w.detach().float().numpy().tolist() == [1.0, 1.0]

# %% negative-strides raises="ValueError: At least one stride in the given numpy array is negative"
image = np.arange(6).reshape(2, 3)
# a view that walks the columns backwards, as np.flip does
flipped = image[:, ::-1]
torch.from_numpy(flipped)

# %% negative-strides-checks tags=["remove-cell"]
assert flipped.strides[1] < 0 and np.flip(image, 1).strides[1] < 0
# torch.tensor and torch.as_tensor refuse it as well
for convert in (torch.from_numpy, torch.tensor, torch.as_tensor):
    try:
        convert(flipped)
    except ValueError as error:
        assert "negative" in str(error) and "array.copy()" in str(error)
    else:
        raise AssertionError(f"{convert.__name__} took negative strides")

# %% negative-strides-fix
print(torch.from_numpy(flipped.copy()))  # a fresh array with positive strides
print(torch.from_numpy(np.ascontiguousarray(flipped)))
print(torch.from_numpy(image).flip(1))  # or flip in torch instead

# %% negative-strides-fix-checks tags=["remove-cell"]
expected = torch.tensor([[2, 1, 0], [5, 4, 3]])
assert torch.equal(torch.from_numpy(flipped.copy()), expected)
assert torch.equal(torch.from_numpy(np.ascontiguousarray(flipped)), expected)
assert torch.equal(torch.from_numpy(image).flip(1), expected)
# an OpenCV-style BGR to RGB flip of the last axis hits the same error
bgr = np.zeros((4, 4, 3), dtype=np.uint8)
try:
    torch.from_numpy(bgr[..., ::-1])
except ValueError as error:
    assert "negative" in str(error)
else:
    raise AssertionError("a BGR to RGB view converted")
assert torch.from_numpy(bgr[..., ::-1].copy()).shape == (4, 4, 3)

# %% numpy-to-module raises="TypeError: conv2d() received an invalid combination of arguments - got (numpy.ndarray, …"
torch.manual_seed(0)
model = torch.nn.Conv2d(3, 4, 3)
x = np.zeros((1, 3, 8, 8), dtype=np.float32)
model(x)

# %% numpy-to-module-checks tags=["remove-cell"]
try:
    model(x)
except TypeError as error:
    assert "!numpy.ndarray!" in str(error)
    assert " * (Tensor input, Tensor weight, Tensor bias = None" in str(error)
else:
    raise AssertionError("a NumPy array went through Conv2d")
# nn.Linear words it differently: one signature, so it names the argument
try:
    torch.nn.Linear(8, 2)(np.zeros((1, 8), dtype=np.float32))
except TypeError as error:
    assert str(error) == (
        "linear(): argument 'input' (position 1) must be Tensor, not numpy.ndarray"
    )
else:
    raise AssertionError("a NumPy array went through Linear")

# %% numpy-to-module-double raises="RuntimeError: Input type (double) and bias type (float) should be the same"
x = np.zeros((1, 3, 8, 8))  # NumPy's default dtype is float64
model(torch.from_numpy(x))

# %% numpy-to-module-fix
print(model(torch.from_numpy(x).float()).shape)  # float32, like the weights

# %% numpy-to-module-fix-checks tags=["remove-cell"]
assert x.dtype == np.float64 and torch.from_numpy(x).dtype == torch.float64
assert model(torch.from_numpy(x).float()).shape == (1, 4, 6, 6)
assert model.weight.dtype == torch.float32

# %% astype raises="AttributeError: 'Tensor' object has no attribute 'astype'"
x = torch.tensor([1.5, 2.5, 3.5])
x.astype(torch.float16)  # NumPy's spelling

# %% astype-fix
print(x.to(torch.float16).dtype)
print(x.half().dtype, x.long().dtype, x.bool().dtype)
print(x.type(torch.float16).dtype)
y = torch.zeros(2, dtype=torch.float64)
print(x.to(y.dtype).dtype)  # the dtype of another tensor
print(x.to(y).dtype)  # its dtype and its device

# %% astype-fix-checks tags=["remove-cell"]
assert not hasattr(torch.Tensor, "astype")
assert x.to(torch.float16).dtype == torch.float16
assert x.half().dtype == x.type(torch.float16).dtype == torch.float16
assert x.float().dtype == torch.float32 and x.double().dtype == torch.float64
assert x.long().dtype == torch.int64 and x.int().dtype == torch.int32
assert x.bool().dtype == torch.bool
assert torch.equal(x.long(), torch.tensor([1, 2, 3]))  # toward zero
assert x.to(y.dtype).dtype == x.to(y).dtype == torch.float64
assert x.to(y).device == y.device
# through NumPy: a NumPy array, no autograd
w = torch.ones(2, requires_grad=True)
converted = w.detach().numpy().astype("float16")
assert converted.dtype == np.float16 and not isinstance(converted, torch.Tensor)
assert w.to(torch.float16).requires_grad
