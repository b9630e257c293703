# %% [markdown]
# Why the loss is NaN or does not go down: check the data for non-finite
# values, overfit one batch, look at gradient norms, try smaller learning
# rates, put zero_grad before backward, take losses on logits, and let
# anomaly mode name the backward that made a NaN; a model that predicts one
# class for every input: count the labels, then weight the classes

# %% [markdown] lang="zh"
# 损失为 NaN 或不下降时的排查清单：检查数据里有没有非有限值，先过拟合一个
# batch，看梯度范数，试更小的学习率，`zero_grad` 放在 `backward` 之前，
# 损失函数接 logits，再用异常检测模式找出产生 NaN 的反向函数；模型对所有输入
# 都预测同一个类别时，先数各类别的标签，再给类别加权

# %% data
import torch
from torch import nn

x = torch.randn(16, 3)
y = x @ torch.tensor([[1.0], [-2.0], [0.5]])
bad = x.clone()
bad[5, 1] = float("nan")  # one bad value in the data

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss = nn.functional.mse_loss(model(bad), y)
optimizer.zero_grad()
loss.backward()
optimizer.step()
print(loss)
print(model.weight)
print(torch.isfinite(bad).all(), (~torch.isfinite(bad)).nonzero())

# %% data-checks tags=["remove-cell"]
assert torch.isnan(loss)
assert torch.isnan(model.weight).all() and torch.isnan(model.bias).all()
assert (~torch.isfinite(bad)).nonzero().tolist() == [[5, 1]]
assert torch.isfinite(x).all()  # the clean copy, used below

# %% overfit
import warnings


