# %% [markdown]
# Two independent switches: grad mode (no_grad,
# set_grad_enabled, inference_mode) decides whether autograd
# records; model.eval() changes Dropout and BatchNorm

# %% [markdown] lang="zh"
# 两个相互独立的开关：梯度模式（`no_grad`、`set_grad_enabled`、
# `inference_mode`）决定 autograd 是否记录计算图；`model.eval()` 改变的是
# `Dropout` 和 `BatchNorm` 的行为

# %% model
import torch
from torch import nn

model = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4), nn.Dropout(p=0.5))
x = torch.randn(8, 4)

# %% no-grad
with torch.no_grad():
    print("inside:", torch.is_grad_enabled())
    y = model(x)
print(y.requires_grad, y.grad_fn)
print("after:", torch.is_grad_enabled())

# %% saved-tensors
def saved_for_backward(model, x):
    saved = []

    def pack(t):
        saved.append(t)
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(x)
    return len(saved), sum(t.numel() for t in saved)


print("grad mode:", saved_for_backward(model, x))
with torch.no_grad():
    print("no_grad:  ", saved_for_backward(model, x))

# %% set-grad-enabled
with torch.set_grad_enabled(False):
    y = model(x)
print(y.requires_grad, y.grad_fn)

# %% inside-no-grad
w = torch.ones(3, requires_grad=True)
before = w * 2
with torch.no_grad():
    y = w * 2
    leaf = torch.ones(3, requires_grad=True)
print("op result:   ", y.requires_grad, y.grad_fn)
print("new leaf:    ", leaf.requires_grad, leaf.is_leaf)
print("outside:     ", w.requires_grad, before.grad_fn.name())
(leaf * 2).sum().backward()
print(leaf.grad)

# %% dropout
drop = model[2]
ones = torch.ones(2, 6)
model.train()
print(drop(ones))
model.eval()
print(drop(ones))

# %% batchnorm
bn = model[1]
h = torch.randn(8, 4) * 3 + 5  # a batch far from the running statistics
with torch.no_grad():
    model.train()
    print("train, mean per feature:", bn(h).mean(dim=0))
    model.eval()
    print("eval,  mean per feature:", bn(h).mean(dim=0))
    by_running = (h - bn.running_mean) / torch.sqrt(bn.running_var + bn.eps)
    print(torch.allclose(bn(h), by_running * bn.weight + bn.bias))

# %% eval-keeps-grad
model.eval()
print([m.training for m in model.modules()])
print(torch.is_grad_enabled())
y = model(x)
print(y.requires_grad, y.grad_fn.name())

# %% eval-backward
model.zero_grad()
y.sum().backward()
print([p.grad is not None for p in model.parameters()])

# %% zero-grad-typo tags=["raises-exception"]
with torch.zero_grad():
    y = model(x)

# %% evaluate
model.eval()
with torch.no_grad():
    y = model(x)
print(y.requires_grad)
print(torch.equal(y, model(x)))
print(model.training)
model.train()

# %% inference-mode
with torch.inference_mode():
    y = model(x)
print(y.requires_grad, y.is_inference())

# %% inference-tensor-backward tags=["raises-exception"]
w = torch.ones(4, requires_grad=True)
(y * w).sum().backward()

# %% set-grad-enabled-loop
for phase in ["train", "val"]:
    is_train = phase == "train"
    model.train(is_train)
    with torch.set_grad_enabled(is_train):
        y = model(x)
    print(phase, model.training, y.requires_grad)

# %% decorator
@torch.no_grad()
def evaluate(model, x):
    model.eval()
    return model(x)


y = evaluate(model, x)
print(y.requires_grad, torch.is_grad_enabled())

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
model = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4), nn.Dropout(p=0.5))
x = torch.randn(8, 4)

# no_grad: no graph, grad mode back on after the block
assert torch.is_grad_enabled()
with torch.no_grad():
    assert not torch.is_grad_enabled()
    y = model(x)
assert torch.is_grad_enabled() and not y.requires_grad and y.grad_fn is None

# what is saved for backward in grad mode, and nothing under no_grad
count, numel = saved_for_backward(model, x)
# forward stores no gradients
assert all(p.grad is None for p in model.parameters())
kept = []
keep = lambda t: kept.append(t) or t  # noqa: E731
with torch.autograd.graph.saved_tensors_hooks(keep, lambda t: t):
    model(x)
assert any(t is x for t in kept)  # the model's input is among the saved tensors
y = model(x)  # in train mode
drop_node = y.grad_fn  # dropout: the output is input * mask
mask = drop_node._saved_other
assert mask.shape == x.shape and set(mask.unique().tolist()) <= {0.0, 2.0}
bn_node = drop_node.next_functions[0][0]
assert type(bn_node).__name__ == "NativeBatchNormBackward0"
h_lin = model[0](x)
assert torch.allclose(bn_node._saved_result1, h_lin.mean(0))  # the batch mean
# an intermediate result: the Linear output, which BatchNorm saved as its input
assert torch.allclose(bn_node._saved_input, h_lin)
assert count > 0 and numel >= x.numel()
with torch.no_grad():
    assert saved_for_backward(model, x) == (0, 0)

# set_grad_enabled(False) is the same switch as no_grad
with torch.set_grad_enabled(False):
    assert not torch.is_grad_enabled()
    y = model(x)
assert not y.requires_grad and y.grad_fn is None and torch.is_grad_enabled()

# inside no_grad: op results untracked, new
# leaves still require grad, outside untouched
w = torch.ones(3, requires_grad=True)
before = w * 2
with torch.no_grad():
    inside = w * 2
    leaf = torch.ones(3, requires_grad=True)
