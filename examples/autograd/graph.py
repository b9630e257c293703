# %% [markdown]
# PyTorch records a graph during the forward pass and walks it backwards in
# backward(); the graph is rebuilt on every run and freed after backward

# %% [markdown] lang="zh"
# PyTorch 在前向传播时记录计算图，在 `backward()` 中沿图反向遍历；
# 计算图每次运行都会重新构建，并在反向传播之后释放

# %% forward-backward
import torch

a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
y = a * b  # forward: computes y and records how
y.backward()  # backward: dy/da = b, dy/db = a
print(a.grad, b.grad)
assert a.grad == b and b.grad == a

# %% walk-graph
y = a * b + a
print(a.is_leaf, a.grad_fn)
print(y.is_leaf, y.grad_fn.name())
# one (node, output number) pair per input
add_inputs = y.grad_fn.next_functions
print([(type(node).__name__, n) for node, n in add_inputs])
mul_inputs = add_inputs[0][0].next_functions
print([(type(node).__name__, n) for node, n in mul_inputs])
# the leaves they accumulate into
print([node.variable for node, _ in mul_inputs])

# %% walk-graph-checks tags=["remove-cell"]
# AddBackward0 <- (MulBackward0 of a * b, a);
# MulBackward0 <- (a, b); one node per leaf
assert y.grad_fn.name() == "AddBackward0" and a.grad_fn is None
assert [type(node).__name__ for node, _ in add_inputs] == [
    "MulBackward0", "AccumulateGrad"
]
assert [type(node).__name__ for node, _ in mul_inputs] == [
    "AccumulateGrad", "AccumulateGrad"
]
assert mul_inputs[0][0].variable is a and mul_inputs[1][0].variable is b
# the same AccumulateGrad node of a, reached twice
assert add_inputs[1][0] is mul_inputs[0][0]

# %% paths-summed
a.grad = None  # forget the gradient of the first example
y.backward()  # a reaches y along two paths: through a * b and directly
print(a.grad)
assert a.grad == b + 1

# %% dynamic-loop
def double_until(x, limit):
    y = x
    while y < limit:  # a plain Python loop that depends on the data
        y = y * 2
    return y


for start in (3.0, 0.5):
    x = torch.tensor(start, requires_grad=True)
    y = double_until(x, 10)
    y.backward()
    print(f"x={start}: y={y.item()}, dy/dx={x.grad.item()}")

# %% graph-shape
def count_nodes(grad_fn):
    # walk the graph from the output back to the leaves
    if grad_fn is None:
        return 0
    return 1 + sum(count_nodes(fn) for fn, _ in grad_fn.next_functions)


for start in (3.0, 0.5):
    x = torch.tensor(start, requires_grad=True)
    print(f"x={start}: {count_nodes(double_until(x, 10).grad_fn)} nodes")

# %% rebuilt-each-run
x = torch.tensor(1.0, requires_grad=True)
y1 = x * 2
y2 = x * 2  # the same line of code run again
print(y1.grad_fn.name(), y2.grad_fn.name())
print(y1.grad_fn is y2.grad_fn)

# %% backward-twice tags=["raises-exception"]
y = a * b
y.backward()
y.backward()

# %% retain-graph
a.grad = None
y = a * b
y.backward(retain_graph=True)  # keep the saved tensors for another pass
print(a.grad)
y.backward()  # the last pass may free them
print(a.grad)

# %% two-losses
x = torch.tensor([1.0, 2.0])
w = torch.tensor([0.5, -1.0], requires_grad=True)
h = x * w  # shared by both losses
loss1 = h.sum()
loss2 = (h**2).sum()
loss1.backward(retain_graph=True)  # h's part of the graph is still needed
print("after loss1:", w.grad)
grad1 = w.grad.clone()
loss2.backward()
print("after loss2:", w.grad)

# %% one-backward
w.grad = None
h = x * w
(h.sum() + (h**2).sum()).backward()  # one pass, no retain_graph needed
print(w.grad)

# %% non-leaf-grad
a = torch.tensor(2.0, requires_grad=True)
h = a * 3  # not a leaf: made by an operation
y = h**2
y.backward()
print(a.grad, h.grad)

