# %% [markdown]
# model.parameters() yields the nn.Parameter tensors (weights
# and biases) that a module registered; named_parameters()
# adds their names; buffers are state that is not trained

# %% [markdown] lang="zh"
# `model.parameters()` 逐个给出模块注册的 `nn.Parameter` 张量（权重和偏置）；
# `named_parameters()` 还会附上它们的名字；buffer 是不参与训练的状态

# %% model
import torch
from torch import nn

model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
for p in model.parameters():
    print(type(p).__name__, tuple(p.shape), p.requires_grad)

# %% count
n_params = sum(p.numel() for p in model.parameters())
n_trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print(n_params, n_trainable)

# %% named
for name, p in model.named_parameters():
    print(name, tuple(p.shape))

# %% generator
params = model.parameters()
print(type(params).__name__)
print(len(list(params)), len(list(params)))

# %% parameter-is-tensor
w = model[0].weight
print(type(w), isinstance(w, torch.Tensor))
print(type(w.data), w.data.requires_grad)
print(nn.Parameter(torch.zeros(2)).requires_grad)

# %% registration
class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(2))  # registered
        self.offset = torch.zeros(2)  # a plain tensor: not registered

    def forward(self, x):
        return x * self.weight + self.offset


scale = Scale()
print([name for name, _ in scale.named_parameters()])
print(list(scale.state_dict()))
scale.to(torch.float64)
print(scale.weight.dtype, scale.offset.dtype)

# %% plain-list
class TwoLayers(nn.Module):
    def __init__(self):
        super().__init__()
        # hidden from the module
        self.in_list = [nn.Linear(2, 2), nn.Linear(2, 2)]
        self.in_module_list = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2)])


print([name for name, _ in TwoLayers().named_parameters()])

# %% freeze
model[0].requires_grad_(False)
for name, p in model.named_parameters():
    print(name, p.requires_grad)
print(sum(p.numel() for p in model.parameters() if p.requires_grad))

# %% freeze-backward
model(torch.randn(5, 3)).sum().backward()
print(model[0].weight.grad, model[2].weight.grad.shape)
optimizer = torch.optim.SGD(
    [p for p in model.parameters() if p.requires_grad], lr=0.1
)

# %% buffers
bn = nn.BatchNorm1d(3)
print([name for name, _ in bn.named_parameters()])
for name, b in bn.named_buffers():
    print(name, b.dtype, b.requires_grad)

