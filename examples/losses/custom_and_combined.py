# %% [markdown]
# A custom loss is a function of tensor operations, which autograd
# differentiates: a weighted MSE and a soft Dice loss with their gradients
# checked, what breaks the graph, adding several losses, L2 and L1
# penalties (with weight_decay, and without biases and norm layers), and a
# multi-class focal loss built on cross_entropy

# %% [markdown] lang="zh"
# 自定义损失函数就是一个由张量运算组成的函数，由自动求导负责求梯度：加权 MSE
# 和 soft Dice 损失及其梯度检查、哪些写法会切断计算图、多个损失相加，L2 和 L1
# 正则项（与 `weight_decay` 的关系，以及不对偏置和归一化层施加正则），以及在
# `cross_entropy` 基础上实现的多分类 focal loss

# %% weighted-mse
import torch
import torch.nn.functional as F
from torch import nn


def weighted_mse(pred, target, weight):
    return (weight * (pred - target) ** 2).mean()


pred = torch.randn(4, requires_grad=True)
target = torch.randn(4)
weight = torch.tensor([1.0, 1.0, 2.0, 0.5])  # one weight per element
loss = weighted_mse(pred, target, weight)
loss.backward()  # no backward to write: autograd differentiates the function
print(loss)
with torch.no_grad():
    by_hand = 2 * weight * (pred - target) / pred.numel()
print(pred.grad)
print(by_hand)
print(torch.allclose(pred.grad, by_hand))

# %% weighted-mse-checks tags=["remove-cell"]
assert loss.requires_grad and loss.shape == ()
assert type(loss.grad_fn).__name__ == "MeanBackward0"
assert torch.allclose(pred.grad, by_hand)
# with equal weights it is the MSE, and it is the built-in loss per element,
# weighted, then averaged
assert torch.allclose(weighted_mse(pred, target, torch.ones(4)),
                      F.mse_loss(pred, target))
assert torch.allclose(
    loss, (F.mse_loss(pred, target, reduction="none") * weight).mean())

# %% dice
class SoftDiceLoss(nn.Module):
    def __init__(self, smooth=1.0):
        super().__init__()
        self.smooth = smooth

    def forward(self, logits, target):
        p = torch.sigmoid(logits)  # soft: a probability, not a 0/1 mask
        intersection = (p * target).sum()
        total = p.sum() + target.sum()
        return 1 - (2 * intersection + self.smooth) / (total + self.smooth)


criterion = SoftDiceLoss()
logits = torch.randn(2, 8, dtype=torch.float64, requires_grad=True)
mask = (torch.rand(2, 8) > 0.5).double()
print(criterion(logits, mask))
print(torch.autograd.gradcheck(criterion, (logits, mask)))

# %% dice-checks tags=["remove-cell"]
import warnings

from torch.autograd.gradcheck import GradcheckError

assert torch.autograd.gradcheck(criterion, (logits, mask)) is True
assert list(criterion.parameters()) == []  # a module with no weights
dice = criterion(logits, mask)
assert dice.grad_fn is not None and 0 < dice.item() < 1
# a perfect prediction gives 0
assert torch.allclose(criterion(torch.where(mask > 0, 30.0, -30.0), mask),
                      torch.zeros((), dtype=torch.float64))
# in float32 the finite differences are too coarse: gradcheck warns, then
# reports a mismatch although the gradient is right
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        torch.autograd.gradcheck(criterion, (logits.float(), mask.float()))
    except GradcheckError as error:
        assert "Jacobian mismatch" in str(error)
    else:
        raise AssertionError("gradcheck passed in float32")
assert any("double precision" in str(w.message) for w in caught)
# a hard 0/1 mask made with a comparison has no gradient at all
hard = (logits > 0).float()
assert not hard.requires_grad and hard.grad_fn is None

# %% numpy-loss raises="RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"
def dice_numpy(logits, target):
    p = torch.sigmoid(logits).detach().numpy()  # numpy() needs detach()
    t = target.numpy()
    score = (2 * (p * t).sum() + 1) / (p.sum() + t.sum() + 1)
    return torch.tensor(1 - score)  # a new tensor, with no history


loss = dice_numpy(logits, mask)
print(loss, loss.requires_grad, loss.grad_fn)
loss.backward()

# %% numpy-loss-checks tags=["remove-cell"]
assert not loss.requires_grad and loss.grad_fn is None
assert torch.allclose(loss, criterion(logits, mask))  # the value is right
# .numpy() refuses a tensor that requires grad
try:
    torch.sigmoid(logits).numpy()
except RuntimeError as error:
    assert "Can't call numpy() on Tensor that requires grad" in str(error)
else:
    raise AssertionError("numpy() took a tensor that requires grad")
