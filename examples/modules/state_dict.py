# %% [markdown]
# state_dict() maps names to the parameters and persistent buffers of a
# module; its tensors are detached but share storage with the live model

# %% [markdown] lang="zh"
# `state_dict()` 把名字映射到模块的参数和持久化的 buffer；其中的张量
# 已经 detach，但仍与当前模型共享存储

# %% keys
import copy

import torch
from torch import nn

model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
state = model.state_dict()
print(type(state))
for name, tensor in state.items():
    print(name, tuple(tensor.shape), tensor.dtype)

# %% non-persistent
class WithBuffers(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("saved", torch.zeros(2))
        self.register_buffer("scratch", torch.zeros(2), persistent=False)


m = WithBuffers()
print([name for name, _ in m.named_buffers()])
print(list(m.state_dict()))

# %% no-grad
print(model[0].weight.requires_grad, state["0.weight"].requires_grad)
print(type(state["0.weight"]).__name__, state["0.weight"].grad_fn)

# %% shares-storage
print(state["0.weight"].data_ptr() == model[0].weight.data_ptr())

# %% snapshot-wrong
model = nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 2), torch.randn(8, 1)

saved = model.state_dict()  # meant as a backup
before = model.weight.detach().clone()

loss = nn.functional.mse_loss(model(x), y)
loss.backward()
optimizer.step()  # updates the parameters in place

print(torch.equal(model.weight, before))  # training changed the weights
# ... and the "backup" with them
print(torch.equal(saved["weight"], model.weight))
model.load_state_dict(saved)
print(torch.equal(model.weight, before))  # nothing was restored

# %% snapshot-right
model = nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

saved = copy.deepcopy(model.state_dict())
# or: saved = {k: v.detach().clone() for k, v in model.state_dict().items()}
before = model.weight.detach().clone()

loss = nn.functional.mse_loss(model(x), y)
loss.backward()
optimizer.step()

print(torch.equal(saved["weight"], before))  # the copy kept the old values
model.load_state_dict(saved)
print(torch.equal(model.weight, before))  # restored

# %% strict-mismatch tags=["raises-exception"]
model = nn.Linear(2, 1)
checkpoint = {"module." + k: v for k, v in model.state_dict().items()}
model.load_state_dict(checkpoint)

# %% strict-false
result = model.load_state_dict(checkpoint, strict=False)
print(result.missing_keys, result.unexpected_keys)

# %% strip-prefix
fixed = {k.removeprefix("module."): v for k, v in checkpoint.items()}
print(model.load_state_dict(fixed))

# %% size-mismatch tags=["raises-exception"]
model.load_state_dict(nn.Linear(3, 1).state_dict(), strict=False)

# %% save-load
model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
torch.save(model.state_dict(), "model.pt")

restored = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
restored.load_state_dict(torch.load("model.pt"))
model.eval()
restored.eval()
x = torch.randn(5, 3)
print(torch.equal(model(x), restored(x)))

# %% whole-model tags=["raises-exception"] holds=">=2.6" claim="`torch.load` defaults to `weights_only=True`, so loading a whole pickled model raises `UnpicklingError`"
torch.save(model, "whole.pt")
torch.load("whole.pt")

# %% checks tags=["remove-cell"] holds=">=2.6" claim="`torch.load` refuses a pickled module by default"
# What the page says, checked on every build
import collections
import pickle

net = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
sd = net.state_dict()
assert type(sd) is collections.OrderedDict
assert list(sd) == [
    "0.weight", "0.bias",
    "1.weight", "1.bias", "1.running_mean", "1.running_var",
    "1.num_batches_tracked",
]
assert sd["1.num_batches_tracked"].dtype == torch.long
assert [n for n, _ in WithBuffers().named_buffers()] == ["saved", "scratch"]
# persistent=False is left out
assert list(WithBuffers().state_dict()) == ["saved"]
# follows .to()
assert WithBuffers().to(torch.float64).scratch.dtype == torch.float64

for name, tensor in sd.items():
    assert not tensor.requires_grad and tensor.grad_fn is None
    # detached plain tensors, not Parameters
    assert type(tensor) is torch.Tensor
live = dict(net.named_parameters()) | dict(net.named_buffers())
for name, tensor in sd.items():
    assert tensor.data_ptr() == live[name].data_ptr()  # shares storage
kept = net.state_dict(keep_vars=True)
# keep_vars=True returns the Parameters
assert kept["0.weight"] is net[0].weight

