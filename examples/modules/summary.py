# %% [markdown]
# A model summary with torch alone: what print(model) shows, counting
# parameters (total, trainable, buffers), a Keras-like table of output
# shapes from forward hooks, and the size of the parameters in bytes

# %% [markdown] lang="zh"
# 只用 torch 打印模型摘要：`print(model)` 显示什么，统计参数量（总数、可训练、
# buffer），用前向 hook 打印类似 Keras 的每层输出形状表，以及参数占多少字节

# %% model
import torch
import torch.nn.functional as F
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, kernel_size=3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4 * 4 * 4, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn(self.conv(x))), 2)
        return self.fc(x.flatten(1))


model = Net()
print(model)

# %% model-checks tags=["remove-cell"]
text = str(model)
assert text == repr(model)
# one line per registered submodule, with its constructor arguments
assert [type(m).__name__ for m in model.children()] == [
    "Conv2d", "BatchNorm2d", "Linear"
]
assert all(f"({name}): " in text for name, _ in model.named_children())
# functional calls in forward are not modules: print(model) cannot list them
assert "relu" not in text.lower() and "pool" not in text.lower()
# no parameter count and no output shape in it
n = sum(p.numel() for p in model.parameters())
assert n == 698 and str(n) not in text
assert "[2, 4, 8, 8]" not in text and "(2, 10)" not in text


class Backwards(nn.Module):  # registered in another order than forward runs
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.conv = nn.Conv1d(1, 2, 1)

    def forward(self, x):
        return self.fc(self.conv(x).mean(-1))


assert [n for n, _ in Backwards().named_children()] == ["fc", "conv"]
assert str(Backwards()).index("(fc)") < str(Backwards()).index("(conv)")

# %% count
n_params = sum(p.numel() for p in model.parameters())
n_trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print(n_params, n_trainable)

# %% count-checks tags=["remove-cell"]
# conv: 4 * 1 * 3 * 3 + 4, bn: weight and bias of 4, fc: 64 * 10 + 10
assert n_params == (4 * 9 + 4) + (4 + 4) + (64 * 10 + 10) == 698
assert n_trainable == n_params

# %% freeze
model.conv.requires_grad_(False)
n_trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print(n_params, n_trainable, n_params - n_trainable)

# %% freeze-checks tags=["remove-cell"]
assert n_trainable == 698 - 40 == 658
assert [p.requires_grad for p in model.conv.parameters()] == [False, False]
# frozen parameters are still parameters: the total does not change
assert sum(p.numel() for p in model.parameters()) == n_params

# %% buffers
for name, b in model.named_buffers():
    print(name, tuple(b.shape), b.dtype)
n_buffers = sum(b.numel() for b in model.buffers())
print(n_buffers)

# %% buffers-checks tags=["remove-cell"]
assert [n for n, _ in model.named_buffers()] == [
    "bn.running_mean", "bn.running_var", "bn.num_batches_tracked"
]
assert n_buffers == 4 + 4 + 1 == 9
assert not any(b.requires_grad for b in model.buffers())
# buffers are not parameters
buffer_ids = {id(b) for b in model.buffers()}
assert not any(id(p) in buffer_ids for p in model.parameters())

# %% state-dict-count
state = model.state_dict()
print(len(state), sum(v.numel() for v in state.values()))

# %% state-dict-count-checks tags=["remove-cell"]
assert len(state) == 6 + 3 == 9
assert sum(v.numel() for v in state.values()) == n_params + n_buffers == 707
assert set(state) == (
    {n for n, _ in model.named_parameters()}
    | {n for n, _ in model.named_buffers()}
)

# %% summary
def summary(model, *inputs):  # inputs: the arguments of forward
    rows, names = [], {}

    def shapes(output):  # a tensor's shape, or those of the tensors in a tuple
        if isinstance(output, torch.Tensor):
            return list(output.shape)
        tensors = [o for o in output if isinstance(o, (torch.Tensor, tuple))]
        return [shapes(o) for o in tensors]

    def hook(module, args, output):
        n = sum(p.numel() for p in module.parameters())
        rows.append((names[module], shapes(output), n))

    handles = []
    for name, module in model.named_modules():
        if not list(module.children()):  # leaf modules only
            names[module] = f"{name} ({type(module).__name__})"
            handles.append(module.register_forward_hook(hook))
    was_training = model.training
    model.eval()  # a forward pass in train mode would update BatchNorm
    try:
        with torch.no_grad():
            model(*inputs)
    finally:
        for handle in handles:
            handle.remove()
        model.train(was_training)

    print(f"{'Layer (type)':<20}{'Output shape':<18}{'Param #':>9}")
    for name, shape, n in rows:
        print(f"{name:<20}{str(shape):<18}{n:>9,}")
    total = sum(p.numel() for p in model.parameters())
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print(f"Total params: {total:,}")
    print(f"Trainable params: {trainable:,}")
    print(f"Non-trainable params: {total - trainable:,}")
    return rows


