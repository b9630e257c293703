# %% [markdown]
# A training step is zero_grad(), backward(), step();
# Adam's defaults and options, Adam's weight_decay vs
# AdamW, SGD vs Adam vs RMSprop, and parameter groups
# with their own learning rates

# %% [markdown] lang="zh"
# 一个训练步就是 `zero_grad()`、`backward()`、`step()`；Adam 的默认值与选项、
# Adam 的 `weight_decay` 与 AdamW 的区别，SGD、Adam 与 RMSprop 怎么选，
# 以及各自有学习率的参数组

# %% setup
import torch
import torch.nn as nn

x = torch.linspace(-1, 1, 16).unsqueeze(1)  # 16 samples, 1 feature
y = 3 * x + 0.5  # the line the model should find
loss_fn = nn.MSELoss()


def train(model, optimizer, steps, zero_grad=True):
    losses = []
    for step in range(steps):
        if zero_grad:
            optimizer.zero_grad()  # clear the gradients of the previous step
        loss = loss_fn(model(x), y)
        loss.backward()  # compute the gradients of this step
        optimizer.step()  # update the parameters with them
        losses.append(loss.item())
    return losses


# %% training-loop
torch.manual_seed(0)
model = nn.Linear(1, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
losses = train(model, optimizer, steps=30)
print([round(value, 3) for value in losses[::3]])
weight, bias = model.weight.item(), model.bias.item()
print(weight, bias)  # the line is y = 3x + 0.5

# %% no-zero-grad
torch.manual_seed(0)
model = nn.Linear(1, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn(model(x), y).backward()
g1 = model.weight.grad.clone()
optimizer.step()
# this step's gradient
g2 = torch.autograd.grad(loss_fn(model(x), y), model.weight)[0]
loss_fn(model(x), y).backward()  # no optimizer.zero_grad() before it
print(g1, g2)
print(model.weight.grad)

# %% no-zero-grad-training
torch.manual_seed(0)
model = nn.Linear(1, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
losses_no_zero = train(model, optimizer, steps=30, zero_grad=False)
print([round(value, 3) for value in losses_no_zero[::3]])  # every third step
print(f"start {losses_no_zero[0]:.3f}, "
      f"highest after step 20: {max(losses_no_zero[20:]):.3f}")

# %% zero-grad-none
loss_fn(model(x), y).backward()
optimizer.zero_grad()
print(model.weight.grad)
loss_fn(model(x), y).backward()
model.zero_grad()
print(model.weight.grad)

# %% partial-optimizer
model = nn.Sequential(nn.Linear(1, 4), nn.ReLU(), nn.Linear(4, 1))
# trains the last layer only
optimizer = torch.optim.SGD(model[2].parameters(), lr=0.1)
loss_fn(model(x), y).backward()
optimizer.zero_grad()
print(model[0].weight.grad is None, model[2].weight.grad is None)
model.zero_grad()
print(model[0].weight.grad is None, model[2].weight.grad is None)

# %% adam-defaults
optimizer = torch.optim.Adam(model.parameters())
print(optimizer.defaults)

# %% adam-signature
import inspect

print(list(inspect.signature(torch.optim.Adam).parameters))

# %% adam-vs-adamw
g = torch.tensor([0.5, 0.1, -0.2])  # a fixed gradient direction


def run(make_optimizer, l2=0.0, steps=3):
    w = nn.Parameter(torch.tensor([1.0, -2.0, 3.0]))
    optimizer = make_optimizer([w])
    for step in range(steps):
        optimizer.zero_grad()
        # optional L2 penalty in the loss
        loss = (g * w).sum() + l2 / 2 * (w**2).sum()
        loss.backward()
        optimizer.step()
    return w.detach()


adam_wd = run(lambda params: torch.optim.Adam(params, lr=0.1, weight_decay=0.1))
adam_l2 = run(lambda params: torch.optim.Adam(params, lr=0.1), l2=0.1)
adamw = run(lambda params: torch.optim.AdamW(params, lr=0.1, weight_decay=0.1))
print(adam_wd)  # Adam, weight_decay=0.1
print(adam_l2)  # Adam, no weight_decay, L2 penalty 0.1 / 2 * |w|^2 in the loss
print(adamw)  # AdamW, weight_decay=0.1

# %% adamw-default
print(torch.optim.AdamW(model.parameters()).defaults["weight_decay"])

# %% optimizer-steps
gradient = torch.tensor([10.0, 0.01])  # one large entry, one small
lr = 0.01


def moved(make_optimizer, steps=1, gradient=gradient):
    p = nn.Parameter(torch.zeros(2))
    optimizer = make_optimizer([p])
    for step in range(steps):
        optimizer.zero_grad()
        (gradient * p).sum().backward()  # p.grad is the gradient
        optimizer.step()
    return -p.detach()  # how far each entry moved against its gradient


def show(name, update, by_hand):
    values = ", ".join(f"{value:.3g}" for value in update.tolist())
    print(f"{name:<17} [{values}]  by hand: {torch.allclose(update, by_hand)}")


# SGD: p -= lr * g
sgd_step = moved(lambda ps: torch.optim.SGD(ps, lr=lr))
show("SGD", sgd_step, lr * gradient)
# momentum: buf = g at the first step, then 0.9 * buf + g; p -= lr * buf
momentum_steps = moved(
    lambda ps: torch.optim.SGD(ps, lr=lr, momentum=0.9), steps=2
)
show("SGD momentum, x2", momentum_steps, lr * gradient + lr * 1.9 * gradient)
# RMSprop: v = 0.99 * v + 0.01 * g^2 from v = 0; p -= lr * g / (sqrt(v) + eps)
rmsprop_step = moved(lambda ps: torch.optim.RMSprop(ps, lr=lr))
square_avg = 0.01 * gradient**2
show("RMSprop", rmsprop_step, lr * gradient / (square_avg.sqrt() + 1e-8))
# Adam: averages of g (0.9) and g^2 (0.999), each divided by 1 - beta**step
adam_step = moved(lambda ps: torch.optim.Adam(ps, lr=lr))
m_hat = 0.1 * gradient / (1 - 0.9)
v_hat = 0.001 * gradient**2 / (1 - 0.999)
show("Adam", adam_step, lr * m_hat / (v_hat.sqrt() + 1e-8))

# %% optimizer-steps-checks tags=["remove-cell"]
# each step is the documented formula
assert torch.allclose(sgd_step, lr * gradient)
assert torch.allclose(momentum_steps, 2.9 * lr * gradient)
assert torch.allclose(rmsprop_step, lr * gradient / (square_avg.sqrt() + 1e-8))
assert torch.allclose(adam_step, lr * m_hat / (v_hat.sqrt() + 1e-8))
# SGD moves each entry in proportion to its gradient: 1000 to 1 here
assert torch.allclose(sgd_step[0] / sgd_step[1], torch.tensor(1000.0))
# RMSprop's first step is about 10 * lr per entry, Adam's about lr, at any scale
for scale in (1e-3, 1.0, 1e3):
    scaled = scale * torch.tensor([10.0, -0.01])
    rms = moved(lambda ps: torch.optim.RMSprop(ps, lr=lr), gradient=scaled)
    adam = moved(lambda ps: torch.optim.Adam(ps, lr=lr), gradient=scaled)
    assert torch.allclose(rms, 10 * lr * scaled.sign(), rtol=1e-2)
    assert torch.allclose(adam, lr * scaled.sign(), rtol=1e-2)
# RMSprop keeps the running average of g^2 in its state
p = nn.Parameter(torch.zeros(2))
rms_opt = torch.optim.RMSprop([p], lr=lr)
(gradient * p).sum().backward()
rms_opt.step()
assert torch.allclose(rms_opt.state[p]["square_avg"], square_avg)
# with a steady gradient, momentum 0.9 ends up 10 times the gradient
p = nn.Parameter(torch.zeros(2))
mom_opt = torch.optim.SGD([p], lr=lr, momentum=0.9)
for step in range(200):
    mom_opt.zero_grad()
    (gradient * p).sum().backward()
    mom_opt.step()
assert torch.allclose(mom_opt.state[p]["momentum_buffer"], 10 * gradient)

# %% optimizer-defaults
params = [nn.Parameter(torch.zeros(1))]
for name, keys in [
    ("SGD", ["lr", "momentum", "nesterov", "weight_decay"]),
    ("RMSprop", ["lr", "alpha", "eps", "momentum", "weight_decay"]),
    ("Adam", ["lr", "betas", "eps", "weight_decay"]),
]:
    defaults = getattr(torch.optim, name)(params).defaults
    print(f"{name:<8}", {key: defaults[key] for key in keys})

# %% optimizer-defaults-checks tags=["remove-cell"]
expected = {
    "SGD": {"lr": 1e-3, "momentum": 0, "nesterov": False, "weight_decay": 0},
    "RMSprop": {
        "lr": 1e-2, "alpha": 0.99, "eps": 1e-8, "momentum": 0,
        "weight_decay": 0, "centered": False,
    },
    "Adam": {"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0},
}
for name, values in expected.items():
    optimizer_class = getattr(torch.optim, name)
    made = optimizer_class(params)
    signature = inspect.signature(optimizer_class).parameters
    for key, value in values.items():
        assert made.defaults[key] == value, (name, key)
        assert made.param_groups[0][key] == value, (name, key)
        assert signature[key].default == value, (name, key)

# %% optimizer-comparison
torch.manual_seed(0)
points = torch.randn(200, 2)
labels = (points[:, 0] * points[:, 1] > 0).float()  # XOR-like classes
bce = nn.BCEWithLogitsLoss()


def final_loss(make_optimizer, steps=200):
    torch.manual_seed(1)  # the same initial weights for every optimizer
    net = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
    optimizer = make_optimizer(net.parameters())
    for step in range(steps):
        optimizer.zero_grad()
        bce(net(points).squeeze(1), labels).backward()
        optimizer.step()
    return bce(net(points).squeeze(1), labels).item()


start_loss = final_loss(torch.optim.SGD, steps=0)
print(f"{'start':<27} {start_loss:.3f}")
runs = {
    "SGD lr=1e-3 (default)": lambda ps: torch.optim.SGD(ps),
    "SGD lr=0.1": lambda ps: torch.optim.SGD(ps, lr=0.1),
    "SGD lr=0.1 momentum=0.9": (
        lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9)
    ),
    "RMSprop lr=1e-2 (default)": lambda ps: torch.optim.RMSprop(ps),
    "Adam lr=1e-3 (default)": lambda ps: torch.optim.Adam(ps),
    "Adam lr=1e-2": lambda ps: torch.optim.Adam(ps, lr=1e-2),
}
final = {}
for label, make_optimizer in runs.items():
    final[label] = final_loss(make_optimizer)  # after 200 full-batch steps
    print(f"{label:<27} {final[label]:.3f}")

# %% optimizer-comparison-checks tags=["remove-cell"]
# every run lowers the loss from the same start
assert all(loss < start_loss for loss in final.values())
# SGD's default lr hardly moves it; lr=0.1 goes 10 times as far, or more
drop = {label: start_loss - loss for label, loss in final.items()}
assert drop["SGD lr=1e-3 (default)"] < 0.1 * drop["SGD lr=0.1"]
assert drop["SGD lr=1e-3 (default)"] < 0.01 * start_loss
# momentum goes much further than plain SGD at the same lr
assert final["SGD lr=0.1 momentum=0.9"] < 0.5 * final["SGD lr=0.1"]
# Adam at 1e-2 ends far lower than at its default 1e-3 here
assert final["Adam lr=1e-2"] < 0.5 * final["Adam lr=1e-3 (default)"]
# RMSprop's default lr gets well below the start
assert final["RMSprop lr=1e-2 (default)"] < 0.5 * start_loss

# %% param-groups
optimizer = torch.optim.SGD(
    [
        {"params": model[0].parameters(), "lr": 0.01},  # this group: its own lr
        {"params": model[2].parameters()},  # this group: the default below
    ],
    lr=0.1,
)
for group in optimizer.param_groups:
    print(group["lr"], [tuple(p.shape) for p in group["params"]])

# %% checks tags=["remove-cell"] holds=">=2.7" claim="`torch.optim.Adam` takes `decoupled_weight_decay=True`, which makes it AdamW" about="adam-signature"
# What the page says, checked on every build
# decreases
assert all(later < earlier for earlier, later in zip(losses, losses[1:]))
assert losses[-1] < 0.1 * losses[0]
assert 2.5 < weight < 3 and abs(bias - 0.5) < 0.01  # heading for 3 and 0.5

adam = torch.optim.Adam(nn.Linear(1, 1).parameters())
expected = {"lr": 0.001, "betas": (0.9, 0.999), "eps": 1e-08, "weight_decay": 0}
for key, value in expected.items():  # the note's defaults still hold
    assert adam.defaults[key] == value and adam.param_groups[0][key] == value
names = list(inspect.signature(torch.optim.Adam).parameters)
for name in (
    "amsgrad", "foreach", "maximize", "capturable", "differentiable", "fused",
    "decoupled_weight_decay"
):
    assert name in names and name in adam.defaults
assert adam.defaults["amsgrad"] is False
assert adam.defaults["decoupled_weight_decay"] is False

# Adam's weight_decay is an L2 penalty added to the gradient; AdamW decouples it
assert torch.allclose(adam_wd, adam_l2)
assert not torch.allclose(adam_wd, adamw, atol=1e-3)
w = nn.Parameter(torch.tensor([1.0, -2.0, 3.0]))
plain = torch.optim.Adam([w], lr=0.1)
# AdamW = shrink the weights by lr * wd, then a plain Adam step
for step in range(3):
    plain.zero_grad()
    (g * w).sum().backward()
    with torch.no_grad():
        w.mul_(1 - 0.1 * 0.1)
    plain.step()
assert torch.allclose(w.detach(), adamw)
decoupled = run(
    lambda params: torch.optim.Adam(
        params, lr=0.1, weight_decay=0.1, decoupled_weight_decay=True
    )
)
assert torch.allclose(decoupled, adamw)
assert torch.optim.AdamW(
    nn.Linear(1, 1).parameters()
).defaults["weight_decay"] == 0.01

# without zero_grad the gradients of two steps add up
assert not torch.allclose(g1, g2)
torch.manual_seed(0)
check = nn.Linear(1, 1)
check_opt = torch.optim.SGD(check.parameters(), lr=0.1)
loss_fn(check(x), y).backward()
first = check.weight.grad.clone()
check_opt.step()
second = torch.autograd.grad(loss_fn(check(x), y), check.weight)[0]
loss_fn(check(x), y).backward()
assert torch.allclose(check.weight.grad, first + second)
assert losses_no_zero[0] == losses[0]  # same start
assert max(losses_no_zero[20:]) > losses[0]  # back above where it started
assert any(
    later > earlier
    for earlier, later in zip(losses_no_zero, losses_no_zero[1:])
)

# zero_grad() sets grads to None (both forms); set_to_none=False gives zeros
lin = nn.Linear(1, 1)
sgd = torch.optim.SGD(lin.parameters(), lr=0.1)
for clear in (sgd.zero_grad, lin.zero_grad):
    loss_fn(lin(x), y).backward()
    clear()
    assert lin.weight.grad is None and lin.bias.grad is None
loss_fn(lin(x), y).backward()
sgd.zero_grad(set_to_none=False)
assert torch.equal(lin.weight.grad, torch.zeros(1, 1))

# an optimizer over part of the model clears only its own parameters
part = nn.Sequential(nn.Linear(1, 4), nn.ReLU(), nn.Linear(4, 1))
part_opt = torch.optim.SGD(part[2].parameters(), lr=0.1)
loss_fn(part(x), y).backward()
part_opt.zero_grad()
assert part[0].weight.grad is not None and part[2].weight.grad is None
part.zero_grad()
assert all(p.grad is None for p in part.parameters())

# each group steps with its own lr
assert [group["lr"] for group in optimizer.param_groups] == [0.01, 0.1]
before = [p.detach().clone() for p in model.parameters()]
optimizer.zero_grad()
loss_fn(model(x), y).backward()
grads = [p.grad.clone() for p in model.parameters()]
optimizer.step()
lrs = [0.01, 0.01, 0.1, 0.1]  # weight and bias of model[0], then of model[2]
for old, new, grad, lr in zip(before, model.parameters(), grads, lrs):
    assert torch.allclose(new.detach(), old - lr * grad)

# maximize=True steps up the gradient instead of down
w = nn.Parameter(torch.zeros(2))
ascent = torch.optim.Adam([w], lr=0.1, maximize=True)
w.sum().backward()
ascent.step()
assert (w > 0).all()

# %% lbfgs-no-closure raises="TypeError: …step() missing 1 required positional argument: 'closure'"
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(1, 8), nn.Tanh(), nn.Linear(8, 1))
optimizer = torch.optim.LBFGS(model.parameters())
loss = loss_fn(model(x), y)
loss.backward()
optimizer.step()

# %% lbfgs-closure
calls = 0


def closure():
    global calls
    calls += 1
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    return loss


start = loss_fn(model(x), y).item()
for step in range(5):
    loss = optimizer.step(closure)  # returns the loss of the first evaluation
end = loss_fn(model(x), y).item()
print(f"loss {start:.3f} -> {end:.4f}")
print(calls > 5)  # more evaluations than steps

# %% lbfgs-closure-checks tags=["remove-cell"]
assert start > 1 and end < 1e-4
assert calls > 5  # several evaluations per step
# step() returns what the first call of the closure returned
before = loss_fn(model(x), y).item()
first = optimizer.step(closure)
assert abs(first.item() - before) < 1e-6
# the other optimizers take an optional closure, LBFGS requires one
import inspect

for name in ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "LBFGS"]:
    step = inspect.signature(getattr(torch.optim, name).step)
    default = step.parameters["closure"].default
    assert (default is inspect.Parameter.empty) == (name == "LBFGS"), name
adam = torch.optim.Adam(model.parameters(), lr=1e-3)
before = loss_fn(model(x), y).item()
assert abs(adam.step(closure).item() - before) < 1e-6

# %% create-before-to
torch.manual_seed(0)
model = nn.Linear(1, 1)
weight = model.weight
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model.to(torch.float64)  # a move in place: the same Parameter, new data
print(model.weight is weight, optimizer.param_groups[0]["params"][0] is weight)
print(model.weight.dtype)
loss_fn(model(x.double()), y.double()).backward()
optimizer.step()  # steps the moved parameters

# %% create-before-to-checks tags=["remove-cell"]
assert model.weight is weight and model.weight.dtype == torch.float64
assert optimizer.param_groups[0]["params"][0] is model.weight
assert model.weight.grad is not None
# with the future flag set, to() makes new Parameters: an older optimizer keeps the old
torch.__future__.set_overwrite_module_params_on_conversion(True)
try:
    other = nn.Linear(1, 1)
    opt = torch.optim.SGD(other.parameters(), lr=0.1)
    other.to(torch.float64)
    assert opt.param_groups[0]["params"][0] is not other.weight
    assert opt.param_groups[0]["params"][0].dtype == torch.float32
finally:
    torch.__future__.set_overwrite_module_params_on_conversion(False)

# %% state-before-to raises="RuntimeError: expected dtype float for `end` but got dtype double"
torch.manual_seed(0)
model = nn.Linear(1, 1)
optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
train(model, optimizer, 1)  # Adam now has state: exp_avg, exp_avg_sq
model.to(torch.float64)
print(model.weight.dtype, optimizer.state[model.weight]["exp_avg"].dtype)
optimizer.zero_grad()
loss_fn(model(x.double()), y.double()).backward()
optimizer.step()  # the old state meets the moved parameters

# %% state-before-to-checks tags=["remove-cell"]
assert optimizer.state[model.weight]["exp_avg"].dtype == torch.float32

# %% add-overload
import warnings

torch.manual_seed(0)
p, grad, lr = torch.randn(3), torch.randn(3), 0.1
old, new = p.clone(), p.clone()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    old.add_(-lr, grad)  # pre-1.5 style: the number first
    new.add_(grad, alpha=-lr)  # the current signature: silent
print(str(caught[0].message).split(" (Triggered")[0])
print(torch.equal(old, new), len(caught))

# %% add-overload-checks tags=["remove-cell"]
assert caught[0].category is UserWarning
assert str(caught[0].message).startswith("This overload of add_ is deprecated:\n")
assert torch.allclose(old, p - lr * grad)
# addcmul_ and addcdiv_ with the number first do not warn here
t1, t2 = torch.rand(3) + 1, torch.rand(3) + 1
with warnings.catch_warnings(record=True) as caught2:
    warnings.simplefilter("always")
    a = p.clone().addcmul_(0.5, t1, t2)
    b = p.clone().addcdiv_(0.5, t1, t2)
assert not caught2
assert torch.allclose(a, p.clone().addcmul_(t1, t2, value=0.5))
assert torch.allclose(b, p.clone().addcdiv_(t1, t2, value=0.5))
