# %% [markdown]
# F.relu and nn.ReLU compute the same; a module also shows in
# the model, takes hooks and follows train() and eval(), which
# F.dropout does not

# %% [markdown] lang="zh"
# `F.relu` 与 `nn.ReLU` 算的是同一个东西；模块还会出现在模型结构里、
# 能挂 hook、跟着 `train()` 和 `eval()` 切换，而 `F.dropout` 不会

# %% same-result
import torch
import torch.nn.functional as F
from torch import nn

x = torch.tensor([-1.0, 0.5, 2.0])
print(F.relu(x))
print(nn.ReLU()(x))

# %% same-result-checks tags=["remove-cell"]
import inspect

assert torch.equal(F.relu(x), nn.ReLU()(x))
assert "F.relu(" in inspect.getsource(nn.ReLU.forward)  # the module calls F.relu
assert torch.equal(F.relu(x), torch.relu(x))

# %% in-the-model
class Functional(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        return F.relu(self.fc(x))


class WithModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.fc(x))


print(Functional())
print(WithModule())

# %% in-the-model-checks tags=["remove-cell"]
assert [name for name, _ in Functional().named_modules()] == ["", "fc"]
assert [name for name, _ in WithModule().named_modules()] == ["", "fc", "act"]
# nn.ReLU has no parameters: both models have the same ones
assert [n for n, _ in Functional().named_parameters()] == [
    n for n, _ in WithModule().named_parameters()
]
assert list(nn.ReLU().parameters()) == []

# %% hook
model = WithModule()
seen = {}
model.act.register_forward_hook(
    lambda module, args, output: seen.update(act=output)
)
y = model(torch.randn(4, 3))
print(seen["act"].shape, torch.equal(seen["act"], y))

# %% hook-checks tags=["remove-cell"]
assert seen["act"].shape == (4, 2) and (seen["act"] >= 0).all()

# %% dropout-eval
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 32)

    def forward(self, x):
        return F.dropout(self.fc(x), p=0.5)  # training=True by default


model = Net().eval()
x = torch.randn(1, 8)
print(torch.equal(model(x), model(x)))  # still random in eval mode

# %% dropout-eval-checks tags=["remove-cell"]
assert inspect.signature(F.dropout).parameters["training"].default is True
assert inspect.signature(F.batch_norm).parameters["training"].default is False
zeros = [(model(x) == 0).sum().item() for _ in range(20)]
assert max(zeros) > 0  # units dropped after eval()

# %% dropout-eval-fix
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 32)
        self.drop = nn.Dropout(0.5)  # follows train() and eval()

    def forward(self, x):
        return self.drop(self.fc(x))
        # or: F.dropout(self.fc(x), p=0.5, training=self.training)


model = Net().eval()
print(torch.equal(model(x), model(x)))

# %% dropout-eval-fix-checks tags=["remove-cell"]
assert torch.equal(model(x), model.fc(x))  # eval: dropout does nothing
model.train()
assert not torch.equal(model(x), model(x))


class NetFlag(Net):
    def forward(self, x):
        return F.dropout(self.fc(x), p=0.5, training=self.training)


flagged = NetFlag().eval()
assert torch.equal(flagged(x), flagged.fc(x))

# %% weights
linear = nn.Linear(3, 2)
x = torch.randn(4, 3)
print(torch.equal(F.linear(x, linear.weight, linear.bias), linear(x)))
print([name for name, _ in linear.named_parameters()])

# %% weights-checks tags=["remove-cell"]
assert torch.equal(F.linear(x, linear.weight, linear.bias), linear(x))
assert "F.linear(" in inspect.getsource(nn.Linear.forward)
# the in-place flag is the same on both sides
assert nn.ReLU(inplace=True).inplace
y = torch.tensor([-1.0, 2.0])
assert F.relu(y, inplace=True) is y and y.tolist() == [0.0, 2.0]
# nn.Sequential takes modules only
try:
    nn.Sequential(nn.Linear(3, 2), F.relu)
except TypeError as error:
    assert "is not a Module subclass" in str(error), error
else:
    raise AssertionError("nn.Sequential took a function")
assert nn.LeakyReLU(0.1).negative_slope == 0.1
# eager-mode quantization fuses modules by their names
from torch.ao.quantization import fuse_modules

assert "modules_to_fuse" in inspect.signature(fuse_modules).parameters

# %% deprecated-activations
import warnings

x = torch.tensor([-2.0, 0.0, 2.0])
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    y_sigmoid = F.sigmoid(x)
    y_tanh = F.tanh(x)
print(len(caught), "warnings")
print(torch.equal(y_sigmoid, torch.sigmoid(x)))
print(torch.equal(y_tanh, torch.tanh(x)))

# %% deprecated-activations-checks tags=["remove-cell"]
assert caught == []
assert torch.equal(y_sigmoid, torch.sigmoid(x))
assert torch.equal(y_tanh, torch.tanh(x))
assert torch.equal(nn.Sigmoid()(x), y_sigmoid) and torch.equal(nn.Tanh()(x), y_tanh)
assert "deprecated" not in (F.sigmoid.__doc__ + F.tanh.__doc__).lower()

# %% deprecated-upsample
image = torch.arange(4.0).reshape(1, 1, 2, 2)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    old = F.upsample(image, scale_factor=2, mode="nearest")
    old_bilinear = F.upsample_bilinear(image, scale_factor=2)
for w in caught:
    print(f"{w.category.__name__}: {w.message}")
new = F.interpolate(image, scale_factor=2, mode="nearest")
print(torch.equal(old, new))
# upsample_bilinear aligns the corners
new_bilinear = F.interpolate(image, scale_factor=2, mode="bilinear",
                             align_corners=True)
print(torch.equal(old_bilinear, new_bilinear))

# %% deprecated-upsample-checks tags=["remove-cell"]
assert len(caught) == 2
assert all(w.category is UserWarning for w in caught)
assert "nn.functional.upsample` is deprecated" in str(caught[0].message)
assert "nn.functional.upsample_bilinear` is deprecated" in str(caught[1].message)
assert all("nn.functional.interpolate" in str(w.message) for w in caught)
assert torch.equal(old, new) and torch.equal(old_bilinear, new_bilinear)
# the default align_corners=False gives other numbers
assert not torch.equal(
    old_bilinear, F.interpolate(image, scale_factor=2, mode="bilinear")
)
with warnings.catch_warnings(record=True) as caught_nearest:
    warnings.simplefilter("always")
    old_nearest = F.upsample_nearest(image, scale_factor=2)
assert "nn.functional.upsample_nearest` is deprecated" in str(
    caught_nearest[0].message)
assert torch.equal(old_nearest, new)

# %% upsample-module
with warnings.catch_warnings(record=True) as caught_module:
    warnings.simplefilter("always")
    y_module = nn.Upsample(scale_factor=2, mode="nearest")(image)
print(len(caught_module), "warnings", torch.equal(y_module, new))

# %% upsample-module-checks tags=["remove-cell"]
assert caught_module == [] and torch.equal(y_module, new)
assert "F.interpolate(" in inspect.getsource(nn.Upsample.forward)