x = torch.randn(2, 1, 8, 8)
rows = summary(model, x)

# %% summary-checks tags=["remove-cell"]
assert rows == [
    ("conv (Conv2d)", [2, 4, 8, 8], 40),
    ("bn (BatchNorm2d)", [2, 4, 8, 8], 8),
    ("fc (Linear)", [2, 10], 650),
]
assert sum(n for _, _, n in rows) == n_params
# eval mode for the pass: the BatchNorm statistics did not move
assert model.bn.num_batches_tracked == 0
assert torch.equal(model.bn.running_mean, torch.zeros(4))
assert model.training  # and the model is back in train mode
# the same pass in train mode would have updated them
probe = Net()
probe(x)
assert probe.bn.num_batches_tracked == 1
assert not torch.equal(probe.bn.running_mean, torch.zeros(4))
# module layers have rows, and a module called twice has two
import contextlib
import io

shared = nn.Linear(3, 3)
twice = nn.Sequential(shared, nn.ReLU(), shared, nn.Flatten())
with contextlib.redirect_stdout(io.StringIO()):
    twice_rows = summary(twice, torch.randn(2, 3))
assert [r[0] for r in twice_rows] == [
    "0 (Linear)", "1 (ReLU)", "0 (Linear)", "3 (Flatten)"
]
# the hooks are gone: another forward pass adds no rows
with torch.no_grad():
    model.eval()(x)
model.train()
assert len(rows) == 3

# %% summary-tuple
class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(100, 8)
        self.lstm = nn.LSTM(8, 16, batch_first=True)
        self.head = nn.Linear(16, 5)

    def forward(self, tokens):
        out, (h, c) = self.lstm(self.embed(tokens))  # the LSTM returns a tuple
        return self.head(out)


tokens = torch.randint(0, 100, (2, 7))  # 2 sequences of 7 tokens
tagger_rows = summary(Tagger(), tokens)

# %% summary-tuple-checks tags=["remove-cell"]
assert [r[1] for r in tagger_rows] == [
    [2, 7, 8], [[2, 7, 16], [[1, 2, 16], [1, 2, 16]]], [2, 7, 5]
]
# the hook that reads output.shape alone fails on the LSTM's tuple
naive = Tagger()
handle = naive.lstm.register_forward_hook(lambda m, a, out: out.shape)
try:
    naive(tokens)
except AttributeError as error:
    assert "'tuple' object has no attribute 'shape'" in str(error)
else:
    raise AssertionError("output.shape worked on a tuple")
handle.remove()
gru = nn.Sequential(nn.Embedding(100, 8), nn.GRU(8, 16, batch_first=True))
with contextlib.redirect_stdout(io.StringIO()):
    gru_rows = summary(gru, tokens)
assert gru_rows[1][1] == [[2, 7, 16], [1, 2, 16]]  # GRU: (output, h)

# %% size
param_bytes = sum(p.numel() * p.element_size() for p in model.parameters())
buffer_bytes = sum(b.numel() * b.element_size() for b in model.buffers())
print(param_bytes, buffer_bytes)
print(f"{(param_bytes + buffer_bytes) / 1024:.2f} KiB")

# %% size-checks tags=["remove-cell"]
assert param_bytes == 698 * 4 == 2792  # float32: 4 bytes each
# running_mean and running_var in float32, num_batches_tracked in int64
assert buffer_bytes == 8 * 4 + 8 == 40
assert param_bytes == sum(p.nbytes for p in model.parameters())
assert model.bn.num_batches_tracked.element_size() == 8
assert round((2792 + 40) / 1024, 2) == 2.77
# training adds a gradient of the same size, and Adam two state tensors
train = Net()
adam = torch.optim.Adam(train.parameters())
train(x).sum().backward()
adam.step()
for p in train.parameters():
    assert p.grad.nbytes == p.nbytes
    state = adam.state[p]
    assert state["exp_avg"].nbytes == state["exp_avg_sq"].nbytes == p.nbytes
