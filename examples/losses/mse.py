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

# %% targets-normalize
torch.manual_seed(0)
inputs = torch.randn(100, 3)  # features, already on a scale around 1
# targets in the thousands, such as prices
prices = inputs @ torch.tensor([300.0, -200.0, 100.0]) + 5000
prices = prices + 50 * torch.randn(100)  # noise of std 50
x_train, y_train = inputs[:80], prices[:80]
x_test, y_test = inputs[80:], prices[80:]

# statistics of the training targets only
y_mean, y_std = y_train.mean(), y_train.std()
y_train_norm = (y_train - y_mean) / y_std
print(f"training targets: mean {y_mean:.1f}, std {y_std:.1f}")
print(y_train[:4])
print(y_train_norm[:4])  # mean 0, std 1

# %% targets-normalize-checks tags=["remove-cell"]
assert 4900 < y_mean < 5200 and 280 < y_std < 360  # about 5000 and 300
assert len(y_train) == 80
assert abs(y_train_norm.mean().item()) < 1e-5
assert abs(y_train_norm.std().item() - 1) < 1e-5
# the test split has other statistics
assert abs(y_test.mean() - y_mean) > 50

# %% targets-train
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(200):
    optimizer.zero_grad()
    pred_train = model(x_train).squeeze(1)
    loss = nn.functional.mse_loss(pred_train, y_train_norm)
    loss.backward()
    optimizer.step()
print(f"training loss, normalized scale: {loss.item():.4f}")

# %% targets-train-checks tags=["remove-cell"]
# a fresh model outputs values of the order of 1: a first loss in the millions
fresh = nn.Linear(3, 1)
with torch.no_grad():
    first = fresh(x_train).squeeze(1)
assert first.abs().max() < 5
assert nn.functional.mse_loss(first, y_train) > 1e6
assert nn.functional.mse_loss(fresh(x_train).squeeze(1), y_train_norm) < 10

# %% targets-invert
with torch.no_grad():
    pred_norm = model(x_test).squeeze(1)  # on the normalized scale
pred = pred_norm * y_std + y_mean  # back to the original scale
print(pred[:4])
print(y_test[:4])

# %% targets-invert-checks tags=["remove-cell"]
assert loss.item() < 0.1
assert (pred[:4] - y_test[:4]).abs().max() < 70
assert (pred - y_test).abs().max() < 200  # std 320, noise 50
assert torch.allclose((pred - y_mean) / y_std, pred_norm, atol=1e-5)

# %% targets-mse-scale
y_test_norm = (y_test - y_mean) / y_std  # with the training statistics
mse_norm = nn.functional.mse_loss(pred_norm, y_test_norm)
mse = nn.functional.mse_loss(pred, y_test)
print(f"MSE, normalized scale: {mse_norm:.4f}")
print(f"MSE, original scale:   {mse:.1f}")
print(f"original / std**2:     {mse / y_std**2:.4f}")
print(f"RMSE, original scale:  {mse.sqrt():.1f}")

# %% targets-mse-scale-checks tags=["remove-cell"]
assert torch.allclose(mse_norm, mse / y_std**2, rtol=1e-3)
assert torch.allclose(mse.sqrt(), mse_norm.sqrt() * y_std, rtol=1e-3)
assert 40 < mse.sqrt() < 60  # about the noise, 50
assert abs(mse_norm.item() - 0.0227) < 5e-4
# torch.std divides by n - 1 by default; StandardScaler by n (ddof=0)
assert torch.equal(y_train.std(), y_train.std(correction=1))
assert not torch.allclose(y_train.std(), y_train.std(correction=0))
# the mean does not matter, only the scale: any shift and factor
for shift, scale in ((0.0, 10.0), (-3.0, 0.5), (1e3, 2.0)):
    a, b = torch.randn(50), torch.randn(50)
    assert torch.allclose(
        nn.functional.mse_loss(a * scale + shift, b * scale + shift),
        scale**2 * nn.functional.mse_loss(a, b), rtol=1e-4)