# each of these gives a tensor outside the graph
live = criterion(logits, mask)
for broken in (torch.tensor(live.item()),
               torch.from_numpy(live.detach().numpy()),
               torch.tensor(live.detach().numpy()),
               live.detach()):
    assert not broken.requires_grad and broken.grad_fn is None
    try:
        broken.backward()
    except RuntimeError as error:
        assert "element 0 of tensors does not require grad" in str(error)
    else:
        raise AssertionError("backward() ran without a graph")

# %% one-term-detached
pred.grad = None
penalty = torch.tensor(pred.abs().sum().item())  # a number, no history
loss = F.mse_loss(pred, target) + 0.1 * penalty
loss.backward()  # no error: the MSE term has a graph
with torch.no_grad():
    mse_only = 2 * (pred - target) / pred.numel()
print(torch.allclose(pred.grad, mse_only))  # the penalty added nothing

# %% one-term-detached-checks tags=["remove-cell"]
assert loss.grad_fn is not None
assert torch.allclose(pred.grad, mse_only)
# the same penalty kept in the graph does change the gradient
kept = pred.detach().requires_grad_()
(F.mse_loss(kept, target) + 0.1 * kept.abs().sum()).backward()
assert torch.allclose(kept.grad, mse_only + 0.1 * kept.sign())
assert not torch.allclose(kept.grad, pred.grad)

# %% float-loss raises="AttributeError: 'float' object has no attribute 'backward'"
pred.grad = None
loss = F.mse_loss(pred, target).item()  # a Python float: the graph is gone
print(type(loss))
loss.backward()

# %% float-loss-fix
running_loss = 0.0
loss = F.mse_loss(pred, target)  # keep the tensor for backward()
loss.backward()
running_loss += loss.item()  # and take a float for the log
print(type(loss), type(running_loss), pred.grad is not None)

# %% float-loss-fix-checks tags=["remove-cell"]
assert isinstance(running_loss, float) and running_loss == loss.item()
assert torch.allclose(pred.grad, 2 * (pred - target).detach() / pred.numel())
# sum() of item() values is a float too, and so is math on them
import math

for value in (sum(F.mse_loss(pred, target).item() for _ in range(2)),
              math.log(1 + F.mse_loss(pred, target).item())):
    assert isinstance(value, float) and not hasattr(value, "backward")

# %% not-scalar raises="RuntimeError: grad can be implicitly created only for scalar outputs"
per_element = F.mse_loss(pred, target, reduction="none")
print(per_element.shape)
per_element.backward()

# %% not-scalar-fix
loss = (per_element * weight).mean()  # one number: the weighted MSE above
loss.backward()
print(loss.shape)

# %% not-scalar-fix-checks tags=["remove-cell"]
assert per_element.shape == (4,) and loss.shape == ()
assert torch.allclose(loss, weighted_mse(pred, target, weight))

# %% two-losses
trunk = nn.Linear(4, 8)  # shared by both tasks
head_cls, head_reg = nn.Linear(8, 3), nn.Linear(8, 1)
model = nn.ModuleList([trunk, head_cls, head_reg])
x = torch.randn(16, 4)
y_cls, y_reg = torch.randint(0, 3, (16,)), torch.randn(16, 1)


def two_losses():
    h = torch.relu(trunk(x))
    return (F.cross_entropy(head_cls(h), y_cls),
            F.mse_loss(head_reg(h), y_reg))


loss_cls, loss_reg = two_losses()
loss = loss_cls + 0.5 * loss_reg  # one number
loss.backward()  # one backward pass through the shared layers
summed = [p.grad for p in model.parameters()]  # zero_grad() sets .grad to None
print(f"classification {loss_cls.item():.3f}, regression "
      f"{loss_reg.item():.3f}, total {loss.item():.3f}")

# %% two-losses-checks tags=["remove-cell"]
assert all(g is not None and g.abs().sum() > 0 for g in summed)
model.zero_grad()  # the tensors in summed stay as they are
assert all(p.grad is None for p in model.parameters())
assert all(g.abs().sum() > 0 for g in summed)
assert torch.allclose(loss, loss_cls + 0.5 * loss_reg)

# %% backward-twice raises="RuntimeError: Trying to backward through the graph a second time"
model.zero_grad()
loss_cls, loss_reg = two_losses()
loss_cls.backward()
(0.5 * loss_reg).backward()  # the first backward() freed the shared part

# %% retain-graph
model.zero_grad()
loss_cls, loss_reg = two_losses()
loss_cls.backward(retain_graph=True)  # keep saved tensors for the next one
(0.5 * loss_reg).backward()  # gradients add up in .grad
print(all(torch.allclose(p.grad, g)
          for p, g in zip(model.parameters(), summed)))

# %% retain-graph-checks tags=["remove-cell"]
assert all(torch.allclose(p.grad, g)
           for p, g in zip(model.parameters(), summed))


