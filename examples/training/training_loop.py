# %% [markdown]
# The training loop done right: train() and eval() each epoch, zero_grad
# before backward, loss.item() for logging, no_grad in evaluation, and a
# mean weighted by batch size; then each classic bug, executed

# %% [markdown] lang="zh"
# 正确的训练循环：每个 epoch 切换 `train()` 和 `eval()`，`zero_grad` 放在
# `backward` 之前，记录损失用 `loss.item()`，评估时用 `no_grad`，平均损失
# 按 batch 大小加权；再把每个经典错误都跑一遍

# %% data
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

x = torch.randn(100, 4)
y = (x.sum(dim=1) > 0).long()
train_set = TensorDataset(x[:80], y[:80])
val_set = TensorDataset(x[80:], y[80:])
train_loader = DataLoader(train_set, batch_size=32, shuffle=True)
val_loader = DataLoader(val_set, batch_size=32)  # batches of 20: one
model = nn.Sequential(
    nn.Linear(4, 16), nn.ReLU(), nn.Dropout(0.2), nn.Linear(16, 2)
)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
print([len(xb) for xb, yb in train_loader])

# %% data-checks tags=["remove-cell"]
assert [len(xb) for xb, yb in train_loader] == [32, 32, 16]

# %% loop
def train_one_epoch(model, loader, optimizer):
    model.train()  # Dropout on, BatchNorm uses and updates batch stats
    total, count = 0.0, 0
    for xb, yb in loader:
        optimizer.zero_grad()  # before backward
        loss = nn.functional.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(xb)  # a float: the graph is freed
        count += len(xb)
    return total / count


@torch.no_grad()  # no graph: less memory, and no gradient by mistake
def evaluate(model, loader):
    model.eval()  # Dropout off, BatchNorm uses running stats
    total, correct, count = 0.0, 0, 0
    for xb, yb in loader:
        logits = model(xb)
        loss = nn.functional.cross_entropy(logits, yb, reduction="sum")
        total += loss.item()
        correct += (logits.argmax(dim=1) == yb).sum().item()
        count += len(xb)
    return total / count, correct / count


history = []
for epoch in range(5):
    train_loss = train_one_epoch(model, train_loader, optimizer)
    val_loss, accuracy = evaluate(model, val_loader)
    history.append((train_loss, val_loss, accuracy))
    print(f"{epoch}: train {train_loss:.3f}  val {val_loss:.3f}  "
          f"acc {accuracy:.2f}")

# %% loop-checks tags=["remove-cell"]
assert history[-1][0] < history[0][0]  # the training loss went down
assert history[-1][1] < history[0][1]
assert all(isinstance(v, float) for row in history for v in row)
assert not model.training  # evaluate() left it in eval mode: see below

# %% item
total = 0
for xb, yb in train_loader:
    loss = nn.functional.cross_entropy(model(xb), yb)
    total += loss  # a tensor: the sum keeps every batch's graph
print(total)

# %% item-checks tags=["remove-cell"]
assert isinstance(total, torch.Tensor) and total.requires_grad
assert total.grad_fn is not None and type(total.grad_fn).__name__ == \
    "AddBackward0"


def reachable(fn, seen):
    if fn is not None and fn not in seen:
        seen.add(fn)
        for next_fn, _ in fn.next_functions:
            reachable(next_fn, seen)
    return seen


names = [type(f).__name__ for f in reachable(total.grad_fn, set())]
# the three batches' graphs, all kept alive by total
assert names.count("NllLossBackward0") == 3

# %% eval-mode
xb = x[:4]
model.train()
print(torch.equal(model(xb), model(xb)))
model.eval()
print(torch.equal(model(xb), model(xb)))

# %% eval-mode-checks tags=["remove-cell"]
model.train()
assert not torch.equal(model(xb), model(xb))  # Dropout: random each call
model.eval()
assert torch.equal(model(xb), model(xb))
# BatchNorm in train mode updates its running stats, even under no_grad
norm = nn.BatchNorm1d(4).train()
with torch.no_grad():
    norm(x[80:])
assert not torch.equal(norm.running_mean, torch.zeros(4))

