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

# %% layer-vs-batch-norm
x = torch.randn(4, 6) * 3 + 2  # 4 samples, 6 features
ln = nn.LayerNorm(6)
bn = nn.BatchNorm1d(6)
with torch.no_grad():
    y_ln, y_bn = ln(x), bn(x)
# LayerNorm: each row (one sample, over its features)
print(y_ln.mean(dim=1).round(decimals=4) + 0, y_ln.var(dim=1, unbiased=False))
# BatchNorm: each column (one feature, over the batch)
print(y_bn.mean(dim=0).round(decimals=4) + 0, y_bn.var(dim=0, unbiased=False))

# %% layer-vs-batch-norm-checks tags=["remove-cell"]
assert torch.allclose(y_ln.mean(dim=1), torch.zeros(4), atol=1e-5)
assert torch.allclose(y_ln.var(dim=1, unbiased=False), torch.ones(4), atol=1e-4)
assert torch.allclose(y_bn.mean(dim=0), torch.zeros(6), atol=1e-5)
assert torch.allclose(y_bn.var(dim=0, unbiased=False), torch.ones(6), atol=1e-4)
# and not the other way round
assert not torch.allclose(y_ln.mean(dim=0), torch.zeros(6), atol=1e-2)
assert not torch.allclose(y_bn.mean(dim=1), torch.zeros(4), atol=1e-2)

# %% layer-norm-modes
print([name for name, _ in ln.named_buffers()])
print([name for name, _ in bn.named_buffers()])
ln.eval()
bn.eval()
with torch.no_grad():
    print(torch.equal(ln(x), y_ln), torch.equal(bn(x), y_bn))
ln.train()
print(ln(x[:1]).shape)  # one sample in train mode: fine for LayerNorm
tokens = torch.randn(2, 5, 8)  # (batch, seq_len, channels)
# normalises each token over its 8 channels
print(nn.LayerNorm(8)(tokens).shape)

# %% layer-norm-modes-checks tags=["remove-cell"]
assert list(ln.named_buffers()) == []
assert [n for n, _ in bn.named_buffers()] == [
    "running_mean", "running_var", "num_batches_tracked"
]
assert torch.equal(ln(x), y_ln) and not torch.allclose(bn(x), y_bn)
assert torch.allclose(ln(x[:1]), y_ln[:1], atol=1e-6)  # independent of the batch
bn.train()
try:
    bn(x[:1])
except ValueError as error:
    assert "Expected more than 1 value per channel when training" in str(error)
else:
    raise AssertionError("BatchNorm1d in train mode should reject a batch of one")
out = nn.LayerNorm(8)(tokens)
assert torch.allclose(out.mean(dim=-1), torch.zeros(2, 5), atol=1e-5)
# a token's output does not depend on the other tokens or sequences
assert torch.allclose(nn.LayerNorm(8)(tokens[1:, 2:3]), out[1:, 2:3], atol=1e-6)

# %% mc-dropout
model = nn.Sequential(
    nn.Linear(3, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.5),
    nn.Linear(16, 1),
)
# a training step moves BatchNorm's running statistics
model(torch.randn(32, 3))
model.eval()
for m in model.modules():
    # nn.Dropout, nn.Dropout1d/2d/3d, nn.AlphaDropout
    if isinstance(m, nn.modules.dropout._DropoutNd):
        m.train()  # dropout back on, the rest stays in eval
running_mean = model[1].running_mean.clone()
x = torch.randn(2, 3)
with torch.no_grad():
    # (20 passes, 2, 1)
    preds = torch.stack([model(x) for _ in range(20)])
print(preds.mean(dim=0).squeeze(1))  # the prediction
print(preds.std(dim=0).squeeze(1))  # its uncertainty
print(model[1].training, model[3].training)
print(torch.equal(model[1].running_mean, running_mean))

# %% mc-dropout-checks tags=["remove-cell"]
assert preds.shape == (20, 2, 1) and (preds.std(dim=0) > 0).all()
assert model[1].training is False and model[3].training is True
assert torch.equal(model[1].running_mean, running_mean)
# model.train() instead would update BatchNorm's statistics as well
model.train()
with torch.no_grad():
    model(torch.randn(8, 3))
assert not torch.equal(model[1].running_mean, running_mean)
assert issubclass(nn.AlphaDropout, nn.modules.dropout._DropoutNd)
assert issubclass(nn.Dropout2d, nn.modules.dropout._DropoutNd)

# %% functional-dropout
import torch.nn.functional as F

x = torch.ones(1000)
# training=True by default: always on
print((F.dropout(x, 0.5) == 0).float().mean())
print((F.dropout(x, 0.5, training=False) == 0).float().mean())


class Net(nn.Module):
    def forward(self, x):
        # follows train() and eval()
        return F.dropout(x, 0.5, training=self.training)


net = Net().eval()
print(torch.equal(net(x), x))