# the shared layers run backward once for the sum, twice for two calls
def passes(two_calls):
    count = []
    model.zero_grad()
    h = torch.relu(trunk(x))
    h.register_hook(lambda grad: count.append(1))
    a = F.cross_entropy(head_cls(h), y_cls)
    b = F.mse_loss(head_reg(h), y_reg)
    if two_calls:
        a.backward(retain_graph=True)
        (0.5 * b).backward()
    else:
        (a + 0.5 * b).backward()
    return len(count)


assert passes(two_calls=False) == 1 and passes(two_calls=True) == 2
# losses of separate forward passes share no saved tensors: two backward()
# calls need no retain_graph, and give the same gradients
model.zero_grad()
two_losses()[0].backward()
(0.5 * two_losses()[1]).backward()
assert all(torch.allclose(p.grad, g)
           for p, g in zip(model.parameters(), summed))

# %% task-weights
loss_cls, loss_reg = two_losses()
w = trunk.weight
g_cls = torch.autograd.grad(loss_cls, w, retain_graph=True)[0]
g_reg = torch.autograd.grad(loss_reg, w, retain_graph=True)[0]
print(f"classification: loss {loss_cls.item():.3f}, "
      f"gradient norm on trunk {g_cls.norm():.3f}")
print(f"regression:     loss {loss_reg.item():.3f}, "
      f"gradient norm on trunk {g_reg.norm():.3f}")
g_total = torch.autograd.grad(1.0 * loss_cls + 0.5 * loss_reg, w)[0]
print(torch.allclose(g_total, 1.0 * g_cls + 0.5 * g_reg))

# %% task-weights-checks tags=["remove-cell"]
assert torch.allclose(g_total, g_cls + 0.5 * g_reg)
# a weight scales its task's gradient everywhere
loss_cls, loss_reg = two_losses()
g_head = torch.autograd.grad(0.5 * loss_reg, head_reg.weight,
                             retain_graph=True)[0]
assert torch.allclose(
    g_head, 0.5 * torch.autograd.grad(loss_reg, head_reg.weight)[0])
# the same error in centimetres instead of metres: an MSE 10 000 times larger
pred_m, target_m = torch.randn(16), torch.randn(16)
assert torch.allclose(F.mse_loss(100 * pred_m, 100 * target_m),
                      10_000 * F.mse_loss(pred_m, target_m))

# %% l2-vs-weight-decay
import copy

wd = 1e-2
decayed = nn.Linear(4, 3)
penalized = copy.deepcopy(decayed)  # the same start
opt_decay = torch.optim.SGD(decayed.parameters(), lr=0.1, weight_decay=wd)
opt_plain = torch.optim.SGD(penalized.parameters(), lr=0.1)
x, y = torch.randn(8, 4), torch.randn(8, 3)

F.mse_loss(decayed(x), y).backward()
opt_decay.step()

l2 = sum((p ** 2).sum() for p in penalized.parameters())
loss = F.mse_loss(penalized(x), y) + wd / 2 * l2  # wd / 2, not wd
loss.backward()
opt_plain.step()
print([torch.allclose(a, b) for a, b in
       zip(decayed.parameters(), penalized.parameters())])

# %% l2-vs-weight-decay-checks tags=["remove-cell"]
pairs = list(zip(decayed.parameters(), penalized.parameters()))
assert all(torch.allclose(a, b, rtol=0, atol=1e-7) for a, b in pairs)
# weight_decay is added inside step(): .grad holds the MSE's gradient only,
# the penalized model's .grad holds the penalty's too
for a, b in pairs:
    start = b.detach() + 0.1 * b.grad  # plain SGD took lr * grad off
    assert torch.allclose(b.grad - a.grad, wd * start, atol=1e-7)
# the penalty's gradient is wd * p with wd / 2, twice that with wd
p = penalized.weight
assert torch.allclose(torch.autograd.grad(wd / 2 * (p ** 2).sum(), p)[0],
                      wd * p.detach())
assert torch.allclose(torch.autograd.grad(wd * (p ** 2).sum(), p)[0],
                      2 * wd * p.detach())


# the same holds with momentum, over several steps, and for Adam's
# weight_decay; AdamW's decoupled decay gives other weights
def compare(make, steps=5):
    a = nn.Linear(4, 3)
    b = copy.deepcopy(a)
    opt_a, opt_b = make(a.parameters(), wd), make(b.parameters(), 0.0)
    for _ in range(steps):
        xs, ys = torch.randn(8, 4), torch.randn(8, 3)
        opt_a.zero_grad()
        opt_b.zero_grad()
        F.mse_loss(a(xs), ys).backward()
        opt_a.step()
        reg = sum((q ** 2).sum() for q in b.parameters())
        (F.mse_loss(b(xs), ys) + wd / 2 * reg).backward()
        opt_b.step()
    return all(torch.allclose(pa, pb, atol=1e-6)
               for pa, pb in zip(a.parameters(), b.parameters()))


assert compare(lambda ps, d: torch.optim.SGD(ps, lr=0.1, momentum=0.9,
                                             weight_decay=d))
