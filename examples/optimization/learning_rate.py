# %% [markdown]
# The learning rate lives in optimizer.param_groups; setting it by hand
# works, and the schedulers in torch.optim.lr_scheduler do it for you;
# OneCycleLR is stepped once per batch

# %% [markdown] lang="zh"
# 学习率保存在 `optimizer.param_groups` 里；可以手动修改，
# `torch.optim.lr_scheduler` 中的调度器也会替你完成这件事；
# `OneCycleLR` 要每个 batch 调用一次 step

# %% setup
import math

import torch
import torch.nn as nn
from torch.optim.lr_scheduler import CosineAnnealingLR, ReduceLROnPlateau, \
    StepLR

model = nn.Linear(2, 1)
print(torch.optim.SGD(model.parameters(), lr=0.1).param_groups[0]["lr"])

# %% adjust-recipe
def adjust_learning_rate(optimizer, epoch, base_lr):
    """Sets the learning rate to the initial LR decayed by 10 every 30 epochs"""
    lr = base_lr * (0.1 ** (epoch // 30))
    for param_group in optimizer.param_groups:
        param_group["lr"] = lr


optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
manual = []
for epoch in range(96):
    adjust_learning_rate(optimizer, epoch, base_lr=0.1)
    manual.append(optimizer.param_groups[0]["lr"])
    optimizer.step()  # stands for one epoch of training
print([f"{manual[epoch]:g}" for epoch in (0, 29, 30, 59, 60, 90)])

# %% step-lr
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = StepLR(optimizer, step_size=30, gamma=0.1)
built_in = []
for epoch in range(96):
    built_in.append(scheduler.get_last_lr()[0])
    optimizer.step()  # stands for one epoch of training
    scheduler.step()  # once per epoch, after the optimizer
print([f"{built_in[epoch]:g}" for epoch in (0, 29, 30, 59, 60, 90)])
print(all(math.isclose(a, b) for a, b in zip(manual, built_in)))

# %% get-last-lr
print(scheduler.get_last_lr(), optimizer.param_groups[0]["lr"])

# %% groups
def two_groups():
    return [
        {"params": model.weight, "lr": 0.1}, {"params": model.bias, "lr": 0.01}
    ]


optimizer = torch.optim.SGD(two_groups())
adjust_learning_rate(optimizer, epoch=30, base_lr=0.1)
# one lr for all
print([f"{group['lr']:g}" for group in optimizer.param_groups])

optimizer = torch.optim.SGD(two_groups())
scheduler = StepLR(optimizer, step_size=30, gamma=0.1)
for epoch in range(30):
    optimizer.step()
    scheduler.step()
# each group from its own lr
print([f"{lr:g}" for lr in scheduler.get_last_lr()])

# %% wrong-order
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = StepLR(optimizer, step_size=30, gamma=0.1)
shifted = []
for epoch in range(96):
    scheduler.step()  # wrong: before optimizer.step()
    shifted.append(optimizer.param_groups[0]["lr"])
    optimizer.step()
print([f"{lr:g}" for lr in built_in[27:31]])  # epochs 27 to 30, right order
print([f"{lr:g}" for lr in shifted[27:31]])  # wrong order: one epoch early

# %% cosine
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = CosineAnnealingLR(optimizer, T_max=10)
cosine = []
for epoch in range(11):
    cosine.append(scheduler.get_last_lr()[0])
    optimizer.step()
    scheduler.step()
print([round(lr, 4) for lr in cosine])

# %% plateau
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = ReduceLROnPlateau(optimizer, factor=0.5, patience=2)
val_losses = [1.0, 0.8, 0.7, 0.7, 0.7, 0.7, 0.6, 0.6, 0.6, 0.6]
plateau = []
for epoch, val_loss in enumerate(val_losses):
    optimizer.step()
    scheduler.step(val_loss)  # give it the metric to watch
    plateau.append(scheduler.get_last_lr()[0])
    print(epoch, val_loss, plateau[-1])

# %% plot alt="The learning rate of each of 96 epochs: StepLR cuts it tenfold every 30 epochs, from 0.1 to 0.0001; CosineAnnealingLR lowers it smoothly from 0.1 towards 0"
import matplotlib.pyplot as plt

optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = CosineAnnealingLR(optimizer, T_max=96)
cosine_96 = []
for epoch in range(96):
    cosine_96.append(scheduler.get_last_lr()[0])
    optimizer.step()
    scheduler.step()

fig, ax = plt.subplots(figsize=(6, 3))
ax.plot(built_in, label="StepLR(step_size=30, gamma=0.1)")
ax.plot(cosine_96, label="CosineAnnealingLR(T_max=96)")
ax.set_xlabel("epoch")
ax.set_ylabel("learning rate")
ax.legend()

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
import warnings

expected = [0.1 * 0.1 ** (epoch // 30) for epoch in range(96)]
assert all(math.isclose(a, b) for a, b in zip(manual, expected))
# recipe == StepLR
assert all(math.isclose(a, b) for a, b in zip(manual, built_in))
assert manual[29] == 0.1 and math.isclose(manual[30], 0.01)
assert math.isclose(manual[90], 1e-4)

opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = StepLR(opt, step_size=30, gamma=0.1)
for epoch in range(40):
    assert sched.get_last_lr() == [group["lr"] for group in opt.param_groups]
    opt.step()
    sched.step()

# the recipe sets every group to one lr; StepLR scales each group's own
opt = torch.optim.SGD(two_groups())
adjust_learning_rate(opt, epoch=30, base_lr=0.1)
assert [group["lr"] for group in opt.param_groups] == [0.010000000000000002] * 2
opt = torch.optim.SGD(two_groups())
sched = StepLR(opt, step_size=30, gamma=0.1)
for epoch in range(30):
    opt.step()
    sched.step()
assert all(
    math.isclose(a, b) for a, b in zip(sched.get_last_lr(), [0.01, 0.001])
)

# scheduler.step() before optimizer.step(): a
# warning, and the schedule runs one epoch early
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30, gamma=0.1)
    sched.step()
assert len(caught) == 1 and issubclass(caught[0].category, UserWarning)
assert "before `optimizer.step()`" in str(caught[0].message)
# the page's "since 1.1"
assert "In PyTorch 1.1.0 and later" in str(caught[0].message)
assert "skipping the first value of the learning rate schedule" \
    in str(caught[0].message)
assert all(math.isclose(a, b) for a, b in zip(shifted[:-1], built_in[1:]))
assert shifted[29] != built_in[29]
# the first lr is still used from epoch 0, for
# 29 epochs instead of 30: one entry is skipped
assert shifted[0] == built_in[0] == 0.1
assert shifted.count(0.1) == 29 and built_in.count(0.1) == 30
# the right order: no warning
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30, gamma=0.1)
    opt.step()
    sched.step()
assert caught == []

# eta_min=0: half the base lr at T_max / 2, 0 at T_max
for epoch, lr in enumerate(cosine):
    assert math.isclose(
        lr, 0.05 * (1 + math.cos(math.pi * epoch / 10)), abs_tol=1e-9
    )
assert math.isclose(cosine[5], 0.05) and math.isclose(
    cosine[10], 0.0, abs_tol=1e-12
)
# halved after 3 epochs without progress
assert plateau == [0.1] * 5 + [0.05] * 4 + [0.025]

# %% one-cycle
from torch.optim.lr_scheduler import OneCycleLR
from torch.utils.data import DataLoader, TensorDataset

dataset = TensorDataset(torch.randn(100, 2), torch.randn(100, 1))
loader = DataLoader(dataset, batch_size=10, shuffle=True)
epochs = 5
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = OneCycleLR(optimizer, max_lr=0.1, epochs=epochs,
                       steps_per_epoch=len(loader))  # batches per epoch
print("batches per epoch:", len(loader), "total steps:", scheduler.total_steps)
one_cycle = []
for epoch in range(epochs):
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        one_cycle.append(optimizer.param_groups[0]["lr"])  # this batch's lr
        optimizer.step()
        scheduler.step()  # once per batch
for step in (0, 7, 14, 30, 49):
    print(f"step {step:2}: lr {one_cycle[step]:.2e}")

# %% one-cycle-checks tags=["remove-cell"]
assert len(one_cycle) == scheduler.total_steps == epochs * len(loader) == 50
# it peaks at max_lr after pct_start (0.3) of the steps: step 14, the 15th
peak = max(one_cycle)
assert math.isclose(peak, 0.1) and one_cycle.index(peak) == 14
assert one_cycle.index(peak) == round(0.3 * scheduler.total_steps) - 1
# up before the peak, down after it
assert all(a < b for a, b in zip(one_cycle[:14], one_cycle[1:15]))
assert all(a > b for a, b in zip(one_cycle[14:-1], one_cycle[15:]))
# it starts at max_lr / div_factor (25), ends at that / final_div_factor (1e4)
assert math.isclose(one_cycle[0], 0.1 / 25)
assert math.isclose(one_cycle[-1], 0.1 / 25 / 1e4)
assert one_cycle[-1] < one_cycle[0] / 1000
# the lr passed to SGD is replaced; momentum cycles the other way, 0.95 to 0.85
assert math.isclose(scheduler.get_last_lr()[0], optimizer.param_groups[0]["lr"])
opt = torch.optim.SGD(model.parameters(), lr=123.0, momentum=0.9)
sched = OneCycleLR(opt, max_lr=0.1, total_steps=50)
assert math.isclose(opt.param_groups[0]["lr"], 0.004)
assert math.isclose(opt.param_groups[0]["momentum"], 0.95)
for _ in range(14):
    opt.step()
    sched.step()
assert math.isclose(opt.param_groups[0]["momentum"], 0.85)
for _ in range(35):
    opt.step()
    sched.step()
assert math.isclose(opt.param_groups[0]["momentum"], 0.95)  # and back up

# %% one-cycle-per-epoch
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = OneCycleLR(optimizer, max_lr=0.1, epochs=epochs,
                       steps_per_epoch=len(loader))
per_epoch = []
for epoch in range(epochs):
    per_epoch.append(optimizer.param_groups[0]["lr"])
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    scheduler.step()  # wrong: once per epoch
print([f"{lr:.2e}" for lr in per_epoch])

# %% one-cycle-per-epoch-checks tags=["remove-cell"]
# the first five of the 50 steps, all in the warm-up: never near max_lr
assert all(math.isclose(a, b) for a, b in zip(per_epoch, one_cycle[:5]))
assert max(per_epoch) < 0.1 / 2
assert 0.02 < per_epoch[-1] == max(per_epoch) < 0.025  # about a fifth of it

# %% one-cycle-too-many raises="ValueError: Tried to step 51 times. The specified number of total steps is 50"
dataset = TensorDataset(torch.randn(105, 2), torch.randn(105, 1))
loader = DataLoader(dataset, batch_size=10, shuffle=True)
print(len(dataset) // 10, len(loader))  # the last batch holds 5
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = OneCycleLR(optimizer, max_lr=0.1, epochs=epochs,
                       steps_per_epoch=len(dataset) // 10)  # wrong: 10, not 11
for epoch in range(epochs):
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()

# %% one-cycle-too-many-checks tags=["remove-cell"]
# it fails in the last epoch: 4 epochs of 11 batches are 44 steps
assert epoch == 4 and scheduler.total_steps == 50
# the 50th step() is allowed: one step() after each of the 50 batches
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
sched = OneCycleLR(opt, max_lr=0.1, total_steps=50)
for _ in range(50):
    opt.step()
    sched.step()
try:
    sched.step()
except ValueError as error:
    assert str(error) == ("Tried to step 51 times. "
                          "The specified number of total steps is 50")
else:
    raise AssertionError("a 51st step() should raise")
# a resumed scheduler keeps the saved total_steps, whatever the new one says
saved = sched.state_dict()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
sched = OneCycleLR(opt, max_lr=0.1, total_steps=60)
sched.load_state_dict(saved)
assert sched.total_steps == 50
# the number of epochs as total_steps: the error comes in the first epoch
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
sched = OneCycleLR(opt, max_lr=0.1, total_steps=epochs)
calls = 0
try:
    for x, y in loader:  # one epoch: 11 batches
        opt.step()
        calls += 1
        sched.step()
except ValueError as error:
    assert calls == epochs + 1 and f"Tried to step {epochs + 1} times" in str(error)
else:
    raise AssertionError("total_steps=epochs should fail in the first epoch")

# %% wrong-order-warning-checks tags=["remove-cell"]
import warnings


def scheduler_warnings(optimizer_first):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        sched = StepLR(opt, step_size=30, gamma=0.1)
        for epoch in range(3):
            if optimizer_first:
                opt.step()
                sched.step()
            else:
                sched.step()
                opt.step()
    return caught


# the warning the page quotes: its category and first sentences; only
# the scheduler's first step() is checked, so it comes once
caught = scheduler_warnings(optimizer_first=False)
assert [w.category for w in caught] == [UserWarning]
assert str(caught[0].message).startswith(
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. "
    "In PyTorch 1.1.0 and later, you should call them in the opposite order: "
    "`optimizer.step()` before `lr_scheduler.step()`."
)
assert scheduler_warnings(optimizer_first=True) == []
# a GradScaler that skips the first optimizer.step() (gradients not
# finite): the same warning, with the calls in the right order
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = StepLR(opt, step_size=30, gamma=0.1)
scaler = torch.amp.GradScaler("cpu")
loss = model(torch.full((1, 2), float("inf"))).sum()
scaler.scale(loss).backward()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    scaler.step(opt)  # skipped: the gradients hold inf
    scaler.update()
    sched.step()
assert [w.category for w in caught] == [UserWarning]
assert "before `optimizer.step()`" in str(caught[0].message)
opt.zero_grad()

# %% plateau-no-metric raises="TypeError: …step() missing 1 required positional argument: 'metrics'"
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = ReduceLROnPlateau(optimizer, factor=0.5, patience=2)
for epoch in range(10):
    optimizer.step()
    scheduler.step()  # wrong: called like StepLR, without the metric

# %% plateau-no-metric-checks tags=["remove-cell"]
import inspect

# it fails at the first epoch; the plateau cell is the fix
assert epoch == 0
assert "metrics" in inspect.signature(ReduceLROnPlateau.step).parameters
# mode="max" for a metric that should grow, such as an accuracy
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = ReduceLROnPlateau(opt, mode="max", factor=0.5, patience=2)
for accuracy in (0.5, 0.6, 0.7, 0.8, 0.9):
    opt.step()
    sched.step(accuracy)
assert sched.get_last_lr() == [0.1]
# the same rising values with the default mode="min": cut after 3 epochs
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = ReduceLROnPlateau(opt, factor=0.5, patience=2)
for accuracy in (0.5, 0.6, 0.7, 0.8, 0.9):
    opt.step()
    sched.step(accuracy)
assert sched.get_last_lr() == [0.05]

# %% resume-last-epoch raises="KeyError: …param 'initial_lr' is not specified in param_groups[0] when resuming…"
def train_epochs(optimizer, scheduler, epochs):
    for epoch in range(epochs):
        optimizer.step()
        scheduler.step()


optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = StepLR(optimizer, step_size=30, gamma=0.1)
train_epochs(optimizer, scheduler, 40)
checkpoint = {"optimizer": optimizer.state_dict(),
              "scheduler": scheduler.state_dict()}

# a new run resumes at epoch 40
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = StepLR(optimizer, step_size=30, gamma=0.1, last_epoch=39)

# %% resume-state-dict
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
optimizer.load_state_dict(checkpoint["optimizer"])
scheduler = StepLR(optimizer, step_size=30, gamma=0.1)  # default last_epoch
scheduler.load_state_dict(checkpoint["scheduler"])
print(scheduler.last_epoch, [round(lr, 6) for lr in scheduler.get_last_lr()])
train_epochs(optimizer, scheduler, 20)  # epochs 40 to 59
print(scheduler.last_epoch, [round(lr, 6) for lr in scheduler.get_last_lr()])

# %% resume-state-dict-checks tags=["remove-cell"]
# the same learning rates as a run that never stopped
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = StepLR(opt, step_size=30, gamma=0.1)
train_epochs(opt, sched, 60)
assert sched.last_epoch == scheduler.last_epoch == 60
assert math.isclose(sched.get_last_lr()[0], scheduler.get_last_lr()[0])
assert math.isclose(optimizer.param_groups[0]["lr"], 0.001)
# the checkpoint holds the epoch and the optimizer's initial_lr
assert checkpoint["scheduler"]["last_epoch"] == 40
assert checkpoint["optimizer"]["param_groups"][0]["initial_lr"] == 0.1
# a fresh optimizer has no initial_lr until a scheduler is built on it
assert "initial_lr" not in torch.optim.SGD(model.parameters(), lr=0.1).param_groups[0]
# without load_state_dict, the default scheduler starts again at epoch 0
opt = torch.optim.SGD(model.parameters(), lr=0.1)
assert StepLR(opt, step_size=30, gamma=0.1).last_epoch == 0
# a scheduler built with the default last_epoch writes initial_lr
opt = torch.optim.SGD(model.parameters(), lr=0.1)
StepLR(opt, step_size=30, gamma=0.1)
assert opt.param_groups[0]["initial_lr"] == 0.1

# %% resume-message-checks tags=["remove-cell"] holds=">=2.10" claim="The `initial_lr` error says it happens when a scheduler resumes with a `last_epoch` of 0 or more" about="resume-last-epoch"
try:
    StepLR(torch.optim.SGD(model.parameters(), lr=0.1), step_size=30,
           last_epoch=39)
except KeyError as error:
    message = error.args[0]
    assert message.startswith("param 'initial_lr' is not specified in "
                              "param_groups[0] when resuming scheduler "
                              "with last_epoch >= 0.")
    assert "This typically happens when" in message
else:
    raise AssertionError("last_epoch=39 on a fresh optimizer should raise")

# %% verbose
import warnings

optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        scheduler = StepLR(optimizer, step_size=2, gamma=0.1, verbose=True)
    except TypeError as error:
        print(f"TypeError: {error}")
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")

# %% verbose-checks tags=["remove-cell"] holds=">=2.7" claim="Schedulers reject `verbose=` with a `TypeError`"
# verbose is gone: a TypeError and no warning, for every scheduler
assert caught == []
for make in (lambda opt: StepLR(opt, step_size=2, verbose=True),
             lambda opt: CosineAnnealingLR(opt, T_max=10, verbose=True),
             lambda opt: ReduceLROnPlateau(opt, verbose=True)):
    try:
        make(torch.optim.SGD(model.parameters(), lr=0.1))
    except TypeError as error:
        assert "unexpected keyword argument 'verbose'" in str(error)
    else:
        raise AssertionError("schedulers should not take verbose")

# %% verbose-replacement
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = StepLR(optimizer, step_size=2, gamma=0.1)
for epoch in range(5):
    optimizer.step()
    scheduler.step()
    print(f"epoch {epoch}: lr {scheduler.get_last_lr()[0]:.4f}")

# %% verbose-replacement-checks tags=["remove-cell"]
# get_last_lr() is what the optimizer uses, one value per group
assert scheduler.get_last_lr() == [g["lr"] for g in optimizer.param_groups]
assert math.isclose(scheduler.get_last_lr()[0], 0.001)

# %% step-epoch
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = StepLR(optimizer, step_size=2, gamma=0.1)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    optimizer.step()
    scheduler.step(5)  # jump to epoch 5
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")
print("last_epoch:", scheduler.last_epoch,
      "lr:", round(scheduler.get_last_lr()[0], 6))

# %% step-epoch-checks tags=["remove-cell"]
assert len(caught) == 1 and caught[0].category is UserWarning
assert str(caught[0].message).startswith(
    "The epoch parameter in `scheduler.step()` was not necessary")
assert math.isclose(optimizer.param_groups[0]["lr"], 0.001)
# the closed form at epoch 5 is where five plain steps lead
opt = torch.optim.SGD(model.parameters(), lr=0.1)
plain = StepLR(opt, step_size=2, gamma=0.1)
for _ in range(5):
    opt.step()
    plain.step()
assert plain.last_epoch == scheduler.last_epoch == 5
assert math.isclose(plain.get_last_lr()[0], scheduler.get_last_lr()[0])
# ReduceLROnPlateau.step takes a metric: no warning
with warnings.catch_warnings(record=True) as plateau_caught:
    warnings.simplefilter("always")
    ReduceLROnPlateau(opt).step(0.5)
assert plateau_caught == []

# %% step-epoch-resume
checkpoint = {"optimizer": optimizer.state_dict(),
              "scheduler": scheduler.state_dict()}
# resuming: build both as before, then load their states
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = StepLR(optimizer, step_size=2, gamma=0.1)
optimizer.load_state_dict(checkpoint["optimizer"])
scheduler.load_state_dict(checkpoint["scheduler"])
print("last_epoch:", scheduler.last_epoch,
      "lr:", round(scheduler.get_last_lr()[0], 6))

# %% step-epoch-resume-checks tags=["remove-cell"]
assert scheduler.last_epoch == 5
assert math.isclose(optimizer.param_groups[0]["lr"], 0.001)
assert math.isclose(scheduler.get_last_lr()[0], 0.001)

# %% cyclic-adam
from torch.optim.lr_scheduler import CyclicLR

optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
scheduler = CyclicLR(optimizer, base_lr=1e-4, max_lr=1e-2, step_size_up=2)
for step in range(5):
    group = optimizer.param_groups[0]
    print(f"step {step}: lr {group['lr']:.5f}, beta1 {group['betas'][0]:.3f}")
    optimizer.step()
    scheduler.step()

# %% cyclic-adam-checks tags=["remove-cell"]
rows = []
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
scheduler = CyclicLR(optimizer, base_lr=1e-4, max_lr=1e-2, step_size_up=2)
for step in range(5):
    group = optimizer.param_groups[0]
    rows.append((round(group["lr"], 6), round(group["betas"][0], 4)))
    optimizer.step()
    scheduler.step()
assert rows == [(1e-4, 0.9), (0.00505, 0.85), (0.01, 0.8), (0.00505, 0.85),
                (1e-4, 0.9)]

# %% cyclic-no-momentum
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
scheduler = CyclicLR(optimizer, base_lr=1e-4, max_lr=1e-2, step_size_up=2,
                     cycle_momentum=False)  # leave Adam's betas alone
for step in range(3):
    optimizer.step()
    scheduler.step()
print(optimizer.param_groups[0]["betas"])

# %% cyclic-no-momentum-checks tags=["remove-cell"]
assert optimizer.param_groups[0]["betas"] == (0.9, 0.999)
# SGD has a momentum key even at 0, so the default cycle_momentum=True is accepted
plain = torch.optim.SGD(model.parameters(), lr=0.1)
CyclicLR(plain, base_lr=1e-4, max_lr=1e-2)
assert plain.param_groups[0]["momentum"] == 0.9

# %% cyclic-adagrad raises="ValueError: optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
# no momentum at all
optimizer = torch.optim.Adagrad(model.parameters(), lr=1e-3)
CyclicLR(optimizer, base_lr=1e-4, max_lr=1e-2)

# %% lr-finder
import copy

torch.manual_seed(0)
x = torch.randn(512, 8)
y = x @ torch.randn(8, 1) + 0.1 * torch.randn(512, 1)
model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=1e-5)
saved = copy.deepcopy(model.state_dict())  # the test trains: keep the start

lrs = torch.logspace(-5, 1, 60).tolist()  # 1e-5 to 10, growing exponentially
smooth, best, history = 0.0, float("inf"), []
for step, lr in enumerate(lrs):
    for group in optimizer.param_groups:
        group["lr"] = lr
    batch = torch.randint(0, 512, (32,))
    loss = nn.functional.mse_loss(model(x[batch]), y[batch])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    smooth = 0.9 * smooth + 0.1 * loss.item()  # exponential average
    smoothed = smooth / (1 - 0.9 ** (step + 1))  # without the bias towards 0
    history.append((lr, smoothed))
    best = min(best, smoothed)
    if smoothed > 4 * best:  # diverging: stop
        break

model.load_state_dict(saved)  # back to the initial weights
lr_min = min(history, key=lambda row: row[1])[0]
print(f"stopped after {len(history)} of {len(lrs)} steps")
print(f"lowest loss at lr {lr_min:.2g}, suggestion {lr_min / 10:.2g}")

# %% lr-finder-checks tags=["remove-cell"]
assert len(history) < len(lrs)  # stopped early, before lr 10
assert lr_min < history[-1][0]  # the minimum lies before the divergence
assert all(torch.equal(v, saved[k]) for k, v in model.state_dict().items())

# %% multiplicative
from torch.optim.lr_scheduler import ExponentialLR, LambdaLR, MultiplicativeLR


def first_lrs(make_scheduler, epochs=5):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = make_scheduler(optimizer)
    lrs = []
    for epoch in range(epochs):
        lrs.append(optimizer.param_groups[0]["lr"])  # this epoch's lr
        optimizer.step()
        scheduler.step()
    return lrs


schedules = {
    "MultiplicativeLR 0.9": lambda opt: MultiplicativeLR(opt, lambda e: 0.9),
    "ExponentialLR 0.9": lambda opt: ExponentialLR(opt, gamma=0.9),
    "LambdaLR 0.9": lambda opt: LambdaLR(opt, lambda e: 0.9),
    "LambdaLR 0.9 ** e": lambda opt: LambdaLR(opt, lambda e: 0.9**e),
    "MultiplicativeLR 0.9 ** e": lambda opt: MultiplicativeLR(
        opt, lambda e: 0.9**e
    ),  # wrong: a LambdaLR factor, multiplied in every epoch
}
lrs = {name: first_lrs(make) for name, make in schedules.items()}
for name, values in lrs.items():
    print(f"{name:26}", [f"{lr:.4g}" for lr in values])

# %% multiplicative-checks tags=["remove-cell"]
# MultiplicativeLR with a constant factor is ExponentialLR, to the last bit
assert lrs["MultiplicativeLR 0.9"] == lrs["ExponentialLR 0.9"]
assert all(math.isclose(lr, 0.1 * 0.9**e)
           for e, lr in enumerate(lrs["MultiplicativeLR 0.9"]))
# LambdaLR: initial lr times the factor, already at epoch 0
assert all(math.isclose(lr, 0.09) for lr in lrs["LambdaLR 0.9"])
assert all(math.isclose(a, b) for a, b in
           zip(lrs["LambdaLR 0.9 ** e"], lrs["ExponentialLR 0.9"]))
# MultiplicativeLR skips the factor at epoch 0, then multiplies the current lr
assert all(math.isclose(lr, 0.1 * 0.9 ** (e * (e + 1) / 2))
           for e, lr in enumerate(lrs["MultiplicativeLR 0.9 ** e"]))
assert lrs["MultiplicativeLR 0.9 ** e"][0] == 0.1
# LambdaLR sets the lr from initial_lr: a change by hand is overwritten
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = LambdaLR(opt, lambda e: 0.9**e)
opt.param_groups[0]["lr"] = 0.5
opt.step()
sched.step()
assert math.isclose(opt.param_groups[0]["lr"], 0.09)
# MultiplicativeLR multiplies the current lr: a change by hand is kept
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = MultiplicativeLR(opt, lambda e: 0.9)
opt.param_groups[0]["lr"] = 0.5
opt.step()
sched.step()
assert math.isclose(opt.param_groups[0]["lr"], 0.45)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = ExponentialLR(opt, gamma=0.9)
opt.param_groups[0]["lr"] = 0.5
opt.step()
sched.step()
assert math.isclose(opt.param_groups[0]["lr"], 0.45)
# LambdaLR applies its factor when it is created, before any step()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
LambdaLR(opt, lambda e: 0.9)
assert math.isclose(opt.param_groups[0]["lr"], 0.09)

# %% warm-restarts
from torch.optim.lr_scheduler import CosineAnnealingWarmRestarts

optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
# a first cycle of 2 epochs, then each cycle twice as long: 2, 4, 8
scheduler = CosineAnnealingWarmRestarts(optimizer, T_0=2, T_mult=2)
restarts = []
for epoch in range(14):
    lr = scheduler.get_last_lr()[0]
    if epoch > 0 and lr == 0.1:
        restarts.append(epoch)
    print(f"epoch {epoch:2}: lr {lr:.4f}")
    optimizer.step()
    scheduler.step()
print("restarts at epochs", restarts)

# %% warm-restarts-checks tags=["remove-cell"]
assert restarts == [2, 6]
# within a cycle of length T_i, epoch t of it has the cosine value
lengths = {0: 2, 2: 4, 6: 8}
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2)
for epoch in range(14):
    start = max(s for s in lengths if s <= epoch)
    t, length = epoch - start, lengths[start]
    expected = 0.1 * (1 + math.cos(math.pi * t / length)) / 2
    assert math.isclose(sched.get_last_lr()[0], expected), epoch
    opt.step()
    sched.step()
# T_mult=1 (the default): every cycle T_0 epochs long
equal = first_lrs(lambda opt: CosineAnnealingWarmRestarts(opt, T_0=3), epochs=9)
assert [e for e, lr in enumerate(equal) if lr == 0.1] == [0, 3, 6]

# %% warm-restarts-shrink raises="ValueError: Expected integer T_mult >= 1, but got 0.5"
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
CosineAnnealingWarmRestarts(optimizer, T_0=8, T_mult=0.5)

# %% warm-restarts-shrink-checks tags=["remove-cell"]
# a float is refused even when it is a whole number
for bad in (2.0, 0):
    try:
        CosineAnnealingWarmRestarts(optimizer, T_0=8, T_mult=bad)
    except ValueError as error:
        assert str(error).startswith("Expected integer T_mult >= 1"), error
    else:
        raise AssertionError(f"T_mult={bad} should be refused")

# %% shrinking-cycles
def cosine_cycles(lengths, min_factor=0.0):
    """LambdaLR factor: a cosine from 1 to min_factor over each cycle"""
    def factor(epoch):
        for length in lengths:
            if epoch < length:
                cos = math.cos(math.pi * epoch / length)
                return min_factor + (1 - min_factor) * (1 + cos) / 2
            epoch -= length
        return min_factor  # after the last cycle

    return factor


optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = LambdaLR(optimizer, cosine_cycles([8, 4, 2]))  # shrinking
shrinking = []
for epoch in range(15):
    shrinking.append(scheduler.get_last_lr()[0])
    optimizer.step()
    scheduler.step()
print([f"{lr:.3f}" for lr in shrinking])
print("restarts at epochs",
      [e for e, lr in enumerate(shrinking) if e > 0 and lr == 0.1])

# %% shrinking-cycles-checks tags=["remove-cell"]
assert [e for e, lr in enumerate(shrinking) if lr == 0.1] == [0, 8, 12]
assert shrinking[14] == 0.0  # after the last cycle: min_factor
# each cycle is the cosine of CosineAnnealingWarmRestarts with T_0 = its length
for start, length in ((0, 8), (8, 4), (12, 2)):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = CosineAnnealingWarmRestarts(opt, T_0=length)
    for t in range(length):
        assert math.isclose(shrinking[start + t], sched.get_last_lr()[0])
        opt.step()
        sched.step()
