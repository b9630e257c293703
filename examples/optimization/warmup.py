# %% [markdown]
# Learning-rate warmup: start with a small learning rate and raise it over
# the first steps, with LinearLR and SequentialLR or with one LambdaLR; the
# schedules printed and plotted

# %% [markdown] lang="zh"
# 学习率预热：先用较小的学习率，在最初的若干步里逐步升到设定值。用
# `LinearLR` 加 `SequentialLR`，或者只用一个 `LambdaLR`；打印并画出学习率曲线

# %% linear-warmup
import torch
from torch import nn
from torch.optim.lr_scheduler import (
    CosineAnnealingLR, LambdaLR, LinearLR, SequentialLR
)

model = nn.Linear(4, 1)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
warmup = LinearLR(optimizer, start_factor=0.1, total_iters=5)
lrs = []
for step in range(8):
    lrs.append(optimizer.param_groups[0]["lr"])  # the lr this step uses
    optimizer.step()  # one batch of training
    warmup.step()  # once per batch, after optimizer.step()
print([f"{lr:.2e}" for lr in lrs])

# %% linear-warmup-checks tags=["remove-cell"]
import math

expected = [1e-3 * (0.1 + 0.9 * min(step, 5) / 5) for step in range(8)]
assert all(math.isclose(a, b) for a, b in zip(lrs, expected))
assert math.isclose(lrs[0], 1e-4) and lrs[5:] == [1e-3] * 3

# %% sequential
total_steps, warmup_steps = 40, 5
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
warmup = LinearLR(optimizer, start_factor=0.1, total_iters=warmup_steps)
decay = CosineAnnealingLR(optimizer, T_max=total_steps - warmup_steps)
scheduler = SequentialLR(
    optimizer, schedulers=[warmup, decay], milestones=[warmup_steps]
)
sequential = []
for step in range(total_steps):
    sequential.append(optimizer.param_groups[0]["lr"])
    optimizer.step()
    scheduler.step()
for step in (0, 1, 4, 5, 6, 20, 39):
    print(f"step {step:2}: lr {sequential[step]:.2e}")

# %% sequential-checks tags=["remove-cell"]
assert all(math.isclose(sequential[s], expected[s]) for s in range(5))
assert math.isclose(sequential[5], 1e-3)  # the peak, where decay starts
assert max(sequential) == sequential[5]
assert all(a > b for a, b in zip(sequential[5:], sequential[6:]))  # decays
# the cosine over the 35 steps after the warmup
cosine = [5e-4 * (1 + math.cos(math.pi * k / 35)) for k in range(35)]
assert all(math.isclose(a, b, rel_tol=1e-6) for a, b in
           zip(sequential[5:], cosine))

# any scheduler but ReduceLROnPlateau can come second
from torch.optim.lr_scheduler import ReduceLROnPlateau, StepLR

optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
SequentialLR(optimizer, [LinearLR(optimizer, 0.1, total_iters=5),
                         StepLR(optimizer, step_size=10)], milestones=[5])
try:
    SequentialLR(optimizer, [LinearLR(optimizer, 0.1, total_iters=5),
                             ReduceLROnPlateau(optimizer)], milestones=[5])
except ValueError as error:
    assert "does not support `ReduceLROnPlateau`" in str(error)
else:
    raise AssertionError("SequentialLR took ReduceLROnPlateau")

# %% lambda
def warmup_then_linear_decay(step):  # a factor of the lr given to AdamW
    if step < warmup_steps:
        return (step + 1) / warmup_steps
    return (total_steps - step) / (total_steps - warmup_steps)


optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = LambdaLR(optimizer, lr_lambda=warmup_then_linear_decay)
linear = []
for step in range(total_steps):
    linear.append(optimizer.param_groups[0]["lr"])
    optimizer.step()
    scheduler.step()
for step in (0, 1, 4, 5, 6, 20, 39):
    print(f"step {step:2}: lr {linear[step]:.2e}")

# %% lambda-checks tags=["remove-cell"]
assert math.isclose(linear[0], 2e-4) and math.isclose(linear[4], 1e-3)
assert math.isclose(linear[5], 1e-3) and max(linear) == linear[4]
assert math.isclose(linear[39], 1e-3 / 35)  # the last step, just above 0
# the lambda multiplies the optimizer's lr, it does not replace it
assert scheduler.base_lrs == [1e-3]

# %% lambda-zero
x, y = torch.randn(8, 4), torch.randn(8, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = LambdaLR(optimizer, lr_lambda=lambda step: step / warmup_steps)
before = model.weight.detach().clone()
first_lr = optimizer.param_groups[0]["lr"]  # 0.1 * 0 / 5
nn.functional.mse_loss(model(x), y).backward()
optimizer.step()
scheduler.step()
print("lr of the first step:", first_lr)
print("weights moved:", not torch.equal(model.weight, before))

# %% lambda-zero-checks tags=["remove-cell"]
assert torch.equal(model.weight, before)
assert model.weight.grad is not None and model.weight.grad.abs().sum() > 0
assert first_lr == 0.0
assert math.isclose(scheduler.get_last_lr()[0], 0.1 / 5)  # the second step

# %% start-factor-zero raises="ValueError: Starting multiplicative factor expected to be greater than 0 and less or equal to 1."
LinearLR(optimizer, start_factor=0.0, total_iters=warmup_steps)

# %% start-factor-zero-checks tags=["remove-cell"]
tiny = LinearLR(torch.optim.SGD(model.parameters(), lr=0.1),
                start_factor=1e-8, total_iters=warmup_steps)
assert 0 < tiny.get_last_lr()[0] < 1e-8

# %% plot alt="The learning rate of each of 40 steps: both schedules warm up linearly to 0.001 over the first 5 steps (a dotted line marks step 5), then SequentialLR falls along a cosine and LambdaLR along a straight line, both towards 0"
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(6, 3))
ax.plot(sequential, label="LinearLR, then CosineAnnealingLR (SequentialLR)")
ax.plot(linear, label="LambdaLR: linear warmup, linear decay")
ax.axvline(warmup_steps, color="gray", linestyle=":")
ax.set_xlabel("step (batch)")
ax.set_ylabel("learning rate")
ax.legend()
