# %% [markdown]
# Saving and resuming training: a checkpoint holds the model, the optimizer, the
# scheduler, the epoch and the random number generators' states

# %% [markdown] lang="zh"
# 保存与恢复训练：检查点要包含模型、优化器、调度器、当前 epoch，
# 以及各个随机数生成器的状态

# %% setup
import random

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

dataset = TensorDataset(torch.randn(64, 4), torch.randn(64, 1))
# shuffles with torch's RNG
loader = DataLoader(dataset, batch_size=16, shuffle=True)


def make_training(seed=0):
    torch.manual_seed(seed)
    model = nn.Sequential(
        nn.Linear(4, 16), nn.ReLU(), nn.Dropout(0.2), nn.Linear(16, 1)
    )
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    scheduler = torch.optim.lr_scheduler.StepLR(
        optimizer, step_size=2, gamma=0.5
    )
    return model, optimizer, scheduler


def train_epoch(model, optimizer, scheduler):
    total = 0.0
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
    scheduler.step()
    return total / len(loader)


# %% uninterrupted
model, optimizer, scheduler = make_training()
losses = [train_epoch(model, optimizer, scheduler) for epoch in range(4)]
print([round(loss, 6) for loss in losses])

# %% save
model, optimizer, scheduler = make_training()
first = [train_epoch(model, optimizer, scheduler) for epoch in range(2)]

checkpoint = {
    "epoch": 2,  # epochs done
    "model": model.state_dict(),
    "optimizer": optimizer.state_dict(),
    "scheduler": scheduler.state_dict(),
    "rng": {"torch": torch.get_rng_state(), "python": random.getstate()},
}
torch.save(checkpoint, "checkpoint.pt")
print(list(checkpoint["optimizer"]), checkpoint["scheduler"]["last_epoch"])

# %% save-checks tags=["remove-cell"]
adam = checkpoint["optimizer"]["state"][0]  # the first parameter's
assert set(adam) == {"step", "exp_avg", "exp_avg_sq"}
assert checkpoint["optimizer"]["param_groups"][0]["lr"] == 0.01 * 0.5
version, internal, gauss = checkpoint["rng"]["python"]  # numbers and None
assert isinstance(version, int) and gauss is None
assert all(isinstance(n, int) for n in internal)
# the DataLoader's order and dropout both draw from torch's global generator
state = torch.get_rng_state()
order = [y for _, y in loader]
mask = nn.functional.dropout(torch.ones(8), 0.5)
torch.set_rng_state(state)
assert all(torch.equal(a, b) for a, b in zip(order, [y for _, y in loader]))
assert torch.equal(mask, nn.functional.dropout(torch.ones(8), 0.5))
torch.set_rng_state(state)
# what weights_only=True loads: tensors, dicts, lists, tuples, numbers, strings
plain = {"t": torch.ones(1), "l": [1, 2.5], "tu": (True, None), "s": "x",
         "size": torch.Size([2, 3])}
torch.save(plain, "plain.pt")
assert torch.load("plain.pt")["size"] == torch.Size([2, 3])

# %% resume
model, optimizer, scheduler = make_training(seed=123)  # as a new process would

checkpoint = torch.load("checkpoint.pt")
model.load_state_dict(checkpoint["model"])
optimizer.load_state_dict(checkpoint["optimizer"])
scheduler.load_state_dict(checkpoint["scheduler"])
torch.set_rng_state(checkpoint["rng"]["torch"])
random.setstate(checkpoint["rng"]["python"])
start = checkpoint["epoch"]

resumed = first + [
    train_epoch(model, optimizer, scheduler) for epoch in range(start, 4)
]
print([round(loss, 6) for loss in resumed])
print(resumed == losses)

# %% resume-checks tags=["remove-cell"]
# What the page says about the cells above, checked on every build
assert resumed == losses  # bit for bit, not only close
assert start == 2 and len(first) == 2
assert list(checkpoint["optimizer"]) == ["state", "param_groups"]
assert checkpoint["scheduler"]["last_epoch"] == 2
# StepLR went on counting
assert optimizer.param_groups[0]["lr"] == 0.01 * 0.5 * 0.5
assert all(isinstance(v, torch.Tensor) for v in checkpoint["model"].values())
# the model made with seed 123 had other weights: loading replaced them
assert not torch.equal(make_training(seed=123)[0][0].weight, model[0].weight)