# %% stays-eval
evaluate(model, val_loader)
print(model.training)  # what the next epoch trains in without model.train()

# %% stays-eval-checks tags=["remove-cell"]
assert model.training is False
assert not model[2].training  # recursive: the Dropout too
model.train()
assert all(m.training for m in model.modules())

# %% no-grad
model.eval()
logits = model(x[80:])
print(logits.requires_grad, type(logits.grad_fn).__name__)
with torch.no_grad():
    logits = model(x[80:])
print(logits.requires_grad, logits.grad_fn)

# %% no-grad-checks tags=["remove-cell"]
assert logits.grad_fn is None and not logits.requires_grad
assert model(x[80:]).grad_fn is not None  # eval() alone records the graph
assert torch.equal(model(x[80:]), logits)  # the same values

# %% mean-of-means
losses, sizes = [], []
for xb, yb in train_loader:  # batches of 32, 32 and 16
    with torch.no_grad():
        loss = nn.functional.cross_entropy(model(xb), yb)
    losses.append(loss.item())
    sizes.append(len(xb))
mean_of_means = sum(losses) / len(losses)
weighted = sum(v * n for v, n in zip(losses, sizes)) / sum(sizes)
with torch.no_grad():
    whole = nn.functional.cross_entropy(model(x[:80]), y[:80]).item()
print(f"{mean_of_means:.4f} {weighted:.4f} {whole:.4f}")

# %% mean-of-means-checks tags=["remove-cell"]
import math

assert math.isclose(weighted, whole, rel_tol=1e-5)  # the dataset's mean
assert not math.isclose(mean_of_means, whole, rel_tol=1e-3)
assert sizes == [32, 32, 16]
# with drop_last=True every batch has the same size: the two means agree
sizes = [len(xb) for xb, yb in DataLoader(train_set, 32, drop_last=True)]
assert sizes == [32, 32]

# %% ema
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn

torch.manual_seed(0)
model = nn.Sequential(
    nn.Linear(4, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 2)
)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
decay = 0.9  # the default, 0.999, suits runs of many more steps
ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(decay))

by_hand = None  # the same average, written out
for epoch in range(3):
    model.train()
    for xb, yb in train_loader:
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(xb), yb).backward()
        optimizer.step()
        ema.update_parameters(model)  # after every optimizer.step()
        w = [p.detach().clone() for p in model.parameters()]
        if by_hand is None:
            by_hand = w  # the first update copies the weights
        else:
            by_hand = [decay * e + (1 - decay) * p for e, p in zip(by_hand, w)]

pairs = list(zip(ema.parameters(), by_hand))
print("updates:", ema.n_averaged.item())
print("EMA equals the hand-computed average:",
      all(torch.allclose(e, h) for e, h in pairs))
print("EMA equals the model:", torch.equal(ema.module[0].weight,
                                           model[0].weight))
model_loss, _ = evaluate(model, val_loader)
ema_loss, _ = evaluate(ema.module, val_loader)  # evaluate the copy inside
print(f"val loss: model {model_loss:.3f}, EMA {ema_loss:.3f}")

# %% ema-checks tags=["remove-cell"]
import inspect
import math

assert ema.n_averaged.item() == 9  # 3 epochs of 3 batches
assert all(torch.allclose(e, h, atol=1e-7) for e, h in pairs)
assert all(not torch.equal(e, p)
           for e, p in zip(ema.parameters(), model.parameters()))
# ema.module is the averaged copy, a plain Sequential, not the model itself
assert type(ema.module) is nn.Sequential and ema.module is not model
assert not ema.module.training  # evaluate() switched it to eval mode
# its state_dict has the model's keys; ema's adds a prefix and the count
assert list(ema.module.state_dict()) == list(model.state_dict())
assert set(ema.state_dict()) == {"n_averaged"} | {
    "module." + k for k in model.state_dict()}
nn.Sequential(nn.Linear(4, 16), nn.BatchNorm1d(16), nn.ReLU(),
              nn.Linear(16, 2)).load_state_dict(ema.module.state_dict())
