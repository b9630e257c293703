# %% [markdown]
# model.apply(fn) with nn.init.*_ functions sets weights; reset_parameters()
# brings back PyTorch's default initialisation; Module.to()/cpu() work in place

# %% [markdown] lang="zh"
# 用 `model.apply(fn)` 配合 `nn.init.*_` 函数设置权重；`reset_parameters()`
# 恢复 PyTorch 的默认初始化；`Module.to()`/`cpu()` 是原地操作

# %% model
import math
import warnings
import weakref

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, kernel_size=3)
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        x = torch.relu(self.conv(x)).mean(dim=(2, 3))
        return self.fc(x)


model = Net()

# %% old-init
def weights_init(m):
    if isinstance(m, nn.Conv2d):
        torch.nn.init.xavier_uniform(
            m.weight.data, nn.init.calculate_gain("relu")
        )
        m.bias.data.zero_()


model.apply(weights_init)

# %% init-fn
def init_weights(m):
    if isinstance(m, (nn.Conv2d, nn.Linear)):
        nn.init.xavier_uniform_(m.weight, gain=nn.init.calculate_gain("relu"))
        nn.init.zeros_(m.bias)


model.apply(init_weights)
print(nn.init.calculate_gain("relu"))
print(model.fc.bias, model.fc.weight.is_leaf, model.fc.weight.grad_fn)

# %% apply-order
model.apply(lambda m: print(type(m).__name__))

# %% inplace-leaf tags=["raises-exception"]
model.fc.bias.fill_(0.5)

# %% inplace-no-grad
with torch.no_grad():
    model.fc.bias.fill_(0.5)
print(model.fc.bias)

# %% reset
xavier_weight = model.fc.weight.detach().clone()
for m in model.modules():
    if hasattr(m, "reset_parameters"):
        m.reset_parameters()
print(torch.equal(model.fc.weight, xavier_weight))
print(model.fc.bias)

# %% reset-who
print([
    type(m).__name__ for m in model.modules() if hasattr(m, "reset_parameters")
])

# %% rebuild
model = Net()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
old_model = weakref.ref(model)
old_weight = weakref.ref(model.fc.weight)

model = Net()  # start over with a new model
print(old_model() is None, old_weight() is None)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
print(old_weight() is None)

# %% to-in-place
model = Net()
weight = model.fc.weight
model_f64 = model.to(torch.float64)
print(model_f64 is model, model.fc.weight.dtype)
print(model.fc.weight is weight)
print(model.cpu() is model)

# %% tensor-to
x = torch.ones(2)
print(x.to(torch.float64) is x, x.dtype)

# %% cuda-cpu tags=["requires-cuda"]
model = Net().to("cuda")
model_cpu = model.cpu()
assert model_cpu is model
assert model.fc.weight.device.type == "cpu"

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
net = Net()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    net.apply(weights_init)  # the deprecated form warns, and still initialises
assert [w.category for w in caught] == [FutureWarning]
assert "`nn.init.xavier_uniform` is now deprecated" in str(caught[0].message)
assert "xavier_uniform_" in str(caught[0].message)
for name in [
    "uniform", "normal", "xavier_normal", "kaiming_uniform", "kaiming_normal"
]:
    # all old names are deprecated
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        getattr(nn.init, name)(torch.empty(3, 3))
    assert [w.category for w in caught] == [FutureWarning]
    assert f"`nn.init.{name}` is now deprecated" in str(caught[0].message)
assert torch.equal(net.conv.bias, torch.zeros(4))
fan_in, fan_out = nn.init._calculate_fan_in_and_fan_out(net.conv.weight)
assert net.conv.weight.abs().max() <= math.sqrt(2) * math.sqrt(
    6 / (fan_in + fan_out)
)

net = Net()
net.apply(init_weights)
gain = nn.init.calculate_gain("relu")
assert math.isclose(gain, math.sqrt(2))
for layer in (net.conv, net.fc):
    fan_in, fan_out = nn.init._calculate_fan_in_and_fan_out(layer.weight)
    bound = gain * math.sqrt(6 / (fan_in + fan_out))
    assert layer.weight.abs().max() <= bound
    assert torch.equal(layer.bias, torch.zeros_like(layer.bias))
    assert layer.weight.is_leaf and layer.weight.requires_grad
    assert layer.weight.grad_fn is None
    assert type(layer.weight) is nn.Parameter

