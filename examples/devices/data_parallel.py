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