# %% model-only
model, optimizer, scheduler = make_training(seed=123)
checkpoint = torch.load("checkpoint.pt")
model.load_state_dict(checkpoint["model"])  # and nothing else

partial = first + [
    train_epoch(model, optimizer, scheduler) for epoch in range(2, 4)
]
print([round(loss, 6) for loss in partial])
print(partial == losses)
print(optimizer.param_groups[0]["lr"])

# %% model-only-checks tags=["remove-cell"]
assert partial != losses
assert partial[2] != losses[2]  # the first resumed epoch already differs
# the schedule started again
assert optimizer.param_groups[0]["lr"] == 0.01 * 0.5

# %% no-rng
model, optimizer, scheduler = make_training(seed=123)
checkpoint = torch.load("checkpoint.pt")
model.load_state_dict(checkpoint["model"])
optimizer.load_state_dict(checkpoint["optimizer"])
scheduler.load_state_dict(checkpoint["scheduler"])
# no torch.set_rng_state: shuffling and dropout draw other numbers

unseeded = first + [
    train_epoch(model, optimizer, scheduler) for epoch in range(2, 4)
]
print([round(loss, 6) for loss in unseeded])
print(unseeded == losses)

# %% no-rng-checks tags=["remove-cell"]
assert unseeded != losses and unseeded[2] != losses[2]

# %% scaler-state
x16, y16 = torch.randn(8, 4), torch.randn(8, 1)


def amp_step(model, optimizer, scaler):  # one float16 step with a scaler
    with torch.autocast("cpu", dtype=torch.float16):
        loss = nn.functional.mse_loss(model(x16), y16)
    optimizer.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()


model, optimizer, scheduler = make_training()
# a scale that fits, and growth after 2 steps (65536 and 2000 by default)
scaler = torch.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=2)
amp_step(model, optimizer, scaler)
state = scaler.state_dict()  # saved with the rest of the checkpoint
print(state)
amp_step(model, optimizer, scaler)  # the run goes on
print("uninterrupted:       ", scaler.get_scale())

scales = {}
for name, saved in [("resumed with state", state), ("resumed without", None)]:
    model, optimizer, scheduler = make_training()
    resumed_scaler = torch.amp.GradScaler(
        "cpu", init_scale=1024.0, growth_interval=2
    )
    if saved is not None:
        resumed_scaler.load_state_dict(saved)
    amp_step(model, optimizer, resumed_scaler)
    scales[name] = resumed_scaler.get_scale()
    print(f"{name + ':':21}", scales[name])

print("CUDA generators:", len(torch.cuda.get_rng_state_all()))  # one per GPU

# %% scaler-state-checks tags=["remove-cell"]
assert state == {"scale": 1024.0, "growth_factor": 2.0,
                 "backoff_factor": 0.5, "growth_interval": 2,
                 "_growth_tracker": 1}
assert scaler.get_scale() == scales["resumed with state"] == 2048.0
assert scales["resumed without"] == 1024.0  # one step behind
# plain numbers: a checkpoint with it loads with weights_only=True
torch.save({"scaler": state}, "scaler.pt")
assert torch.load("scaler.pt")["scaler"] == state
# one state per GPU; with no GPU an empty list, which saves and restores as it is
assert len(torch.cuda.get_rng_state_all()) == torch.cuda.device_count()
if not torch.cuda.is_available():
    assert torch.cuda.get_rng_state_all() == []
    torch.cuda.set_rng_state_all([])
# torch.get_rng_state() is the CPU generator's state alone
assert torch.equal(torch.get_rng_state(),
                   torch.default_generator.get_state())

# %% cuda-rng tags=["requires-cuda"]
device = torch.device("cuda")
cpu_state = torch.get_rng_state()
cuda_states = torch.cuda.get_rng_state_all()  # one per GPU
ones = torch.ones(64, device=device)
mask = nn.functional.dropout(ones, 0.5)  # drawn by the GPU's generator

