# %% [markdown]
# BCELoss takes probabilities, so it needs a sigmoid first; BCEWithLogitsLoss
# takes logits, applies the sigmoid itself and stays accurate for large logits

# %% [markdown] lang="zh"
# `BCELoss` 接收的是概率，所以要先做 sigmoid；`BCEWithLogitsLoss` 接收
# logits，自己完成 sigmoid，在 logits 很大时依然保持数值精度

# %% same-loss
import torch
import torch.nn as nn

x = torch.tensor([-2.0, 0.5, 3.0])  # logits: raw scores of a model
y = torch.tensor([0.0, 1.0, 1.0])  # binary targets, as floats

print(nn.BCELoss()(torch.sigmoid(x), y))
print(nn.BCEWithLogitsLoss()(x, y))

# %% by-hand
p = torch.sigmoid(x)
print(-(y * p.log() + (1 - y) * (1 - p).log()).mean())

# %% logits-to-bce tags=["raises-exception"]
nn.BCELoss()(x, y)

# %% large-logits
x_big = torch.tensor([5.0, 10.0, 20.0, 30.0])
y_big = torch.zeros(4)  # the model is confidently wrong
# -log(1 - sigmoid(x)), in float64
exact = nn.functional.softplus(x_big.double())

print(torch.sigmoid(x_big))
print(nn.BCELoss(reduction="none")(torch.sigmoid(x_big), y_big))
print(nn.BCEWithLogitsLoss(reduction="none")(x_big, y_big))
print(exact)

# %% large-logits-grad
x_big.requires_grad_()
nn.BCELoss(reduction="sum")(torch.sigmoid(x_big), y_big).backward()
print(x_big.grad)
x_big.grad = None
nn.BCEWithLogitsLoss(reduction="sum")(x_big, y_big).backward()
print(x_big.grad)

# %% long-target tags=["raises-exception"]
labels = torch.tensor([0, 1, 1])  # integer labels
nn.BCEWithLogitsLoss()(x, labels)

# %% long-target-fixed
print(nn.BCEWithLogitsLoss()(x, labels.float()))

# %% shape-mismatch tags=["raises-exception"]
scores = x.unsqueeze(1)  # a model with one output unit gives shape (N, 1)
nn.BCEWithLogitsLoss()(scores, y)

# %% shape-fixed
print(scores.shape, y.shape)
print(nn.BCEWithLogitsLoss()(scores.squeeze(1), y))

# %% pos-weight
plain = nn.BCEWithLogitsLoss(reduction="none")(x, y)
weighted = nn.BCEWithLogitsLoss(
    pos_weight=torch.tensor([3.0]), reduction="none"
)(x, y)
print(plain)
print(weighted)

# %% pos-weight-per-class
logits = torch.randn(4, 3)  # 4 samples, 3 independent labels each
targets = torch.tensor([[1.0, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]])
loss = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([1.0, 2.0, 5.0]))
print(loss(logits, targets))

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
import torch.nn.functional as F

assert torch.allclose(
    nn.BCELoss()(torch.sigmoid(x), y), nn.BCEWithLogitsLoss()(x, y)
)
by_formula = -(y * p.log() + (1 - y) * (1 - p).log()).mean()
assert torch.allclose(nn.BCELoss()(p, y), by_formula)
try:
    nn.BCELoss()(x, y)
except RuntimeError as error:
    assert "should be between 0 and 1" in str(error)
else:
    raise AssertionError("BCELoss accepted logits outside [0, 1]")