# the note's "clone": restoring the undeep-copied state_dict restores nothing
net = nn.Linear(2, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
shallow = net.state_dict()
deep = copy.deepcopy(net.state_dict())
cloned = {k: v.detach().clone() for k, v in net.state_dict().items()}
old = net.weight.detach().clone()
nn.functional.mse_loss(net(torch.randn(5, 2)), torch.ones(5, 1)).backward()
opt.step()
assert not torch.equal(net.weight, old)
assert torch.equal(shallow["weight"], net.weight)  # the shallow one moved along
assert torch.equal(deep["weight"], old) and torch.equal(cloned["weight"], old)
net.load_state_dict(deep)
assert torch.equal(net.weight, old)
# loading copies values
assert net.weight.data_ptr() != deep["weight"].data_ptr()
net.weight.data.add_(1)
assert torch.equal(deep["weight"], old)  # so the snapshot stays usable

# nn.DataParallel prefixes every key with "module.", as the checkpoint above
assert list(nn.DataParallel(nn.Linear(2, 1)).state_dict()) == list(checkpoint)
try:
    nn.Linear(2, 1).load_state_dict(checkpoint)
except RuntimeError as error:
    assert "Error(s) in loading state_dict for Linear" in str(error)
    assert "Missing key(s) in state_dict" in str(error)
    assert "Unexpected key(s) in state_dict" in str(error)
else:
    raise AssertionError("load_state_dict should reject other keys by default")
target = nn.Linear(2, 1)
w0 = target.weight.detach().clone()
res = target.load_state_dict(checkpoint, strict=False)
assert res.missing_keys == ["weight", "bias"]
assert res.unexpected_keys == ["module.weight", "module.bias"]
assert torch.equal(target.weight, w0)  # strict=False loaded nothing
partial = {"weight": torch.ones(1, 2), "module.bias": torch.ones(1)}
b0 = target.bias.detach().clone()
target.load_state_dict(partial, strict=False)
# the matching key is loaded
assert torch.equal(target.weight, torch.ones(1, 2))
assert torch.equal(target.bias, b0)
res = target.load_state_dict(fixed)
assert res.missing_keys == [] and res.unexpected_keys == []
assert torch.equal(target.weight, fixed["weight"])
try:
    nn.Linear(2, 1).load_state_dict(nn.Linear(3, 1).state_dict(), strict=False)
except RuntimeError as error:
    assert "size mismatch for weight" in str(error)
else:
    raise AssertionError("a shape mismatch should fail even with strict=False")

assert torch.equal(model(x), restored(x))
for name, tensor in torch.load("model.pt").items():
    assert torch.equal(tensor, model.state_dict()[name])
try:  # weights_only=True is the default of torch.load today
    torch.load("whole.pt")
except Exception as error:
    assert isinstance(error, pickle.UnpicklingError)
    assert "Weights only load failed" in str(error)
    assert "weights_only" in str(error) and "PyTorch 2.6" in str(error)
else:
    raise AssertionError(
        "torch.load of a pickled module should fail by default"
    )
whole = torch.load("whole.pt", weights_only=False)  # trusted file, own process
assert torch.equal(whole(x), model(x))

# %% nested-head-keys
import re


class Net(nn.Module):
    def __init__(self, head):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.fc = head

    def forward(self, x):
        return self.fc(torch.relu(self.body(x)))


torch.manual_seed(0)
trained = Net(nn.Sequential(nn.Linear(8, 2)))  # head inside a Sequential
checkpoint = trained.state_dict()
net = Net(nn.Linear(8, 2))  # plain Linear head
print(list(checkpoint))
print(list(net.state_dict()))

# %% nested-head-mismatch raises="RuntimeError: Error(s) in loading state_dict for Net"
net.load_state_dict(checkpoint)

# %% nested-head-strict-false
head_before = net.fc.weight.detach().clone()
result = net.load_state_dict(checkpoint, strict=False)
print(result.missing_keys)
print(result.unexpected_keys)
x = torch.randn(3, 4)
print(torch.equal(net.body.weight, trained.body.weight))  # body loaded
print(torch.equal(net.fc.weight, head_before))  # head left as initialised
print(torch.equal(net(x), trained(x)))

# %% nested-head-strict-false-checks tags=["remove-cell"]
assert result.missing_keys == ["fc.weight", "fc.bias"]
assert result.unexpected_keys == ["fc.0.weight", "fc.0.bias"]
assert torch.equal(net.body.weight, trained.body.weight)
assert torch.equal(net.body.bias, trained.body.bias)
assert torch.equal(net.fc.weight, head_before)
assert not torch.equal(net(x), trained(x))
try:
    Net(nn.Linear(8, 2)).load_state_dict(checkpoint)
except RuntimeError as error:
    message = str(error)
    assert 'Missing key(s) in state_dict: "fc.weight", "fc.bias"' in message
    assert 'Unexpected key(s) in state_dict: "fc.0.weight", "fc.0.bias"' in message
else:
    raise AssertionError("the nested head should not load into a plain one")

# %% nested-head-rebuild
# the head the checkpoint was saved from
same = Net(nn.Sequential(nn.Linear(8, 2)))
print(same.load_state_dict(checkpoint))
print(torch.equal(same(x), trained(x)))

# %% nested-head-rename
renamed = {re.sub(r"^fc\.0\.", "fc.", k): v for k, v in checkpoint.items()}
net = Net(nn.Linear(8, 2))
print(net.load_state_dict(renamed))
print(torch.equal(net(x), trained(x)))

# %% nested-head-rename-checks tags=["remove-cell"]
assert list(renamed) == ["body.weight", "body.bias", "fc.weight", "fc.bias"]
assert torch.equal(same(x), trained(x)) and torch.equal(net(x), trained(x))
# the other way: a plain head's keys into a Sequential head
back = {re.sub(r"^fc\.", "fc.0.", k): v for k, v in net.state_dict().items()}
other = Net(nn.Sequential(nn.Linear(8, 2)))
res = other.load_state_dict(back)
assert res.missing_keys == [] and res.unexpected_keys == []
assert torch.equal(other(x), trained(x))

# %% load-result
model = nn.Linear(2, 1)
result = model.load_state_dict(model.state_dict())
print(repr(result))
print(bool(result), result.missing_keys, result.unexpected_keys)
result = model.load_state_dict({"weight": torch.ones(1, 2)}, strict=False)
print(repr(result))
if result.missing_keys:  # test the lists, not the result: it is always true
    print("not loaded:", result.missing_keys)

# %% load-result-checks tags=["remove-cell"]
matched = model.load_state_dict(model.state_dict())
assert repr(matched) == "<All keys matched successfully>" and bool(matched)
assert matched.missing_keys == [] and matched.unexpected_keys == []
assert repr(result) == "_IncompatibleKeys(missing_keys=['bias'], unexpected_keys=[])"
assert torch.equal(model.weight, torch.ones(1, 2))

# %% pickle-load raises="_pickle.UnpicklingError: A load persistent id instruction was encountered"
import pickle

torch.save(model.state_dict(), "w.pt")
with open("w.pt", "rb") as f:
    pickle.load(f)  # a torch.save file is not a plain pickle

# %% pickle-load-checks tags=["remove-cell"]
assert torch.equal(torch.load("w.pt")["weight"], model.weight.detach())
# the legacy format unpickles without an error, into something else than the weights
torch.save(model.state_dict(), "old.pt", _use_new_zipfile_serialization=False)
with open("old.pt", "rb") as f:
    junk = pickle.load(f)
assert not isinstance(junk, dict)
assert torch.equal(torch.load("old.pt")["weight"], model.weight.detach())

# %% load-path raises="TypeError: Expected state_dict to be dict-like, got <class 'str'>."
model = nn.Linear(2, 1)
torch.save(model.state_dict(), "linear.pt")
model.load_state_dict("linear.pt")  # a path, not the dictionary

# %% load-class raises="TypeError: …load_state_dict() missing 1 required positional argument: 'state_dict'"
nn.Linear.load_state_dict(torch.load("linear.pt"))  # the class, not a model

# %% load-key raises="KeyError: 'state_dict'"
checkpoint = torch.load("linear.pt")
model.load_state_dict(checkpoint["state_dict"])

# %% load-fix
def weights_of(checkpoint):
    for key in ("state_dict", "model_state_dict", "model"):
        if key in checkpoint:
            return checkpoint[key]
    return checkpoint  # the file is the state_dict itself


torch.save({"epoch": 3, "model_state_dict": model.state_dict()}, "ckpt.pt")
for path in ("linear.pt", "ckpt.pt"):
    checkpoint = torch.load(path, weights_only=True)
    print(path, type(checkpoint).__name__, list(checkpoint)[:5])
    state = weights_of(checkpoint)
    # strip the DataParallel prefix only where it is there
    state = {k.removeprefix("module."): v for k, v in state.items()}
    model = nn.Linear(2, 1)  # an instance of the class that was saved
    print(model.load_state_dict(state))

# %% load-fix-checks tags=["remove-cell"]
saved = torch.load("linear.pt", weights_only=True)
assert torch.equal(model.weight, saved["weight"])
for call in (lambda: model.load_state_dict("linear.pt"),
             lambda: nn.Linear.load_state_dict(saved)):
    try:
        call()
    except TypeError as error:
        message = str(error)
    else:
        raise AssertionError("load_state_dict should reject this call")
# the dictionary fills the place of self
assert "required positional argument: 'state_dict'" in message
assert list(torch.load("ckpt.pt", weights_only=True)) == [
    "epoch", "model_state_dict"]
wrapped = {"module." + k: v for k, v in saved.items()}
assert list(weights_of({"model": wrapped})) == ["module.weight", "module.bias"]
# a trusted old file: extra keywords go to pickle
latin = torch.load("linear.pt", encoding="latin1", weights_only=False)
assert torch.equal(latin["weight"], saved["weight"])

# %% average-models
def make_model():
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 1))