assert compare(lambda ps, d: torch.optim.Adam(ps, lr=0.1, weight_decay=d))
assert not compare(lambda ps, d: torch.optim.AdamW(ps, lr=0.1,
                                                   weight_decay=d))

# %% l1
l1_lambda = 1e-3
model = nn.Linear(4, 3)
l1 = sum(p.abs().sum() for p in model.parameters())
# the penalty's share of the gradient: l1_lambda * sign(p)
print(torch.autograd.grad(l1_lambda * l1, model.weight, retain_graph=True)[0])
loss = F.mse_loss(model(x), y) + l1_lambda * l1
loss.backward()

# %% l1-checks tags=["remove-cell"]
import inspect

assert loss.grad_fn is not None
# the penalty's gradient: l1_lambda * sign(p), the same size for every weight
w = model.weight
g = torch.autograd.grad(l1_lambda * w.abs().sum(), w)[0]
assert torch.allclose(g, l1_lambda * w.detach().sign())
assert torch.allclose(g.abs(), torch.full_like(g, l1_lambda))
# torch.optim has no L1 option
optimizers = [c for c in vars(torch.optim).values()
              if isinstance(c, type) and issubclass(c, torch.optim.Optimizer)]
assert torch.optim.SGD in optimizers and torch.optim.AdamW in optimizers
for c in optimizers:
    assert not any("l1" in name.lower()
                   for name in inspect.signature(c).parameters)

# %% exclude
model = nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8), nn.ReLU(),
                      nn.Linear(8, 3))
for name, p in model.named_parameters():
    print(f"{name:9} {tuple(p.shape)}")
# weight matrices only: biases and LayerNorm's weight and bias are 1-D
decay = {n: p for n, p in model.named_parameters() if p.ndim > 1}
no_decay = {n: p for n, p in model.named_parameters() if p.ndim <= 1}
print("penalized:", list(decay))

l1 = sum(p.abs().sum() for p in decay.values())
loss = F.mse_loss(model(x), y) + l1_lambda * l1

# %% exclude-checks tags=["remove-cell"]
assert list(decay) == ["0.weight", "3.weight"]
assert list(no_decay) == ["0.bias", "1.weight", "1.bias", "3.bias"]
# a filter on the name alone keeps LayerNorm's weight
by_name = [n for n, _ in model.named_parameters() if not n.endswith("bias")]
assert "1.weight" in by_name
# the penalty's gradient reaches only the weight matrices
grads = torch.autograd.grad(l1_lambda * l1, list(model.parameters()),
                            allow_unused=True)
for (name, _), g in zip(model.named_parameters(), grads):
    assert (g is not None) == (name in decay)

# %% exclude-groups
optimizer = torch.optim.AdamW([
    {"params": list(decay.values()), "weight_decay": 1e-2},
    {"params": list(no_decay.values()), "weight_decay": 0.0},
], lr=1e-3)
print([group["weight_decay"] for group in optimizer.param_groups])

# %% exclude-groups-checks tags=["remove-cell"]
# a step with zero gradients: the decayed weights shrink by lr * wd, the
# others stay where they are
before = {n: p.detach().clone() for n, p in model.named_parameters()}
for p in model.parameters():
    p.grad = torch.zeros_like(p)
optimizer.step()
for n, p in model.named_parameters():
    if n in decay:
        assert torch.allclose(p, before[n] * (1 - 1e-3 * 1e-2))
        assert not torch.equal(p, before[n])
    else:
        assert torch.equal(p, before[n])

# %% focal
def focal_loss(logits, target, gamma=2.0, alpha=None, reduction="mean"):
    ce = F.cross_entropy(logits, target, reduction="none")  # -log p_t
    p_t = torch.exp(-ce)  # the probability of the true class
    loss = (1 - p_t) ** gamma * ce
    if alpha is not None:
        loss = alpha[target] * loss  # the weight of each example's class
    if reduction == "none":
        return loss
    return loss.mean() if reduction == "mean" else loss.sum()


torch.manual_seed(0)
logits = 2 * torch.randn(6, 3)
target = torch.randint(0, 3, (6,))
ce = F.cross_entropy(logits, target, reduction="none")
focal = focal_loss(logits, target, reduction="none")
p_t = torch.exp(-ce)
print("p_t     CE      focal   focal / CE")
for row in torch.stack([p_t, ce, focal, focal / ce], dim=1).tolist():
    print("  ".join(f"{value:.4f}" for value in row))
print(focal_loss(logits, target, gamma=0.0), F.cross_entropy(logits, target))

# %% focal-checks tags=["remove-cell"]
# gamma=0 is cross-entropy, per example and averaged
assert torch.allclose(focal_loss(logits, target, gamma=0.0),
                      F.cross_entropy(logits, target))
assert torch.allclose(focal_loss(logits, target, gamma=0.0, reduction="none"),
                      ce)