torch.set_rng_state(cpu_state)  # the CPU generator alone
cpu_only = torch.equal(mask, nn.functional.dropout(ones, 0.5))
torch.set_rng_state(cpu_state)
torch.cuda.set_rng_state_all(cuda_states)  # and the GPUs' too
both = torch.equal(mask, nn.functional.dropout(ones, 0.5))
print("same dropout mask, CPU state restored:", cpu_only)
print("same dropout mask, CUDA states restored too:", both)
assert not cpu_only and both

# %% compiled
compiled_model = torch.compile(model)  # compiles at its first call
print(list(compiled_model.state_dict()))
print(list(model.state_dict()))  # save this one

# %% compiled-checks tags=["remove-cell"]
assert all(k.startswith("_orig_mod.") for k in compiled_model.state_dict())
assert [k.removeprefix("_orig_mod.") for k in compiled_model.state_dict()] \
    == list(model.state_dict())
assert compiled_model._orig_mod is model

# %% numpy-state tags=["raises-exception"] holds=">=2.6" claim="`torch.load` defaults to `weights_only=True`, so a checkpoint holding NumPy's random state raises `UnpicklingError`"
checkpoint["rng"]["numpy"] = np.random.get_state()  # a tuple holding an ndarray
torch.save(checkpoint, "checkpoint.pt")
torch.load("checkpoint.pt")

# %% numpy-state-checks tags=["remove-cell"] holds=">=2.6" claim="Loading NumPy's random state with the default `weights_only=True` fails with a message that names `numpy._core.multiarray._reconstruct` and `safe_globals`"
import pickle

try:
    torch.load("checkpoint.pt")
except pickle.UnpicklingError as error:
    assert "Weights only load failed" in str(error)
    assert "numpy._core.multiarray._reconstruct" in str(error)
    assert "safe_globals" in str(error)
else:
    raise AssertionError("weights_only=True should refuse a NumPy array")

# %% safe-globals holds=">=2.5" claim="`torch.serialization.safe_globals` allows the listed types while a checkpoint loads"
allowed = [
    np._core.multiarray._reconstruct,
    np.ndarray,
    np.dtype,
    np.dtypes.UInt32DType,
]
with torch.serialization.safe_globals(allowed):
    checkpoint = torch.load("checkpoint.pt")
np.random.set_state(checkpoint["rng"]["numpy"])
print(type(checkpoint["rng"]["numpy"][1]))

# %% safe-globals-checks tags=["remove-cell"] holds=">=2.6" claim="Each of the four types the checkpoint names must be allowed for `weights_only=True` to load it"
assert isinstance(checkpoint["rng"]["numpy"][1], np.ndarray)
for missing in range(len(allowed)):  # each of the four is needed
    try:
        with torch.serialization.safe_globals(
            allowed[:missing] + allowed[missing + 1:]
        ):
            torch.load("checkpoint.pt")
    except pickle.UnpicklingError:
        pass
    else:
        raise AssertionError(f"{allowed[missing]} should be needed")
assert torch.load("checkpoint.pt", weights_only=False)["epoch"] == 2
# numpy._core is NumPy 2's name; NumPy 1.x's, numpy.core, is kept as an alias
import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    old_spelling = np.core.multiarray._reconstruct
assert old_spelling is np._core.multiarray._reconstruct
assert [w.category for w in caught] == [DeprecationWarning]
assert str(caught[0].message).startswith(
    "numpy.core is deprecated and has been renamed to numpy._core"
)

# %% whole-model-save
import pathlib
import subprocess
import sys

package = pathlib.Path("old_project/models")  # a package of the training code
package.mkdir(parents=True)
(package / "__init__.py").write_text(
    "import torch\n"
    "\n"
    "class Net(torch.nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc = torch.nn.Linear(2, 1)\n"
    "\n"
    "    def forward(self, x):\n"
    "        return self.fc(x)\n"
)
training_script = """
import torch
from models import Net

torch.manual_seed(0)
model = Net()
torch.save(model, "whole.pt")  # the object: its class by module path
torch.save(model.state_dict(), "weights.pt")  # its tensors only
"""
subprocess.run(
    [sys.executable, "-c", training_script], cwd="old_project", check=True
)
print(sorted(p.name for p in pathlib.Path("old_project").glob("*.pt")))