# %% targets-wrong-stats
# converted back with the test split's own statistics instead
wrong = pred_norm * y_test.std() + y_test.mean()
print(f"test mean {y_test.mean():.1f}, std {y_test.std():.1f}")
print(f"MSE, training statistics: {mse:.1f}")
print(f"MSE, test statistics:     "
      f"{nn.functional.mse_loss(wrong, y_test):.1f}")

# %% targets-wrong-stats-checks tags=["remove-cell"]
assert 9 < nn.functional.mse_loss(wrong, y_test) / mse < 11  # ten times
assert y_test.mean() < y_mean and y_test.std() < y_std

# %% targets-buffers
import io


class ScaledRegressor(nn.Module):
    # predicts on the original scale, with the training statistics inside
    def __init__(self, net, y_mean, y_std):
        super().__init__()
        self.net = net
        # buffers: in state_dict() and moved by .to(), but not trained
        self.register_buffer("y_mean", torch.as_tensor(y_mean).clone())
        self.register_buffer("y_std", torch.as_tensor(y_std).clone())

    def forward(self, x):
        return self.net(x).squeeze(1) * self.y_std + self.y_mean


scaled = ScaledRegressor(model, y_mean, y_std)
print(list(scaled.state_dict()))
print([name for name, _ in scaled.named_parameters()])

checkpoint = io.BytesIO()  # a file path works the same
torch.save(scaled.state_dict(), checkpoint)
checkpoint.seek(0)
# a new model: its placeholder statistics are overwritten by the checkpoint
restored = ScaledRegressor(nn.Linear(3, 1), 0.0, 1.0)
restored.load_state_dict(torch.load(checkpoint, weights_only=True))
print(restored.y_mean, restored.y_std)
with torch.no_grad():
    print(torch.allclose(restored(x_test), pred))

# %% targets-buffers-checks tags=["remove-cell"]
assert list(scaled.state_dict()) == [
    "y_mean", "y_std", "net.weight", "net.bias"
]
assert {name for name, _ in scaled.named_parameters()} == {
    "net.weight", "net.bias"
}
assert {name for name, _ in scaled.named_buffers()} == {"y_mean", "y_std"}
assert torch.equal(restored.y_mean, y_mean)
assert torch.equal(restored.y_std, y_std)
with torch.no_grad():
    assert torch.allclose(restored(x_test), pred)
# .to() converts and moves buffers with the parameters
import copy

doubled = copy.deepcopy(scaled).to(torch.float64)
assert doubled.y_mean.dtype == doubled.y_std.dtype == torch.float64
assert doubled.net.weight.dtype == torch.float64

# %% targets-minmax
y_min, y_max = y_train.min(), y_train.max()  # training split only
y_train_01 = (y_train - y_min) / (y_max - y_min)  # in [0, 1]
print(y_train_01.min(), y_train_01.max())
# the inverse: y = y_01 * (max - min) + min
print(torch.allclose(y_train_01 * (y_max - y_min) + y_min, y_train))
# a target outside the training range lands outside [0, 1]: keep it
print((torch.stack([y_min - 100, y_max + 100]) - y_min) / (y_max - y_min))

# %% targets-minmax-checks tags=["remove-cell"]
assert y_train_01.min() == 0 and y_train_01.max() == 1
assert torch.allclose(y_train_01 * (y_max - y_min) + y_min, y_train)
outside = (torch.stack([y_min - 100, y_max + 100]) - y_min) / (y_max - y_min)
assert outside[0] < 0 and outside[1] > 1
# the MSE on the [0, 1] scale is the original MSE divided by (max - min)**2
pred_01 = (pred - y_min) / (y_max - y_min)
y_test_01 = (y_test - y_min) / (y_max - y_min)
assert torch.allclose(nn.functional.mse_loss(pred_01, y_test_01),
                      mse / (y_max - y_min) ** 2, rtol=1e-3)
