# %% [markdown]
# Early stopping: stop when the validation loss stops improving, keep a copy
# of the best weights, restore them, and save the best model to a file

# %% [markdown] lang="zh"
# 早停（early stopping）：验证集损失不再下降时停止训练，保存最优权重的副本，
# 训练结束后恢复它，并把最优模型保存到文件

# %% setup
import copy

import torch
from torch import nn

g = torch.Generator().manual_seed(0)


def make_data(n, flip=0.1):
    x = torch.randn(n, 10, generator=g)
    y = (x[:, 0] + x[:, 1] > 0).long()  # only 2 of the 10 features matter
    flipped = torch.rand(n, generator=g) < flip  # about 10 % of labels wrong
    y[flipped] = 1 - y[flipped]
    return x, y


x_train, y_train = make_data(64)  # few samples: easy to memorise
x_val, y_val = make_data(200)


def make_model():
    torch.manual_seed(0)  # the same start for every run on this page
    model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 2))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    return model, optimizer


def train_epoch(model, optimizer):
    model.train()
    loss = nn.functional.cross_entropy(model(x_train), y_train)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


@torch.no_grad()
def evaluate(model):
    model.eval()
    return nn.functional.cross_entropy(model(x_val), y_val).item()


# %% overfit
model, optimizer = make_model()
history = []  # (train loss, validation loss) per epoch
for epoch in range(1, 61):
    history.append((train_epoch(model, optimizer), evaluate(model)))
for epoch in (1, 5, 10, 15, 20, 30, 40, 60):
    train_loss, val_loss = history[epoch - 1]
    print(f"epoch {epoch:2}: train {train_loss:.3f}  val {val_loss:.3f}")
val_losses = [val for _, val in history]
lowest = min(range(60), key=lambda i: val_losses[i]) + 1
print("lowest validation loss at epoch", lowest)

# %% overfit-checks tags=["remove-cell"]
train_losses = [train for train, _ in history]
# the training loss goes down all the way
assert all(b < a for a, b in zip(train_losses, train_losses[1:]))
assert lowest == 15
# the validation loss goes down until epoch 15, then up
assert all(b < a for a, b in zip(val_losses[:15], val_losses[1:15]))
assert all(b > a for a, b in zip(val_losses[14:], val_losses[15:]))
assert val_losses[-1] > 1.5 * val_losses[14]
# memorised: after 60 epochs it predicts every training label, the wrong too
assert torch.equal(model(x_train).argmax(1), y_train)
wrong = y_train != (x_train[:, 0] + x_train[:, 1] > 0).long()
assert 0 < int(wrong.sum()) < 64 * 0.2

# %% helper
class EarlyStopping:
    """Stop when the monitored value has not improved for `patience` epochs"""

    def __init__(self, patience=5, min_delta=0.0, mode="min"):
        assert mode in ("min", "max")
        self.patience = patience
        self.min_delta = min_delta  # a smaller change is no improvement
        self.mode = mode  # "min" for a loss, "max" for an accuracy
        self.best = None
        self.best_epoch = 0
        self.epoch = 0
        self.bad_epochs = 0  # epochs since the last improvement
        self.should_stop = False

    def step(self, value):
        """Record one epoch's value; return True if it is the best so far"""
        self.epoch += 1
        if self.best is None:
            improved = True
        elif self.mode == "min":
            improved = value < self.best - self.min_delta
        else:
            improved = value > self.best + self.min_delta
        if improved:
            self.best, self.best_epoch, self.bad_epochs = value, self.epoch, 0
        else:
            self.bad_epochs += 1
            self.should_stop = self.bad_epochs >= self.patience
        return improved


# %% early-stopping
model, optimizer = make_model()
stopper = EarlyStopping(patience=5)
for epoch in range(1, 61):
    train_epoch(model, optimizer)
    val_loss = evaluate(model)
    if stopper.step(val_loss):  # the best so far: keep a copy
        best_state = copy.deepcopy(model.state_dict())
    if stopper.should_stop:
        break