# %% whole-model-load raises="ModuleNotFoundError: No module named 'models'"
model = torch.load("old_project/whole.pt", weights_only=False)

# %% whole-model-load-checks tags=["remove-cell"]
import pickletools
import zipfile

# the file names the class by its module path, not by its code
with zipfile.ZipFile("old_project/whole.pt") as archive:
    pickled = archive.read(next(n for n in archive.namelist()
                                if n.endswith("data.pkl")))
classes = [arg for op, arg, _ in pickletools.genops(pickled)
           if op.name == "GLOBAL"]
assert classes[0] == "models Net", classes
assert b"self.fc(x)" not in pickled  # no code in the file
assert "models" not in sys.modules

# %% whole-model-default holds=">=2.6" raises="_pickle.UnpicklingError: Weights only load failed" claim="With the default `weights_only=True`, `torch.load` refuses a whole pickled model with `UnpicklingError`, whether its module imports or not"
torch.load("old_project/whole.pt")  # weights_only=True: the default

# %% whole-model-default-checks tags=["remove-cell"] holds=">=2.6" claim="The weights-only error names the class as `GLOBAL models.Net`, with the module importable or not"
for path in ([], ["old_project"]):  # without, then with the package importable
    sys.path[:0] = path
    try:
        torch.load("old_project/whole.pt")
    except pickle.UnpicklingError as error:
        assert "Unsupported global: GLOBAL models.Net" in str(error), error
    else:
        raise AssertionError("weights_only=True loaded a pickled module")
    finally:
        del sys.path[:len(path)]
        sys.modules.pop("models", None)

# %% state-dict-load
class Net(nn.Module):  # the same layers, defined wherever the code is now
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 1)

    def forward(self, x):
        return self.fc(x)


model = Net()
model.load_state_dict(torch.load("old_project/weights.pt"))  # weights_only
print(model.fc.weight, model.fc.bias)

# %% state-dict-load-checks tags=["remove-cell"]
torch.manual_seed(0)
reference = nn.Linear(2, 1)  # what Net() drew in the training script
assert torch.equal(model.fc.weight, reference.weight)
assert torch.equal(model.fc.bias, reference.bias)
assert "models" not in sys.modules

# %% module-alias
import types

alias = types.ModuleType("models")  # a stand-in for the old module path
alias.Net = Net  # the class, where pickle will look for it
sys.modules["models"] = alias
try:
    old = torch.load("old_project/whole.pt", weights_only=False)
finally:
    del sys.modules["models"]  # only for this one load
print(type(old).__module__, type(old).__name__)
torch.save(old.state_dict(), "old_project/weights_resaved.pt")  # once, for good

# %% module-alias-checks tags=["remove-cell"]
assert type(old) is Net and "models" not in sys.modules
resaved = torch.load("old_project/weights_resaved.pt")
assert all(torch.equal(resaved[k], v) for k, v in model.state_dict().items())
assert list(resaved) == ["fc.weight", "fc.bias"]

# %% from-gpu tags=["requires-cuda"]
device = torch.device("cuda")
model, optimizer, scheduler = make_training()
model.to(device)
torch.save({"model": model.state_dict()}, "gpu.pt")

on_gpu = torch.load("gpu.pt")  # tensors come back where they were saved
on_cpu = torch.load("gpu.pt", map_location="cpu")
print(on_gpu["model"]["0.weight"].device, on_cpu["model"]["0.weight"].device)
assert on_gpu["model"]["0.weight"].is_cuda
assert not on_cpu["model"]["0.weight"].is_cuda

# %% extensions
import os
import zipfile

model = nn.Linear(4, 2)
state = model.state_dict()
names = ["weights.pt", "weights.pth", "weights.ckpt", "weights.bin"]
for name in names:
    torch.save(state, name)  # the same call, whatever the name

