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


# %% [markdown]
# The cells below need torchvision. They run where torch and torchvision
# match (each torch release's own environment, from PyPI); the site's build
# runs a CPU torch that PyPI's torchvision does not load with, and shows what
# they printed there

# %% [markdown] lang="zh"
# 下面的单元需要 torchvision，只在 torch 与 torchvision 版本配套的环境里运行
# （从 PyPI 安装的各个 torch 版本的环境）；本站构建用的是 CPU 版 torch，
# PyPI 上的 torchvision 在它上面加载不了，页面上显示的是那些环境打印的结果

# %% tv-warnings tags=["requires-torchvision"]
import warnings

from torchvision.models import resnet18

with warnings.catch_warnings(record=True) as tv_caught:
    warnings.simplefilter("always")
    model = resnet18(pretrained=False)  # the old spelling
for w in tv_caught:
    print(f"{w.category.__name__}: {w.message}\n")

# %% tv-warnings-checks tags=["remove-cell"]
assert [w.category for w in tv_caught] == [UserWarning, UserWarning]
first, second = (str(w.message) for w in tv_caught)
assert first.startswith("The parameter 'pretrained' is deprecated since 0.13")
assert second.endswith("equivalent to passing `weights=None`.")
# the warnings point inside torchvision, not at the line that passed pretrained=
assert all("torchvision" in w.filename for w in tv_caught)

# %% tv-weights tags=["requires-torchvision"]
from torchvision.models import ResNet18_Weights, ResNet50_Weights
from torchvision.models import get_model_weights

print(ResNet18_Weights.DEFAULT)  # DEFAULT: the best weights of this model
print(ResNet50_Weights.DEFAULT)
print(get_model_weights("resnet50") is ResNet50_Weights)
for weights in ResNet50_Weights:
    top1 = weights.meta["_metrics"]["ImageNet-1K"]["acc@1"]
    print(f"{weights}: {top1} % top-1, {weights.transforms().resize_size}")
print(ResNet18_Weights.IMAGENET1K_V1.url)

# %% tv-weights-checks tags=["remove-cell"]
assert ResNet18_Weights.DEFAULT is ResNet18_Weights.IMAGENET1K_V1
assert ResNet50_Weights.DEFAULT is ResNet50_Weights.IMAGENET1K_V2
assert ResNet18_Weights["IMAGENET1K_V1"] is ResNet18_Weights.IMAGENET1K_V1
v1, v2 = ResNet50_Weights.IMAGENET1K_V1, ResNet50_Weights.IMAGENET1K_V2
assert v1.meta["_metrics"]["ImageNet-1K"]["acc@1"] == 76.13
assert v2.meta["_metrics"]["ImageNet-1K"]["acc@1"] == 80.858
assert v1.transforms().resize_size == [256]
assert v2.transforms().resize_size == [232]
assert len(ResNet18_Weights.DEFAULT.meta["categories"]) == 1000
assert ResNet18_Weights.IMAGENET1K_V1.url.endswith("resnet18-f37072fd.pth")

# %% tv-num-classes tags=["requires-torchvision"] raises="ValueError: The parameter 'num_classes' expected value 1000 but got 3 instead."
resnet18(weights=ResNet18_Weights.DEFAULT, num_classes=3)

# %% tv-head tags=["requires-torchvision"]
model = resnet18(weights=None)  # weights=ResNet18_Weights.DEFAULT downloads
print(model.fc)
model.fc = nn.Linear(model.fc.in_features, 3)  # new head, 3 classes
print(model.fc)

# %% tv-head-checks tags=["remove-cell"]
assert model(torch.randn(2, 3, 224, 224)).shape == (2, 3)

# %% tv-transforms tags=["requires-torchvision"]
weights = ResNet18_Weights.DEFAULT
preprocess = weights.transforms()
print(preprocess)
image = torch.randint(0, 256, (3, 300, 400), dtype=torch.uint8)  # an image
batch = preprocess(image).unsqueeze(0)
print(batch.shape, batch.dtype)
print(weights.meta["categories"][:3])

# %% tv-transforms-checks tags=["remove-cell"]
assert batch.shape == (1, 3, 224, 224) and batch.dtype == torch.float32
assert list(preprocess.mean) == [0.485, 0.456, 0.406]
assert list(preprocess.std) == [0.229, 0.224, 0.225]
assert preprocess.crop_size == [224] and preprocess.resize_size == [256]