order = []
net.apply(lambda m: order.append(type(m).__name__))
# children first, the module itself last
assert order == ["Conv2d", "Linear", "Net"]

try:
    net.fc.bias.fill_(0.5)
except RuntimeError as error:
    message = "a leaf Variable that requires grad is being used in an " \
        "in-place operation"
    assert message in str(error)
else:
    raise AssertionError(
        "in-place change of a parameter outside no_grad should fail"
    )

# reset_parameters(): back to the default init, different from what was there
net = Net()
net.apply(init_weights)
old = {name: p.detach().clone() for name, p in net.named_parameters()}
ids = [id(p) for p in net.parameters()]
for m in net.modules():
    if hasattr(m, "reset_parameters"):
        m.reset_parameters()
assert [id(p) for p in net.parameters()] == ids  # the same Parameter objects
for name, p in net.named_parameters():
    assert not torch.equal(p, old[name])
for layer in (net.conv, net.fc):  # default: uniform within 1/sqrt(fan_in)
    fan_in, _ = nn.init._calculate_fan_in_and_fan_out(layer.weight)
    assert layer.weight.abs().max() <= 1 / math.sqrt(fan_in)
    assert layer.bias.abs().max() <= 1 / math.sqrt(fan_in)
    assert not torch.equal(layer.bias, torch.zeros_like(layer.bias))
assert [
    type(m).__name__ for m in net.modules() if hasattr(m, "reset_parameters")
] == ["Conv2d", "Linear"]
assert next(net.modules()) is net  # modules() yields the model itself first
assert not hasattr(net, "reset_parameters")
assert not hasattr(nn.Module(), "reset_parameters")
assert not hasattr(nn.ReLU(), "reset_parameters")

# an optimizer keeps its state across reset_parameters()
net = Net()
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
net(torch.randn(2, 1, 5, 5)).sum().backward()
opt.step()
for m in net.modules():
    if hasattr(m, "reset_parameters"):
        m.reset_parameters()
assert len(opt.state) == 4 and all(s["step"] == 1 for s in opt.state.values())

# BatchNorm's reset_parameters() also resets its running statistics
bn = nn.BatchNorm1d(2)
bn(torch.randn(4, 2) + 3)
bn.reset_parameters()
assert torch.equal(bn.running_mean, torch.zeros(2)) \
    and bn.num_batches_tracked == 0

assert old_model() is None and old_weight() is None
m = Net()
o = torch.optim.Adam(m.parameters(), lr=1e-3)
ref_m, ref_w = weakref.ref(m), weakref.ref(m.fc.weight)
m = Net()
# the old optimizer keeps them alive
assert ref_m() is None and ref_w() is not None
del o
assert ref_w() is None
assert all(p is not q for p, q in zip(Net().parameters(), model.parameters()))
a, b = Net(), Net()
assert all(p is not q for p, q in zip(a.parameters(), b.parameters()))

m = Net()
w = m.fc.weight
assert m.to(torch.float64) is m and m.cpu() is m and m.double() is m
assert m.fc.weight is w and w.dtype == torch.float64  # converted in place
assert m.conv.weight.dtype == torch.float64
t = torch.ones(2)
assert t.to(torch.float64) is not t and t.dtype == torch.float32
assert t.to(torch.float32) is t  # nothing to do: the same tensor

# %% xavier-kaiming
layer = nn.Linear(256, 256)
nn.init.kaiming_normal_(layer.weight, nonlinearity="relu")
print(f"{layer.weight.std():.4f} {math.sqrt(2 / 256):.4f}")
nn.init.xavier_normal_(layer.weight)
print(f"{layer.weight.std():.4f} {math.sqrt(2 / (256 + 256)):.4f}")