with open("weights.pt", "rb") as f:
    first = f.read()
for name in names:
    with open(name, "rb") as f:
        same_bytes = f.read() == first
    loaded = torch.load(name)  # the extension is not looked at
    same = all(torch.equal(loaded[k], v) for k, v in state.items())
    print(f"{name:12} zip: {zipfile.is_zipfile(name)}, "
          f"same bytes: {same_bytes}, same tensors: {same}")

# %% extensions-checks tags=["remove-cell"]
import site
import sys

sizes = {os.path.getsize(name) for name in names}
assert len(sizes) == 1  # one size for the four files
for name in names:
    with open(name, "rb") as f:
        assert f.read() == first
    loaded = torch.load(name)
    assert list(loaded) == list(state)
    assert all(torch.equal(loaded[k], v) for k, v in state.items())
    # the archive's records sit in a folder named after the file, extension off
    assert all(n.startswith("weights/") for n in zipfile.ZipFile(name).namelist())
torch.save(state, "model.pt")
assert zipfile.ZipFile("model.pt").namelist()[0].startswith("model/")
# a file-like object works as well: there is no name at all
import io

buffer = io.BytesIO()
torch.save(state, buffer)
buffer.seek(0)
loaded = torch.load(buffer)
assert all(torch.equal(loaded[k], v) for k, v in state.items())
# to Python, .pth in a site folder is a path configuration file: its lines are
# folders to add to sys.path, and a line starting with import is run
os.makedirs("site_dir/extra_lib")
with open("site_dir/paths.pth", "w") as f:
    f.write("extra_lib\nimport sys; sys.pth_line_ran = True\n")
path_before = list(sys.path)
site.addsitedir("site_dir")
assert os.path.abspath("site_dir/extra_lib") in sys.path
assert sys.pth_line_ran is True
sys.path[:] = path_before
del sys.pth_line_ran

# %% optimizer-cast
torch.manual_seed(0)
model = nn.Linear(4, 2).double()  # the run that saved: float64
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
model(torch.randn(8, 4, dtype=torch.float64)).sum().backward()
optimizer.step()
torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()},
           "float64.pt")

checkpoint = torch.load("float64.pt")
print("saved:", checkpoint["optimizer"]["state"][0]["exp_avg"].dtype)
model = nn.Linear(4, 2)  # 1. the model, converted or moved: float32 here
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)  # 2. the optimizer
model.load_state_dict(checkpoint["model"])
optimizer.load_state_dict(checkpoint["optimizer"])  # 3. its state, cast
print("loaded:", optimizer.state[model.weight]["exp_avg"].dtype,
      "parameter:", model.weight.dtype)
optimizer.step()  # state and parameters match

# %% optimizer-cast-checks tags=["remove-cell"]
# every floating-point state tensor takes its parameter's dtype and device;
# step is left as it was
for p in model.parameters():
    s = optimizer.state[p]
    for key in ("exp_avg", "exp_avg_sq"):
        assert s[key].dtype == p.dtype == torch.float32
        assert s[key].device == p.device
for s in checkpoint["optimizer"]["state"].values():
    assert s["exp_avg"].dtype == s["exp_avg_sq"].dtype == torch.float64
    assert s["step"].dtype == torch.float32
assert all(s["step"].dtype == torch.float32 for s in optimizer.state.values())
# step is not cast: in a float64 model's optimizer it stays float32
m = nn.Linear(4, 2).double()
opt = torch.optim.Adam(m.parameters(), lr=0.01)
opt.load_state_dict(checkpoint["optimizer"])
assert opt.state[m.weight]["exp_avg"].dtype == torch.float64
assert opt.state[m.weight]["step"].dtype == torch.float32
# model.load_state_dict copies into the parameters: they keep their dtype
assert all(p.dtype == torch.float32 for p in model.parameters())
# load_state_dict casts what it loads; it does not follow a later conversion
m = nn.Linear(4, 2)
opt = torch.optim.Adam(m.parameters(), lr=0.01)
opt.load_state_dict(checkpoint["optimizer"])
m.double()
assert opt.state[m.weight]["exp_avg"].dtype == torch.float32
assert m.weight.dtype == torch.float64