# sigmoid(x) - y
assert torch.allclose(x_big.grad, torch.sigmoid(x_big.detach()))
x_big = torch.tensor([5.0, 10.0, 20.0, 30.0])
bce = nn.BCELoss(reduction="none")(torch.sigmoid(x_big), y_big)
with_logits = nn.BCEWithLogitsLoss(reduction="none")(x_big, y_big)
# sigmoid rounds to 1.0
assert torch.equal(torch.sigmoid(x_big)[2:], torch.ones(2))
assert torch.equal(bce[2:], torch.full((2,), 100.0))  # log clamped at -100
# exact, even for 30
assert torch.allclose(with_logits.double(), exact, rtol=1e-6)
assert not torch.allclose(bce.double(), exact, rtol=1e-6)
# off in the 4th decimal
assert 1e-4 < abs(bce[1].item() - exact[1].item()) < 1e-3
x_big.requires_grad_()
nn.BCELoss(reduction="sum")(torch.sigmoid(x_big), y_big).backward()
# no gradient through BCELoss
assert torch.equal(x_big.grad[2:], torch.zeros(2))

try:
    nn.BCEWithLogitsLoss()(x, labels)
except RuntimeError as error:
    assert "can't be cast to the desired output type Long" in str(error)
    assert "target" not in str(error).lower()
else:
    raise AssertionError("BCEWithLogitsLoss accepted a Long target")
try:
    nn.BCELoss()(torch.sigmoid(x), labels)
except RuntimeError as error:
    assert "expected Float" in str(error)
else:
    raise AssertionError("BCELoss accepted a Long target")
try:
    nn.BCEWithLogitsLoss()(scores, y)
except ValueError as error:
    assert "must be the same as input size" in str(error)
else:
    raise AssertionError("BCEWithLogitsLoss accepted a target of another shape")
try:
    nn.BCELoss()(torch.sigmoid(scores), y)
except ValueError as error:
    assert "Please ensure they have the same size" in str(error)
else:
    raise AssertionError("BCELoss accepted a target of another shape")
assert torch.allclose(
    nn.BCEWithLogitsLoss()(scores.squeeze(1), y), plain.mean()
)

# pos_weight multiplies the loss of positive targets only
assert torch.allclose(weighted[y == 1], 3 * plain[y == 1])
assert torch.equal(weighted[y == 0], plain[y == 0])
by_hand = -(3 * y * F.logsigmoid(x) + (1 - y) * F.logsigmoid(-x))
assert torch.allclose(weighted, by_hand)
pw = torch.tensor([1.0, 2.0, 5.0])
positive = pw * targets * F.logsigmoid(logits)
per_class = -(positive + (1 - targets) * F.logsigmoid(-logits))
assert torch.allclose(loss(logits, targets), per_class.mean())

# only BCEWithLogitsLoss has pos_weight; weight scales every element in both
import inspect

assert "pos_weight" in inspect.signature(nn.BCEWithLogitsLoss).parameters
assert "pos_weight" not in inspect.signature(nn.BCELoss).parameters
w = torch.tensor([0.5, 2.0, 1.0])
for with_w, without in (
    (
        nn.BCELoss(weight=w, reduction="none")(p, y),
        nn.BCELoss(reduction="none")(p, y)
    ),
    (nn.BCEWithLogitsLoss(weight=w, reduction="none")(x, y), plain),
):
    assert torch.allclose(with_w, w * without)

# %% one-or-two-outputs
z = torch.tensor([-2.0, 0.5, 3.0])  # one logit per sample
t = torch.tensor([0, 1, 1])  # the classes
# two logits per sample, the first fixed at 0
two = torch.stack([torch.zeros(3), z], dim=1)
print(torch.sigmoid(z))
print(two.softmax(dim=1)[:, 1])
print(nn.BCEWithLogitsLoss()(z, t.float()))
print(nn.CrossEntropyLoss()(two, t))

# %% one-or-two-outputs-checks tags=["remove-cell"]
assert torch.allclose(torch.sigmoid(z), two.softmax(dim=1)[:, 1])
assert torch.allclose(
    nn.BCEWithLogitsLoss()(z, t.float()), nn.CrossEntropyLoss()(two, t)
)
# any two logits: only their difference counts, softmax([a, b]) = sigmoid(b - a)
pair = torch.randn(5, 2)
assert torch.allclose(
    pair.softmax(dim=1)[:, 1], torch.sigmoid(pair[:, 1] - pair[:, 0])
)