# the factor (1 - p_t) ** gamma is the ratio printed, and it falls as p_t
# rises: the easiest example keeps the smallest share of its loss
ratio = focal / ce
assert torch.allclose(ratio, (1 - p_t) ** 2)
order = p_t.argsort()
assert (ratio[order].diff() < 0).all()
easy, hard = p_t.argmax(), p_t.argmin()
assert p_t[easy] > 0.9 and p_t[hard] < 0.1
assert ratio[easy] < 0.01 < 0.9 < ratio[hard]
# the page's numbers: p_t 0.93 keeps half a percent, p_t 0.03 keeps 94%
assert round(p_t[easy].item(), 2) == 0.93 and round(p_t[hard].item(), 2) == 0.03
assert 0.004 < ratio[easy] < 0.006 and round(100 * ratio[hard].item()) == 94
# never more than cross-entropy
assert (focal <= ce).all() and (focal < ce).all()
# alpha: one weight per class, picked by the target; with gamma=0 it is the
# weighted cross-entropy per example
alpha = torch.tensor([0.25, 0.5, 1.0])
assert torch.allclose(
    focal_loss(logits, target, gamma=0.0, alpha=alpha, reduction="none"),
    F.cross_entropy(logits, target, weight=alpha, reduction="none"))
assert torch.allclose(focal_loss(logits, target, alpha=alpha, reduction="none"),
                      alpha[target] * focal)
# the mean differs: cross_entropy with weight divides by the weights' sum
assert not torch.allclose(
    focal_loss(logits, target, gamma=0.0, alpha=alpha),
    F.cross_entropy(logits, target, weight=alpha))
# autograd differentiates it: gradcheck agrees in float64
x64 = logits.double().requires_grad_()
assert torch.autograd.gradcheck(lambda z: focal_loss(z, target), (x64,))
# from softmax().log() instead, a confident mistake gives inf; from
# cross_entropy, a finite loss
sure = torch.tensor([[200.0, 0.0, 0.0]])
wrong = torch.tensor([1])
p = torch.softmax(sure, dim=1)[0, 1]
assert p == 0 and torch.isinf(-(1 - p) ** 2 * p.log())
assert torch.isfinite(focal_loss(sure, wrong))
assert torch.allclose(focal_loss(sure, wrong), torch.tensor(200.0))
z = sure.clone().requires_grad_()
focal_loss(z, wrong).backward()
assert torch.isfinite(z.grad).all() and z.grad.abs().sum() > 0

# %% dice-multiclass
def dice_loss(logits, target, eps=1e-6):
    # logits (N, C, H, W), target (N, H, W) of class indices
    p = logits.softmax(dim=1)  # probabilities over the classes
    g = F.one_hot(target, logits.shape[1])  # (N, H, W, C)
    g = g.permute(0, 3, 1, 2).to(p.dtype)  # (N, C, H, W), like p
    dims = (0, 2, 3)  # sum over the batch and the pixels: one score per class
    intersection = (p * g).sum(dims)
    total = p.sum(dims) + g.sum(dims)
    dice = (2 * intersection + eps) / (total + eps)
    return 1 - dice.mean()


def dice_ce_loss(logits, target, dice_weight=1.0):
    ce = F.cross_entropy(logits, target)
    return ce + dice_weight * dice_loss(logits, target)


torch.manual_seed(0)
logits = torch.randn(2, 3, 8, 8, requires_grad=True)  # 3 classes
target = torch.randint(0, 3, (2, 8, 8))
# right everywhere
perfect = 20 * F.one_hot(target, 3).permute(0, 3, 1, 2).float()
print(f"random logits:  dice {dice_loss(logits, target).item():.4f}")
print(f"perfect logits: dice {dice_loss(perfect, target).item():.4f}")
loss = dice_ce_loss(logits, target)
loss.backward()
print(f"dice + cross-entropy {loss.item():.4f}")

# %% dice-multiclass-checks tags=["remove-cell"]
# the one-hot target has the logits' shape, one 1 per pixel
g = F.one_hot(target, 3).permute(0, 3, 1, 2)
assert g.shape == logits.shape
assert torch.equal(g.sum(dim=1), torch.ones_like(target))
assert torch.equal(g.argmax(dim=1), target)
# a perfect prediction gives about 0, a random one a loss between 0 and 1
assert 0 <= dice_loss(perfect, target).item() < 1e-6
assert 0.3 < dice_loss(logits, target).item() < 1
# the loss is 1 minus the mean of the per-class scores, computed by hand
p = logits.detach().softmax(dim=1)
scores = [
    2 * (p[:, c] * (target == c)).sum() / (p[:, c].sum() + (target == c).sum())
    for c in range(3)
]
by_hand = 1 - torch.stack(scores).mean()
assert torch.allclose(dice_loss(logits.detach(), target), by_hand)
# the combined loss is the sum, and both terms send gradients to the logits
assert torch.allclose(
    loss, F.cross_entropy(logits, target) + dice_loss(logits, target)
)
assert logits.grad is not None and logits.grad.abs().sum() > 0
ce_grad, = torch.autograd.grad(F.cross_entropy(logits, target), logits)
dice_grad, = torch.autograd.grad(dice_loss(logits, target), logits)
assert ce_grad.abs().sum() > 0 and dice_grad.abs().sum() > 0
assert torch.allclose(logits.grad, ce_grad + dice_grad, atol=1e-7)
# in float64 autograd's gradient matches finite differences
small = torch.randn(1, 3, 2, 2, dtype=torch.float64, requires_grad=True)
assert torch.autograd.gradcheck(lambda x: dice_loss(x, target[:1, :2, :2]), (small,))