print("stopped after epoch", epoch)
print(f"best epoch {stopper.best_epoch}, validation loss {stopper.best:.3f}")
print(f"validation loss now {val_loss:.3f}")

# %% early-stopping-checks tags=["remove-cell"]
# the same run as above, cut short: the best epoch is the lowest of the
# 60-epoch run, and it stopped `patience` epochs later
assert stopper.best_epoch == lowest == 15
assert epoch == stopper.best_epoch + stopper.patience == 20
assert stopper.best == val_losses[lowest - 1]
assert val_loss == val_losses[epoch - 1] > stopper.best
# the copy does not share storage with the model, and holds other values
assert all(
    best_state[k].data_ptr() != v.data_ptr()
    for k, v in model.state_dict().items()
)
assert not torch.equal(best_state["0.weight"], model[0].weight)

# %% restore
model.load_state_dict(best_state)
print(f"restored: validation loss {evaluate(model):.3f}")

# %% restore-checks tags=["remove-cell"]
assert evaluate(model) == stopper.best
for k, v in model.state_dict().items():
    assert torch.equal(v, best_state[k])

# %% no-copy
model, optimizer = make_model()
stopper = EarlyStopping(patience=5)
for epoch in range(1, 61):
    train_epoch(model, optimizer)
    val_loss = evaluate(model)
    if stopper.step(val_loss):
        best_state = model.state_dict()  # wrong: references, not a copy
    if stopper.should_stop:
        break
print(f"best epoch {stopper.best_epoch}, validation loss {stopper.best:.3f}")
print(torch.equal(best_state["0.weight"], model[0].weight))  # the final ones
model.load_state_dict(best_state)
print(f"restored: validation loss {evaluate(model):.3f}")

# %% no-copy-checks tags=["remove-cell"]
assert stopper.best_epoch == 15 and epoch == 20
# the "best" dict holds the final weights of epoch 20, not those of epoch 15
assert not best_state["0.weight"].requires_grad  # detached, same storage
for k, v in model.state_dict().items():
    assert torch.equal(best_state[k], v)
    assert best_state[k].data_ptr() == v.data_ptr()  # the same storage
assert evaluate(model) == val_losses[19] != stopper.best

# %% clone
model, optimizer = make_model()
snapshot = {k: v.clone() for k, v in model.state_dict().items()}
train_epoch(model, optimizer)
print(torch.equal(snapshot["0.weight"], model[0].weight))  # still the old

# %% clone-checks tags=["remove-cell"]
assert not torch.equal(snapshot["0.weight"], model[0].weight)
fresh, _ = make_model()
for k, v in fresh.state_dict().items():
    assert torch.equal(snapshot[k], v)  # the values from before the step
    assert snapshot[k].data_ptr() != model.state_dict()[k].data_ptr()

# %% best-file
model, optimizer = make_model()
stopper = EarlyStopping(patience=5)
for epoch in range(1, 61):
    train_epoch(model, optimizer)
    val_loss = evaluate(model)
    if stopper.step(val_loss):  # torch.save writes the values as they are now
        torch.save(
            {"model": model.state_dict(), "epoch": epoch, "val_loss": val_loss},
            "best.pt",
        )
    if stopper.should_stop:
        break

best = torch.load("best.pt")  # later, or in another process
model, _ = make_model()
model.load_state_dict(best["model"])
print(f"best.pt: epoch {best['epoch']}, saved val loss {best['val_loss']:.3f}")
print(f"its weights give {evaluate(model):.3f}")

# %% best-file-checks tags=["remove-cell"]
assert best["epoch"] == 15 and best["val_loss"] == val_losses[14]
assert evaluate(model) == best["val_loss"]
assert sorted(best) == ["epoch", "model", "val_loss"]

