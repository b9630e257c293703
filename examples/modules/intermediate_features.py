# %% [markdown]
# Intermediate features: find a layer by name, keep its output with
# register_forward_hook, remove the hook, clone before an in-place
# layer, or return the features from forward

# %% [markdown] lang="zh"
# 提取中间层特征：用名字找到层，用 `register_forward_hook` 保存它的输出，
# 用完移除 hook；后面接原地操作的层时要 `clone()`；也可以让 `forward`
# 直接返回特征

# %% setup
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 4, 3),
            nn.ReLU(),
            nn.Conv2d(4, 8, 3),
            nn.ReLU(),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        x = self.pool(self.features(x)).flatten(1)
        return self.head(x)


model = Net().eval()
x = torch.randn(2, 1, 8, 8)
for name, module in model.named_modules():
    print(repr(name), type(module).__name__)

# %% setup-checks tags=["remove-cell"]
names = dict(model.named_modules())
assert names[""] is model  # the model itself, under the empty name
assert names["features.1"] is model.features[1]
assert model.get_submodule("features.1") is model.features[1]
assert list(names) == [
    "", "features", "features.0", "features.1", "features.2",
    "features.3", "pool", "head",
]

# %% hook
features = {}


def save_output(name):
    def hook(module, args, output):
        features[name] = output.detach()

    return hook


layer = model.get_submodule("features.1")
handle = layer.register_forward_hook(save_output("features.1"))
out = model(x)
print(out.shape)
print(features["features.1"].shape)

# %% hook-checks tags=["remove-cell"]
# the hook saw the ReLU's output, the same values the model used
expected = torch.relu(model.features[0](x))
assert torch.equal(features["features.1"], expected)
assert features["features.1"].shape == (2, 4, 6, 6)
assert not features["features.1"].requires_grad  # detach() dropped the graph
assert out.shape == (2, 3)
assert isinstance(handle, torch.utils.hooks.RemovableHandle)
seen = {}
with layer.register_forward_hook(
    lambda m, args, output: seen.update(m=m, args=args, output=output)
):
    model(x)
assert seen["m"] is layer
assert isinstance(seen["args"], tuple) and len(seen["args"]) == 1
assert torch.equal(seen["args"][0], model.features[0](x))  # the layer's input
assert seen["output"].grad_fn is not None  # without detach(): in the graph

# %% every-call
calls = []
counter = layer.register_forward_hook(lambda m, args, output: calls.append(1))
model(x)
model(x)
print(len(calls))
counter.remove()
model(x)
print(len(calls))

# %% every-call-checks tags=["remove-cell"]
assert len(calls) == 2  # once per forward, until removed; not after
with layer.register_forward_hook(lambda m, args, output: calls.append(1)):
    with torch.no_grad():
        model(x)  # inference calls too
assert len(calls) == 3
handle.remove()
features.clear()
model(x)
assert features == {}  # removed: the first hook no longer runs either
handle.remove()  # removing twice is harmless

# %% context
with layer.register_forward_hook(save_output("features.1")):
    model(x)
print(list(features))
features.clear()
model(x)  # after the with block
print(features)

# %% context-checks tags=["remove-cell"]
assert features == {}  # the hook was removed at the end of the with block
with layer.register_forward_hook(save_output("features.1")):
    model(x)
assert set(features) == {"features.1"}
features.clear()
try:
    with layer.register_forward_hook(save_output("features.1")):
        raise ValueError("inside the block")
except ValueError:
    pass
model(x)
assert features == {}  # removed although the block raised

# %% replace
with layer.register_forward_hook(lambda m, args, output: output * 0):
    zeroed = model(x)
print(zeroed)

# %% replace-checks tags=["remove-cell"]
with layer.register_forward_hook(lambda m, args, output: output * 0):
    assert torch.equal(layer(torch.ones(3)), torch.zeros(3))  # the hook's value
# zeros in: the second conv outputs its bias, and so on; the input is lost
assert torch.equal(zeroed[0], zeroed[1])
assert not torch.equal(model(x)[0], model(x)[1])

# %% inplace
block = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(inplace=True))
kept = {}
hook = block[0].register_forward_hook(
    lambda m, args, output: kept.update(
        detached=output.detach(), cloned=output.detach().clone()
    )
)
block(x)
hook.remove()
print((kept["detached"] < 0).any())
print((kept["cloned"] < 0).any())

# %% inplace-checks tags=["remove-cell"]
conv_out = block[0](x)
assert (conv_out < 0).any()  # the convolution does output negative values
# detach() shares memory: the in-place ReLU overwrote what was saved
assert torch.equal(kept["detached"], conv_out.relu())
assert torch.equal(kept["cloned"], conv_out)

# %% return
class FeatureNet(Net):
    def forward(self, x):
        feature = self.pool(self.features(x)).flatten(1)
        return self.head(feature), feature


model2 = FeatureNet()
model2.load_state_dict(model.state_dict())
model2.eval()
out2, feature = model2(x)
print(out2.shape, feature.shape)
print(model.features[:2])

# %% return-checks tags=["remove-cell"]
assert torch.equal(out2, model(x))  # same weights, same output
assert feature.shape == (2, 8)
assert feature.requires_grad  # still in the graph: usable in a loss
# slicing a Sequential shares the layers: no copy
prefix = model.features[:2]
assert prefix[0] is model.features[0]
assert torch.equal(prefix(x), expected)

# %% call-not-forward
calls = []
handle = model.head.register_forward_hook(lambda *args: calls.append("head"))
model(x)  # __call__: the hooks, then forward
print("model(x):", calls)
calls.clear()
model.forward(x)  # the model's own hooks are skipped
print("model.forward(x):", calls)  # the layers inside are still called
handle.remove()

top = model.register_forward_hook(lambda *args: calls.append("model"))
calls.clear()
model.forward(x)
print("model.forward(x), a hook on the model:", calls)
top.remove()

# %% call-not-forward-checks tags=["remove-cell"]
assert calls == []  # forward() skipped the model's hook
seen = []
with model.register_forward_hook(lambda *args: seen.append("model")):
    model(x)
    model.forward(x)
assert seen == ["model"]  # only the call ran the model's hook
# the layers inside are called as layer(x): their hooks run either way
with model.head.register_forward_hook(lambda *args: seen.append("head")):
    model.forward(x)
assert seen == ["model", "head"]