torch.manual_seed(0)
model_a, model_b = make_model(), make_model()  # two trained models, say
for model, batches in ((model_a, 3), (model_b, 5)):
    for _ in range(batches):  # train mode: BatchNorm updates its statistics
        model(torch.randn(8, 3))
sd_a, sd_b = model_a.state_dict(), model_b.state_dict()
print({k: v.dtype for k, v in sd_a.items() if not v.is_floating_point()})

# %% average-naive raises="RuntimeError: mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Long" holds="<2.15" claim="`mean()` of the stacked `int64` counters raises a `RuntimeError`"
averaged = {k: torch.stack([sd_a[k], sd_b[k]]).mean(dim=0) for k in sd_a}

# %% average-right
def average_state_dicts(a, b):
    averaged = {}
    for key in a:
        if a[key].is_floating_point():
            averaged[key] = (a[key] + b[key]) / 2
        else:  # integer buffers, such as num_batches_tracked: copy
            averaged[key] = a[key].clone()
    return averaged


merged = make_model()
print(merged.load_state_dict(average_state_dicts(sd_a, sd_b)))
mean_weight = (model_a[0].weight + model_b[0].weight) / 2
print(torch.allclose(merged[0].weight, mean_weight))
print(merged[1].num_batches_tracked)

# %% average-right-checks tags=["remove-cell"]
for name, tensor in merged.state_dict().items():
    if tensor.is_floating_point():
        assert torch.allclose(tensor, (sd_a[name] + sd_b[name]) / 2), name
    else:
        assert tensor.dtype == torch.long and torch.equal(tensor, sd_a[name])
