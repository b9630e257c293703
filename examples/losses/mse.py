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

# %% huber-vs-smooth-l1
x = torch.tensor([0.0, 0.5, 1.0, 2.0, 4.0])  # prediction
y = torch.zeros(5)  # target: each error is x itself
losses = {}
for d in (1.0, 2.0):
    huber = nn.HuberLoss(delta=d, reduction="none")(x, y)
    smooth = nn.SmoothL1Loss(beta=d, reduction="none")(x, y)
    losses[d] = huber, smooth
    print(f"delta = beta = {d}")
    print("  HuberLoss        ", huber)
    print("  SmoothL1Loss     ", smooth)
    print("  d * SmoothL1Loss ", d * smooth)

# %% huber-vs-smooth-l1-checks tags=["remove-cell"]
assert nn.HuberLoss().delta == 1.0 and nn.SmoothL1Loss().beta == 1.0
for d, (huber, smooth) in losses.items():
    assert torch.allclose(huber, d * smooth)
    # below the threshold: half the squared error, above: linear
    e = x - y
    small = e.abs() <= d
    assert torch.allclose(huber[small], 0.5 * e[small] ** 2)
    assert torch.allclose(huber[~small], d * (e[~small].abs() - 0.5 * d))
    assert torch.allclose(smooth[small], 0.5 * e[small] ** 2 / d)
    assert torch.allclose(smooth[~small], e[~small].abs() - 0.5 * d)
assert torch.equal(losses[1.0][0], losses[1.0][1])  # equal at 1
assert not torch.allclose(losses[2.0][0], losses[2.0][1])
# the relation holds for random inputs, other deltas and the default mean
for d in (0.1, 0.5, 3.0):
    p, t = torch.randn(50) * 4, torch.randn(50)
    assert torch.allclose(nn.HuberLoss(delta=d)(p, t),
                          d * nn.SmoothL1Loss(beta=d)(p, t))
    assert torch.allclose(nn.functional.huber_loss(p, t, delta=d),
                          d * nn.functional.smooth_l1_loss(p, t, beta=d))
# beta=0: SmoothL1Loss is L1Loss
assert torch.allclose(nn.SmoothL1Loss(beta=0.0)(p, t), nn.L1Loss()(p, t))

# %% huber-gradient
# the last error is an outlier
error = torch.tensor([0.5, 1.0, 10.0], requires_grad=True)
zeros = torch.zeros(3)
grads = {}
for name, loss_fn in {
    "MSELoss": nn.MSELoss(reduction="sum"),
    "HuberLoss(delta=2)": nn.HuberLoss(delta=2.0, reduction="sum"),
    "SmoothL1Loss(beta=2)": nn.SmoothL1Loss(beta=2.0, reduction="sum"),
}.items():
    (grads[name],) = torch.autograd.grad(loss_fn(error, zeros), error)
    print(f"{name:<21}", grads[name])

# %% huber-gradient-checks tags=["remove-cell"]
assert torch.allclose(grads["MSELoss"], 2 * error)  # grows with the error
# Huber: the error itself, capped at delta
assert torch.allclose(grads["HuberLoss(delta=2)"], torch.tensor([0.5, 1.0, 2.0]))
# SmoothL1: the error divided by beta, capped at 1
assert torch.allclose(grads["SmoothL1Loss(beta=2)"], torch.tensor([0.25, 0.5, 1.0]))
# below the threshold: Huber's gradient does not depend on delta,
# smooth L1's is error / beta, larger for a smaller beta
small = torch.tensor([0.1, -0.2], requires_grad=True)
for d in (0.5, 1.0, 4.0):
    (g,) = torch.autograd.grad(
        nn.HuberLoss(delta=d, reduction="sum")(small, torch.zeros(2)), small)
    assert torch.allclose(g, small.detach())
    (g,) = torch.autograd.grad(
        nn.SmoothL1Loss(beta=d, reduction="sum")(small, torch.zeros(2)), small)
    assert torch.allclose(g, small.detach() / d)