# %% register-buffer
class Normalize(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.register_buffer("mean", torch.tensor(mean))
        self.register_buffer("std", torch.tensor(std))

    def forward(self, x):
        return (x - self.mean) / self.std


norm = Normalize([1.0, 2.0], [0.5, 0.5])
print(list(norm.parameters()))
print([name for name, _ in norm.named_buffers()], list(norm.state_dict()))
norm.to(torch.float64)
print(norm.mean.dtype)

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
import inspect

fresh = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
shapes = [tuple(p.shape) for p in fresh.parameters()]
# weight, bias per Linear; ReLU has none
assert shapes == [(4, 3), (4,), (2, 4), (2,)]
assert all(
    type(p) is nn.Parameter and p.requires_grad for p in fresh.parameters()
)
# the live tensors, not copies
assert next(fresh.parameters()) is fresh[0].weight
assert sum(p.numel() for p in fresh.parameters()) == 3 * 4 + 4 + 4 * 2 + 2 == 26
assert n_params == 26 and n_trainable == 26
assert [n for n, _ in fresh.named_parameters()] == [
    "0.weight", "0.bias", "2.weight", "2.bias"
]
names, tensors = zip(*fresh.named_parameters())
# the same objects
assert all(a is b for a, b in zip(tensors, fresh.parameters()))
assert inspect.isgenerator(fresh.parameters())
assert inspect.isgenerator(fresh.named_parameters())
gen = fresh.parameters()
# a generator is used up after one pass
assert len(list(gen)) == 4 and list(gen) == []

p = nn.Parameter(torch.zeros(2))
assert isinstance(p, torch.Tensor) and issubclass(nn.Parameter, torch.Tensor)
assert type(p) is nn.Parameter and type(p.data) is torch.Tensor
assert p.requires_grad and not p.data.requires_grad
# .data is the same storage as a plain tensor
assert p.data.data_ptr() == p.data_ptr()
assert not nn.Parameter(torch.zeros(2), requires_grad=False).requires_grad

assert [n for n, _ in scale.named_parameters()] == ["weight"]
assert list(scale.state_dict()) == ["weight"]
assert scale.weight.dtype == torch.float64 \
    and scale.offset.dtype == torch.float32
assert [n for n, _ in TwoLayers().named_parameters()] == [
    "in_module_list.0.weight", "in_module_list.0.bias",
    "in_module_list.1.weight", "in_module_list.1.bias",
]

assert [p.requires_grad for p in model.parameters()] == [
    False, False, True, True
]
assert sum(p.numel() for p in model.parameters() if p.requires_grad) == 10
assert model[0].weight.grad is None and model[0].bias.grad is None
assert model[2].weight.grad is not None and model[2].bias.grad is not None
assert len(optimizer.param_groups[0]["params"]) == 2

assert [n for n, _ in bn.named_parameters()] == ["weight", "bias"]
assert [n for n, _ in bn.named_buffers()] == [
    "running_mean", "running_var", "num_batches_tracked"
]
assert not any(b.requires_grad for b in bn.buffers())
assert bn.num_batches_tracked.dtype == torch.long
assert list(norm.parameters()) == []
assert list(norm.state_dict()) == ["mean", "std"]
assert norm.mean.dtype == torch.float64 and norm.std.dtype == torch.float64

# %% buffer-vs-parameter
class Both(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(2))
        self.register_buffer("mean", torch.zeros(2))
        self.register_buffer("scratch", torch.zeros(2), persistent=False)
        self.plain = torch.zeros(2)


both = Both().to(torch.float64)
optimizer = torch.optim.SGD(both.parameters(), lr=0.1)
print([name for name, _ in both.named_parameters()])
print([name for name, _ in both.named_buffers()])
print(list(both.state_dict()))
print(both.weight.requires_grad, both.mean.requires_grad)
print(both.weight.dtype, both.mean.dtype, both.scratch.dtype, both.plain.dtype)
print(len(optimizer.param_groups[0]["params"]))

# %% buffer-vs-parameter-checks tags=["remove-cell"]
assert [n for n, _ in both.named_parameters()] == ["weight"]
assert [n for n, _ in both.named_buffers()] == ["mean", "scratch"]
assert list(both.state_dict()) == ["weight", "mean"]
assert both.weight.requires_grad and not both.mean.requires_grad
assert not both.scratch.requires_grad and not both.plain.requires_grad
assert both.weight.dtype == both.mean.dtype == both.scratch.dtype \
    == torch.float64
assert both.plain.dtype == torch.float32
assert optimizer.param_groups[0]["params"] == [both.weight]
# .to(device) moves the same tensors as .to(dtype): shown with the meta device
on_meta = Both().to("meta")
assert on_meta.weight.is_meta and on_meta.mean.is_meta and on_meta.scratch.is_meta
assert on_meta.plain.device.type == "cpu"
# a state_dict without the non-persistent buffer loads strictly
assert not Both().load_state_dict(Both().state_dict()).missing_keys
# a frozen parameter is still a parameter: counted, saved, given to optimizers
frozen = nn.Parameter(torch.ones(2), requires_grad=False)
holder = nn.Module()
holder.frozen = frozen
assert list(holder.parameters()) == [frozen] and list(holder.buffers()) == []
assert list(holder.state_dict()) == ["frozen"]

# %% assign-buffer
both.mean = torch.ones(2)  # a tensor assigned to a buffer's name
print([name for name, _ in both.named_buffers()], both.mean)

# %% assign-buffer-checks tags=["remove-cell"]
assert [n for n, _ in both.named_buffers()] == ["mean", "scratch"]
assert torch.equal(both.state_dict()["mean"], torch.ones(2))
assert both.state_dict()["mean"].data_ptr() == both.mean.data_ptr()
# the new tensor is kept as it is: float32, in a module converted to float64
assert both.mean.dtype == torch.float32

# %% assign-parameter tags=["raises-exception"]
both.weight = torch.zeros(2)

# %% assign-parameter-fix
with torch.no_grad():
    both.weight.copy_(torch.zeros(2))
print(both.weight)

# %% assign-parameter-checks tags=["remove-cell"]
try:
    both.weight = torch.zeros(2)
except TypeError as error:
    assert "cannot assign" in str(error) and "as parameter 'weight'" in str(error)
    assert "torch.nn.Parameter or None expected" in str(error)
else:
    raise AssertionError("a plain tensor should not replace a parameter")
assert type(both.weight) is nn.Parameter and both.weight.requires_grad
assert torch.equal(both.weight, torch.zeros(2, dtype=torch.float64))
assert optimizer.param_groups[0]["params"][0] is both.weight  # same object

# %% weight-norm-old
import copy
import warnings

torch.manual_seed(0)
layer = nn.Linear(3, 2)
x = torch.randn(4, 3)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    old = nn.utils.weight_norm(copy.deepcopy(layer))
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")
print([name for name, _ in old.named_parameters()])

# %% weight-norm-old-checks tags=["remove-cell"]
assert [w.category for w in caught] == [FutureWarning]
assert str(caught[0].message).startswith(
    "`torch.nn.utils.weight_norm` is deprecated in favor of "
    "`torch.nn.utils.parametrizations.weight_norm`"
)

# %% weight-norm-new
from torch.nn.utils import parametrize
from torch.nn.utils.parametrizations import weight_norm

new = weight_norm(copy.deepcopy(layer))
for name, p in new.named_parameters():
    print(name, tuple(p.shape))
print(torch.allclose(new(x), old(x)), torch.allclose(new(x), layer(x)))

# %% weight-norm-new-checks tags=["remove-cell"]
g = new.parametrizations.weight.original0
v = new.parametrizations.weight.original1
# original0 is g (old weight_g), original1 is v (old weight_v)
assert torch.allclose(g, old.weight_g) and torch.allclose(v, old.weight_v)
# weight = g * v / ||v||, the norm taken over each output row (dim=0)
assert torch.allclose(new.weight, g * v / v.norm(dim=1, keepdim=True))
assert torch.allclose(g, layer.weight.norm(dim=1, keepdim=True))
assert torch.allclose(new(x), old(x)) and torch.allclose(new(x), layer(x))
# the gradients go to g and v; weight is computed, not a parameter
new(x).sum().backward()
assert g.grad is not None and v.grad is not None
assert "weight" not in dict(new.named_parameters())
assert parametrize.is_parametrized(new, "weight")

# %% weight-norm-load-old
loaded = weight_norm(nn.Linear(3, 2))
print(list(old.state_dict()))
print(loaded.load_state_dict(old.state_dict()))
print(torch.allclose(loaded(x), old(x)))

# %% weight-norm-load-old-checks tags=["remove-cell"]
assert list(loaded.state_dict()) == [
    "bias",
    "parametrizations.weight.original0",
    "parametrizations.weight.original1",
]
assert torch.equal(loaded.parametrizations.weight.original0, old.weight_g)
assert torch.equal(loaded.parametrizations.weight.original1, old.weight_v)

# %% weight-norm-remove
parametrize.remove_parametrizations(new, "weight")
print([name for name, _ in new.named_parameters()], type(new).__name__)
print(torch.allclose(new(x), layer(x)))

# %% weight-norm-remove-checks tags=["remove-cell"]
assert not parametrize.is_parametrized(new)
assert type(new) is nn.Linear and type(new.weight) is nn.Parameter
assert torch.allclose(new.weight, g * v / v.norm(dim=1, keepdim=True))

# %% lazy-before
lazy = nn.Sequential(nn.LazyLinear(4), nn.ReLU(), nn.LazyLinear(2))
print(lazy)
print(type(lazy[0].weight).__name__, lazy[0].weight)

# %% lazy-before-checks tags=["remove-cell"]
assert type(lazy[0].weight) is nn.UninitializedParameter
assert isinstance(lazy[0].weight, nn.Parameter)  # a subclass
assert lazy[0].in_features == 0 and lazy[0].out_features == 4
assert type(lazy[0]) is nn.LazyLinear
try:
    lazy[0].weight.shape
except RuntimeError as error:
    assert "Can't access the shape of an uninitialized parameter" in str(error)
else:
    raise AssertionError("an uninitialized parameter has a shape")
# nn.init cannot fill it either
try:
    nn.init.xavier_uniform_(lazy[0].weight)
except ValueError as error:
    assert "Attempted to use an uninitialized parameter" in str(error)
else:
    raise AssertionError("nn.init filled an uninitialized parameter")

# %% lazy-count raises="ValueError: Attempted to use an uninitialized parameter in <method 'numel' of …"
sum(p.numel() for p in lazy.parameters())

# %% lazy-dry-run
lazy(torch.zeros(1, 10))  # a dry run: in_features becomes 10
print(lazy)
print(type(lazy[0].weight).__name__, tuple(lazy[0].weight.shape))
print(sum(p.numel() for p in lazy.parameters()))
optimizer = torch.optim.Adam(lazy.parameters(), lr=1e-3)

# %% lazy-dry-run-checks tags=["remove-cell"]
assert type(lazy[0]) is nn.Linear and lazy[0].in_features == 10
assert type(lazy[2]) is nn.Linear and lazy[2].in_features == 4
assert type(lazy[0].weight) is nn.Parameter
assert lazy[0].weight.shape == (4, 10)
assert sum(p.numel() for p in lazy.parameters()) == 10 * 4 + 4 + 4 * 2 + 2
# the in_features are fixed now: another width fails
try:
    lazy(torch.zeros(1, 7))
except RuntimeError as error:
    assert "cannot be multiplied" in str(error)
else:
    raise AssertionError("a materialized LazyLinear took another width")

# %% lazy-optimizer-first
model = nn.Sequential(nn.LazyLinear(2))
weight = model[0].weight
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)  # before any forward
x = torch.randn(3, 5)
model(x).sum().backward()
before = model[0].weight.detach().clone()
optimizer.step()
print(type(weight).__name__, model[0].weight is weight)
print(optimizer.param_groups[0]["params"][0] is weight)
print(torch.equal(model[0].weight, before))  # False: the step updated it

