# %% [markdown]
# nn.Sequential(*s1._modules.values()) wraps the same layer objects
# in a new container; copy.deepcopy gives an independent model

# %% [markdown] lang="zh"
# `nn.Sequential(*s1._modules.values())` 只是把同一批层对象装进新容器；
# `copy.deepcopy` 才能得到一个独立的模型

# %% shared
import copy

import torch
from torch import nn

s1 = nn.Sequential(nn.Linear(4, 10), nn.Linear(10, 2))
s2 = nn.Sequential(*s1._modules.values())
print(s2 is s1, s2[0] is s1[0], s2[0].weight is s1[0].weight)

# %% shared-training
before = s1[0].weight.detach().clone()
optimizer = torch.optim.SGD(s2.parameters(), lr=0.1)  # trains s2 only
s2(torch.randn(3, 4)).sum().backward()
optimizer.step()
print(torch.equal(s1[0].weight, before))

# %% public-api
s3 = nn.Sequential(*s1)
s4 = nn.Sequential(*s1.children())
print(s3[0] is s1[0], s4[0] is s1[0])

# %% deepcopy
s1 = nn.Sequential(nn.Linear(4, 10), nn.Linear(10, 2))
s2 = copy.deepcopy(s1)
print(s2[0] is s1[0], torch.equal(s2[0].weight, s1[0].weight))
print(s2[0].weight.data_ptr() == s1[0].weight.data_ptr())

before = s1[0].weight.detach().clone()
optimizer = torch.optim.SGD(s2.parameters(), lr=0.1)
s2(torch.randn(3, 4)).sum().backward()
optimizer.step()
print(torch.equal(s1[0].weight, before), torch.equal(s2[0].weight, before))

# %% fresh-and-load
def make_model():
    return nn.Sequential(nn.Linear(4, 10), nn.Linear(10, 2))


s1 = make_model()
s2 = make_model()  # same structure, new random weights
print(torch.equal(s2[0].weight, s1[0].weight))
s2.load_state_dict(s1.state_dict())  # copies the values
print(torch.equal(s2[0].weight, s1[0].weight))
print(s2[0].weight.data_ptr() == s1[0].weight.data_ptr())

# %% optimizer-follows
s1 = make_model()
optimizer = torch.optim.SGD(s1.parameters(), lr=0.1)
s2 = copy.deepcopy(s1)
params = optimizer.param_groups[0]["params"]
print(
    any(p is s1[0].weight for p in params),
    any(p is s2[0].weight for p in params)
)

# %% checks tags=["remove-cell"] holds=">=2.5" claim="`Module._modules` is a plain `dict`, not an `OrderedDict`" about="shared"
# What the page says, checked on every build
a = make_model()
b = nn.Sequential(*a._modules.values())
c = nn.Sequential(*a)
d = nn.Sequential(*a.children())
assert type(a._modules) is dict  # a plain dict today, not an OrderedDict
for other in (b, c, d):
    assert other is not a
    assert all(x is y for x, y in zip(other, a))  # the same layer objects
    assert all(p is q for p, q in zip(other.parameters(), a.parameters()))
old = a[1].bias.detach().clone()
opt = torch.optim.SGD(b.parameters(), lr=0.1)
b(torch.randn(3, 4)).sum().backward()
opt.step()
# training the "copy" changed the original
assert not torch.equal(a[1].bias, old)

a = make_model()
e = copy.deepcopy(a)
assert all(x is not y for x, y in zip(e, a))
for p, q in zip(e.parameters(), a.parameters()):
    assert p is not q and torch.equal(p, q) and p.data_ptr() != q.data_ptr()
    assert type(p) is nn.Parameter and p.requires_grad
old = a[0].weight.detach().clone()
opt = torch.optim.SGD(e.parameters(), lr=0.1)
e(torch.randn(3, 4)).sum().backward()
opt.step()
assert torch.equal(a[0].weight, old) and not torch.equal(e[0].weight, old)
assert a[0].weight.grad is None  # nothing reached the original

f = make_model()
assert not torch.equal(f[0].weight, a[0].weight)
f.load_state_dict(a.state_dict())
for p, q in zip(f.parameters(), a.parameters()):
    assert torch.equal(p, q) and p.data_ptr() != q.data_ptr()
with torch.no_grad():
    f[0].weight.add_(1)
assert torch.equal(a[0].weight, old)  # independent after loading

assert any(p is s1[0].weight for p in params)
assert not any(p is s2[0].weight for p in params)

# %% deepcopy-cache raises="RuntimeError: Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment"
class Cached(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 2)
        self.cache = None

    def forward(self, x):
        y = self.linear(x)
        self.cache = y  # keeps a tensor with a grad_fn
        return y


model = Cached()
model(torch.randn(3, 4))
print(model.cache.is_leaf, model.cache.grad_fn is not None)
copy.deepcopy(model)

# %% deepcopy-cache-fix
class Cached(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 2)
        self.cache = None

    def forward(self, x):
        y = self.linear(x)
        self.cache = y.detach()  # the values, without the graph
        return y


model = Cached()
model(torch.randn(3, 4))
model2 = copy.deepcopy(model)
print(torch.equal(model2.cache, model.cache), model2.linear is model.linear)

# %% deepcopy-cache-fix-checks tags=["remove-cell"]
assert model.cache.is_leaf and model.cache.grad_fn is None
assert model2.cache.data_ptr() != model.cache.data_ptr()
assert model2.linear.weight is not model.linear.weight
bad = type("Bad", (nn.Module,), {})()
bad.linear = nn.Linear(4, 2)
bad.cache = bad.linear(torch.randn(3, 4))
try:
    copy.deepcopy(bad)
except RuntimeError as e:
    assert "weight_norm usage" in str(e)
else:
    raise AssertionError("deepcopy of a non-leaf did not fail")
bad.cache = None  # clearing the cache before copying works too
copy.deepcopy(bad)

# %% weight-norm-old raises="RuntimeError: Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment"
import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    layer = nn.utils.weight_norm(nn.Linear(4, 2))  # the deprecated function
print(caught[0].category.__name__)
copy.deepcopy(layer)  # fails before any forward

# %% weight-norm-old-checks tags=["remove-cell"]
assert caught[0].category is FutureWarning
message = str(caught[0].message)
assert "weight_norm` is deprecated in favor of" in message
assert "torch.nn.utils.parametrizations.weight_norm" in message
assert not layer.weight.is_leaf  # weight is recomputed from weight_g and weight_v

# %% weight-norm-new
from torch.nn.utils.parametrizations import weight_norm

layer = weight_norm(nn.Linear(4, 2))
layer(torch.randn(3, 4))  # a forward first
layer2 = copy.deepcopy(layer)
print(torch.equal(layer2.weight, layer.weight))
print([name for name, _ in layer2.named_parameters()])

# %% weight-norm-new-checks tags=["remove-cell"]
assert torch.equal(layer2(torch.ones(1, 4)), layer(torch.ones(1, 4)))
assert layer2.parametrizations.weight.original0 \
    is not layer.parametrizations.weight.original0
