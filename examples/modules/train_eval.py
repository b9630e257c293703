# %% [markdown]
# Dropout and BatchNorm behave differently in train and
# eval mode; eval-mode BatchNorm uses running estimates,
# which can be far from the data after few steps

# %% [markdown] lang="zh"
# `Dropout` 和 `BatchNorm` 在训练模式和评估模式下行为不同；评估模式下的
# `BatchNorm` 使用滑动估计的统计量（running estimates），训练步数不多时，
# 它们可能与数据的实际统计量相差很远

# %% dropout
import torch
from torch import nn

drop = nn.Dropout(p=0.5)
x = torch.ones(10)
drop.train()
print(drop(x))
drop.eval()
print(drop(x))

# %% dropout-checks tags=["remove-cell"]
# The cell's 10 values, and a larger sample for the share that is dropped
drop.train()
out = drop(torch.ones(1000))
# zeroed or scaled by 1 / (1 - p)
assert set(out.unique().tolist()) == {0.0, 2.0}
assert 300 < (out == 0).sum() < 700
drop.eval()
assert torch.equal(drop(x), x)  # identity in eval mode

# %% bn-train
bn = nn.BatchNorm1d(2)
x = 5 + 3 * torch.randn(16, 2)  # mean 5, std 3
y = bn(x)  # a new module is in train mode
print(y.mean(dim=0), y.std(dim=0, unbiased=False))
print(bn.running_mean, bn.running_var, bn.num_batches_tracked)

# %% bn-train-checks tags=["remove-cell"]
assert torch.equal(bn.weight, torch.ones(2)) and torch.equal(
    bn.bias, torch.zeros(2)
)
assert torch.allclose(y.mean(dim=0), torch.zeros(2), atol=1e-5)
assert torch.allclose(y.std(dim=0, unbiased=False), torch.ones(2), atol=1e-3)
assert bn.momentum == 0.1 and bn.num_batches_tracked == 1

# %% bn-train-formula
mean, var = x.mean(dim=0), x.var(dim=0, unbiased=False)
expected = (x - mean) / torch.sqrt(var + bn.eps) * bn.weight + bn.bias
assert torch.allclose(y, expected, atol=1e-5)

m = bn.momentum  # 0.1
assert torch.allclose(bn.running_mean, (1 - m) * 0 + m * mean)
assert torch.allclose(
    bn.running_var, (1 - m) * 1 + m * x.var(dim=0, unbiased=True)
)

# %% bn-eval
bn.eval()
y = bn(x)
rm, rv = bn.running_mean, bn.running_var
expected = (x - rm) / torch.sqrt(rv + bn.eps) * bn.weight + bn.bias
assert torch.allclose(y, expected, atol=1e-5)
print(y.mean(dim=0))

# %% bn-eval-checks tags=["remove-cell"]
# after that one step: a tenth of the way from 0 and 1 towards
# the batch's mean and variance, so far from them (any seed:
# running_var = 0.9 + 0.1 * var is below var / 2 once var > 2.25)
assert (bn.running_mean < x.mean(dim=0) / 5).all() and (
    bn.running_var < x.var(dim=0) / 2
).all()
# 0.9 * mean / sqrt(0.9 + 0.1 * var): far from 0, for any seed
assert (y.mean(dim=0) > 1).all()

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

# %% symptom-checks tags=["remove-cell"]
# after 3 steps the running mean is 1 -
# 0.9**3 (about 27%) of the way from 0 to 5
assert abs(1 - 0.9**3 - 0.27) < 0.005
assert torch.allclose(
    bn.running_mean, torch.full((2,), 5 * (1 - 0.9**3)), atol=0.3
)
assert (bn.running_var < 5).all()
assert torch.allclose(y_train.mean(dim=0), torch.zeros(2), atol=1e-5)
assert (y_eval.mean(dim=0) > 1).all()  # shifted by about 2
# a large difference for the same batch
assert (y_eval - y_train).abs().max() > 1

# %% batch-size
running_means = {}
for batch_size in (4, 256):
    bn = nn.BatchNorm1d(1)
    for _ in range(3):
        bn(5 + 3 * torch.randn(batch_size, 1))
    running_means[batch_size] = bn.running_mean.item()
    print(f"batch {batch_size}: running_mean {bn.running_mean.item():.2f}, "
          f"running_var {bn.running_var.item():.2f}")

