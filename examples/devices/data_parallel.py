# %% [markdown]
# nn.DataParallel keeps the model in .module: attributes, methods and state_dict
# keys go through it. Without GPUs it simply calls the module

# %% [markdown] lang="zh"
# `nn.DataParallel` 把模型放在 `.module` 里：属性、方法和 `state_dict`
# 的键都要经过它来访问。没有 GPU 时，它只是直接调用该模块

# %% setup
import re

import torch
from torch import nn
from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present

device = "cuda" if torch.cuda.is_available() else "cpu"


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.scale = 2.0

    def forward(self, x):
        return self.fc(x) * self.scale

    def describe(self):
        return f"Net with scale {self.scale}"


model = Net().to(device)  # parameters must be on device_ids[0] before wrapping
dp_model = nn.DataParallel(model)
print(dp_model.module is model, dp_model.device_ids)
y = dp_model(torch.randn(4, 3, device=device))
print(y.shape)

# %% method-missing tags=["raises-exception"]
dp_model.describe()

# %% attribute-missing tags=["raises-exception"]
dp_model.scale

# %% through-module
print(dp_model.module.describe())
print(dp_model.module.scale, dp_model.module.fc)

# %% forwarding-subclass
class ForwardingDataParallel(nn.DataParallel):
    def __getattr__(self, name):
        try:
            return super().__getattr__(name)  # the wrapper's own: .module, ...
        except AttributeError:
            return getattr(self.module, name)


fwd_model = ForwardingDataParallel(model)
print(fwd_model.describe(), fwd_model.scale)

# %% state-dict-keys
print(list(dp_model.state_dict()))
print(list(dp_model.module.state_dict()))

# %% load-prefixed tags=["raises-exception"]
plain = Net()
plain.load_state_dict(dp_model.state_dict())

# %% strip-prefix
state_dict = dp_model.state_dict()
consume_prefix_in_state_dict_if_present(state_dict, "module.")  # in place
print(list(state_dict))
plain.load_state_dict(state_dict)
same = {k.removeprefix("module."): v for k, v in dp_model.state_dict().items()}
print(list(same))

# %% ddp-recommended
advice = re.search(
    r"It is recommended.*?\.\s", nn.DataParallel.__doc__, re.S
)[0]
print(" ".join(advice.split()))

# %% scatter tags=["requires-cuda"]
class WhereAmI(nn.Module):
    def forward(self, x):
        # each replica answers with the GPU its chunk of the batch is on
        return torch.full((len(x),), x.get_device(), device=x.device)


gpus = torch.cuda.device_count()
where = nn.DataParallel(WhereAmI())
out = where(torch.zeros(2 * gpus, 3))  # a CPU batch: scattered over the GPUs
print(where.device_ids, out)
assert where.device_ids == list(range(gpus))
assert out.device == torch.device("cuda", 0)  # gathered on device_ids[0]
assert torch.equal(out.cpu(), torch.arange(gpus).repeat_interleave(2))

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
assert dp_model.module is model
if not torch.cuda.is_available():
    assert dp_model.device_ids == []  # no GPU: forward just calls the module
assert y.shape == (4, 2)
for name in ("describe", "scale", "fc"):
    try:
        getattr(dp_model, name)
    except AttributeError as error:
        assert f"'DataParallel' object has no attribute '{name}'" in str(error)
    else:
        raise AssertionError(f"DataParallel should not forward .{name}")
assert dp_model.module.describe() == "Net with scale 2.0"
assert fwd_model.describe() == "Net with scale 2.0" and fwd_model.scale == 2.0
assert fwd_model.module is model  # the wrapper's own attributes still win

assert list(dp_model.state_dict()) == ["module.fc.weight", "module.fc.bias"]
assert list(dp_model.module.state_dict()) == ["fc.weight", "fc.bias"]
try:
    Net().load_state_dict(dp_model.state_dict())
except RuntimeError as error:
    assert "Missing key(s)" in str(error) and "Unexpected key(s)" in str(error)
    assert '"module.fc.weight"' in str(error)
else:
    raise AssertionError("loading module.-prefixed keys should fail")
assert list(state_dict) == list(same) == ["fc.weight", "fc.bias"]
for p, q in zip(plain.state_dict().values(), model.state_dict().values()):
    assert torch.equal(p, q.cpu())  # the stripped keys loaded the same weights
assert "DistributedDataParallel" in advice and "instead of this class" in advice
assert "must have its parameters and buffers on" in nn.DataParallel.__doc__
assert "``device_ids[0]``" in nn.DataParallel.__doc__

# %% misplaced
from itertools import chain


def misplaced(model, device):
    # the parameters and buffers that are not on the device
    return [(name, t.device) for name, t in chain(model.named_parameters(),
                                                  model.named_buffers())
            if t.device != torch.device(device)]


net = nn.Sequential()
net.add_module("a", nn.Linear(3, 4))
net.to("meta")  # "meta" stands for cuda:0 on this CPU-only page
net.add_module("b", nn.Linear(4, 2))  # a layer added after .to()
print(misplaced(net, "meta"))
net.to("meta")  # move the model after its last change
print(misplaced(net, "meta"))