def overfit(target, steps=200):
    torch.manual_seed(0)
    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(steps):
        loss = nn.functional.mse_loss(model(x), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


target = y.squeeze(1)  # shape (16,), while the model outputs (16, 1)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(f"{overfit(target):.4f}")
print(caught[0].message)
print(f"{overfit(target.unsqueeze(1)):.4f}")

# %% overfit-checks tags=["remove-cell"]
assert overfit(target.unsqueeze(1)) < 1e-4  # a linear target: fits exactly
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    stuck = overfit(target)
assert stuck > 1.0  # broadcast to (16, 16): it cannot fit
# every output against every target: at best the targets' variance
assert stuck >= target.var(unbiased=False).item() * (1 - 1e-4)
assert caught[0].category is UserWarning
assert "different to the input size" in str(caught[0].message)
assert (model(x) - target).shape == (16, 16)

# %% grad-norms
torch.manual_seed(0)
layers = []
for _ in range(8):
    layers += [nn.Linear(16, 16), nn.Sigmoid()]
deep = nn.Sequential(*layers, nn.Linear(16, 1))
inputs, targets = torch.randn(32, 16), torch.randn(32, 1)
nn.functional.mse_loss(deep(inputs), targets).backward()
norms = {}
for name, p in deep.named_parameters():
    if name.endswith("weight"):
        norms[name] = p.grad.norm().item()
        print(f"{name:9} {norms[name]:.1e}")

# %% grad-norms-checks tags=["remove-cell"]
values = list(norms.values())
assert all(a < b for a, b in zip(values, values[1:]))  # smaller towards input
assert values[0] < 1e-6 * values[-1]  # vanished: the first layers barely move
assert torch.sigmoid(torch.linspace(-10, 10, 1001)).mul(
    1 - torch.sigmoid(torch.linspace(-10, 10, 1001))
).max() == 0.25  # sigmoid's derivative is at most 1/4
# the same stack with ReLU: the first layer's gradient does not vanish
torch.manual_seed(0)
layers = []
for _ in range(8):
    layers += [nn.Linear(16, 16), nn.ReLU()]
relu = nn.Sequential(*layers, nn.Linear(16, 1))
nn.functional.mse_loss(relu(inputs), targets).backward()
assert relu[0].weight.grad.norm() > 1e3 * deep[0].weight.grad.norm()

# %% lr
def losses(lr, steps=20):
    torch.manual_seed(0)
    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    history = []
    for step in range(steps):
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        history.append(loss.item())
    return history


results = {lr: losses(lr) for lr in [1.0, 0.1, 0.01]}
for lr, history in results.items():
    print(f"lr={lr:<5} first {history[0]:.3g}  last {history[-1]:.3g}")

# %% lr-checks tags=["remove-cell"]
assert results[1.0][-1] > 1e3 * results[1.0][0]  # diverges
assert results[0.1][-1] < results[0.01][-1] < results[0.01][0]
assert all(b < a for a, b in zip(results[0.1], results[0.1][1:]))

# %% zero-grad
def wrong_order(steps=20):
    torch.manual_seed(0)
    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    history = []
    for step in range(steps):
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.zero_grad()  # too late: wipes what backward computed
        optimizer.step()
        history.append(loss.item())
    return history


stuck = wrong_order()
print(f"first {stuck[0]:.3g}  last {stuck[-1]:.3g}")

# %% zero-grad-checks tags=["remove-cell"]
assert len(set(stuck)) == 1  # not a single change
assert stuck[0] == losses(0.1)[0]  # the same start as the right order
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
weight = model.weight.clone()
nn.functional.mse_loss(model(x), y).backward()
optimizer.zero_grad()
assert model.weight.grad is None  # set to None, not zeroed
optimizer.step()
assert torch.equal(model.weight, weight)  # skipped

# %% log-softmax
logits = torch.tensor([[100.0, 0.0, -100.0]], requires_grad=True)
label = torch.tensor([2])
probs = torch.softmax(logits, dim=1)
print(probs)
print(nn.functional.nll_loss(torch.log(probs), label))
print(nn.functional.cross_entropy(logits, label))

# %% log-softmax-checks tags=["remove-cell"]
assert probs[0, 2] == 0.0  # underflowed to exactly zero in float32
assert torch.isinf(nn.functional.nll_loss(torch.log(probs), label))
loss = nn.functional.cross_entropy(logits, label)
assert loss.item() == 200.0  # log_softmax inside: large but finite
loss.backward()
assert torch.isfinite(logits.grad).all()
logits.grad = None
nn.functional.nll_loss(torch.log(torch.softmax(logits, 1)), label).backward()
assert torch.isnan(logits.grad).any()

# %% where
w = torch.tensor([-1.0, 4.0], requires_grad=True)
out = torch.where(w > 0, w.sqrt(), 0.0)  # sqrt(-1) is computed, then dropped
out.sum().backward()
print(out, w.grad)

# %% where-checks tags=["remove-cell"]
assert torch.isfinite(out).all()  # nothing shows in the forward
assert torch.isnan(w.detach().sqrt()[0])  # but sqrt(-1) was computed
assert torch.isnan(w.grad[0]) and w.grad[1] == 0.25
# the fix: keep the bad values out of sqrt
w.grad = None
safe = torch.where(w > 0, w, 1.0).sqrt()
torch.where(w > 0, safe, 0.0).sum().backward()
assert torch.equal(w.grad, torch.tensor([0.0, 0.25]))

# %% where-anomaly tags=["raises-exception"]
w.grad = None
with torch.autograd.detect_anomaly(check_nan=True):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the forward traceback, left out
        out = torch.where(w > 0, w.sqrt(), 0.0)
        out.sum().backward()

# %% where-anomaly-checks tags=["remove-cell"]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        with torch.autograd.detect_anomaly():
            torch.where(w > 0, w.sqrt(), 0.0).sum().backward()
    except RuntimeError as error:
        assert "Function 'SqrtBackward0' returned nan values" in str(error)
    else:
        raise AssertionError("anomaly mode should name SqrtBackward0")
assert any("increase the runtime" in str(c.message) for c in caught)

# %% same-class
torch.manual_seed(0)
counts = [900, 60, 40]  # 90 % of the samples are class 0
y = torch.cat([torch.full((n,), c) for c, n in enumerate(counts)])
centers = torch.tensor([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
x = centers[y] + torch.randn(len(y), 2)  # the classes overlap


def train(criterion, target=y, steps=300):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 3))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    for step in range(steps):
        loss = criterion(model(x), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model


model = train(nn.CrossEntropyLoss())
with torch.no_grad():
    probs = model(x).softmax(dim=1)
pred = probs.argmax(dim=1)
print("labels:", torch.bincount(y))
print("predicted classes:", torch.unique(pred))
print(f"accuracy: {(pred == y).float().mean():.2f}")
print("mean probabilities:", probs.mean(dim=0).round(decimals=2))

# %% same-class-checks tags=["remove-cell"]
assert torch.unique(pred).tolist() == [0]  # one class for every input
shares = torch.bincount(y) / len(y)
assert (pred == y).sum() == counts[0]  # accuracy = the share of class 0
assert torch.allclose(probs.mean(dim=0), shares, atol=0.01)  # the class shares
assert probs[:, 1:].max() < 0.5 < probs[:, 0].min()  # not a close call
# the true densities: class 0 is the likelier class at nearly every point
log_prior = torch.tensor(counts).float().log()
log_density = -0.5 * ((x[:, None, :] - centers) ** 2).sum(dim=2)
assert (log_prior + log_density).argmax(dim=1).ne(0).sum() < 0.01 * len(y)

# %% class-weights
weight = len(y) / (3 * torch.bincount(y).float())  # the rarer, the heavier
print("class weights:", weight.round(decimals=2))
model = train(nn.CrossEntropyLoss(weight=weight))
with torch.no_grad():
    pred = model(x).argmax(dim=1)
    print("predicted classes:", torch.unique(pred))
    print("predicted at the class centers:", model(centers).argmax(dim=1))

# %% class-weights-checks tags=["remove-cell"]
assert torch.allclose(weight * torch.bincount(y), torch.full((3,), len(y) / 3))
assert torch.unique(pred).tolist() == [0, 1, 2]
assert model(centers).argmax(dim=1).tolist() == [0, 1, 2]
recall = torch.stack([(pred[y == c] == c).float().mean() for c in range(3)])
assert recall[1:].min() > 0.5  # most of classes 1 and 2 found (none before)
assert recall.mean() > 0.5  # the mean recall, 1/3 before
assert (pred == y).float().mean() < 0.9  # but the accuracy falls

# %% same-class-causes-checks tags=["remove-cell"]
# labels that do not belong to their inputs: only the shares to learn
shuffled = train(nn.CrossEntropyLoss(), target=y[torch.randperm(len(y))])
with torch.no_grad():
    assert torch.unique(shuffled(x).argmax(dim=1)).tolist() == [0]
# every ReLU dead: the same output for every input, the last bias
with torch.no_grad():
    model[0].bias.fill_(-100.0)
model.zero_grad()
out = model(x)
assert torch.equal(out, model[2].bias.expand_as(out))
out.sum().backward()
assert torch.equal(model[0].weight.grad, torch.zeros_like(model[0].weight))

# %% val-lower
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
x = torch.randn(512, 10)
y = (x[:, :3].sum(dim=1) + 0.5 * torch.randn(512) > 0).long()  # a bit noisy
loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)
model = nn.Sequential(
    nn.Linear(10, 64), nn.ReLU(), nn.Dropout(0.5), nn.Linear(64, 2)
)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def train_epoch(model, optimizer):
    model.train()
    losses = []
    for xb, yb in loader:
        loss = nn.functional.cross_entropy(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return sum(losses) / len(losses)  # what a training log reports


@torch.no_grad()
def loss_now(model, train_mode):  # the same 512 samples, one batch
    model.train(train_mode)
    return nn.functional.cross_entropy(model(x), y).item()


rows = []
for epoch in range(3):
    logged = train_epoch(model, optimizer)
    rows.append((logged, loss_now(model, True), loss_now(model, False)))
    print(f"epoch {epoch}: logged {rows[-1][0]:.3f}, at the end: "
          f"train mode {rows[-1][1]:.3f}, eval mode {rows[-1][2]:.3f}")

# %% val-lower-checks tags=["remove-cell"]
import math

for logged, train_mode, eval_mode in rows:
    assert logged > train_mode > eval_mode
# the gap between the modes is the Dropout: without it they agree
model[2].p = 0.0
assert math.isclose(loss_now(model, True), loss_now(model, False),
                    rel_tol=1e-6)
model[2].p = 0.5
# the logged mean lags behind without Dropout too: the model improves
torch.manual_seed(0)
plain = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 2))
logged = train_epoch(plain, torch.optim.SGD(plain.parameters(), lr=0.1))
assert logged > loss_now(plain, False)
# augmentation applied to the training inputs only raises their loss too
with torch.no_grad():
    model.eval()
    noisy = x + 0.5 * torch.randn_like(x)
    assert nn.functional.cross_entropy(model(noisy), y) > \
        nn.functional.cross_entropy(model(x), y)
    # and a validation split of easy samples, far from the class boundary,
    # has a lower loss than the data as a whole
    easy = x[:, :3].sum(dim=1).abs() > 1.5
    assert nn.functional.cross_entropy(model(x[easy]), y[easy]) < \
        nn.functional.cross_entropy(model(x), y)

