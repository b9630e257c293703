# %% [markdown]
# Dropout and BatchNorm behave differently in train and eval mode; eval-mode BatchNorm
# uses running estimates, which can be far from the data after few steps

# %% dropout
import torch
from torch import nn

drop = nn.Dropout(p=0.5)
x = torch.ones(10)
drop.train()
print(drop(x))
drop.eval()
print(drop(x))

# %% bn-train
bn = nn.BatchNorm1d(2)
x = 5 + 3 * torch.randn(16, 2)  # mean 5, std 3
y = bn(x)  # a new module is in train mode
print(y.mean(dim=0), y.std(dim=0, unbiased=False))
print(bn.running_mean, bn.running_var, bn.num_batches_tracked)

# %% bn-train-formula
mean, var = x.mean(dim=0), x.var(dim=0, unbiased=False)
expected = (x - mean) / torch.sqrt(var + bn.eps) * bn.weight + bn.bias
assert torch.allclose(y, expected, atol=1e-5)

m = bn.momentum  # 0.1
assert torch.allclose(bn.running_mean, (1 - m) * 0 + m * mean)
assert torch.allclose(bn.running_var, (1 - m) * 1 + m * x.var(dim=0, unbiased=True))

# %% bn-eval
bn.eval()
y = bn(x)
rm, rv = bn.running_mean, bn.running_var
expected = (x - rm) / torch.sqrt(rv + bn.eps) * bn.weight + bn.bias
assert torch.allclose(y, expected, atol=1e-5)
print(y.mean(dim=0))

# %% symptom
bn = nn.BatchNorm1d(2)
for _ in range(3):
    x = 5 + 3 * torch.randn(64, 2)
    y_train = bn(x)
bn.eval()
y_eval = bn(x)  # the same batch as the last training step
print(bn.running_mean, bn.running_var)
print(y_train.mean(dim=0), y_eval.mean(dim=0))
print((y_eval - y_train).abs().max())

# %% batch-size
for batch_size in (4, 256):
    bn = nn.BatchNorm1d(1)
    for _ in range(3):
        bn(5 + 3 * torch.randn(batch_size, 1))
    print(f"batch {batch_size}: running_mean {bn.running_mean.item():.2f}, "
          f"running_var {bn.running_var.item():.2f}")

# %% batch-size-noise
for batch_size in (4, 256):
    bn = nn.BatchNorm1d(1)
    history = []
    for step in range(300):
        bn(5 + 3 * torch.randn(batch_size, 1))
        history.append(bn.running_mean.item())
    spread = torch.tensor(history[100:]).std().item()
    print(f"batch {batch_size}: running_mean varies by {spread:.3f} (std)")

# %% more-steps
bn = nn.BatchNorm1d(2)
for _ in range(100):
    x = 5 + 3 * torch.randn(256, 2)
    y_train = bn(x)
bn.eval()
y_eval = bn(x)
print(bn.running_mean, bn.running_var)
print((y_eval - y_train).abs().max())

# %% eval-no-update
mean_before, steps = bn.running_mean.clone(), int(bn.num_batches_tracked)
bn(5 + 3 * torch.randn(64, 2))  # still in eval mode
print(torch.equal(bn.running_mean, mean_before), int(bn.num_batches_tracked) == steps)

# %% momentum-none
bn = nn.BatchNorm1d(1, momentum=None)
batch_means = []
for _ in range(3):
    x = 5 + 3 * torch.randn(64, 1)
    bn(x)
    batch_means.append(x.mean())
print(bn.running_mean, torch.stack(batch_means).mean())

# %% no-running-stats
bn = nn.BatchNorm1d(2, track_running_stats=False)
x = 5 + 3 * torch.randn(16, 2)
y_train = bn(x)
bn.eval()
print(bn.running_mean, torch.allclose(bn(x), y_train))

# %% recursive
model = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2), nn.Dropout(0.5))
model.eval()
print([m.training for m in model.modules()])
model.train()
print([m.training for m in model.modules()])

# %% eval-keeps-grad
model.eval()
print(model(torch.randn(4, 2)).requires_grad)

# %% batch-of-one tags=["raises-exception"]
model.train()
model(torch.randn(1, 2))

# %% batch-of-one-eval
model.eval()
print(model(torch.randn(1, 2)).shape)

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
drop = nn.Dropout(p=0.5)
x = torch.ones(1000)
out = drop(x)
assert set(out.unique().tolist()) == {0.0, 2.0}  # zeroed or scaled by 1 / (1 - p)
assert 300 < (out == 0).sum() < 700
drop.eval()
assert torch.equal(drop(x), x)  # identity in eval mode

