# %% [markdown]
# torch.max without dim returns one value; with dim, a named tuple
# (values, indices). argmax returns the first of equal maxima, topk
# the k largest, amax reduces several dims

# %% [markdown] lang="zh"
# 不带 `dim` 的 `torch.max` 只返回一个值；带 `dim` 时返回具名元组
# `(values, indices)`。`argmax` 在最大值相等时返回第一个的下标，`topk`
# 取前 k 个最大值，`amax` 可以同时在几个维度上取最大值

# %% max-all
import torch

x = torch.tensor([[3.0, 9.0, 4.0], [8.0, 1.0, 6.0]])
print(torch.max(x))  # no dim: the largest element, a 0-dim tensor
print(x.argmax())  # its index in the flattened tensor

# %% max-all-checks tags=["remove-cell"]
assert torch.max(x).shape == () and torch.max(x) == 9
assert x.argmax().shape == () and x.argmax() == 1
assert x.flatten()[x.argmax()] == x.max()

# %% max-dim
result = torch.max(x, dim=1)  # the largest of each row
print(result)
values, indices = result  # or result.values, result.indices
print(values)
print(indices)
print(x.argmax(dim=1))  # the indices alone

# %% max-dim-checks tags=["remove-cell"]
assert torch.equal(values, torch.tensor([9.0, 8.0]))
assert torch.equal(indices, torch.tensor([1, 0]))
assert indices.dtype == torch.int64
assert result.values is result[0] and result.indices is result[1]
assert torch.equal(x.argmax(dim=1), indices)
assert torch.equal(x.gather(1, indices[:, None])[:, 0], values)

# %% unpack-no-dim raises="TypeError: iteration over a 0-d tensor"
values, indices = torch.max(x)  # no dim: one value, nothing to unpack

# %% keepdim
print(x.max(dim=1).values.shape)  # the reduced dim is gone
row_max = x.max(dim=1, keepdim=True).values
print(row_max.shape)  # kept with size 1: it broadcasts against x
print(x - row_max)  # each row minus its own maximum

# %% keepdim-checks tags=["remove-cell"]
assert x.max(dim=1).values.shape == (2,)
assert row_max.shape == (2, 1)
assert torch.equal((x - row_max).amax(dim=1), torch.zeros(2))
assert x.argmax(dim=1, keepdim=True).shape == (2, 1)

# %% ties
t = torch.tensor([2.0, 7.0, 7.0, 1.0, 7.0])  # three equal maxima
print(t.argmax())  # the first of them
print(torch.max(t, dim=0).indices)

# %% ties-checks tags=["remove-cell"]
assert t.argmax() == 1 and torch.max(t, dim=0).indices == 1
# the first maximum on a larger tensor with many ties, row by row
many = torch.randint(0, 3, (200, 64)).float()
for row, first, by_max in zip(many, many.argmax(dim=1), many.max(dim=1).indices):
    expected = row.tolist().index(row.max().item())
    assert first == expected and by_max == expected
assert torch.zeros(10_000).argmax() == 0

# %% topk
scores = torch.tensor([[0.1, 0.5, 0.2, 0.9], [0.8, 0.3, 0.6, 0.4]])
top = scores.topk(2, dim=1)  # the 2 largest of each row, largest first
print(top.values)
print(top.indices)
print(scores.topk(1, dim=1, largest=False).indices)  # the smallest

# %% topk-checks tags=["remove-cell"]
assert torch.equal(top.indices, torch.tensor([[3, 1], [0, 2]]))
assert torch.equal(scores.gather(1, top.indices), top.values)
assert (top.values[:, 0] >= top.values[:, 1]).all()
assert torch.equal(top.indices[:, 0], scores.argmax(dim=1))
assert torch.equal(
    scores.topk(1, dim=1, largest=False).indices[:, 0], scores.argmin(dim=1)
)

# %% topk-ties
print(t.topk(2))  # equal values: which ones come back is not promised

# %% topk-ties-checks tags=["remove-cell"]
tied = t.topk(2)
assert torch.equal(tied.values, torch.tensor([7.0, 7.0]))
assert set(tied.indices.tolist()) <= {1, 2, 4}

# %% two-tensors
a = torch.tensor([1.0, 5.0, 3.0])
b = torch.tensor([4.0, 2.0, 3.0])
print(torch.max(a, b))  # a tensor as second argument: element by element
print(torch.maximum(a, b))  # the same, under its own name
print(a.clamp(min=2.0))  # against a number: clamp