# %% tv-offline tags=["requires-torchvision"] raises="urllib.error.URLError: <urlopen error"
model = resnet18(weights=ResNet18_Weights.DEFAULT)  # no network here


# %% [markdown]
# The cells below run with torch alone (but two, which need torchvision): a
# pretrained RGB model on grayscale images, and load_state_dict_from_url
# from torch.hub on a local file

# %% [markdown] lang="zh"
# 下面的单元只用 torch（只有两个需要 torchvision）：让预训练的 RGB 模型处理
# 灰度图像，以及用 torch.hub 的 load_state_dict_from_url 加载本地文件

# %% gray-error raises="RuntimeError: Given groups=1, weight of size [64, 3, 7, 7], expected input[8, 1, 224, 224] to have 3 channels, but got 1 channels instead"
# a ResNet's first layer, standing for its pretrained weights
conv1 = nn.Conv2d(3, 64, kernel_size=7, stride=2, padding=3, bias=False)
x = torch.rand(8, 1, 224, 224)  # 8 grayscale images
conv1(x)

# %% gray-repeat
x3 = x.repeat(1, 3, 1, 1)  # the gray channel three times
print(tuple(x3.shape), "->", tuple(conv1(x3).shape))
print(torch.equal(x.expand(-1, 3, -1, -1), x3))  # the same, without a copy

# %% gray-repeat-checks tags=["remove-cell"]
assert x3.shape == (8, 3, 224, 224) and conv1(x3).shape == (8, 64, 112, 112)
assert all(torch.equal(x3[:, c], x[:, 0]) for c in range(3))
expanded = x.expand(-1, 3, -1, -1)
assert expanded.data_ptr() == x.data_ptr()  # a view: no copy
assert x3.data_ptr() != x.data_ptr()  # repeat copies
assert torch.equal(conv1(expanded), conv1(x3))

# %% gray-sum
gray_conv1 = nn.Conv2d(1, 64, kernel_size=7, stride=2, padding=3, bias=False)
with torch.no_grad():
    gray_conv1.weight.copy_(conv1.weight.sum(dim=1, keepdim=True))
print(tuple(conv1.weight.shape), "->", tuple(gray_conv1.weight.shape))
y = gray_conv1(x)  # one channel in
print(tuple(y.shape), torch.allclose(y, conv1(x3), atol=1e-5))

# %% gray-sum-checks tags=["remove-cell"]
assert gray_conv1.weight.shape == (64, 1, 7, 7)
assert torch.allclose(y, conv1(x3), atol=1e-5)
# it holds only while the three channels are equal: one mean and std for gray
mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)
gray = (x - 0.449) / 0.226
assert torch.allclose(gray_conv1(gray), conv1(gray.repeat(1, 3, 1, 1)), atol=1e-5)
per_channel = (x3 - mean) / std  # three different channels
# 0.449 and 0.226: the averages of ImageNet's three means and stds
assert round(mean.mean().item(), 3) == 0.449 and round(std.mean().item(), 3) == 0.226
assert not torch.allclose(gray_conv1(gray), conv1(per_channel), atol=1e-3)
# the bias, if any, stays as it was
with_bias = nn.Conv2d(3, 4, 3, padding=1)
gray_bias = nn.Conv2d(1, 4, 3, padding=1)
with torch.no_grad():
    gray_bias.weight.copy_(with_bias.weight.sum(dim=1, keepdim=True))
    gray_bias.bias.copy_(with_bias.bias)
small = torch.rand(2, 1, 9, 9)
assert torch.allclose(gray_bias(small), with_bias(small.repeat(1, 3, 1, 1)),
                      atol=1e-5)

# %% tv-gray tags=["requires-torchvision"]
from torchvision.models import resnet18

model = resnet18(weights=None)  # weights=ResNet18_Weights.DEFAULT downloads
weight = model.conv1.weight.detach()  # (64, 3, 7, 7)
model.conv1 = nn.Conv2d(1, 64, kernel_size=7, stride=2, padding=3, bias=False)
with torch.no_grad():
    model.conv1.weight.copy_(weight.sum(dim=1, keepdim=True))
print(model.conv1)
print(model(torch.rand(2, 1, 224, 224)).shape)

# %% tv-gray-checks tags=["remove-cell"]
assert model.conv1.weight.shape == (64, 1, 7, 7)
assert torch.allclose(model.conv1.weight, weight.sum(dim=1, keepdim=True))