# %% xavier-kaiming-checks tags=["remove-cell"]
w = torch.empty(256, 256)
nn.init.kaiming_normal_(w, nonlinearity="relu")
assert abs(w.std().item() - math.sqrt(2 / 256)) < 0.002  # gain √2 / √fan_in
nn.init.xavier_normal_(w)
assert abs(w.std().item() - math.sqrt(2 / 512)) < 0.002  # √(2 / (in + out))
assert math.isclose(layer.weight.std().item(), math.sqrt(2 / 512), rel_tol=0.02)
# mode="fan_out" scales by the output size instead
w = torch.empty(64, 256)  # Linear(256, 64): fan_in 256, fan_out 64
nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
assert abs(w.std().item() - math.sqrt(2 / 64)) < 0.01
# PyTorch's default for Linear: kaiming_uniform_ with a=√5, std 1/√(3·fan_in)
torch.manual_seed(1)
default = nn.Linear(256, 256)
torch.manual_seed(1)
w = torch.empty(256, 256)
nn.init.kaiming_uniform_(w, a=math.sqrt(5))
assert torch.equal(default.weight, w)
assert abs(w.std().item() - 1 / math.sqrt(3 * 256)) < 0.002

# %% deep-relu
def output_std(init):
    layers = [nn.Linear(256, 256) for _ in range(10)]
    x = torch.randn(512, 256)
    with torch.no_grad():
        for layer in layers:
            if init is not None:
                init(layer.weight)
            nn.init.zeros_(layer.bias)
            x = torch.relu(layer(x))
    return x.std().item()


def kaiming_relu(w):
    nn.init.kaiming_normal_(w, nonlinearity="relu")


inits = {
    "default": None,
    "xavier_normal_": nn.init.xavier_normal_,
    "kaiming_normal_": kaiming_relu,
}
stds = {name: output_std(init) for name, init in inits.items()}
for name, std in stds.items():
    print(f"{name:<16} {std:.6f}")

# %% deep-relu-checks tags=["remove-cell"]
# Kaiming keeps the scale through 10 ReLU layers; Xavier halves the
# variance at each (about 2 ** -5 = 1/32 of the std), the default loses more
assert 0.4 < stds["kaiming_normal_"] < 1.5
assert stds["xavier_normal_"] < stds["kaiming_normal_"] / 16
assert stds["default"] < stds["xavier_normal_"] / 16
# ReLU zeroes half of a symmetric input: half of the mean square is left
z = torch.randn(100_000)
assert abs(torch.relu(z).pow(2).mean().item() - 0.5) < 0.01
# a convolution's fan in counts the kernel: in_channels * kernel height * width
conv = nn.Conv2d(3, 8, kernel_size=5)
assert nn.init._calculate_fan_in_and_fan_out(conv.weight) == (3 * 25, 8 * 25)
# Conv2d's default is the same kaiming_uniform_(a=√5) as Linear's
torch.manual_seed(2)
conv = nn.Conv2d(3, 8, kernel_size=5)
torch.manual_seed(2)
w = torch.empty(8, 3, 5, 5)
nn.init.kaiming_uniform_(w, a=math.sqrt(5))
assert torch.equal(conv.weight, w)
# with BatchNorm after each layer the default init keeps the scale too
with torch.no_grad():
    h = torch.randn(512, 256)
    for _ in range(10):
        h = torch.relu(nn.BatchNorm1d(256)(nn.Linear(256, 256)(h)))
assert 0.4 < h.std().item() < 1.5

# %% default-bounds
layers = {
    "Linear(64, 8)": nn.Linear(64, 8),
    "Conv2d(3, 8, 3)": nn.Conv2d(3, 8, kernel_size=3),
}
for name, layer in layers.items():
    fan_in = layer.weight[0].numel()  # inputs of one output: 64, 3 * 3 * 3
    bound = 1 / math.sqrt(fan_in)
    print(f"{name}: fan_in {fan_in}, bound {bound:.4f}")
    print(f"  max |weight| {layer.weight.abs().max():.4f}, "
          f"max |bias| {layer.bias.abs().max():.4f}")

# %% default-bounds-checks tags=["remove-cell"]
for layer in layers.values():
    fan_in, _ = nn.init._calculate_fan_in_and_fan_out(layer.weight)
    assert fan_in == layer.weight[0].numel()
    bound = 1 / math.sqrt(fan_in)
    assert layer.weight.abs().max() <= bound
    assert layer.bias.abs().max() <= bound
