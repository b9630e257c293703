# %% [markdown]
# MSELoss squares the element-wise differences, then keeps them ("none"), adds
# them up ("sum") or averages them over all elements ("mean", the default)

# %% [markdown] lang="zh"
# `MSELoss` 先对逐元素的差求平方，然后原样保留（`"none"`）、求和（`"sum"`）
# 或对所有元素求平均（`"mean"`，默认值）

# %% setup
import torch
import torch.nn as nn

x = torch.randn(3, 4)  # prediction
y = torch.randn(3, 4)  # target

# %% none
loss_none = nn.MSELoss(reduction="none")(x, y)
print(loss_none.shape)
print(torch.equal(loss_none, (x - y) ** 2))

# %% sum
loss_sum = nn.MSELoss(reduction="sum")(x, y)
print(loss_sum, loss_none.sum())

# %% mean
loss_mean = nn.MSELoss()(x, y)  # reduction="mean" is the default
print(loss_mean, loss_sum / x.numel())

# %% functional
print(nn.functional.mse_loss(x, y))

# %% shape-mismatch
# a Linear(..., 1) output: (4, 1)
pred = torch.tensor([[1.0], [2.0], [3.0], [4.0]])
target = torch.tensor([1.0, 2.0, 3.0, 4.0])  # (4,)
print(nn.MSELoss(reduction="none")(pred, target).shape)
print(nn.MSELoss()(pred, target))

# %% shape-fixed
print(nn.MSELoss()(pred.squeeze(1), target))

# %% not-a-distance
a = torch.tensor([0.0, 0.0, 0.0, 0.0])
b = torch.tensor([1.0, 1.0, 1.0, 1.0])
print(nn.MSELoss()(a, b))  # squared, then divided by the number of elements
print(torch.dist(a, b))  # the Euclidean distance

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
import warnings

assert loss_none.shape == x.shape == (3, 4)
assert torch.equal(loss_none, (x - y) ** 2)
assert loss_sum.shape == () and torch.allclose(loss_sum, loss_none.sum())
assert torch.allclose(loss_mean, loss_sum / 12) and x.numel() == 12
assert torch.allclose(loss_mean, loss_none.mean())
assert nn.MSELoss().reduction == "mean"
assert torch.equal(nn.functional.mse_loss(x, y), loss_mean)

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    broadcast = nn.MSELoss(reduction="none")(pred, target)
    wrong = nn.MSELoss()(pred, target)
assert len(caught) == 2
for w in caught:
    assert issubclass(w.category, UserWarning)
    assert "likely lead to incorrect results due to broadcasting" \
        in str(w.message)
assert broadcast.shape == (4, 4)  # every prediction against every target
assert wrong == 2.5  # a perfect prediction, yet a positive loss
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    right = nn.MSELoss()(pred.squeeze(1), target)
assert caught == [] and right == 0

assert nn.MSELoss()(a, b) == 1 and torch.dist(a, b) == 2
assert torch.allclose(nn.MSELoss(reduction="sum")(a, b), torch.dist(a, b) ** 2)
assert torch.allclose(nn.MSELoss()(x, y), torch.dist(x, y) ** 2 / x.numel())