# %% lazy-optimizer-first-checks tags=["remove-cell"]
# the same object, turned into a Parameter in place by the first forward
assert model[0].weight is weight and type(weight) is nn.Parameter
assert optimizer.param_groups[0]["params"][0] is weight
assert not torch.equal(model[0].weight, before)
assert torch.allclose(model[0].weight, before - 0.1 * model[0].weight.grad)
# Adam too; Adagrad, which creates its state when it is built, fails
late = nn.Sequential(nn.LazyLinear(2))
adam = torch.optim.Adam(late.parameters(), lr=0.1)
late(x).sum().backward()
start = late[0].weight.detach().clone()
adam.step()
assert not torch.equal(late[0].weight, start)
try:
    torch.optim.Adagrad(nn.LazyLinear(2).parameters())
except ValueError as error:
    assert "Attempted to use an uninitialized parameter" in str(error)
else:
    raise AssertionError("Adagrad took an uninitialized parameter")
# .to() before the dry run: the parameters are created in that dtype
converted = nn.LazyLinear(2).to(torch.float64)
converted(torch.zeros(1, 5, dtype=torch.float64))
assert converted.weight.dtype == torch.float64

# %% given-copy
import torch.nn.functional as F

torch.manual_seed(0)
linear = nn.Linear(3, 2)
optimizer = torch.optim.SGD(linear.parameters(), lr=0.1)
given = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])  # values to put in
weight = linear.weight
with torch.no_grad():
    linear.weight.copy_(given)
