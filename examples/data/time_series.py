# %% [markdown]
# Forecasting a time series with an LSTM: sliding windows with unfold,
# a split in time order, scaling fitted on the training part only,
# the flat forecast of an unscaled series, and a roll-out of the model
# fed its own predictions

# %% [markdown] lang="zh"
# 用 LSTM 预测时间序列：用 `unfold` 切滑动窗口，按时间顺序划分数据集，
# 只用训练部分拟合归一化参数，未归一化的序列得到一条直线的预测，
# 以及把模型自己的预测喂回去的多步滚动预测

# %% setup
import torch
from torch import nn
import torch.nn.functional as F

# 160 steps: a level of 100, a cycle of 12 steps and some noise
t = torch.arange(160, dtype=torch.float32)
series = 100 + 20 * torch.sin(2 * torch.pi * t / 12) + 2 * torch.randn(160)
print(series.shape, series[:4])

# %% windows
window = 8
pairs = series.unfold(0, window + 1, 1)  # every run of 9 values, step 1
x = pairs[:, :-1].unsqueeze(-1)  # (samples, steps, features=1)
y = pairs[:, -1:]  # the value right after each window
print(pairs.shape, x.shape, y.shape)
print(x[1, :, 0], y[1])

# %% windows-checks tags=["remove-cell"]
assert x.shape == (160 - window, window, 1) and y.shape == (160 - window, 1)
assert torch.equal(x[1, :, 0], series[1:9]) and y[1].item() == series[9]
assert pairs.data_ptr() == series.data_ptr()  # unfold is a view

# %% dataset
class WindowDataset(torch.utils.data.Dataset):
    """(window, next value) pairs of a 1-D series"""

    def __init__(self, series, window):
        self.series, self.window = series, window

    def __len__(self):
        return len(self.series) - self.window

    def __getitem__(self, i):
        end = i + self.window
        return self.series[i:end].unsqueeze(-1), self.series[end:end + 1]


dataset = WindowDataset(series, window)
print(len(dataset), [tuple(part.shape) for part in dataset[0]])

# %% dataset-checks tags=["remove-cell"]
assert len(dataset) == len(x)
assert all(torch.equal(dataset[i][0], x[i]) and torch.equal(dataset[i][1], y[i])
           for i in range(len(dataset)))

# %% split
split = 128  # the first 128 steps train, the last 32 validate
train = series[:split]
# validation windows start 8 steps early: the inputs may overlap the
# training part, the targets never do
val = series[split - window:]
mean, std = train.mean(), train.std()  # from the training part only
x_train, y_train = x[:split - window], y[:split - window]
x_val, y_val = x[split - window:], y[split - window:]
print(len(x_train), len(x_val), f"mean {mean:.2f}, std {std:.2f}")

# %% split-checks tags=["remove-cell"]
assert len(x_train) == 120 and len(x_val) == 32
assert torch.equal(y_val[:, 0], series[split:])  # targets after the split only
assert torch.equal(y_train[:, 0], series[window:split])
assert torch.equal(x_val[0, :, 0], val[:window])

# %% model
class Forecaster(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.lstm = nn.LSTM(1, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        out, (h, c) = self.lstm(x)  # out: (batch, steps, hidden)
        return self.head(out[:, -1])  # the output of the last step


def fit(x, y, steps=100):
    torch.manual_seed(0)
    model = Forecaster()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    for step in range(steps):  # the whole training set as one batch
        loss = F.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model, loss.item()

# %% model-checks tags=["remove-cell"]
probe = Forecaster()
out, (h, c) = probe.lstm(x[:3])
assert torch.equal(out[:, -1], h[-1])  # the last step's output is h_n
assert out[-1].shape == (window, 16)  # out[-1]: the last sample, not step

# %% flat
raw_model, raw_loss = fit(x_train, y_train)  # values around 100, unscaled
with torch.no_grad():
    raw_pred = raw_model(x_val)
    hidden = raw_model.lstm(x_val)[0][:, -1]
print(f"training loss {raw_loss:.1f}")
print("predictions:", raw_pred[:4, 0])
print(f"spread of the predictions {raw_pred.std():.2g}")
print(f"spread of the hidden state {hidden.std(dim=0).max():.2g}")
print(f"loss of predicting the mean {y_train.var(unbiased=False):.1f}")

# %% flat-checks tags=["remove-cell"]
assert raw_pred.std() < 0.01 * y_val.std(), raw_pred.std()
assert hidden.std(dim=0).max() < 1e-3, hidden.std(dim=0).max()
assert raw_loss > 0.5 * y_train.var(unbiased=False), raw_loss
assert raw_pred.mean() < 0.8 * y_train.mean(), raw_pred.mean()

# %% scaled
model, loss = fit((x_train - mean) / std, (y_train - mean) / std)
with torch.no_grad():
    pred = model((x_val - mean) / std) * std + mean  # back to the units
losses = {
    "model": F.mse_loss(pred, y_val).item(),
    "train mean": F.mse_loss(mean.expand_as(y_val), y_val).item(),
    "last value": F.mse_loss(x_val[:, -1], y_val).item(),
}
print(f"training loss {loss:.3f} (scaled units)")
print("predictions:", pred[:4, 0], "\ntargets:    ", y_val[:4, 0])
print({name: round(value, 1) for name, value in losses.items()})

# %% scaled-checks tags=["remove-cell"]
assert losses["model"] < 0.5 * losses["last value"], losses
assert losses["model"] < 0.1 * losses["train mean"], losses
assert pred.std() > 0.5 * y_val.std()

# %% rollout
context = (x_val[:1] - mean) / std  # the last 8 training values
rolled = []
with torch.no_grad():
    for step in range(len(y_val)):  # feed each prediction back in
        next_value = model(context)  # (1, 1)
        rolled.append(next_value)
        context = torch.cat([context[:, 1:], next_value[:, None]], dim=1)
rolled = torch.cat(rolled) * std + mean
errors = (rolled - y_val).abs()[:, 0]
print(f"roll-out loss {F.mse_loss(rolled, y_val):.1f}")
print("error at steps 1-4:", errors[:4])
print("error at steps 29-32:", errors[-4:])

# %% rollout-checks tags=["remove-cell"]
rollout_loss = F.mse_loss(rolled, y_val).item()
assert rollout_loss > losses["model"], (rollout_loss, losses)
assert rollout_loss < 0.5 * losses["train mean"], (rollout_loss, losses)