# %% retain-grad
h = a * 3
h.retain_grad()  # before backward
y = h**2
y.backward()
print(h.grad)

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
import warnings

a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
assert a.is_leaf and a.grad_fn is None
y = a * b + a
assert not y.is_leaf and type(y.grad_fn).__name__ == "AddBackward0"
mul, acc_a = (fn for fn, _ in y.grad_fn.next_functions)
assert type(mul).__name__ == "MulBackward0"
assert type(acc_a).__name__ == "AccumulateGrad" and acc_a.variable is a
assert [fn.variable for fn, _ in mul.next_functions] == [a, b]
y.backward()
assert a.grad == b + 1 and b.grad == a  # two paths to a are summed

# the loop runs a data-dependent number of times, and the graph follows it
x = torch.tensor(3.0, requires_grad=True)
double_until(x, 10).backward()
assert x.grad == 4  # two doublings
x = torch.tensor(0.5, requires_grad=True)
double_until(x, 10).backward()
assert x.grad == 32  # five doublings
def node_names(grad_fn):
    if grad_fn is None:
        return []
    return [type(grad_fn).__name__] + [
        name for fn, _ in grad_fn.next_functions for name in node_names(fn)
    ]


for start, doublings in ((3.0, 2), (0.5, 5)):
    x = torch.tensor(start, requires_grad=True)
    grad_fn = double_until(x, 10).grad_fn
    assert count_nodes(grad_fn) == doublings + 1
    # one MulBackward0 per pass of the loop, then the leaf's AccumulateGrad
    assert node_names(grad_fn) \
        == ["MulBackward0"] * doublings + ["AccumulateGrad"]

x = torch.tensor(1.0, requires_grad=True)
assert (x * 2).grad_fn is not (x * 2).grad_fn  # a new graph on every run

y = a * b
# saved for backward
assert y.grad_fn._saved_self is a and y.grad_fn._saved_other is b
y.backward()
try:
    y.grad_fn._saved_self  # freed by backward
except RuntimeError as error:
    assert "after they have already been freed" in str(error)
else:
    raise AssertionError("saved tensors should be freed after backward")
try:
    y.backward()
except RuntimeError as error:
    assert "Trying to backward through the graph a second time" in str(error)
    assert "retain_graph=True" in str(error)
else:
    raise AssertionError("a second backward through a freed graph should fail")

a.grad = None
y = a * b
y.backward(retain_graph=True)
y.backward()
assert a.grad == 2 * b  # the two passes add up

x = torch.tensor([1.0, 2.0])
w = torch.tensor([0.5, -1.0], requires_grad=True)
h = x * w
h.sum().backward()  # without retain_graph, the shared part is freed ...
try:
    (h**2).sum().backward()  # ... and the second loss cannot go through it
except RuntimeError as error:
    assert "Trying to backward through the graph a second time" in str(error)
else:
    raise AssertionError("the second loss needs the graph the first one freed")
w.grad = None
h = x * w
h.sum().backward(retain_graph=True)
g1 = w.grad.clone()
assert torch.equal(g1, x)
(h**2).sum().backward()
g2 = 2 * h.detach() * x
assert torch.allclose(w.grad, g1 + g2)  # .grad holds the sum of both passes
w2 = w.detach().clone().requires_grad_()
h2 = x * w2
(h2.sum() + (h2**2).sum()).backward()
assert torch.allclose(w2.grad, w.grad)  # same as one backward of the sum

a = torch.tensor(2.0, requires_grad=True)
h = a * 3
(h**2).backward()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    assert h.grad is None
assert len(caught) == 1 and caught[0].category is UserWarning
assert "not a leaf Tensor is being accessed" in str(caught[0].message)
assert "retain_grad()" in str(caught[0].message)
assert a.grad == 2 * 6 * 3
h = a * 3
h.retain_grad()
(h**2).backward()
assert h.grad == 12 and not h.is_leaf

# %% unused-layer
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(3, 2)
        self.head = nn.Linear(2, 1)  # defined, but forward never calls it

    def forward(self, x):
        return self.body(x).sum(dim=1)


