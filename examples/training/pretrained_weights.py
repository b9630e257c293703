# %% [markdown]
# torchvision's pretrained= warning, run with plain torch: catching the
# UserWarning, turning it into an error that points at the caller, and
# loading pretrained weights before replacing the head

# %% [markdown] lang="zh"
# torchvision 的 `pretrained=` 警告，只用 torch 复现：捕获 `UserWarning`，
# 把它变成指向调用处的报错，以及先加载预训练权重、再替换分类头

# %% setup
import linecache
import warnings

import torch
from torch import nn


def resnet_like(pretrained=False):
    # stands for a torchvision builder: the same warning text and category
    warnings.warn(
        "The parameter 'pretrained' is deprecated since 0.13 and may be "
        "removed in the future, please use 'weights' instead.",
        UserWarning,
    )
    return nn.Linear(4, 2)


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    model = resnet_like(pretrained=False)
for w in caught:
    where = linecache.getline(w.filename, w.lineno).strip()
    print(f"{w.category.__name__}, at the line {where!r}:")
    print(w.message)

# %% setup-checks tags=["remove-cell"]
assert len(caught) == 1
assert caught[0].category is UserWarning
assert not issubclass(caught[0].category, DeprecationWarning)
assert str(caught[0].message).startswith("The parameter 'pretrained'")
# the warning names the line of warn() inside the builder, not the caller
assert caught[0].filename == resnet_like.__code__.co_filename
code = resnet_like.__code__
assert caught[0].lineno == code.co_firstlineno + 2

# %% find-caller tags=["raises-exception"]
with warnings.catch_warnings():
    warnings.filterwarnings("error", message="The parameter 'pretrained'")
    model = resnet_like(pretrained=True)  # the line to fix

# %% find-caller-checks tags=["remove-cell"]
with warnings.catch_warnings():
    warnings.filterwarnings("error", message="The parameter 'pretrained'")
    try:
        resnet_like(pretrained=True)
    except UserWarning as error:
        assert "use 'weights' instead" in str(error)
    else:
        raise AssertionError("the filter should turn the warning into an error")
with warnings.catch_warnings(record=True) as caught_again:
    warnings.simplefilter("always")
    resnet_like()
assert len(caught_again) == 1  # outside the block: a warning again
with warnings.catch_warnings(record=True) as not_at_start:
    warnings.simplefilter("always")
    warnings.filterwarnings("error", message="deprecated")
    resnet_like()
assert len(not_at_start) == 1  # matched at the start only: no error
with warnings.catch_warnings(record=True) as hidden:
    warnings.simplefilter("always")
    warnings.filterwarnings("ignore", message="The parameter 'pretrained'")
    resnet_like(pretrained=True)
assert hidden == []  # "ignore" with the same message hides it


# %% net
class Net(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
        self.fc = nn.Linear(8, num_classes)  # the head, as in a ResNet

    def forward(self, x):
        return self.fc(self.features(x))


pretrained = Net()  # stands for weights trained on 10 classes
torch.save(pretrained.state_dict(), "net-10-classes.pth")
state = torch.load("net-10-classes.pth", weights_only=True)
print({key: tuple(value.shape) for key, value in state.items()})

# %% net-checks tags=["remove-cell"]
assert set(state) == {
    "features.0.weight", "features.0.bias", "fc.weight", "fc.bias"
}
assert all(torch.equal(state[k], v) for k, v in pretrained.state_dict().items())

# %% wrong-num-classes tags=["raises-exception"]
model = Net(num_classes=3)
model.load_state_dict(state)

# %% wrong-num-classes-checks tags=["remove-cell"]
try:
    Net(num_classes=3).load_state_dict(state)
except RuntimeError as error:
    assert "size mismatch for fc.weight" in str(error)
    assert "size mismatch for fc.bias" in str(error)
    assert "features" not in str(error)  # only the head differs
else:
    raise AssertionError("a 10-class head should not load into a 3-class one")

# %% replace-head
model = Net()  # the shape the weights were saved with
print(model.load_state_dict(state))
model.fc = nn.Linear(model.fc.in_features, 3)  # new head, 3 classes
print(model.fc)

# %% replace-head-checks tags=["remove-cell"]
assert torch.equal(model.features[0].weight, pretrained.features[0].weight)
assert model.fc.weight.shape == (3, 8)
assert model(torch.randn(5, 4)).shape == (5, 3)