assert sd_a["1.num_batches_tracked"] == 3 and sd_b["1.num_batches_tracked"] == 5
# (a + b) / 2 on every key: the counter turns into a float, and
# load_state_dict copies it back into the long buffer without a word
naive = {k: (sd_a[k] + sd_b[k]) / 2 for k in sd_a}
assert naive["1.num_batches_tracked"].dtype == torch.float32
odd = {k: v.clone() for k, v in naive.items()}
odd["1.num_batches_tracked"] = torch.tensor(3.5)
target = make_model()
res = target.load_state_dict(odd)
assert res.missing_keys == [] and res.unexpected_keys == []
assert target[1].num_batches_tracked.dtype == torch.long
assert target[1].num_batches_tracked == 3  # 3.5, truncated

# %% averaged-model
from torch.optim.swa_utils import AveragedModel

swa = AveragedModel(model_a)  # meant for the weights of one run
swa.update_parameters(model_a)  # the first update copies
swa.update_parameters(model_b)  # then a running mean
print(torch.allclose(swa.module[0].weight, merged[0].weight))

# %% averaged-model-checks tags=["remove-cell"]
for p_swa, p_merged in zip(swa.module.parameters(), merged.parameters()):
    assert torch.allclose(p_swa, p_merged)
assert swa.n_averaged == 2
# buffers are copied from the last model given, not averaged
assert torch.equal(swa.module[1].running_mean, model_b[1].running_mean)
# the first update copies the model it is given
once = AveragedModel(model_a)
once.update_parameters(model_b)
assert torch.equal(once.module[0].weight, model_b[0].weight)