# %% misplaced-checks tags=["remove-cell"]
import inspect

cpu = torch.device("cpu")
net = nn.Sequential()
net.add_module("a", nn.Linear(3, 4))
net.to("meta")
net.add_module("b", nn.Linear(4, 2))
assert misplaced(net, "meta") == [("b.weight", cpu), ("b.bias", cpu)]
net.to("meta")
assert misplaced(net, "meta") == []
# a replaced layer is on the CPU too, and so are new buffers
net.b = nn.Linear(4, 2)
net.register_buffer("mask", torch.ones(2))
assert [n for n, _ in misplaced(net, "meta")] == ["b.weight", "b.bias", "mask"]
# the message DataParallel builds, in forward and in replicate
import sys

source = inspect.getsource(sys.modules["torch.nn.parallel.data_parallel"])
for piece in ("module must have its parameters and buffers ",
              "(device_ids[0]) but found one of ", "them on device: "):
    assert source.count(piece) >= 2
# the device it names is device_ids[0]
assert "self.device_ids[0])" in source

# %% two-devices
if torch.cuda.device_count() >= 2:
    dev0, dev1 = "cuda:0", "cuda:1"
else:
    dev0, dev1 = "cpu", "cpu"  # the same code on one device


class TwoPart(nn.Module):
    def __init__(self):
        super().__init__()
        self.part1 = nn.Sequential(nn.Linear(8, 16), nn.ReLU()).to(dev0)
        self.part2 = nn.Linear(16, 2).to(dev1)

    def forward(self, x):
        x = self.part1(x.to(dev0))
        return self.part2(x.to(dev1))  # the activations move to dev1


torch.manual_seed(0)
model = TwoPart()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)  # all the parameters
x, y = torch.randn(4, 8), torch.tensor([0, 1, 1, 0])
out = model(x)
loss = nn.functional.cross_entropy(out, y.to(dev1))  # labels on out's device
loss.backward()  # autograd goes back across the devices by itself
optimizer.step()
print("output on", out.device.type)
print("every parameter has a gradient:",
      all(p.grad is not None for p in model.parameters()))

# %% two-devices-checks tags=["remove-cell"]
assert out.device == torch.device(dev1)
assert all(p.grad is not None for p in model.parameters())
assert len(optimizer.param_groups[0]["params"]) == 4

# %% scalar-gather
import warnings

from torch.nn.parallel._functions import Gather  # what gathers the outputs

# the 0-d losses of two replicas; "meta" stands in for two GPUs here
losses = [torch.tensor(0.0, device="meta"), torch.tensor(0.0, device="meta")]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        Gather.apply("cpu", 0, *losses)
    except Exception:  # the copy itself needs GPUs: it fails here
        pass
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")

# %% scalar-gather-checks tags=["remove-cell"]
assert len(caught) == 1 and caught[0].category is UserWarning
assert str(caught[0].message).startswith(
    "Was asked to gather along dimension 0, but all input tensors were "
    "scalars; will instead unsqueeze and return a vector")

# %% replica-losses
torch.manual_seed(0)
logits = torch.randn(5, 3)  # a batch of 5
labels = torch.tensor([0, 2, 1, 1, 0])
per_sample = nn.functional.cross_entropy(logits, labels, reduction="none")
chunks = per_sample.chunk(2)  # the rows each of 2 GPUs gets: 3 and 2
per_gpu = torch.stack([chunk.mean() for chunk in chunks])  # the gathered vector
print("per-GPU losses:", per_gpu)
print("their mean:    ", per_gpu.mean())
print("full batch:    ", per_sample.mean())
sizes = torch.tensor([len(chunk) for chunk in chunks])
print("weighted:      ", (per_gpu * sizes).sum() / sizes.sum())
sums = torch.stack([chunk.sum() for chunk in chunks])  # reduction="sum"
print("sums / 5:      ", sums.sum() / len(labels))

# %% replica-losses-checks tags=["remove-cell"]
assert [len(chunk) for chunk in chunks] == [3, 2]
assert not torch.allclose(per_gpu.mean(), per_sample.mean())
assert torch.allclose((per_gpu * sizes).sum() / sizes.sum(), per_sample.mean())
assert torch.allclose(sums.sum() / len(labels), per_sample.mean())

# %% replica-weights
x = per_sample.detach().requires_grad_()  # each sample's loss
mean_of_means = torch.stack([chunk.mean() for chunk in x.chunk(2)]).mean()
print("weight of each sample:", torch.autograd.grad(mean_of_means, x)[0])
print("full-batch mean:      ", torch.autograd.grad(x.mean(), x)[0])

# %% replica-weights-checks tags=["remove-cell"]
weights = torch.autograd.grad(mean_of_means, x)[0]
assert torch.allclose(weights, torch.tensor([1 / 6] * 3 + [1 / 4] * 2))
assert torch.allclose(torch.autograd.grad(x.mean(), x)[0], torch.full((5,), 0.2))