# %% long-target-bce raises="RuntimeError: Found dtype Long but expected Float"
probs = torch.sigmoid(x)  # BCELoss takes probabilities
nn.BCELoss()(probs, labels)  # labels: torch.tensor([0, 1, 1]), int64

# %% long-target-bce-fixed
print(labels.dtype, labels.float().dtype)
print(nn.BCELoss()(probs, labels.float()))

# %% long-target-bce-fixed-checks tags=["remove-cell"]
loss = nn.BCELoss()(probs, labels.float())
assert torch.allclose(loss, nn.BCEWithLogitsLoss()(x, labels.float()))
t = labels.float()
assert torch.allclose(loss, -(t * probs.log() + (1 - t) * (1 - probs).log()).mean())
# a bool mask of labels fails the same way
try:
    nn.BCELoss()(probs, labels.bool())
except RuntimeError as error:
    assert "expected Float" in str(error), error
else:
    raise AssertionError("no error")

# %% multiclass-sigmoid-softmax
# 2 samples, 3 classes
logits = torch.tensor([[2.0, 1.0, -1.0], [0.5, 0.5, 0.5]])
print(torch.sigmoid(logits))
print(torch.sigmoid(logits).sum(dim=1))  # not 1: three separate yes/no
print(logits.softmax(dim=1))
print(logits.softmax(dim=1).sum(dim=1))  # 1: one distribution over classes

# %% multiclass-sigmoid-softmax-checks tags=["remove-cell"]
import math

sig, soft = torch.sigmoid(logits), logits.softmax(dim=1)
assert not torch.allclose(sig.sum(dim=1), torch.ones(2))
assert torch.allclose(sig.sum(dim=1), torch.tensor([1.8808, 1.8674]),
                      atol=1e-4)
assert abs(sig[1, 0].item() - 0.6225) < 1e-4
assert torch.allclose(soft.sum(dim=1), torch.ones(2))
# each sigmoid depends on its own logit only
assert torch.allclose(sig[1], torch.full((3,), 1 / (1 + math.exp(-0.5))))
assert torch.allclose(soft[1], torch.full((3,), 1 / 3))
# both are increasing, so argmax picks the same class as on the logits
assert sig[0].argmax() == soft[0].argmax() == logits[0].argmax() == 0
many = torch.randn(100, 5) * 3
assert torch.equal(torch.sigmoid(many).argmax(dim=1), many.argmax(dim=1))
assert torch.equal(many.softmax(dim=1).argmax(dim=1), many.argmax(dim=1))
assert torch.allclose(many.softmax(dim=1).sum(dim=1), torch.ones(100))

# %% sigmoid-before-ce
ce = nn.CrossEntropyLoss()
right = torch.tensor([0])  # the right class is 0
print(" margin  logits    sigmoid   softmax")
for m in (1.0, 5.0, 10.0, 20.0):
    z = torch.tensor([[m, -m, -m]])  # class 0 wins, more and more clearly
    print(f"{m:7}", end="")
    for f in (lambda v: v, torch.sigmoid, lambda v: v.softmax(dim=1)):
        print(f"  {ce(f(z), right).item():.6f}", end="")
    print()

# %% sigmoid-before-ce-checks tags=["remove-cell"]
floor = math.log(1 + 2 / math.e)  # 0.5514...: CE of [1, 0, 0], 3 classes
for m in (1.0, 5.0, 10.0, 20.0):
    z = torch.tensor([[m, -m, -m]])
    raw = ce(z, right).item()
    for extra in (ce(torch.sigmoid(z), right), ce(z.softmax(dim=1), right)):
        assert extra.item() > floor - 1e-5 and extra.item() > raw
    if m >= 10:
        assert raw < 1e-6
        assert abs(ce(torch.sigmoid(z), right).item() - floor) < 1e-4
        assert abs(ce(z.softmax(dim=1), right).item() - floor) < 1e-4