# %% average-permuted
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
order = torch.tensor([3, 2, 1, 0])  # the same hidden units, reordered
twin = copy.deepcopy(net)
with torch.no_grad():
    twin[0].weight.copy_(net[0].weight[order])
    twin[0].bias.copy_(net[0].bias[order])
    twin[2].weight.copy_(net[2].weight[:, order])
mean = copy.deepcopy(net)
mean.load_state_dict(average_state_dicts(net.state_dict(), twin.state_dict()))
x = torch.randn(5, 3)
print(torch.allclose(net(x), twin(x)))  # the same function
print(torch.allclose(net(x), mean(x)))  # but not their average

# %% average-permuted-checks tags=["remove-cell"]
assert torch.allclose(net(x), twin(x))
assert not torch.allclose(net(x), mean(x))
assert not torch.allclose(net[0].weight, twin[0].weight)

# %% no-module raises="AttributeError: 'Model' object has no attribute 'module'"
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 1)

    def forward(self, x):
        return self.fc(x)


model = Model()  # trained on one GPU or on the CPU: no wrapper
torch.save(model.module.state_dict(), "model.pt")

# %% unwrap
def unwrap(model):
    # DataParallel and DistributedDataParallel keep the model in .module
    return getattr(model, "module", model)


for m in (model, nn.DataParallel(model)):
    print(type(m).__name__, list(m.state_dict()), list(unwrap(m).state_dict()))
torch.save(unwrap(model).state_dict(), "model.pt")
print(Model().load_state_dict(torch.load("model.pt", weights_only=True)))

# %% unwrap-checks tags=["remove-cell"]
assert unwrap(model) is model
wrapped = nn.DataParallel(model)
assert unwrap(wrapped) is model
assert list(wrapped.state_dict()) == ["module.fc.weight", "module.fc.bias"]
assert list(unwrap(wrapped).state_dict()) == ["fc.weight", "fc.bias"]
assert torch.equal(torch.load("model.pt", weights_only=True)["fc.weight"],
                   model.fc.weight.detach())


# a model of your own with a submodule named "module" fools getattr
class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.module = nn.Linear(2, 1)


outer = Outer()
assert unwrap(outer) is outer.module
assert not isinstance(outer, (nn.DataParallel,
                              nn.parallel.DistributedDataParallel))
assert isinstance(wrapped, (nn.DataParallel,
                            nn.parallel.DistributedDataParallel))

# %% none-buffer
class Cache(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("table", None)  # filled in at the first call

    def forward(self, x):
        if self.table is None:
            self.table = torch.linspace(0.0, 1.0, x.shape[-1])
        return x * self.table


cache = Cache()
print([name for name, _ in cache.named_buffers()], list(cache.state_dict()))
cache(torch.ones(2, 4))
print([name for name, _ in cache.named_buffers()], list(cache.state_dict()))
checkpoint = cache.state_dict()

# %% none-buffer-checks tags=["remove-cell"]
assert "table" in cache._buffers and cache._buffers["table"] is not None
assert list(checkpoint) == ["table"] and checkpoint["table"].shape == (4,)
# a None buffer is registered (the name is taken) but left out of both
empty = Cache()
assert "table" in empty._buffers and empty.table is None
assert list(empty.named_buffers()) == [] and list(empty.state_dict()) == []
# and the assigned tensor is a buffer: converted by .to(), not a parameter
assert list(cache.parameters()) == []
assert cache.to(torch.float64).table.dtype == torch.float64
cache.to(torch.float32)

# %% none-buffer-load raises="RuntimeError: Error(s) in loading state_dict for Cache: Unexpected key(s) in state_dict: \"table\"."
Cache().load_state_dict(checkpoint)

# %% none-buffer-placeholder
class SizedCache(Cache):
    def __init__(self, n):
        super().__init__()
        self.table = torch.zeros(n)  # a placeholder of the saved shape


fresh = SizedCache(4)
print(fresh.load_state_dict(checkpoint), fresh.table)

# %% none-buffer-placeholder-checks tags=["remove-cell"]
assert torch.equal(fresh.table, checkpoint["table"])
assert [n for n, _ in fresh.named_buffers()] == ["table"]
# the placeholder must have the saved shape
try:
    SizedCache(3).load_state_dict(checkpoint)
except RuntimeError as error:
    assert "size mismatch for table" in str(error)
else:
    raise AssertionError("a placeholder of another shape loaded")

# %% none-buffer-strict-false
fresh = Cache()
result = fresh.load_state_dict(checkpoint, strict=False)
print(result)
assert result.missing_keys == [] and result.unexpected_keys == ["table"]
fresh.table = checkpoint["table"].clone()  # set what was skipped

# %% none-buffer-strict-false-checks tags=["remove-cell"]
assert torch.equal(fresh.table, checkpoint["table"])
assert fresh.table.data_ptr() != checkpoint["table"].data_ptr()
assert list(fresh.state_dict()) == ["table"]

# %% none-buffer-hook
class LoadableCache(Cache):
    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
        key = prefix + "table"
        if self.table is None and key in state_dict:
            # make room: an empty buffer of the saved shape and dtype
            self.table = torch.empty_like(state_dict[key])
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)