# %% info-nce
import math


def info_nce(z1, z2, temperature=0.1):
    z1 = F.normalize(z1, dim=1)  # unit length: a dot product is a cosine
    z2 = F.normalize(z2, dim=1)
    logits = z1 @ z2.T / temperature  # (n, n): row i against every column
    target = torch.arange(len(z1))  # the match of row i is column i
    return F.cross_entropy(logits, target)


def clip_loss(image_emb, text_emb, temperature=0.1):
    # symmetric: images pick their text, texts pick their image
    return (info_nce(image_emb, text_emb, temperature)
            + info_nce(text_emb, image_emb, temperature)) / 2


torch.manual_seed(0)
n, d = 8, 16
z1 = torch.randn(n, d)
unrelated = torch.randn(n, d)
matching = z1 + torch.randn(n, d)  # a second, noisy view of each row
print(f"unrelated pairs: {clip_loss(z1, unrelated).item():.4f}")
print(f"matching pairs:  {clip_loss(z1, matching).item():.4f}")
print(f"log(n):          {math.log(n):.4f}")

# the same loss written with log-softmax
logits = F.normalize(z1, dim=1) @ F.normalize(matching, dim=1).T / 0.1
by_hand = -logits.log_softmax(dim=1).diagonal().mean()
print(torch.allclose(info_nce(z1, matching), by_hand))

# %% info-nce-checks tags=["remove-cell"]
assert torch.allclose(info_nce(z1, matching), by_hand)
# row i: -(s_ii - logsumexp_j s_ij), the cross-entropy of picking column i
assert torch.allclose(
    by_hand, (logits.logsumexp(dim=1) - logits.diagonal()).mean())
# matching pairs give a lower loss than unrelated ones, each way
assert clip_loss(z1, matching) < clip_loss(z1, unrelated)
assert info_nce(z1, matching) < info_nce(z1, unrelated)
assert info_nce(matching, z1) < info_nce(unrelated, z1)
# near 0 for the noisy copies, above log n for unrelated pairs
assert clip_loss(z1, matching) < 0.1 < math.log(n) < clip_loss(z1, unrelated)
# the second direction is the cross-entropy of the transposed logits
assert torch.allclose(info_nce(matching, z1),
                      F.cross_entropy(logits.T, torch.arange(n)))
assert torch.allclose(
    clip_loss(z1, matching),
    (F.cross_entropy(logits, torch.arange(n))
     + F.cross_entropy(logits.T, torch.arange(n))) / 2)
# all similarities equal: the loss is log n, chance level
same = torch.ones(n, d)
assert math.isclose(info_nce(same, same).item(), math.log(n), rel_tol=1e-5)
# the scale of the embeddings does not matter, the temperature does
assert torch.allclose(info_nce(5 * z1, matching), info_nce(z1, matching))
assert not torch.allclose(info_nce(z1, matching, 1.0), info_nce(z1, matching))
# a gradient step on z1 lowers the loss
z = z1.clone().requires_grad_()
info_nce(z, matching).backward()
assert info_nce(z.detach() - 0.5 * z.grad, matching) < info_nce(z1, matching)

# %% nt-xent
def nt_xent(z1, z2, temperature=0.1):
    n = len(z1)
    z = F.normalize(torch.cat([z1, z2]), dim=1)  # 2n views
    logits = z @ z.T / temperature  # (2n, 2n)
    self_pair = torch.eye(2 * n, dtype=torch.bool)
    logits = logits.masked_fill(self_pair, float("-inf"))  # never pick itself
    # the positive of view i is i + n, that of view i + n is i
    target = torch.cat([torch.arange(n) + n, torch.arange(n)])
    return F.cross_entropy(logits, target)


print(f"unrelated pairs: {nt_xent(z1, unrelated).item():.4f}")
print(f"matching pairs:  {nt_xent(z1, matching).item():.4f}")

# %% nt-xent-checks tags=["remove-cell"]
assert nt_xent(z1, matching) < nt_xent(z1, unrelated)