assert not inside.requires_grad and inside.grad_fn is None
assert leaf.requires_grad and leaf.is_leaf
assert w.requires_grad and w.is_leaf and before.grad_fn is not None
(leaf * 2).sum().backward()
assert torch.equal(leaf.grad, torch.full((3,), 2.0))

# Dropout: random zeros and 1/(1-p) scaling in train mode, identity in eval mode
drop = model[2]
ones = torch.ones(2, 6)
model.train()
out = drop(ones)
assert set(out.unique().tolist()) <= {0.0, 2.0} and (out == 0).any()
model.eval()
assert torch.equal(drop(ones), ones)

# BatchNorm: batch statistics in train mode, running statistics in eval mode
bn = model[1]
h = torch.randn(8, 4) * 3 + 5
with torch.no_grad():
    model.train()
    tracked = bn.num_batches_tracked.clone()
    mean = bn.running_mean.clone()
    out = bn(h)
    # train mode updates running statistics
    assert bn.num_batches_tracked == tracked + 1
    assert not torch.equal(bn.running_mean, mean)
    batch = (h - h.mean(0)) / torch.sqrt(h.var(0, unbiased=False) + bn.eps)
    assert torch.allclose(out, batch * bn.weight + bn.bias, atol=1e-5)
    assert torch.allclose(out.mean(0), torch.zeros(4), atol=1e-5)
    model.eval()
    mean, var = bn.running_mean.clone(), bn.running_var.clone()
    tracked = bn.num_batches_tracked.clone()
    out = bn(h)
    running = (h - mean) / torch.sqrt(var + bn.eps)
    assert torch.allclose(out, running * bn.weight + bn.bias)
    assert not torch.allclose(out, batch * bn.weight + bn.bias, atol=1e-2)
    # far from zero: not normalised by this batch
    assert (out.mean(0) > 1).all()
    assert torch.equal(bn.running_mean, mean) \
        and torch.equal(bn.running_var, var)
    # eval does not update them
    assert torch.equal(bn.num_batches_tracked, tracked)

# eval() only switches `training`; grad
# mode, the graph and backward are unchanged
model.eval()
assert all(not m.training for m in model.modules())
assert torch.is_grad_enabled()
y = model(x)
assert y.requires_grad and y.grad_fn is not None
model.zero_grad()
y.sum().backward()
assert all(p.grad is not None for p in model.parameters())
assert saved_for_backward(model, x)[0] > 0  # eval alone keeps the saved tensors
# in eval mode, backward gives the gradient of the eval-mode function
lin = model[0]
weight = lin.weight.detach().clone().requires_grad_(True)
h = x @ weight.T + lin.bias.detach()
manual = (h - bn.running_mean) / torch.sqrt(
    bn.running_var + bn.eps
) * bn.weight.detach()
manual = manual + bn.bias.detach()
assert torch.allclose(manual, y.detach(), atol=1e-6)
manual.sum().backward()
assert torch.allclose(weight.grad, lin.weight.grad, atol=1e-6)

# there is no torch.zero_grad
try:
    torch.zero_grad()
except AttributeError as error:
    assert "module 'torch' has no attribute 'zero_grad'" in str(error)
else:
    raise AssertionError("torch.zero_grad should not exist")
assert callable(nn.Module.zero_grad) and callable(
    torch.optim.Optimizer.zero_grad
)

# no_grad alone leaves Dropout and BatchNorm in training behaviour
model.train()
with torch.no_grad():
    out = model[2](torch.ones(2, 6))
    h = model[0](x)
    normed = model[1](h)
assert (out == 0).any() and model.training
batch = (h - h.mean(0)) / torch.sqrt(h.var(0, unbiased=False) + model[1].eps)
assert torch.allclose(
    normed, batch * model[1].weight + model[1].bias, atol=1e-5
)

# eval + no_grad gives the same outputs as
# eval alone; eval() stays until train()
model.eval()
with torch.no_grad():
    quiet = model(x)
assert torch.equal(quiet, model(x)) and not model.training
model.train()
assert all(m.training for m in model.modules())

# inference_mode: inference tensors, refused
# by autograd later; a clone() is normal
with torch.inference_mode():
    assert not torch.is_grad_enabled() and torch.is_inference_mode_enabled()
    y = model(x)
assert not y.requires_grad and y.is_inference() and torch.is_grad_enabled()
try:
    (y * torch.ones(4, requires_grad=True)).sum().backward()
except RuntimeError as error:
    assert "Inference tensors cannot be saved for backward" in str(error)
else:
    raise AssertionError("an inference tensor should not be saved for backward")
try:
    y._version
except RuntimeError as error:
    assert "Inference tensors do not track version counter" in str(error)
else:
    raise AssertionError("inference tensors should have no version counter")
w = torch.ones(4, requires_grad=True)
(y.clone() * w).sum().backward()
assert w.grad is not None and not y.clone().is_inference()

# set_grad_enabled(mode) as a switch
for is_train in (True, False):
    model.train(is_train)
    with torch.set_grad_enabled(is_train):
        y = model(x)
    assert model.training == is_train and y.requires_grad == is_train
    assert torch.is_grad_enabled()

# the decorator
y = evaluate(model, x)
assert not y.requires_grad and y.grad_fn is None and torch.is_grad_enabled()
assert not model.training


@torch.inference_mode()
def predict(model, x):
    return model(x)


y = predict(model, x)
assert y.is_inference() and torch.is_grad_enabled()