# %% hub-import
from torch.hub import load_state_dict_from_url  # not torchvision.models.utils

import torch.utils.model_zoo

print(torch.utils.model_zoo.load_url is load_state_dict_from_url)

# %% hub-import-checks tags=["remove-cell"]
import inspect

import torch.hub

assert torch.hub.load_state_dict_from_url is load_state_dict_from_url
parameters = inspect.signature(load_state_dict_from_url).parameters
assert {"model_dir", "map_location", "progress", "check_hash", "file_name",
        "weights_only"} <= set(parameters)
assert parameters["check_hash"].default is False
assert parameters["weights_only"].default is False

# %% tv-models-utils tags=["requires-torchvision"] raises="ModuleNotFoundError: No module named 'torchvision.models.utils'"
from torchvision.models.utils import load_state_dict_from_url

# %% hub-local
import contextlib
import io
from pathlib import Path

from torch.hub import load_state_dict_from_url

url = Path("net-10-classes.pth").resolve().as_uri()  # saved above
log = io.StringIO()  # it says what it downloads, on stdout or stderr
with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
    state = load_state_dict_from_url(
        url, model_dir="hub", map_location="cpu", check_hash=False,
        progress=False, weights_only=True,
    )
shown = log.getvalue().replace(str(Path.cwd()), "...")  # a shorter path
print(shown, end="")
model = Net()
print(model.load_state_dict(state))
print(all(torch.equal(state[k], v) for k, v in pretrained.state_dict().items()))

# %% hub-local-checks tags=["remove-cell"]
import os

assert url.startswith("file:///") and url.endswith("/net-10-classes.pth")
assert shown == 'Downloading: "file://.../net-10-classes.pth" to hub/net-10-classes.pth\n'
assert os.listdir("hub") == ["net-10-classes.pth"]  # named after the URL
assert all(torch.equal(state[k], v) for k, v in pretrained.state_dict().items())
assert all(v.device.type == "cpu" for v in state.values())
# a second call reads the copy in model_dir: no message
again = io.StringIO()
with contextlib.redirect_stdout(again), contextlib.redirect_stderr(again):
    cached = load_state_dict_from_url(url, model_dir="hub", map_location="cpu",
                                      progress=False, weights_only=True)
assert again.getvalue() == ""
assert all(torch.equal(cached[k], v) for k, v in state.items())
# check_hash=True compares the digits after "-" in the name with the SHA-256
import hashlib
import shutil

digest = hashlib.sha256(Path("net-10-classes.pth").read_bytes()).hexdigest()
shutil.copy("net-10-classes.pth", f"net-{digest[:8]}.pth")
shutil.copy("net-10-classes.pth", "net-deadbeef.pth")
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    checked = load_state_dict_from_url(
        Path(f"net-{digest[:8]}.pth").resolve().as_uri(), model_dir="hub",
        check_hash=True, progress=False, weights_only=True)
    assert all(torch.equal(checked[k], v) for k, v in state.items())
    try:
        load_state_dict_from_url(
            Path("net-deadbeef.pth").resolve().as_uri(), model_dir="hub",
            check_hash=True, progress=False, weights_only=True)
    except RuntimeError as error:
        assert "invalid hash value" in str(error)
    else:
        raise AssertionError("a wrong hash in the file name should fail")
assert "net-deadbeef.pth" not in os.listdir("hub")  # nothing kept

# %% hub-source-local
import os
import textwrap

os.makedirs("tiny_repo")  # a repo cloned or copied by hand: its hubconf.py
with open("tiny_repo/hubconf.py", "w") as f:
    f.write(textwrap.dedent("""
        import torch
        dependencies = ["torch"]

        def tiny(n=2):
            return torch.nn.Linear(n, 1)
    """))
model = torch.hub.load("tiny_repo", "tiny", source="local", n=4)
print(model)

# %% hub-source-local-checks tags=["remove-cell"]
assert isinstance(model, nn.Linear) and model.in_features == 4
# no network: a local folder is neither validated nor downloaded
assert not os.path.exists(os.path.join(torch.hub.get_dir(), "tiny_repo"))
assert inspect.signature(torch.hub.load).parameters["skip_validation"].default is False
assert "source" not in inspect.signature(torch.hub.list).parameters
assert torch.hub.ENV_GITHUB_TOKEN == "GITHUB_TOKEN"