# by hand: each of the 2n views against the 2n - 1 others
def nt_xent_by_hand(z1, z2, temperature=0.1):
    z = F.normalize(torch.cat([z1, z2]), dim=1)
    m = len(z)
    total = 0.0
    for i in range(m):
        positive = (i + m // 2) % m
        sims = [z[i] @ z[j] / temperature for j in range(m) if j != i]
        own = z[i] @ z[positive] / temperature
        total += torch.logsumexp(torch.stack(sims), 0) - own
    return total / m


assert torch.allclose(nt_xent(z1, matching), nt_xent_by_hand(z1, matching),
                      atol=1e-6)
# the -inf on the diagonal leaves a finite loss and a finite gradient
z = z1.clone().requires_grad_()
loss = nt_xent(z, matching)
loss.backward()
assert torch.isfinite(loss) and torch.isfinite(z.grad).all()
# an embedding is always most similar to itself: hence the mask
zn = F.normalize(torch.cat([z1, matching]), dim=1)
sims = zn @ zn.T
assert torch.allclose(sims.diagonal(), sims.amax(dim=1))
# it has more negatives than the CLIP form: 2n - 2 per view, not n - 1
assert not torch.allclose(nt_xent(z1, matching), clip_loss(z1, matching))

# %% triplet
torch.manual_seed(0)
anchor, positive, negative = torch.randn(3, 6, 8).unbind(0)
criterion = nn.TripletMarginLoss(margin=1.0, p=2)
loss = criterion(anchor, positive, negative)

d_ap = (anchor - positive).norm(dim=1)  # Euclidean distance per row
d_an = (anchor - negative).norm(dim=1)
per_triplet = torch.clamp(d_ap - d_an + 1.0, min=0)  # max(d_ap - d_an + m, 0)
print(f"{loss.item():.4f} {per_triplet.mean().item():.4f}")
print(per_triplet)

# %% triplet-checks tags=["remove-cell"]
assert torch.allclose(loss, per_triplet.mean(), atol=1e-5)
per_row = nn.TripletMarginLoss(margin=1.0, p=2, reduction="none")
assert torch.allclose(per_row(anchor, positive, negative), per_triplet,
                      atol=1e-5)
# some triplets already satisfy the margin: 0, and no gradient from them
easy = per_triplet == 0
assert easy[0] and not easy[1:].any()  # the first row, as the page says
assert 0 < easy.sum() < len(easy)
a = anchor.clone().requires_grad_()
per_row(a, positive, negative).sum().backward()
assert (a.grad[easy] == 0).all() and (a.grad[~easy] != 0).any(dim=1).all()
# the functional form is the same loss
assert torch.allclose(
    F.triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2), loss)

# %% triplet-cosine
def cosine_distance(x, y):
    return 1 - F.cosine_similarity(x, y)  # 0 for the same direction, up to 2


criterion = nn.TripletMarginWithDistanceLoss(distance_function=cosine_distance,
                                             margin=0.5)
loss = criterion(anchor, positive, negative)
by_hand = torch.clamp(cosine_distance(anchor, positive)
                      - cosine_distance(anchor, negative) + 0.5, min=0).mean()
print(f"{loss.item():.4f} {by_hand.item():.4f}")

# %% triplet-cosine-checks tags=["remove-cell"]
assert torch.allclose(loss, by_hand)
# without distance_function it is TripletMarginLoss with p=2
assert torch.allclose(
    nn.TripletMarginWithDistanceLoss(margin=1.0)(anchor, positive, negative),
    nn.TripletMarginLoss(margin=1.0, p=2)(anchor, positive, negative))
# cosine distance ignores the length of the embeddings
assert torch.allclose(criterion(3 * anchor, positive, 2 * negative), loss)
assert not torch.allclose(
    nn.TripletMarginLoss(margin=0.5)(3 * anchor, positive, 2 * negative),
    nn.TripletMarginLoss(margin=0.5)(anchor, positive, negative))

# %% batch-hard
def batch_hard_triplet_loss(emb, labels, margin=0.3):
    dist = torch.cdist(emb, emb)  # (n, n) Euclidean distances
    same = labels[:, None] == labels[None, :]
    eye = torch.eye(len(labels), dtype=torch.bool)
    # the farthest sample of the same label, the anchor itself left out
    hardest_pos = dist.masked_fill(~same | eye, 0.0).amax(dim=1)
    # the nearest sample of another label
    hardest_neg = dist.masked_fill(same, float("inf")).amin(dim=1)
    return F.relu(hardest_pos - hardest_neg + margin).mean()


torch.manual_seed(0)
labels = torch.tensor([0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3])  # 4 labels x 3
emb = torch.randn(12, 8) + 2 * F.one_hot(labels, 8)  # one cluster per label
print(f"batch hard: {batch_hard_triplet_loss(emb, labels).item():.4f}")

# every valid (anchor, positive, negative) of the batch, for comparison
a, p, n = zip(*[(i, j, k) for i in range(12) for j in range(12)
                for k in range(12) if i != j and labels[i] == labels[j]
                and labels[i] != labels[k]])