# %% two-tensors-checks tags=["remove-cell"]
assert torch.equal(torch.max(a, b), torch.tensor([4.0, 5.0, 3.0]))
assert torch.equal(torch.max(a, b), torch.maximum(a, b))
assert torch.equal(a.clamp(min=2.0), torch.maximum(a, torch.tensor(2.0)))
assert torch.equal(torch.max(x, torch.zeros(3)), x)  # broadcasts

# %% amax
images = torch.randn(4, 3, 8, 8)  # (batch, channels, height, width)
peak = images.amax(dim=(2, 3))  # over height and width at once
print(peak.shape)
print(torch.equal(peak, images.flatten(2).max(dim=2).values))

# %% amax-checks tags=["remove-cell"]
assert peak.shape == (4, 3)
assert torch.equal(peak, images.flatten(2).max(dim=2).values)
assert torch.equal(peak, images.max(dim=3).values.max(dim=2).values)
assert images.amax(dim=(2, 3), keepdim=True).shape == (4, 3, 1, 1)

# %% max-tuple-dim raises="TypeError: max() received an invalid combination of arguments"
torch.max(images, dim=(2, 3))  # max takes one dim

# %% amax-grad
w = torch.tensor([2.0, 2.0, 1.0], requires_grad=True)
(by_amax,) = torch.autograd.grad(w.amax(), w)
(by_max,) = torch.autograd.grad(w.max(dim=0).values, w)
print(by_amax)  # shared between the equal maxima
print(by_max)  # all of it to the index max returned

# %% amax-grad-checks tags=["remove-cell"]
assert torch.equal(by_amax, torch.tensor([0.5, 0.5, 0.0]))
assert torch.equal(by_max, torch.tensor([1.0, 0.0, 0.0]))
assert w.max(dim=0).indices == 0

# %% argmax-no-grad raises="RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"
import torch.nn.functional as F

torch.manual_seed(0)
logits = torch.randn(2, 4, requires_grad=True)  # a model's output
choice = logits.argmax(dim=1)
print(choice, choice.dtype, choice.requires_grad)
loss = (choice.float() - 2.0).pow(2).mean()  # a loss of the chosen index
loss.backward()

# %% argmax-no-grad-checks tags=["remove-cell"]
assert choice.dtype == torch.int64 and not choice.requires_grad
assert choice.grad_fn is None and loss.grad_fn is None
# a new leaf from the indices: no error, but nothing reaches the logits
fake = choice.float().requires_grad_()
(fake - 2.0).pow(2).mean().backward()
assert fake.grad is not None and logits.grad is None

# %% soft-argmax
positions = torch.arange(4.0)
for T in (1.0, 0.1):
    soft = F.softmax(logits / T, dim=1) @ positions  # expected index
    print(T, soft.detach().round(decimals=2))
soft.sum().backward()
print(bool(logits.grad.abs().sum() > 0))  # the logits get a gradient

# %% soft-argmax-checks tags=["remove-cell"]
# a low temperature approaches the hard index
assert torch.allclose(soft.detach(), choice.float(), atol=0.05)
assert soft.requires_grad and logits.grad.abs().sum() > 0

# %% straight-through
logits.grad = None
y_soft = F.softmax(logits, dim=1)
y_hard = F.one_hot(y_soft.argmax(dim=1), 4).float()
# forward: y_hard; backward: y_soft's gradient
y = y_hard - y_soft.detach() + y_soft
print(y)
(y * torch.arange(4.0)).sum().backward()
print(bool(logits.grad.abs().sum() > 0))  # the logits get a gradient

# %% straight-through-checks tags=["remove-cell"]
assert torch.equal(y, y_hard)  # the forward value is exactly one-hot
assert y.grad_fn is not None and logits.grad.abs().sum() > 0

# %% gumbel-softmax
torch.manual_seed(0)
logits.grad = None
# one-hot sample, with a grad_fn
y = F.gumbel_softmax(logits, tau=0.5, hard=True)
print(y.sum(dim=1), bool(((y == 0) | (y == 1)).all()), y.grad_fn is not None)
(y * torch.arange(4.0)).sum().backward()
print(bool(logits.grad.abs().sum() > 0))

# %% gumbel-softmax-checks tags=["remove-cell"]
assert set(y.unique().tolist()) <= {0.0, 1.0} and torch.equal(y.sum(1), torch.ones(2))
assert y.grad_fn is not None and logits.grad.abs().sum() > 0