# with 10 classes: log(1 + 9 / e), 1.46
ten = torch.full((1, 10), -20.0)
ten[0, 0] = 20.0
floor10 = math.log(1 + 9 / math.e)
assert abs(ce(torch.sigmoid(ten), right).item() - floor10) < 1e-4
assert round(math.log(1 + 9 / math.e), 2) == 1.46
# the floor holds for any input in [0, 1]: the loss never reaches 0
spread = torch.randn(200, 3) * 20
worst = nn.CrossEntropyLoss(reduction="none")(
    torch.sigmoid(spread), torch.zeros(200, dtype=torch.long)
)
assert (worst > floor - 1e-5).all()
assert torch.allclose(ce(logits, torch.tensor([0, 1])), nn.NLLLoss()(
    logits.log_softmax(dim=1), torch.tensor([0, 1])
))

# %% sigmoid-before-ce-grad
for name, f in (("logits", lambda v: v), ("sigmoid", torch.sigmoid)):
    # confidently wrong: class 1 wins, class 0 is right
    z = torch.tensor([[-10.0, 10.0, -10.0]], requires_grad=True)
    loss = ce(f(z), right)
    loss.backward()
    print(f"{name:<8} loss {loss.item():.4f}  grad {z.grad}")

# %% sigmoid-before-ce-grad-checks tags=["remove-cell"]
grads = {}
for name, f in (("logits", lambda v: v), ("sigmoid", torch.sigmoid)):
    z = torch.tensor([[-10.0, 10.0, -10.0]], requires_grad=True)
    ce(f(z), right).backward()
    grads[name] = z.grad
assert torch.allclose(grads["logits"], torch.tensor([[-1.0, 1.0, 0.0]]),
                      atol=1e-6)  # softmax(z) - one_hot(0)
# the saturated sigmoid: a gradient of at most 4e-5, yet not 0
assert 1e-6 < grads["sigmoid"].abs().max() < 4e-5
assert abs(ce(torch.tensor([[-10.0, 10.0, -10.0]]), right).item() - 20) < 1e-4
assert 1.5 < ce(torch.sigmoid(torch.tensor([[-10.0, 10.0, -10.0]])),
                right).item() < 1.6

# %% multi-label
torch.manual_seed(0)
features = torch.randn(4, 8)
# multi-hot, float: the third sample has all 3 labels, the fourth none
targets = torch.tensor([[1.0, 0, 1], [0, 1, 0], [1, 1, 1], [0, 0, 0]])
model = nn.Linear(8, 3)  # one logit per label, no sigmoid in the model
loss_fn = nn.BCEWithLogitsLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
for step in range(100):
    optimizer.zero_grad()
    loss = loss_fn(model(features), targets)
    loss.backward()
    optimizer.step()

with torch.no_grad():
    scores = model(features)
probs = torch.sigmoid(scores)
print(probs)
print(probs.sum(dim=1))  # anything from 0 to 3
predicted = (scores > 0).float()  # the same as probs > 0.5
print(predicted)
print(torch.equal(predicted, targets))

# %% multi-label-checks tags=["remove-cell"]
assert torch.equal(scores > 0, probs > 0.5)
assert torch.equal(predicted, targets)
assert loss.item() < 0.1
assert probs.sum(dim=1)[2] > 2.5 and probs.sum(dim=1)[3] < 0.5
# softmax cannot say "all three" or "none": one class at most above 0.5
assert ((scores.softmax(dim=1) > 0.5).sum(dim=1) <= 1).all()
assert torch.allclose(scores.softmax(dim=1).sum(dim=1), torch.ones(4))
# the loss is the mean over all 4 x 3 independent binary losses
assert torch.allclose(
    loss_fn(scores, targets),
    nn.BCEWithLogitsLoss(reduction="none")(scores, targets).mean(),
)