# %% optimizer-cast-late raises="RuntimeError: expected dtype float for `end` but got dtype double"
model = nn.Linear(4, 2)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
model.load_state_dict(checkpoint["model"])
optimizer.load_state_dict(checkpoint["optimizer"])  # cast to float32
model.double()  # converted after loading, as model.to(device) would be
model(torch.randn(8, 4, dtype=torch.float64)).sum().backward()
optimizer.step()

# %% checkpoint-size
import os


def saved_kib(obj, path="size.pt"):
    torch.save(obj, path)
    return round(os.path.getsize(path) / 1024)


big = nn.Linear(256, 256)  # 65,792 float32 parameters: 257 KiB
optimizers = {
    "SGD": torch.optim.SGD(big.parameters(), lr=0.1),
    "SGD, momentum": torch.optim.SGD(big.parameters(), lr=0.1, momentum=0.9),
    "Adam": torch.optim.Adam(big.parameters(), lr=0.001),
}
for name, opt in optimizers.items():
    big(torch.randn(8, 256)).sum().backward()
    opt.step()  # an optimizer's state is made at its first step
    opt.zero_grad()
    model_kib = saved_kib(big.state_dict())
    both = {"model": big.state_dict(), "optimizer": opt.state_dict()}
    both_kib = saved_kib(both)
    print(f"{name:14} model {model_kib} KiB, with the optimizer {both_kib} KiB")

# %% checkpoint-size-checks tags=["remove-cell"]
adam = optimizers["Adam"]
state = adam.state[big.weight]
assert set(state) == {"step", "exp_avg", "exp_avg_sq"}
assert state["exp_avg"].shape == state["exp_avg_sq"].shape == big.weight.shape
momentum = optimizers["SGD, momentum"].state[big.weight]
assert set(momentum) == {"momentum_buffer"}
assert not optimizers["SGD"].state[big.weight].get("momentum_buffer")
params_kib = sum(p.numel() * 4 for p in big.parameters()) / 1024
model_kib = saved_kib(big.state_dict())
assert abs(model_kib - params_kib) < 8, (model_kib, params_kib)
sizes = {
    name: saved_kib({"model": big.state_dict(), "optimizer": opt.state_dict()})
    for name, opt in optimizers.items()
}
assert abs(sizes["SGD"] / model_kib - 1) < 0.05, sizes
assert abs(sizes["SGD, momentum"] / model_kib - 2) < 0.05, sizes
assert abs(sizes["Adam"] / model_kib - 3) < 0.05, sizes
fresh = torch.optim.Adam(big.parameters(), lr=0.001)  # no step() yet: no state
assert not fresh.state
unstepped = saved_kib({"model": big.state_dict(), "optimizer": fresh.state_dict()})
assert unstepped - model_kib < 2, (unstepped, model_kib)

# %% optimizer-groups raises="ValueError: loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)  # 4 parameters
model(torch.randn(3, 4)).sum().backward()
optimizer.step()
torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()},
           "groups.pt")

checkpoint = torch.load("groups.pt")
model[0].requires_grad_(False)  # the first layer frozen since
optimizer = torch.optim.Adam(  # 2 parameters
    [p for p in model.parameters() if p.requires_grad], lr=0.01
)
optimizer.load_state_dict(checkpoint["optimizer"])

# %% optimizer-groups-split raises="ValueError: loaded state dict has a different number of parameter groups"
weights = [model[0].weight, model[2].weight]
biases = [model[0].bias, model[2].bias]
optimizer = torch.optim.Adam(  # 2 groups: no weight decay on biases
    [{"params": weights}, {"params": biases, "weight_decay": 0.0}], lr=0.01
)
optimizer.load_state_dict(checkpoint["optimizer"])

# %% optimizer-groups-fix
groups = checkpoint["optimizer"]["param_groups"]
print("saved:", len(groups), "group,", [g["params"] for g in groups])
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)  # built as saved
optimizer.load_state_dict(checkpoint["optimizer"])
optimizer.zero_grad()
model(torch.randn(3, 4)).sum().backward()
optimizer.step()  # the frozen layer has no grad: Adam skips it
print("state for", len(optimizer.state), "parameters")