model = Net()
x = torch.randn(4, 3)
loss = model(x).pow(2).mean()
loss.backward()
# the parameters backward() did not reach
print([name for name, p in model.named_parameters() if p.grad is None])

# %% unused-layer-checks tags=["remove-cell"]
assert model.body.weight.grad is not None and model.body.bias.grad is not None
assert model.head.weight.grad is None and model.head.bias.grad is None
# step() skips a parameter whose .grad is None: the unused layer never trains
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
head_before = model.head.weight.detach().clone()
body_before = model.body.weight.detach().clone()
optimizer.step()
assert torch.equal(model.head.weight, head_before)
assert not torch.equal(model.body.weight, body_before)

# %% non-leaf-param
x = torch.tensor([1.0, 2.0, 3.0])
w = torch.randn(3, requires_grad=True) * 2  # w is the result of `* 2`
# a copy made by .to(), as .to("cuda") makes on a GPU machine
v = torch.randn(3, requires_grad=True).to(torch.float64)
print(w.is_leaf, w.grad_fn.name(), v.is_leaf, v.grad_fn.name())
(w * x + v * x).sum().backward()
print(w.grad, v.grad)
# the gradient went to the leaf behind w, which has no name
leaf = w.grad_fn.next_functions[0][0].variable
print(leaf.is_leaf, leaf.grad)

# %% non-leaf-param-checks tags=["remove-cell"]
assert not w.is_leaf and w.grad_fn.name() == "MulBackward0"
assert not v.is_leaf and v.grad_fn.name() == "ToCopyBackward0"
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    assert w.grad is None and v.grad is None
assert len(caught) == 2 and all(c.category is UserWarning for c in caught)
assert all("not a leaf Tensor is being accessed" in str(c.message) for c in caught)
assert leaf.is_leaf and torch.equal(leaf.grad, 2 * x)
# a copy to another device makes the same node; .to() the same device copies nothing
t = torch.randn(3, requires_grad=True)
assert t.to("meta").grad_fn.name() == "ToCopyBackward0" and not t.to("meta").is_leaf
assert t.to("cpu") is t and t.is_leaf
assert not t.double().is_leaf
try:
    torch.optim.SGD([w], lr=0.1)  # an optimizer refuses the non-leaf
except ValueError as error:
    assert "can't optimize a non-leaf Tensor" in str(error)
else:
    raise AssertionError("an optimizer should refuse a non-leaf tensor")

# %% non-leaf-param-fix
device = "cpu"  # or "cuda": the same code
# create it on its device with requires_grad=True ...
w = torch.randn(3, device=device, requires_grad=True)
# ... or move and scale it first, then mark the result
v = (torch.randn(3) * 2).to(device, torch.float64).requires_grad_()
(w * x + v * x).sum().backward()
print(w.is_leaf, w.grad)
print(v.is_leaf, v.grad)

# %% non-leaf-param-fix-checks tags=["remove-cell"]
assert w.is_leaf and torch.equal(w.grad, x)
assert v.is_leaf and torch.equal(v.grad, x.double())
# Module.to() moves the parameters in place: they stay leaves
layer = nn.Linear(2, 2).to(torch.float64)
assert layer.weight.is_leaf and isinstance(layer.weight, nn.Parameter)
assert layer.weight.dtype == torch.float64

# %% frozen
model = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1))
model[0].requires_grad_(False)  # frozen, as when fine-tuning only the head
scale = torch.ones(1)  # created without requires_grad=True
x = torch.randn(4, 3)
loss = (model(x) * scale).pow(2).mean()
loss.backward()
print([name for name, p in model.named_parameters() if p.grad is None])
print(scale.requires_grad, scale.grad)

# %% frozen-checks tags=["remove-cell"]
assert not model[0].weight.requires_grad and model[0].weight.grad is None
assert model[0].bias.grad is None and model[1].weight.grad is not None
assert not scale.requires_grad and scale.grad is None
assert loss.requires_grad  # the head requires grad, so backward() raised nothing

# %% zero-grad-none
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
print("before backward:", model.bias.grad)
model(x).sum().backward()
print("after backward:", model.bias.grad)
optimizer.zero_grad()
print("after zero_grad:", model.bias.grad)

