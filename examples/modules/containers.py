# %% [markdown]
# nn.Sequential chains its layers; nn.ModuleList and nn.ModuleDict
# only hold them; a plain list or dict hides them from the model

# %% [markdown] lang="zh"
# `nn.Sequential` 把层串起来执行；`nn.ModuleList` 和 `nn.ModuleDict`
# 只负责装；普通的 list 或 dict 会让这些层从模型里“消失”

# %% plain-list
import torch
from torch import nn


class PlainList(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = [nn.Linear(4, 4), nn.Linear(4, 2)]  # a Python list

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class WithModuleList(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(4, 4), nn.Linear(4, 2)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


for model in (PlainList(), WithModuleList()):
    model.to(torch.float64)
    count = len(list(model.parameters()))
    keys = len(model.state_dict())
    dtype = model.layers[0].weight.dtype  # after .to(torch.float64)
    print(f"{type(model).__name__}: {count} parameters, {keys} keys, {dtype}")

# %% plain-list-checks tags=["remove-cell"]
plain, registered = PlainList(), WithModuleList()
assert list(plain.parameters()) == [] and plain.state_dict() == {}
assert len(list(registered.parameters())) == 4
assert list(registered.state_dict()) == [
    "layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias"
]
plain.to(torch.float64)
registered.to(torch.float64)
assert plain.layers[0].weight.dtype == torch.float32  # not moved
assert registered.layers[0].weight.dtype == torch.float64
# the plain list still computes: nothing fails until training or loading
assert plain(torch.randn(3, 4)).shape == (3, 2)
# print(model) does not list them either
assert "Linear" not in repr(plain) and "Linear" in repr(registered)
# loading a saved model reports keys the plain list does not know
try:
    PlainList().load_state_dict(WithModuleList().state_dict())
except RuntimeError as error:
    assert "Unexpected key(s)" in str(error), error
else:
    raise AssertionError("load_state_dict took unknown keys")


class Mixed(PlainList):
    def __init__(self):
        super().__init__()
        self.out = nn.Linear(2, 2)  # registered beside the plain list


# no error: the optimizer silently trains only self.out
optimizer = torch.optim.SGD(Mixed().parameters(), lr=0.1)
assert len(optimizer.param_groups[0]["params"]) == 2
# nn.ParameterList and nn.ParameterDict register parameters the same way
holder = nn.Module()
holder.plain = [nn.Parameter(torch.zeros(2))]
holder.listed = nn.ParameterList([nn.Parameter(torch.zeros(2))])
holder.named = nn.ParameterDict({"a": nn.Parameter(torch.zeros(2))})
assert [name for name, _ in holder.named_parameters()] == ["listed.0", "named.a"]

# %% plain-dict
class Heads(nn.Module):
    def __init__(self, registered):
        super().__init__()
        heads = {"age": nn.Linear(8, 1), "label": nn.Linear(8, 5)}
        self.heads = nn.ModuleDict(heads) if registered else heads

    def forward(self, x, task):
        return self.heads[task](x)


print(len(list(Heads(registered=False).parameters())))
print(len(list(Heads(registered=True).parameters())))
print(list(Heads(registered=True).state_dict()))

# %% plain-dict-checks tags=["remove-cell"]
assert list(Heads(registered=False).parameters()) == []
assert len(list(Heads(registered=True).parameters())) == 4
assert Heads(registered=True)(torch.randn(3, 8), "label").shape == (3, 5)

# %% sequential
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
x = torch.randn(3, 4)
print(model(x).shape)
print(torch.equal(model(x), model[2](model[1](model[0](x)))))

# %% sequential-checks tags=["remove-cell"]
assert model(x).shape == (3, 2)
assert torch.equal(model(x), model[2](model[1](model[0](x))))

# %% module-list-no-forward raises="NotImplementedError: Module [ModuleList] is missing the required \"forward\" function"
layers = nn.ModuleList([nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)])
layers(x)

# %% module-list-loop
class Residual(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.blocks = nn.ModuleList(
            nn.Linear(width, width) for _ in range(depth)
        )

    def forward(self, x):
        outputs = []
        for block in self.blocks:
            x = x + torch.relu(block(x))  # a skip connection
            outputs.append(x)
        return x, outputs  # and every block's output


model = Residual(width=4, depth=3)
y, outputs = model(torch.randn(2, 4))
print(y.shape, len(outputs))

# %% module-list-loop-checks tags=["remove-cell"]
assert y.shape == (2, 4) and len(outputs) == 3
assert torch.equal(outputs[-1], y)
assert len(list(model.parameters())) == 6

# %% indexing
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
print(model[0])
print(model[-1])
features = model[:2]  # a Sequential of the same layers
print(features)
print(features[0] is model[0])

# %% indexing-checks tags=["remove-cell"]
assert isinstance(features, nn.Sequential) and len(features) == 2
assert features[0] is model[0] and features[1] is model[1]
assert features(x).shape == (3, 8)
assert isinstance(model[-1], nn.Linear) and model[-1].out_features == 2

# %% named
from collections import OrderedDict

model = nn.Sequential(OrderedDict([
    ("encoder", nn.Linear(4, 8)),
    ("act", nn.ReLU()),
    ("head", nn.Linear(8, 2)),
]))
print(model.head)
print(list(model.state_dict()))

# %% named-checks tags=["remove-cell"]
assert model.head is model[2]
assert list(model.state_dict()) == [
    "encoder.weight", "encoder.bias", "head.weight", "head.bias"
]

# %% adding
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
model.append(nn.Linear(8, 2))  # named "2"
model.add_module("softmax", nn.Softmax(dim=1))  # named "softmax"
print(model)
print(model(x).shape)

layers = nn.ModuleList([nn.Linear(4, 4)])
layers.append(nn.Linear(4, 4))
layers.extend([nn.Linear(4, 4), nn.Linear(4, 2)])
print(len(layers), len(list(layers.parameters())))

# %% adding-checks tags=["remove-cell"]
assert [name for name, _ in model.named_children()] == ["0", "1", "2", "softmax"]
assert model(x).shape == (3, 2)
assert torch.allclose(model(x).sum(dim=1), torch.ones(3))
assert len(layers) == 4 and len(list(layers.parameters())) == 8

# %% replace-naive
class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.linear = nn.Linear(width, width)
        self.act = nn.SiLU()

    def forward(self, x):
        return self.act(self.linear(x))


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.SiLU(), Block(8), Block(8),
                      nn.Linear(8, 2))
x = torch.randn(3, 4)
before = model(x)
for module in model.modules():
    if isinstance(module, nn.SiLU):
        module = nn.ReLU()  # rebinds the loop variable, nothing else
print([name for name, m in model.named_modules() if isinstance(m, nn.SiLU)])
print(torch.equal(model(x), before))

# %% replace-naive-checks tags=["remove-cell"]
silu_names = ["1", "2.act", "3.act"]
assert [n for n, m in model.named_modules() if isinstance(m, nn.SiLU)] == silu_names
assert torch.equal(model(x), before)
params_before = list(model.parameters())
# setattr on the model with the dotted name adds a module called "2.act"
import copy

wrong = copy.deepcopy(model)
setattr(wrong, "2.act", nn.ReLU())
assert isinstance(wrong[2].act, nn.SiLU) and "2.act" in dict(wrong.named_children())
assert torch.equal(wrong(x), torch.relu(before))  # run as one more layer

# %% replace-fix
def replace(model, old, make_new):
    for name, module in list(model.named_modules()):
        if isinstance(module, old):
            parent_name, _, child_name = name.rpartition(".")
            parent = model.get_submodule(parent_name)  # "" is the model
            setattr(parent, child_name, make_new())
    return model


replace(model, nn.SiLU, nn.ReLU)
print([name for name, m in model.named_modules() if isinstance(m, nn.SiLU)])
print([name for name, m in model.named_modules() if isinstance(m, nn.ReLU)])
print(torch.equal(model(x), before))
h = torch.relu(model[0](x))
h = torch.relu(model[2].linear(h))
h = torch.relu(model[3].linear(h))
print(torch.equal(model(x), model[4](h)))  # the same as ReLU by hand

# %% replace-fix-checks tags=["remove-cell"]
assert not any(isinstance(m, nn.SiLU) for m in model.modules())
relu_names = [n for n, m in model.named_modules() if isinstance(m, nn.ReLU)]
assert relu_names == silu_names
assert not torch.equal(model(x), before)
assert torch.equal(model(x), model[4](h))
# the parameters are kept: only the activations changed
assert len(params_before) == 8
assert all(a is b for a, b in zip(model.parameters(), params_before, strict=True))


# the recursive named_children version does the same
def replace_recursive(module, old, make_new):
    for name, child in module.named_children():
        if isinstance(child, old):
            setattr(module, name, make_new())
        else:
            replace_recursive(child, old, make_new)


torch.manual_seed(0)
other = nn.Sequential(nn.Linear(4, 8), nn.SiLU(), Block(8), Block(8),
                      nn.Linear(8, 2))
replace_recursive(other, nn.SiLU, nn.ReLU)
assert not any(isinstance(m, nn.SiLU) for m in other.modules())
assert torch.equal(other(x), model(x))


# an activation called as a function in forward is no module: nothing replaces it
class Functional(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, x):
        return torch.nn.functional.silu(self.linear(x))


functional = Functional()
y_before = functional(x)
replace(functional, nn.SiLU, nn.ReLU)
assert torch.equal(functional(x), y_before)

# %% dotted-name raises="KeyError: 'module name can…t contain \".\", got: block.1'"
layers = {"block.1": nn.Linear(4, 8), "block.2": nn.Linear(8, 2)}
model = nn.Module()
for name, layer in layers.items():
    model.add_module(name, layer)

# %% dotted-dict raises="KeyError: 'module name can…t contain \".\", got: block.1'"
nn.ModuleDict(layers)

# %% dotted-dict-checks tags=["remove-cell"]
for register, kind in ((lambda m: m.register_buffer("a.b", torch.zeros(1)),
                        "buffer"),
                       (lambda m: m.register_parameter(
                           "a.b", nn.Parameter(torch.zeros(1))), "parameter"),
                       (lambda m: m.register_module("a.b", nn.ReLU()),
                        "module")):
    try:
        register(nn.Module())
    except KeyError as error:
        assert str(error).startswith(f"'{kind} name can"), error
        assert 'contain "."' in str(error), error
    else:
        raise AssertionError(f"{kind} name with a dot accepted")

# %% dotted-fix
flat = nn.Module()
for name, layer in layers.items():
    flat.add_module(name.replace(".", "_"), layer)
print(list(flat.state_dict()))

nested = nn.Module()
nested.block = nn.ModuleDict({"1": layers["block.1"], "2": layers["block.2"]})
print(list(nested.state_dict()))

# %% dotted-fix-checks tags=["remove-cell"]
assert list(flat.state_dict()) == [
    "block_1.weight", "block_1.bias", "block_2.weight", "block_2.bias"]
assert list(nested.state_dict()) == [
    "block.1.weight", "block.1.bias", "block.2.weight", "block.2.bias"]
assert nested.get_submodule("block.1") is layers["block.1"]
assert nested.block["2"] is flat.block_2