# %% sqrt-zero
x = torch.tensor([0.0, 1.0], requires_grad=True)
x.sqrt().sum().backward()
print("gradient of sqrt:", x.grad)  # 1 / (2 * sqrt(x)): inf at 0

v = torch.zeros(3, requires_grad=True)  # two equal embeddings: difference 0
(v ** 2).sum().sqrt().backward()  # a norm written by hand
print("gradient of the norm:", v.grad)

# %% sqrt-zero-checks tags=["remove-cell"]
assert torch.isinf(x.grad[0]) and x.grad[1] == 0.5
assert torch.isnan(v.grad).all()
# multiplying the sqrt by 0 does not help: its gradient is inf * 0, nan
x.grad = None
(x.sqrt() * 0).sum().backward()
assert torch.isnan(x.grad[0]) and x.grad[1] == 0

# %% sqrt-zero-anomaly raises="RuntimeError: Function 'PowBackward0' returned nan values in its 0th output."
v.grad = None
with torch.autograd.detect_anomaly():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the forward traceback, left out
        (v ** 2).sum().sqrt().backward()

# %% sqrt-zero-fix
v.grad = None
torch.linalg.vector_norm(v).backward()
print("vector_norm:", v.grad)
v.grad = None
((v ** 2).sum() + 1e-12).sqrt().backward()
print("sqrt(s + eps):", v.grad)