# %% functional-dropout-checks tags=["remove-cell"]
assert 0.4 < (F.dropout(x, 0.5) == 0).float().mean() < 0.6
assert torch.equal(F.dropout(x, 0.5, training=False), x)
assert torch.equal(net(x), x) and not torch.equal(net.train()(x), x)

# %% dropout2d-channels
x = torch.ones(2, 4, 3, 3)  # (N, C, H, W)
outputs = {}
for drop in (nn.Dropout(0.5), nn.Dropout2d(0.5)):
    y = outputs[type(drop).__name__] = drop(x)  # a new module: train mode
    low, high = y.amin(dim=(2, 3)), y.amax(dim=(2, 3))  # per channel
    print(f"{type(drop).__name__}: values {y.unique().tolist()}, "
          f"partly zeroed channels {int((low != high).sum())} of 8")
print(high)  # Dropout2d: each channel all 0 or all 2

# %% dropout2d-channels-checks tags=["remove-cell"]
for y in outputs.values():
    assert set(y.unique().tolist()) == {0.0, 2.0}
y = outputs["Dropout2d"]
# every channel all zero or all scaled
assert torch.equal(y.amin(dim=(2, 3)), y.amax(dim=(2, 3)))
assert (high == 0).any() and (high == 2).any()
y = outputs["Dropout"]
assert (y.amin(dim=(2, 3)) != y.amax(dim=(2, 3))).any()
# a larger sample: about p of the channels dropped
many = nn.Dropout2d(0.5)(torch.ones(64, 32, 2, 2))
assert torch.equal(many.amin(dim=(2, 3)), many.amax(dim=(2, 3)))
assert 0.4 < (many[:, :, 0, 0] == 0).float().mean() < 0.6

# %% dropout-nd-shapes
inputs = {
    nn.Dropout1d(0.5): torch.ones(2, 4, 5),  # (N, C, L)
    nn.Dropout2d(0.5): torch.ones(2, 4, 3, 3),  # (N, C, H, W)
    nn.Dropout3d(0.5): torch.ones(2, 4, 2, 2, 2),  # (N, C, D, H, W)
}
for drop, x in inputs.items():
    y = drop(x).flatten(2)  # (N, C, everything else)
    whole = torch.equal(y.amin(dim=2), y.amax(dim=2))
    print(f"{type(drop).__name__}: {tuple(x.shape)}, whole channels: {whole}")

# %% dropout-nd-shapes-checks tags=["remove-cell"]
import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for drop, x in inputs.items():
        samples = [(x, 2)]  # batched
        if not isinstance(drop, nn.Dropout2d):
            samples.append((x[0], 1))  # one sample without N
        for sample, start in samples:
            y = drop(sample)
            assert y.shape == sample.shape
            channels = y.flatten(start)
            assert torch.equal(channels.amin(dim=-1), channels.amax(dim=-1))
            assert set(y.unique().tolist()) <= {0.0, 2.0}
# Dropout1d and Dropout3d take an unbatched sample without a warning
assert caught == []
try:
    nn.Dropout1d(0.5)(torch.ones(2, 4, 3, 3))
except RuntimeError as error:
    assert "dropout1d: Expected 2D or 3D input" in str(error)
else:
    raise AssertionError("Dropout1d took a 4-D input")

# %% dropout2d-unbatched
image = torch.ones(4, 3, 3)  # one image without the batch dimension
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    y = nn.Dropout2d(0.5)(image)
for w in caught:
    print(f"{w.category.__name__}: {w.message}")
print(y.amax(dim=2))  # a line per channel, a value per image row

# %% dropout2d-unbatched-checks tags=["remove-cell"]
assert len(caught) == 1 and caught[0].category is UserWarning
message = str(caught[0].message)
assert message.startswith("dropout2d: Received a 3D input to dropout2d")
assert "interpreted as shape (N, C, L)" in message
assert "please switch to using dropout1d instead" in message
# it drops rows of a channel, not whole channels
rows = y.amax(dim=2)
assert torch.equal(y.amin(dim=2), rows)  # each row all 0 or all 2
assert (rows.amin(dim=1) != rows.amax(dim=1)).any()  # a channel partly zeroed
# the fix: add the batch dimension, then remove it
with warnings.catch_warnings(record=True) as caught_fix:
    warnings.simplefilter("always")
    fixed = nn.Dropout2d(0.5)(image.unsqueeze(0)).squeeze(0)
assert caught_fix == []
assert torch.equal(fixed.amin(dim=(1, 2)), fixed.amax(dim=(1, 2)))

# %% dropout-nd-eval
inputs[nn.Dropout(0.5)] = torch.randn(2, 4, 3)
for drop, x in inputs.items():
    drop.eval()
    print(f"{type(drop).__name__}: {torch.equal(drop(x), x)}")

# %% dropout-nd-eval-checks tags=["remove-cell"]
for drop, x in inputs.items():
    assert not drop.training and torch.equal(drop(x), x)
    drop.train()
    assert not torch.equal(drop(torch.ones(8, *x.shape[1:])),
                           torch.ones(8, *x.shape[1:]))