print(linear.weight)
print(linear.weight is weight)  # the same Parameter object
linear(torch.ones(1, 3)).sum().backward()
optimizer.step()
print(torch.equal(linear.weight, given))  # False: the optimizer updated it

# %% given-copy-checks tags=["remove-cell"]
assert linear.weight is weight and type(weight) is nn.Parameter
assert optimizer.param_groups[0]["params"][0] is linear.weight
assert linear.weight.requires_grad and linear.weight.grad_fn is None
assert torch.allclose(linear.weight, given - 0.1 * linear.weight.grad)
assert not torch.equal(linear.weight, given)
# copy_ also converts: float64 values go into the float32 parameter
with torch.no_grad():
    linear.weight.copy_(given.double())
assert linear.weight.dtype == torch.float32 and torch.equal(linear.weight, given)
# the shape must match, or broadcast to the parameter's
try:
    with torch.no_grad():
        linear.weight.copy_(torch.zeros(3, 2))
except RuntimeError as error:
    assert "must match the size" in str(error)
else:
    raise AssertionError("copy_ took a tensor of another shape")
with torch.no_grad():
    linear.weight.copy_(torch.tensor([1.0, 2.0, 3.0]))  # broadcast over rows
assert torch.equal(linear.weight, torch.tensor([[1.0, 2, 3], [1, 2, 3]]))
with torch.no_grad():
    linear.weight.copy_(given)