# %% sqrt-zero-fix-checks tags=["remove-cell"]
assert torch.equal(v.grad, torch.zeros(3))
v.grad = None
torch.linalg.vector_norm(v).backward()
assert torch.equal(v.grad, torch.zeros(3))
v.grad = None
v.norm().backward()
assert torch.equal(v.grad, torch.zeros(3))
# cdist and norm(dim=...) at a zero distance: gradient 0 as well
a = torch.zeros(1, 3, requires_grad=True)
torch.cdist(a, torch.zeros(1, 3)).sum().backward()
assert torch.equal(a.grad, torch.zeros(1, 3))
a.grad = None
(a - torch.zeros(1, 3)).norm(dim=1).sum().backward()
assert torch.equal(a.grad, torch.zeros(1, 3))
# with sqrt * 0 the nan is made in sqrt's own backward: anomaly mode names it
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    try:
        with torch.autograd.detect_anomaly():
            (x.sqrt() * 0).sum().backward()
    except RuntimeError as error:
        assert "Function 'SqrtBackward0' returned nan values" in str(error)
    else:
        raise AssertionError("anomaly mode should name SqrtBackward0")

# %% ctc-inf
torch.manual_seed(0)
logits = torch.randn(5, 2, 4, requires_grad=True)  # (T=5, N=2, C=4): time first
log_probs = logits.log_softmax(dim=2)  # log-probabilities over the classes
targets = torch.tensor([[1, 2, 3, 0, 0, 0, 0], [1, 2, 3, 1, 2, 3, 1]])  # padded
input_lengths = torch.tensor([5, 5])
target_lengths = torch.tensor([3, 7])  # 7 labels cannot fit in 5 frames
ctc = nn.CTCLoss(reduction="none")  # blank=0
print(ctc(log_probs, targets, input_lengths, target_lengths).detach())
loss = nn.CTCLoss()(log_probs, targets, input_lengths, target_lengths)
loss.backward()
print(loss.item(), logits.grad.isnan().any().item())

# %% ctc-inf-checks tags=["remove-cell"]
per_sample = ctc(log_probs, targets, input_lengths, target_lengths)
assert per_sample[0].isfinite() and per_sample[1] == float("inf")
assert loss == float("inf") and logits.grad.isnan().any()
optimizer = torch.optim.SGD([logits], lr=0.1)
optimizer.step()  # the nan gradients go into the weights
assert logits.isnan().any()


# %% ctc-min-frames
def min_frames(target):
    # one frame per label, and a blank between two equal neighbours
    return len(target) + sum(a == b for a, b in zip(target, target[1:]))


print(min_frames([1, 2, 3, 1, 2, 3, 1]), min_frames([1, 1]))
for T in (2, 3):
    log_probs_11 = torch.randn(T, 1, 4).log_softmax(dim=2)
    value = nn.CTCLoss()(log_probs_11, torch.tensor([[1, 1]]), [T], [2])
    print(T, round(value.item(), 4))

# %% ctc-min-frames-checks tags=["remove-cell"]
assert min_frames([1, 2, 3, 1, 2, 3, 1]) == 7 and min_frames([1, 1]) == 3
for target in ([1, 1], [1, 2], [1, 1, 1], [2, 3, 3, 2], [1, 2, 3]):
    need = min_frames(target)
    for T in range(1, need + 2):
        lp = torch.randn(T, 1, 4).log_softmax(dim=2)
        value = nn.CTCLoss()(lp, torch.tensor([target]), [T], [len(target)])
        assert value.isfinite() == (T >= need), (target, T, value)

# %% ctc-zero-infinity
torch.manual_seed(0)
logits = torch.randn(5, 2, 4, requires_grad=True)  # the same logits as before
log_probs = logits.log_softmax(dim=2)
ctc = nn.CTCLoss(zero_infinity=True)
print(nn.CTCLoss(zero_infinity=True, reduction="none")(
    log_probs, targets, input_lengths, target_lengths
).detach())
loss = ctc(log_probs, targets, input_lengths, target_lengths)
loss.backward()
print(round(loss.item(), 4), logits.grad.isnan().any().item())

# %% ctc-zero-infinity-checks tags=["remove-cell"]
assert loss.isfinite() and not logits.grad.isnan().any()
# the impossible sample gets no gradient at all
assert torch.equal(logits.grad[:, 1], torch.zeros(5, 4))
assert logits.grad[:, 0].abs().sum() > 0
# mean: each sample's loss divided by its target length, then averaged
per_sample = nn.CTCLoss(zero_infinity=True, reduction="none")(
    log_probs, targets, input_lengths, target_lengths
)
assert torch.allclose(loss, (per_sample / target_lengths).mean())