# %% min-delta
val_seq = [0.90, 0.70, 0.60, 0.596, 0.593, 0.591, 0.589]
for min_delta in (0.0, 0.01):
    stopper = EarlyStopping(patience=3, min_delta=min_delta)
    for value in val_seq:
        stopper.step(value)
        if stopper.should_stop:
            break
    end = "stopped" if stopper.should_stop else "ran to the end"
    print(f"min_delta={min_delta}: best epoch {stopper.best_epoch}, "
          f"{end} at epoch {stopper.epoch}")

# %% min-delta-checks tags=["remove-cell"]
stopper = EarlyStopping(patience=3)
for value in val_seq:
    stopper.step(value)
assert stopper.best_epoch == 7 and not stopper.should_stop
stopper = EarlyStopping(patience=3, min_delta=0.01)
stopped = None
for value in val_seq:
    stopper.step(value)
    if stopper.should_stop:
        stopped = stopper.epoch
        break
# 0.596, 0.593 and 0.591 are each less than 0.01 below 0.60
assert (stopper.best_epoch, stopped, stopper.best) == (3, 6, 0.60)
assert all(0.60 - v < 0.01 for v in val_seq[3:6])
# without min_delta: a new best every epoch, by 0.004 or less from epoch 4 on
steps = [a - b for a, b in zip(val_seq[2:], val_seq[3:])]
assert all(0 < d <= 0.004 + 1e-9 for d in steps)

# %% mode-max
accuracies = [0.61, 0.70, 0.74, 0.73, 0.74, 0.72]
stopper = EarlyStopping(patience=3, mode="max")
for accuracy in accuracies:
    stopper.step(accuracy)
    if stopper.should_stop:
        break
print(f"best epoch {stopper.best_epoch} ({stopper.best}), "
      f"stopped after epoch {stopper.epoch}")

# %% mode-max-checks tags=["remove-cell"]
# a tie is no improvement: 0.74 again at epoch 5 does not reset the count
assert (stopper.best_epoch, stopper.best, stopper.epoch) == (3, 0.74, 6)
assert stopper.should_stop
stopper = EarlyStopping(patience=3, mode="min")
for accuracy in accuracies:
    stopper.step(accuracy)
assert stopper.best_epoch == 1  # mode="min" would keep the worst accuracy

# %% plain-torch-checks tags=["remove-cell"]
import inspect

# torch has no early-stopping class of its own
for namespace in (torch, torch.nn, torch.optim, torch.optim.lr_scheduler,
                  torch.utils, torch.utils.data):
    assert not [n for n in dir(namespace) if "earlystop" in n.lower()]
# ReduceLROnPlateau watches a metric with mode, patience and threshold
plateau = inspect.signature(torch.optim.lr_scheduler.ReduceLROnPlateau)
assert {"mode", "patience", "threshold"} <= set(plateau.parameters)

# %% plateau-threshold
from torch.optim.lr_scheduler import ReduceLROnPlateau

losses = [2.0, 1.985, 1.978]
bad_epochs = {}
for mode in ("rel", "abs"):
    optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    plateau = ReduceLROnPlateau(optimizer, threshold=0.01, threshold_mode=mode)
    bad_epochs[mode] = []
    for loss in losses:
        plateau.step(loss)
        bad_epochs[mode].append(plateau.num_bad_epochs)
    print(f"threshold_mode={mode!r}: epochs without improvement",
          bad_epochs[mode])

# %% plateau-threshold-checks tags=["remove-cell"]
# rel: better means below best * (1 - 0.01) = 1.98; abs: below best - 0.01
assert bad_epochs == {"rel": [0, 1, 0], "abs": [0, 0, 1]}
defaults = ReduceLROnPlateau(torch.optim.SGD([torch.zeros(1)], lr=0.1))
assert defaults.threshold == 1e-4 and defaults.threshold_mode == "rel"
# min_delta of this page's EarlyStopping is absolute, like threshold_mode="abs"
stopper = EarlyStopping(patience=5, min_delta=0.01)
for loss in losses:
    stopper.step(loss)
assert stopper.bad_epochs == bad_epochs["abs"][-1]