# train mode: the batch's statistics, and one momentum step of the running ones
bn = nn.BatchNorm1d(2)
assert torch.equal(bn.weight, torch.ones(2)) and torch.equal(bn.bias, torch.zeros(2))
assert torch.equal(bn.running_mean, torch.zeros(2))
assert torch.equal(bn.running_var, torch.ones(2))
x = 5 + 3 * torch.randn(16, 2)
y = bn(x)
assert torch.allclose(y.mean(dim=0), torch.zeros(2), atol=1e-5)
assert torch.allclose(y.std(dim=0, unbiased=False), torch.ones(2), atol=1e-3)
assert bn.momentum == 0.1 and bn.num_batches_tracked == 1
assert torch.allclose(bn.running_mean, 0.1 * x.mean(dim=0))
assert torch.allclose(bn.running_var, 0.9 + 0.1 * x.var(dim=0, unbiased=True))
# eval mode after that one step: estimates still near 0 and 1, output far from normalised
assert (bn.running_mean.abs() < 1).all() and (bn.running_var < 3).all()
bn.eval()
assert (bn(x).mean(dim=0) > 2).all()

# the symptom: after 3 steps the running stats are far from mean 5, var 9
bn = nn.BatchNorm1d(2)
means = []
for _ in range(3):
    x = 5 + 3 * torch.randn(64, 2)
    y_tr = bn(x)
    means.append(x.mean(dim=0))
bn.eval()
y_ev = bn(x)
ema = 0.1 * (0.9**2 * means[0] + 0.9 * means[1] + means[2])  # (1 - 0.9**3) of the way
assert torch.allclose(bn.running_mean, ema, atol=1e-5)
assert abs(1 - 0.9**3 - 0.27) < 0.005
assert (bn.running_mean < 2.5).all() and (bn.running_var < 5).all()
assert torch.allclose(y_tr.mean(dim=0), torch.zeros(2), atol=1e-5)
assert (y_ev.mean(dim=0) > 1).all()  # shifted by about 2
assert (y_ev - y_tr).abs().max() > 1  # a large difference for the same batch

# batch size does not decide the bias after few steps: 1 - 0.9**3 of the way for both
for batch_size in (4, 256):
    bn = nn.BatchNorm1d(1)
    for _ in range(3):
        bn(5 + 3 * torch.randn(batch_size, 1))
    assert 0.5 < bn.running_mean.item() < 2.5  # 5 * (1 - 0.9**3) = 1.36 expected
# a smaller batch gives noisier running statistics
spreads = {}
for batch_size in (4, 256):
    bn = nn.BatchNorm1d(1)
    history = []
    for step in range(300):
        bn(5 + 3 * torch.randn(batch_size, 1))
        history.append(bn.running_mean.item())
    spreads[batch_size] = torch.tensor(history[100:]).std().item()
assert spreads[4] > 3 * spreads[256]

# more steps: running stats converge, eval output close to train output
bn = nn.BatchNorm1d(2)
for _ in range(100):
    x = 5 + 3 * torch.randn(256, 2)
    y_tr = bn(x)
bn.eval()
y_ev = bn(x)
assert torch.allclose(bn.running_mean, torch.full((2,), 5.0), atol=0.5)
assert torch.allclose(bn.running_var, torch.full((2,), 9.0), atol=2.0)
assert (y_ev - y_tr).abs().max() < 0.5
rm, n = bn.running_mean.clone(), int(bn.num_batches_tracked)
bn(5 + 3 * torch.randn(64, 2))
assert torch.equal(bn.running_mean, rm) and bn.num_batches_tracked == n == 100

# momentum=None: cumulative average of the batch means
bn = nn.BatchNorm1d(1, momentum=None)
means = []
for _ in range(3):
    x = 5 + 3 * torch.randn(64, 1)
    bn(x)
    means.append(x.mean())
assert torch.allclose(bn.running_mean, torch.stack(means).mean().reshape(1), atol=1e-5)
assert abs(bn.running_mean.item() - 5) < 1

# track_running_stats=False: no running stats, batch stats in eval too
bn = nn.BatchNorm1d(2, track_running_stats=False)
assert bn.running_mean is None and bn.running_var is None
x = 5 + 3 * torch.randn(16, 2)
y_tr = bn(x)
bn.eval()
assert torch.allclose(bn(x), y_tr)

net = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2), nn.Dropout(0.5))
assert net.eval() is net and not any(m.training for m in net.modules())
assert net.train() is net and all(m.training for m in net.modules())
net.train(False)
assert not any(m.training for m in net.modules())  # eval() is train(False)
assert net(torch.randn(4, 2)).requires_grad  # eval() does not switch off autograd

net.train()
try:
    net(torch.randn(1, 2))
except ValueError as error:
    assert "Expected more than 1 value per channel when training" in str(error)
else:
    raise AssertionError("BatchNorm1d in train mode should reject a batch of one")
net.eval()
assert net(torch.randn(1, 2)).shape == (1, 2)
loader = torch.utils.data.DataLoader(torch.arange(9.0), batch_size=4, drop_last=True)
assert [len(batch) for batch in loader] == [4, 4]  # the last batch of one is dropped
