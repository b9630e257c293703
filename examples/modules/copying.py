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