all_triplets = nn.TripletMarginLoss(margin=0.3)(emb[list(a)], emb[list(p)],
                                                emb[list(n)])
print(f"all {len(a)} triplets: {all_triplets.item():.4f}")

# %% batch-hard-checks tags=["remove-cell"]
# by hand: for each anchor, the largest d(a, p) and the smallest d(a, n)
total = 0.0
for i in range(12):
    d = (emb - emb[i]).norm(dim=1)
    pos = [d[j] for j in range(12) if j != i and labels[j] == labels[i]]
    neg = [d[k] for k in range(12) if labels[k] != labels[i]]
    total += max(max(pos) - min(neg) + 0.3, torch.tensor(0.0))
assert torch.allclose(batch_hard_triplet_loss(emb, labels), total / 12,
                      atol=1e-5)
# it is TripletMarginLoss on the mined triplets
dist = torch.cdist(emb, emb)
same = labels[:, None] == labels[None, :]
eye = torch.eye(12, dtype=torch.bool)
pos_idx = dist.masked_fill(~same | eye, 0.0).argmax(dim=1)
neg_idx = dist.masked_fill(same, float("inf")).argmin(dim=1)
assert (labels[pos_idx] == labels).all() and (pos_idx != torch.arange(12)).all()
assert (labels[neg_idx] != labels).all()
assert torch.allclose(
    nn.TripletMarginLoss(margin=0.3)(emb, emb[pos_idx], emb[neg_idx]),
    batch_hard_triplet_loss(emb, labels), atol=1e-5)
# the hardest triplet of an anchor is its largest loss: batch hard is at
# least the mean over all triplets
assert len(a) == 12 * 2 * 9
assert batch_hard_triplet_loss(emb, labels) > all_triplets
# the gradient is finite (the zero distances on the diagonal are masked)
e = emb.clone().requires_grad_()
batch_hard_triplet_loss(e, labels).backward()
assert torch.isfinite(e.grad).all() and e.grad.abs().sum() > 0

# %% masked-decay
torch.manual_seed(0)
layer = nn.Linear(3, 4)  # weight (4, 3): a row per output
start = copy.deepcopy(layer)
x, y = torch.randn(8, 3), torch.randn(8, 4)
# each element's own coefficient: decay the first two rows only
wd_mask = torch.tensor([0.1, 0.1, 0.0, 0.0])[:, None].expand(4, 3)

optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
penalty = 0.5 * (wd_mask * layer.weight ** 2).sum()  # wd / 2 per element
(F.mse_loss(layer(x), y) + penalty).backward()
optimizer.step()

plain = copy.deepcopy(start)  # the same step without the penalty
F.mse_loss(plain(x), y).backward()
torch.optim.SGD(plain.parameters(), lr=0.1).step()
with torch.no_grad():  # how much more each row shrank, per lr and weight
    decay = (plain.weight - layer.weight) / (0.1 * start.weight)
print(decay.mean(dim=1))

# %% masked-decay-checks tags=["remove-cell"]
assert torch.allclose(decay, wd_mask, atol=1e-4)
# one step with the masked penalty: each element decays by its own coefficient
grad = plain.weight.grad
expected = start.weight - 0.1 * (grad + wd_mask * start.weight)
assert torch.allclose(layer.weight, expected, atol=1e-7)
# rows with coefficient 0 are not decayed; the bias had no penalty at all
assert torch.allclose(layer.weight[2:], plain.weight[2:], rtol=0, atol=0)
assert torch.allclose(layer.bias, plain.bias, rtol=0, atol=0)

# %% masked-decay-adamw
torch.manual_seed(0)
layer = nn.Linear(3, 4)
start = copy.deepcopy(layer)
optimizer = torch.optim.AdamW(layer.parameters(), lr=0.01, weight_decay=0.0)
F.mse_loss(layer(x), y).backward()
with torch.no_grad():  # decoupled decay, by mask, before the update
    layer.weight.mul_(1 - 0.01 * wd_mask)
optimizer.step()

# %% masked-decay-adamw-checks tags=["remove-cell"]
# rows 0-1 as with AdamW's weight_decay=0.1, rows 2-3 as with 0
for wd, rows in ((0.1, slice(0, 2)), (0.0, slice(2, 4))):
    ref = copy.deepcopy(start)
    opt = torch.optim.AdamW(ref.parameters(), lr=0.01, weight_decay=wd)
    F.mse_loss(ref(x), y).backward()
    opt.step()
    assert torch.allclose(layer.weight[rows], ref.weight[rows], atol=1e-7)
# parameter groups act on whole tensors: a group cannot hold part of one
try:
    torch.optim.SGD([{"params": [layer.weight[:2]]}], lr=0.1)
except ValueError as error:
    assert "can't optimize a non-leaf Tensor" in str(error)
else:
    raise AssertionError("a slice of a parameter made a group")
