# %% [markdown]
# backward() adds to .grad instead of overwriting it; zero_grad() clears it,
# by default by setting it to None

# %% [markdown] lang="zh"
# `backward()` 会把梯度累加到 `.grad` 上，而不是覆盖它；`zero_grad()`
# 负责清空梯度，默认的做法是把它设为 `None`

# %% setup
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, kernel_size=3)
        self.fc = nn.Linear(6 * 3 * 3, 1)

    def forward(self, x):
        return self.fc(torch.relu(self.conv1(x)).flatten(1))


net = Net()
x = torch.randn(4, 1, 5, 5)
target = torch.randn(4, 1)


def compute_loss(x, target):
    return nn.functional.mse_loss(net(x), target)

# %% accumulate
compute_loss(x, target).backward()
first = net.conv1.bias.grad.clone()
print(first)
compute_loss(x, target).backward()  # same loss again, without clearing
print(net.conv1.bias.grad)
assert torch.allclose(net.conv1.bias.grad, 2 * first)

# %% zero-grad
net.zero_grad()
print(net.conv1.bias.grad)
compute_loss(x, target).backward()
print(net.conv1.bias.grad)
assert torch.equal(net.conv1.bias.grad, first)

# %% zero-grad-zeros
net.zero_grad(set_to_none=False)
print(net.conv1.bias.grad)

# %% none-mistake tags=["raises-exception"]
net.zero_grad()
print(net.conv1.bias.grad.abs().sum())  # old code that expects zeros

# %% micro-batches
net.zero_grad()
compute_loss(x, target).backward()  # one batch of 4
full = net.conv1.bias.grad.clone()

net.zero_grad()
for x_part, target_part in zip(x.chunk(2), target.chunk(2)):  # two batches of 2
    # scale: each half is a mean of 2
    loss = compute_loss(x_part, target_part) / 2
    loss.backward()  # adds to .grad
print(full)
print(net.conv1.bias.grad)
print(torch.allclose(full, net.conv1.bias.grad))

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
import inspect

for zero_grad in (nn.Module.zero_grad, torch.optim.Optimizer.zero_grad):
    assert inspect.signature(zero_grad).parameters["set_to_none"].default \
        is True
net.zero_grad()
# default: set_to_none=True
assert all(p.grad is None for p in net.parameters())
compute_loss(x, target).backward()
one = {name: p.grad.clone() for name, p in net.named_parameters()}
compute_loss(x, target).backward()
for name, p in net.named_parameters():
    assert torch.allclose(p.grad, 2 * one[name])  # added, not overwritten
net.zero_grad(set_to_none=False)
for p in net.parameters():
    assert p.grad is not None and torch.equal(p.grad, torch.zeros_like(p))
assert net.conv1.bias.grad.shape == (6,)

net.zero_grad()
try:
    net.conv1.bias.grad.abs()
except AttributeError as error:
    assert "'NoneType' object has no attribute 'abs'" in str(error)
else:
    raise AssertionError("grad should be None after zero_grad()")

# accumulating two scaled half-batch losses gives the full-batch gradient
net.zero_grad()
compute_loss(x, target).backward()
full = {name: p.grad.clone() for name, p in net.named_parameters()}
net.zero_grad()
for x_part, target_part in zip(x.chunk(2), target.chunk(2)):
    (compute_loss(x_part, target_part) / 2).backward()
for name, p in net.named_parameters():
    assert torch.allclose(p.grad, full[name], atol=1e-6)
# without the scaling it would be twice as large
net.zero_grad()
for x_part, target_part in zip(x.chunk(2), target.chunk(2)):
    compute_loss(x_part, target_part).backward()
assert torch.allclose(net.conv1.bias.grad, 2 * full["conv1.bias"], atol=1e-6)