assert inspect.signature(get_ema_multi_avg_fn).parameters["decay"].default \
    == 0.999
# the first update copies the weights: no average with the starting ones
net = nn.Linear(2, 2)
first = AveragedModel(net, multi_avg_fn=get_ema_multi_avg_fn(decay))
with torch.no_grad():
    net.weight.add_(1.0)
first.update_parameters(net)
assert torch.equal(first.module.weight, net.weight)
# nine steps into a run that still improves fast, the average lags behind
assert ema_loss > model_loss
# the last 1 / (1 - decay) updates weigh about 1 - 1/e of the average
for d in (decay, 0.999):
    assert abs((1 - d ** round(1 / (1 - d))) - (1 - math.exp(-1))) < 0.02

# %% ema-buffers
ema_buffers = AveragedModel(
    model, multi_avg_fn=get_ema_multi_avg_fn(decay), use_buffers=True
)
model.train()
for xb, yb in train_loader:  # one more epoch, both averages updated
    optimizer.zero_grad()
    nn.functional.cross_entropy(model(xb), yb).backward()
    optimizer.step()
    ema.update_parameters(model)
    ema_buffers.update_parameters(model)
running_mean = model[1].running_mean
print("without use_buffers, the model's:",
      torch.equal(ema.module[1].running_mean, running_mean))
print("with use_buffers=True, the model's:",
      torch.equal(ema_buffers.module[1].running_mean, running_mean))

# %% ema-buffers-checks tags=["remove-cell"]
# without use_buffers the buffers are copied from the model at each update
assert torch.equal(ema.module[1].running_var, model[1].running_var)
# with it they are averaged like the weights: by hand, for one more update
before = ema_buffers.module[1].running_mean.clone()
with torch.no_grad():
    model(x[:32])  # train mode: updates the model's running stats
ema_buffers.update_parameters(model)
assert torch.allclose(ema_buffers.module[1].running_mean,
                      decay * before + (1 - decay) * model[1].running_mean)

# %% swa
from torch.optim.swa_utils import SWALR, update_bn

torch.manual_seed(0)
x = torch.randn(512, 4)
y = x @ torch.tensor([[1.0], [-2.0], [0.5], [0.0]]) + torch.sin(2 * x[:, :1])
y += 0.3 * torch.randn(512, 1)
loader = DataLoader(TensorDataset(x[:384], y[:384]), batch_size=32,
                    shuffle=True)
model = nn.Sequential(
    nn.Linear(4, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 1)
)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
swa_model = AveragedModel(model)  # an equal-weight average
swa_scheduler = SWALR(optimizer, swa_lr=0.05, anneal_epochs=2)

for epoch in range(20):
    model.train()
    for xb, yb in loader:
        optimizer.zero_grad()
        nn.functional.mse_loss(model(xb), yb).backward()
        optimizer.step()
    if epoch >= 10:  # average the last 10 epochs
        swa_model.update_parameters(model)
        swa_scheduler.step()


@torch.no_grad()
def val_mse(model):
    model.eval()
    return nn.functional.mse_loss(model(x[384:]), y[384:]).item()


stats_copied = torch.equal(swa_model.module[1].running_mean,
                           model[1].running_mean)
print("SWA's BatchNorm statistics are the model's:", stats_copied)
before = val_mse(swa_model)
update_bn(loader, swa_model)  # one pass over the training data
after = val_mse(swa_model)
print(f"val MSE: model {val_mse(model):.3f}, SWA {before:.3f}, "
      f"SWA after update_bn {after:.3f}")

# %% swa-checks tags=["remove-cell"]
assert stats_copied
assert after < before
assert swa_model.n_averaged.item() == 10
# update_bn measured the statistics anew, for the averaged weights
assert not torch.equal(swa_model.module[1].running_mean, model[1].running_mean)
assert list(inspect.signature(update_bn).parameters) == ["loader", "model", "device"]
# SWALR left the optimizer at swa_lr; buffers are copied, not averaged, by default
assert math.isclose(optimizer.param_groups[0]["lr"], 0.05)
assert inspect.signature(AveragedModel).parameters["use_buffers"].default is False
