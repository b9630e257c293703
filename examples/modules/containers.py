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