# %% zero-grad-none-checks tags=["remove-cell"]
import inspect

assert model.weight.grad is None and model.bias.grad is None
zero_grad = inspect.signature(torch.optim.Optimizer.zero_grad)
assert zero_grad.parameters["set_to_none"].default is True
assert inspect.signature(nn.Module.zero_grad).parameters["set_to_none"].default
model(x).sum().backward()
assert model.bias.grad == x.shape[0]  # one per row of x
optimizer.zero_grad(set_to_none=False)
assert torch.equal(model.bias.grad, torch.zeros(1))

# %% sample-rsample
from torch.distributions import Normal

loc = torch.tensor(1.0, requires_grad=True)
scale = torch.tensor(2.0, requires_grad=True)
dist = Normal(loc, scale)
x = dist.sample()  # drawn outside the graph
print(x, x.requires_grad, x.grad_fn)
y = dist.rsample()  # loc + scale * eps, with eps from Normal(0, 1)
print(y, y.requires_grad)
y.backward()
print(loc.grad, scale.grad)  # 1 and eps

# %% sample-rsample-checks tags=["remove-cell"]
assert not x.requires_grad and x.grad_fn is None and x.is_leaf
assert y.requires_grad and y.grad_fn is not None
assert loc.grad == 1
eps = (y.detach() - loc.detach()) / scale.detach()
assert torch.allclose(scale.grad, eps)
# sample() under torch.enable_grad() is still outside the graph
with torch.enable_grad():
    assert dist.sample().grad_fn is None

# %% log-prob-grad
x = dist.sample()
for value in (x, loc.detach()):  # a sample, then the mean itself
    loc.grad = None
    dist.log_prob(value).backward()
    print(value, loc.grad, (value - loc.detach()) / scale.detach() ** 2)

# %% log-prob-grad-checks tags=["remove-cell"]
loc.grad = None
dist.log_prob(x).backward()
assert x != loc.detach() and loc.grad != 0
assert torch.allclose(loc.grad, (x - loc.detach()) / scale.detach() ** 2)
loc.grad = None
dist.log_prob(loc.detach()).backward()
assert loc.grad == 0

# %% log-prob-rsample
loc.grad, scale.grad = None, None
y = dist.rsample()
dist.log_prob(y).backward()
print(y, loc.grad, scale.grad)  # loc's two paths cancel; scale gets -1 / scale

# %% log-prob-rsample-checks tags=["remove-cell"]
import math

assert y.detach() != loc.detach()
assert loc.grad == 0
assert math.isclose(scale.grad.item(), -1 / scale.item(), rel_tol=1e-5)
# a detached sample gives loc the score-function gradient back
loc.grad = None
z = dist.rsample().detach()
dist.log_prob(z).backward()
assert loc.grad != 0
assert torch.allclose(loc.grad, (z - loc.detach()) / scale.detach() ** 2)
# whatever the sample: zero for loc every time
for _ in range(20):
    loc.grad = None
    dist.log_prob(dist.rsample()).backward()
    assert loc.grad == 0

# %% has-rsample
from torch.distributions import Bernoulli, Categorical, Uniform

print(Normal.has_rsample, Uniform.has_rsample)
print(Categorical.has_rsample, Bernoulli.has_rsample)

# %% has-rsample-checks tags=["remove-cell"]
from torch.distributions import (
    Beta, Gamma, MultivariateNormal, OneHotCategorical, Poisson, RelaxedOneHotCategorical,
)

assert Normal.has_rsample and Uniform.has_rsample
assert Beta.has_rsample and Gamma.has_rsample and MultivariateNormal.has_rsample
assert not Categorical.has_rsample and not Bernoulli.has_rsample
assert not OneHotCategorical.has_rsample and not Poisson.has_rsample
assert RelaxedOneHotCategorical.has_rsample
# an instance says the same as its class
assert dist.has_rsample

# %% categorical-rsample raises="NotImplementedError"
probs = torch.tensor([0.2, 0.8], requires_grad=True)
Categorical(probs).rsample()