# %% optimizer-groups-fix-checks tags=["remove-cell"]
assert len(groups) == 1 and groups[0]["params"] == [0, 1, 2, 3]
assert len(optimizer.state) == 4
assert model[0].weight.grad is None
assert torch.equal(model[0].weight, torch.load("groups.pt")["model"]["0.weight"])
# only the sizes are compared: the same parameters in another order load without
# an error, each one getting another's state, and the step fails
reordered = torch.optim.Adam(list(model.parameters())[::-1], lr=0.01)
reordered.load_state_dict(checkpoint["optimizer"])
assert reordered.state[model[2].bias]["exp_avg"].shape == (8, 4)
try:
    reordered.step()
except RuntimeError as e:
    assert "must match the size" in str(e)
else:
    raise AssertionError("the step with mismatched state did not fail")
# a fresh optimizer has no state to mismatch
fresh = torch.optim.Adam([p for p in model.parameters() if p.requires_grad])
assert not fresh.state

# %% empty-file raises="EOFError: Ran out of input"
import os

open("empty.pt", "wb").close()  # what an interrupted save can leave behind
print(os.path.getsize("empty.pt"))
torch.load("empty.pt", weights_only=False)

# %% empty-file-checks tags=["remove-cell"]
# with weights_only=True the same file raises an EOFError without text
try:
    torch.load("empty.pt", weights_only=True)
except EOFError as e:
    assert str(e) == ""
else:
    raise AssertionError("loading an empty file did not fail")

# %% truncated-file raises="RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory"
model, optimizer, scheduler = make_training()
torch.save(model.state_dict(), "full.pt")
with open("full.pt", "rb") as f:
    data = f.read()
