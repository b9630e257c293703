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