assert layers["Linear(64, 8)"].weight[0].numel() == 64
assert layers["Conv2d(3, 8, 3)"].weight[0].numel() == 27
# the draws themselves: kaiming_uniform_(a=√5), then uniform(±1/√fan_in)
for make, shape in ((lambda: nn.Linear(64, 8), (8, 64)),
                    (lambda: nn.Conv2d(3, 8, 3), (8, 3, 3, 3))):
    torch.manual_seed(3)
    layer = make()
    torch.manual_seed(3)
    w = torch.empty(shape)
    nn.init.kaiming_uniform_(w, a=math.sqrt(5))
    fan_in = w[0].numel()
    b = torch.empty(8).uniform_(-1 / math.sqrt(fan_in), 1 / math.sqrt(fan_in))
    assert torch.equal(layer.weight, w) and torch.equal(layer.bias, b)
    # a=√5 gives the gain √(1/3): the weight bound is 1/√fan_in too
    gain = nn.init.calculate_gain("leaky_relu", math.sqrt(5))
    assert math.isclose(gain * math.sqrt(3 / fan_in), 1 / math.sqrt(fan_in))
# the bias fills its range: near the bound in a large layer
wide = nn.Linear(64, 1000)
assert wide.bias.abs().max() > 0.95 / 8

# %% init-biases-only
model = nn.Sequential(
    nn.Linear(8, 16), nn.LayerNorm(16), nn.ReLU(), nn.Linear(16, 2, bias=False)
)


def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight)
        if m.bias is not None:  # bias=False leaves None
            nn.init.zeros_(m.bias)


model.apply(init_weights)
print("Linear bias:     ", model[0].bias[:4].tolist())
print("LayerNorm weight:", model[1].weight[:4].tolist())  # untouched
print("LayerNorm bias:  ", model[1].bias[:4].tolist())

# %% init-biases-only-checks tags=["remove-cell"]
assert torch.equal(model[0].bias, torch.zeros(16))
assert model[3].bias is None
assert torch.equal(model[1].weight, torch.ones(16))
assert torch.equal(model[1].bias, torch.zeros(16))
for i in (0, 3):
    fan_out, fan_in = model[i].weight.shape
    assert model[i].weight.abs().max() <= math.sqrt(6 / (fan_in + fan_out))
# without the None test, zeros_ fails on bias=False
try:
    nn.init.zeros_(model[3].bias)
except AttributeError:
    pass
else:
    raise AssertionError("zeros_(None) passed")

# %% init-1d-wrong
def zero_1d(m):  # wrong: LayerNorm's weight is 1-D too
    for p in m.parameters(recurse=False):
        if p.dim() == 1:
            nn.init.zeros_(p)


broken = nn.Sequential(
    nn.Linear(8, 16), nn.LayerNorm(16), nn.ReLU(), nn.Linear(16, 2, bias=False)
)
broken.apply(zero_1d)
x = torch.randn(4, 8)
y = broken(x)
y.sum().backward()
print("LayerNorm weight:", broken[1].weight[:4].tolist())
print(y.detach())  # zero for every input
print(broken[0].weight.grad.abs().max())  # nothing reaches the first layer

# %% init-1d-wrong-checks tags=["remove-cell"]
assert torch.equal(broken[1].weight, torch.zeros(16))
assert torch.equal(y, torch.zeros(4, 2))
assert torch.equal(broken(torch.randn(9, 8) * 5), torch.zeros(9, 2))
assert torch.equal(broken[0].weight.grad, torch.zeros(16, 8))
# the model built with init_weights above: its first layer gets gradients
model(x).sum().backward()
assert model[0].weight.grad.abs().max() > 0
assert not torch.equal(model(x), torch.zeros(4, 2))
assert nn.BatchNorm1d(16).weight.dim() == 1  # 1-D as well
# selecting by name: only the biases become zero
by_name = nn.Sequential(nn.Linear(8, 16), nn.LayerNorm(16))
with torch.no_grad():
    for name, p in by_name.named_parameters():
        if name.endswith("bias"):
            p.zero_()
assert torch.equal(by_name[1].weight, torch.ones(16))
assert torch.equal(by_name[0].bias, torch.zeros(16))