# %% batch-size-checks tags=["remove-cell"]
# far below 5 for both sizes: 5 * (1 - 0.9**3) = 1.36 expected
assert all(0.5 < mean < 2.5 for mean in running_means.values())

# %% batch-size-noise
spreads = {}
for batch_size in (4, 256):
    bn = nn.BatchNorm1d(1)
    history = []
    for step in range(300):
        bn(5 + 3 * torch.randn(batch_size, 1))
        history.append(bn.running_mean.item())
    spreads[batch_size] = torch.tensor(history[100:]).std().item()
    print(f"batch {batch_size}: "
          f"running_mean varies by {spreads[batch_size]:.3f} (std)")

# %% batch-size-noise-checks tags=["remove-cell"]
# a smaller batch gives noisier running statistics
assert spreads[4] > 3 * spreads[256]

# %% more-steps
bn = nn.BatchNorm1d(2)
for _ in range(100):
    x = 5 + 3 * torch.randn(256, 2)
    y_train = bn(x)
bn.eval()
y_eval = bn(x)
print(bn.running_mean, bn.running_var)
print((y_eval - y_train).abs().max())

# %% more-steps-checks tags=["remove-cell"]
assert torch.allclose(bn.running_mean, torch.full((2,), 5.0), atol=0.5)
assert torch.allclose(bn.running_var, torch.full((2,), 9.0), atol=2.0)
assert (y_eval - y_train).abs().max() < 0.5

# %% eval-no-update
mean_before, steps = bn.running_mean.clone(), int(bn.num_batches_tracked)
bn(5 + 3 * torch.randn(64, 2))  # still in eval mode
print(
    torch.equal(bn.running_mean, mean_before),
    int(bn.num_batches_tracked) == steps
)

# %% eval-no-update-checks tags=["remove-cell"]
assert torch.equal(bn.running_mean, mean_before)
assert bn.num_batches_tracked == steps == 100

# %% momentum-none
bn = nn.BatchNorm1d(1, momentum=None)
batch_means = []
for _ in range(3):
    x = 5 + 3 * torch.randn(64, 1)
    bn(x)
    batch_means.append(x.mean())
print(bn.running_mean, torch.stack(batch_means).mean())

# %% momentum-none-checks tags=["remove-cell"]
# a cumulative average of the batch means
cumulative = torch.stack(batch_means).mean().reshape(1)
assert torch.allclose(bn.running_mean, cumulative, atol=1e-5)
assert abs(bn.running_mean.item() - 5) < 1

# %% no-running-stats
bn = nn.BatchNorm1d(2, track_running_stats=False)
x = 5 + 3 * torch.randn(16, 2)
y_train = bn(x)
bn.eval()
print(bn.running_mean, torch.allclose(bn(x), y_train))

# %% no-running-stats-checks tags=["remove-cell"]
assert bn.running_mean is None and bn.running_var is None
assert torch.allclose(bn(x), y_train)  # batch statistics in eval mode too

# %% recursive
model = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2), nn.Dropout(0.5))
model.eval()
print([m.training for m in model.modules()])
model.train()
print([m.training for m in model.modules()])

# %% recursive-checks tags=["remove-cell"]
assert model.eval() is model and not any(m.training for m in model.modules())
assert model.train() is model and all(m.training for m in model.modules())
model.train(False)
assert not any(m.training for m in model.modules())  # eval() is train(False)

# %% eval-keeps-grad
model.eval()
print(model(torch.randn(4, 2)).requires_grad)

# %% eval-keeps-grad-checks tags=["remove-cell"]
# eval() does not switch off autograd
assert model(torch.randn(4, 2)).requires_grad

# %% batch-of-one tags=["raises-exception"]
model.train()
model(torch.randn(1, 2))

# %% batch-of-one-checks tags=["remove-cell"]
try:
    model(torch.randn(1, 2))
except ValueError as error:
    assert "Expected more than 1 value per channel when training" in str(error)
else:
    raise AssertionError(
        "BatchNorm1d in train mode should reject a batch of one"
    )

# %% batch-of-one-eval
model.eval()
print(model(torch.randn(1, 2)).shape)

# %% batch-of-one-eval-checks tags=["remove-cell"]
assert model(torch.randn(1, 2)).shape == (1, 2)
loader = torch.utils.data.DataLoader(
    torch.arange(9.0), batch_size=4, drop_last=True
)
# the last batch of one is dropped
assert [len(batch) for batch in loader] == [4, 4]