# %% given-new-parameter
linear.weight = nn.Parameter(given.clone())  # a new Parameter object
held = optimizer.param_groups[0]["params"]
print(any(p is linear.weight for p in held))
linear.zero_grad()
linear(torch.ones(1, 3)).sum().backward()
optimizer.step()
print(torch.equal(linear.weight, given))  # True: nothing updated it

# %% given-new-parameter-checks tags=["remove-cell"]
assert not any(p is linear.weight for p in held)
assert held[0] is weight  # the optimizer still steps the old Parameter
assert linear.weight.grad is not None  # the gradient went to the new one
assert torch.equal(linear.weight, given)
assert [n for n, _ in linear.named_parameters()] == ["weight", "bias"]
# an optimizer built afterwards holds it and updates it
optimizer = torch.optim.SGD(linear.parameters(), lr=0.1)
optimizer.step()
assert not torch.equal(linear.weight, given)

# %% given-in-forward raises="TypeError: cannot assign 'torch.FloatTensor' as parameter 'weight' (torch.nn.Parameter or None expected)"
class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(2, 3))
        self.scale = nn.Parameter(torch.ones(2, 1))

    def forward(self, x):
        self.weight = self.weight * self.scale  # a tensor, not a Parameter
        return x @ self.weight.T


Scaled()(torch.randn(4, 3))

# %% given-in-forward-fix
class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(2, 3))
        self.scale = nn.Parameter(torch.ones(2, 1))

    def forward(self, x):
        weight = self.weight * self.scale  # a local: computed at each call
        return F.linear(x, weight)


scaled = Scaled()
scaled(torch.randn(4, 3)).sum().backward()
print([(name, p.grad is not None) for name, p in scaled.named_parameters()])

# %% given-in-forward-fix-checks tags=["remove-cell"]
assert [n for n, _ in scaled.named_parameters()] == ["weight", "scale"]
assert scaled.weight.grad is not None and scaled.scale.grad is not None
assert type(scaled.weight) is nn.Parameter  # forward left it as it was
x = torch.randn(4, 3)
assert torch.allclose(scaled(x), x @ (scaled.weight * scaled.scale).T)

# %% given-del
fixed = nn.Linear(3, 2)
del fixed.weight  # unregister the parameter first
fixed.register_buffer("weight", given.clone())  # now a fixed tensor
print([name for name, _ in fixed.named_parameters()])
print([name for name, _ in fixed.named_buffers()], list(fixed.state_dict()))
x = torch.ones(1, 3)
print(torch.equal(fixed(x), F.linear(x, given, fixed.bias)))

# %% given-del-checks tags=["remove-cell"]
assert [n for n, _ in fixed.named_parameters()] == ["bias"]
assert [n for n, _ in fixed.named_buffers()] == ["weight"]
assert list(fixed.state_dict()) == ["bias", "weight"]
assert not fixed.weight.requires_grad and type(fixed.weight) is torch.Tensor
assert torch.equal(fixed(x), F.linear(x, given, fixed.bias))
fixed.to(torch.float64)  # the buffer follows .to()
assert fixed.weight.dtype == torch.float64
# a plain tensor also goes in after del, but is neither saved nor converted
plain = nn.Linear(3, 2)
del plain.weight
plain.weight = given.clone()
assert [n for n, _ in plain.named_parameters()] == ["bias"]
assert list(plain.state_dict()) == ["bias"]
plain.to(torch.float64)
assert plain.weight.dtype == torch.float32 and plain.bias.dtype == torch.float64