half = Net().to(torch.bfloat16)
assert sum(p.numel() * p.element_size() for p in half.parameters()) == 698 * 2

# %% flops
from torch.utils.flop_counter import FlopCounterMode

mlp = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 10))
x = torch.randn(3, 10)
# display=True prints a table, with tabulate
with FlopCounterMode(display=False) as counter:
    mlp(x)
print(counter.get_total_flops())  # 2 * 3 * (10 * 20 + 20 * 10)
counts = counter.get_flop_counts()  # per module, then per operation
for module in sorted(counts):
    print(module, {str(op): n for op, n in counts[module].items()})

# %% flops-checks tags=["remove-cell"]
assert counter.get_total_flops() == 2 * 3 * 10 * 20 * 2 == 2400
counts = counter.get_flop_counts()
assert sum(counts["Sequential.0"].values()) == 1200  # a multiply-add counts as 2
assert sum(counts["Sequential.2"].values()) == 1200
assert "Sequential.1" not in counts  # ReLU is not counted
with FlopCounterMode(display=False) as c:
    mlp(torch.randn(6, 10))
assert c.get_total_flops() == 2 * 2400  # twice the batch, twice the FLOPs
conv = nn.Conv2d(3, 8, 3)
with FlopCounterMode(display=False) as c:
    conv(torch.randn(1, 3, 10, 10))
assert c.get_total_flops() == 2 * 8 * 8 * 8 * 3 * 9 == 27648

# %% flops-backward
with FlopCounterMode(display=False) as counter:
    mlp(x).sum().backward()
print(counter.get_total_flops())  # forward 2400, backward 3600

# %% flops-backward-checks tags=["remove-cell"]
single = nn.Linear(10, 20)
with FlopCounterMode(display=False) as c:
    single(torch.randn(3, 10)).sum().backward()
assert c.get_total_flops() == 2400  # addmm forward + mm for the weight's gradient
# backward: each weight's gradient (1200 each), and the input gradient of the
# second layer only (1200): x does not require grad
assert counter.get_total_flops() == 2400 + 1200 + 1200 + 1200 == 6000

# %% summary-two-inputs
class TwoInputs(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(100, 8)  # token ids: integers
        self.meta = nn.Linear(3, 8)  # 3 numeric features per sample
        self.head = nn.Linear(16, 2)

    def forward(self, tokens, features):
        text = self.embed(tokens).mean(dim=1)  # average over the tokens
        return self.head(torch.cat([text, self.meta(features)], dim=1))


two = TwoInputs()
tokens = torch.randint(0, 100, (2, 7))  # (batch, seq_len), int64
features = torch.randn(2, 3)  # (batch, 3), float32
two_rows = summary(two, tokens, features)

# %% summary-two-inputs-checks tags=["remove-cell"]
assert two_rows == [
    ("embed (Embedding)", [2, 7, 8], 800),
    ("meta (Linear)", [2, 8], 32),
    ("head (Linear)", [2, 2], 34),
]
assert sum(n for _, _, n in two_rows) == sum(p.numel() for p in two.parameters())
assert tokens.dtype == torch.int64 and features.dtype == torch.float32
# the hooks are gone and the model is back in train mode
assert all(not m._forward_hooks for m in two.modules()) and two.training

# %% summary-float-inputs raises="RuntimeError: Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got torch.FloatTensor instead"
sizes = [(2, 7), (2, 3)]  # input sizes only, as a size-based tool takes them
summary(two, *[torch.rand(size) for size in sizes])  # float32 for both

# %% summary-float-inputs-checks tags=["remove-cell"]
# the failed pass left no hook behind, and the mode as it was
assert all(not m._forward_hooks for m in two.modules()) and two.training
# integer ids of the sizes work: the dtype was the problem, not the shapes
with contextlib.redirect_stdout(io.StringIO()):
    ok_rows = summary(two, torch.zeros(2, 7, dtype=torch.long), torch.rand(2, 3))
assert [r[1] for r in ok_rows] == [r[1] for r in two_rows]