with open("cut.pt", "wb") as f:  # the first half, as a killed job leaves it
    f.write(data[: len(data) // 2])
print(os.path.getsize("full.pt") > os.path.getsize("cut.pt"))
torch.load("cut.pt")

# %% truncated-file-checks tags=["remove-cell"]
assert os.path.getsize("cut.pt") == len(data) // 2 and data[:2] == b"PK"
# the legacy format, cut short, fails in the unpickler with one of three messages
torch.save(model.state_dict(), "legacy.pt", _use_new_zipfile_serialization=False)
with open("legacy.pt", "rb") as f:
    data = f.read()
import pickle

seen = set()
for fraction in (0.1, 0.3, 0.5, 0.7, 0.9):
    with open("legacy-cut.pt", "wb") as f:
        f.write(data[: int(len(data) * fraction)])
    try:
        torch.load("legacy-cut.pt", weights_only=False)
    except EOFError as e:
        assert str(e) == "Ran out of input"
        seen.add("EOFError")
    except pickle.UnpicklingError as e:
        assert str(e) == "pickle data was truncated"
        seen.add("UnpicklingError")
    except RuntimeError as e:
        assert str(e).startswith("unexpected EOF, expected ")
        assert str(e).endswith("more bytes. The file might be corrupted.")
        seen.add("RuntimeError")
    else:
        raise AssertionError("loading a truncated legacy file did not fail")
assert len(seen) >= 2


# %% atomic-save
def save_atomic(obj, path):
    tmp = path + ".tmp"
    torch.save(obj, tmp)  # a crash here leaves only the .tmp file
    os.replace(tmp, path)  # then the new file takes the old one's place at once


save_atomic(model.state_dict(), "model.pt")
state = torch.load("model.pt")
print(os.path.exists("model.pt"), os.path.exists("model.pt.tmp"))
print(list(state))

# %% atomic-save-checks tags=["remove-cell"]
assert not os.path.exists("model.pt.tmp")
assert all(torch.equal(state[k], v) for k, v in model.state_dict().items())

# %% top-k
import heapq


class KeepTopK:
    """Keep the k checkpoints with the best metric, delete the others"""

    def __init__(self, k, mode="min"):
        self.k, self.sign, self.kept = k, 1 if mode == "max" else -1, []

    def save(self, state, metric, path):
        torch.save(state, path)
        heapq.heappush(self.kept, (self.sign * metric, path))  # worst first
        if len(self.kept) > self.k:
            _, worst = heapq.heappop(self.kept)
            os.remove(worst)


# accuracy per epoch: higher is better
val_acc = [0.61, 0.72, 0.80, 0.78, 0.84, 0.83]
for mode in ("min", "max"):
    keeper = KeepTopK(3, mode=mode)
    for epoch, acc in enumerate(val_acc):
        name = f"{mode}-epoch{epoch}-acc{acc:.2f}.pt"
        keeper.save(model.state_dict(), acc, name)
    print(mode, sorted(path for _, path in keeper.kept))

# %% top-k-checks tags=["remove-cell"]
kept = sorted(p for p in os.listdir(".") if p.startswith(("min-", "max-")))
assert kept == ["max-epoch2-acc0.80.pt", "max-epoch4-acc0.84.pt",
                "max-epoch5-acc0.83.pt", "min-epoch0-acc0.61.pt",
                "min-epoch1-acc0.72.pt", "min-epoch3-acc0.78.pt"]

# %% save-lock raises="TypeError: cannot pickle '_thread.RLock' object"
import logging
import threading


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 1)
        self.lock = threading.RLock()  # loggers, clients, open files hold one


model = Net()
torch.save(model, "net.pt")  # pickles every attribute of the module

# %% save-lock-fix
try:
    torch.load("net.pt", weights_only=False)
except RuntimeError as error:  # the failed save left a broken file
    broken = error
    print(type(broken).__name__)
torch.save(model.state_dict(), "net.pt")  # tensors only: no lock in it
print(list(torch.load("net.pt", weights_only=True)))

# %% save-lock-fix-checks tags=["remove-cell"]
assert "PytorchStreamReader" in str(broken)
# any object holding a lock fails the same way, a logging.Logger too
model.log = logging.getLogger("train")
model.log.addHandler(logging.StreamHandler())
try:
    torch.save(model, "net2.pt")
except TypeError as error:
    assert "cannot pickle" in str(error)
else:
    raise AssertionError("a module holding a lock should not pickle")
assert list(model.state_dict()) == ["fc.weight", "fc.bias"]

# %% disk-full
import shutil

model, optimizer, scheduler = make_training()
save_atomic(model.state_dict(), "model.pt")  # the last good checkpoint
print(shutil.disk_usage(".").free > 0)  # free bytes where the file goes
try:  # /dev/full: a Linux file on which every write fails, as on a full disk
    torch.save({"weights": torch.zeros(1000)}, "/dev/full")
except RuntimeError as error:
    failed = error
    print(type(failed).__name__)
try:  # a save that fails halfway through save_atomic
    save_atomic({"model": Net()}, "model.pt")
except TypeError as error:
    print(type(error).__name__)
print(list(torch.load("model.pt", weights_only=True)))  # still the good one

# %% disk-full-checks tags=["remove-cell"]
good = torch.load("model.pt", weights_only=True)
assert all(torch.equal(good[k], v) for k, v in model.state_dict().items())
assert "inline_container" in str(failed)
assert os.path.exists("model.pt.tmp")  # the half-written file is the .tmp

# %% scheduler-state
import warnings

model, optimizer, scheduler = make_training()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    state = scheduler.state_dict()
    scheduler.load_state_dict(state)
print(len(caught), state["last_epoch"])
lambda_scheduler = torch.optim.lr_scheduler.LambdaLR(
    optimizer, lambda epoch: 0.9**epoch
)
print(lambda_scheduler.state_dict()["lr_lambdas"])  # the function is not saved

# %% scheduler-state-checks tags=["remove-cell"]
assert caught == [] and state["last_epoch"] == 0
assert lambda_scheduler.state_dict()["lr_lambdas"] == [None]
try:
    from torch.optim.lr_scheduler import SAVE_STATE_WARNING  # noqa: F401
except ImportError as error:
    assert "cannot import name 'SAVE_STATE_WARNING'" in str(error)
else:
    raise AssertionError("SAVE_STATE_WARNING is back in torch")