fresh = LoadableCache()
print(fresh.load_state_dict(checkpoint), fresh.table)
nested = nn.Sequential(LoadableCache())  # keys with a prefix: "0.table"
print(nested.load_state_dict({"0.table": checkpoint["table"]}))

# %% none-buffer-hook-checks tags=["remove-cell"]
assert torch.equal(fresh.table, checkpoint["table"])
assert torch.equal(nested[0].table, checkpoint["table"])
# copied, not shared with the checkpoint
assert fresh.table.data_ptr() != checkpoint["table"].data_ptr()
# a checkpoint saved before the first call has no key: loads, stays None
before = LoadableCache()
assert not before.load_state_dict(Cache().state_dict()).unexpected_keys
assert before.table is None
x = torch.ones(1, 4)
assert torch.equal(fresh(x), cache(x))
# built-in layers override _load_from_state_dict too
assert nn.BatchNorm1d._load_from_state_dict is not nn.Module._load_from_state_dict

# %% none-buffer-public-hook-checks tags=["remove-cell"] holds=">=2.5" about="none-buffer-hook" claim="`nn.Module.register_load_state_dict_pre_hook` exists and can create a `None` buffer before loading"
def make_room(module, state_dict, prefix, *args):
    if module.table is None and prefix + "table" in state_dict:
        module.table = torch.empty_like(state_dict[prefix + "table"])


hooked = Cache()
hooked.register_load_state_dict_pre_hook(make_room)
assert not hooked.load_state_dict(checkpoint).unexpected_keys
assert torch.equal(hooked.table, checkpoint["table"])

# %% buffer-alias
class Normalize(nn.Module):
    def __init__(self, mean):
        super().__init__()
        self.register_buffer("mean", mean)  # the caller's tensor itself

    def forward(self, x):
        return x - self.mean


stats = torch.zeros(3)
first, second = Normalize(stats), Normalize(stats)
first.load_state_dict({"mean": torch.tensor([1.0, 2.0, 3.0])})
print(stats)
print(second.mean)  # another model, never loaded

# %% buffer-alias-checks tags=["remove-cell"]
assert first.mean is stats and second.mean is stats
assert torch.equal(stats, torch.tensor([1.0, 2.0, 3.0]))
assert torch.equal(second(torch.zeros(3)), -torch.tensor([1.0, 2.0, 3.0]))
# parameters are copied into in place too
linear = nn.Linear(2, 1)
w = linear.weight
linear.load_state_dict({"weight": torch.ones(1, 2), "bias": torch.zeros(1)})
assert linear.weight is w and torch.equal(w, torch.ones(1, 2))
# nn.Parameter(t) shares t's storage: loading changes t as well
t = torch.zeros(2)
holder = nn.Module()
holder.p = nn.Parameter(t)
holder.load_state_dict({"p": torch.ones(2)})
assert torch.equal(t, torch.ones(2))

# %% buffer-alias-fix
class Normalize(nn.Module):
    def __init__(self, mean):
        super().__init__()
        self.register_buffer("mean", mean.clone())  # a tensor of its own

    def forward(self, x):
        return x - self.mean


stats = torch.zeros(3)
first, second = Normalize(stats), Normalize(stats)
first.load_state_dict({"mean": torch.tensor([1.0, 2.0, 3.0])})
print(stats, second.mean, first.mean)

# %% buffer-alias-fix-checks tags=["remove-cell"]
assert torch.equal(stats, torch.zeros(3)) and torch.equal(second.mean, stats)
assert torch.equal(first.mean, torch.tensor([1.0, 2.0, 3.0]))
assert first.mean.data_ptr() != stats.data_ptr() != second.mean.data_ptr()
