# %% [markdown]
# Activation checkpointing: how much autograd keeps for the backward pass
# with and without torch.utils.checkpoint, the same gradients, and the
# forward passes it costs

# %% [markdown] lang="zh"
# 激活检查点：用与不用 `checkpoint` 时 autograd 为反向传播
# 保存了多少数据，梯度相同，以及多付出的前向计算

# %% setup
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential


class Block(nn.Module):  # an MLP block, as in a transformer layer
    def __init__(self, width):
        super().__init__()
        self.mlp = nn.Sequential(
            nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width)
        )

    def forward(self, x):
        return x + self.mlp(x)


class Net(nn.Module):
    def __init__(self, width=128, depth=8):
        super().__init__()
        self.blocks = nn.ModuleList(Block(width) for _ in range(depth))
        self.checkpointed = False

    def forward(self, x):
        for block in self.blocks:
            if self.checkpointed:
                x = checkpoint(block, x, use_reentrant=False)
            else:
                x = block(x)
        return x


def saved_for_backward(model, run):
    """The bytes autograd keeps for backward, and the output of run()"""
    saved = []

    def pack(tensor):
        saved.append(tensor)
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        out = run()
    weights = {p.untyped_storage().data_ptr() for p in model.parameters()}
    storages = {  # each memory block once, the model's weights left out
        t.untyped_storage().data_ptr(): t.untyped_storage().nbytes()
        for t in saved
    }
    activations = sum(
        size for ptr, size in storages.items() if ptr not in weights
    )
    return activations, out


model = Net()
x = torch.randn(32, 128)

# %% saved
kept = {}
grads = {}
for checkpointed in (False, True):
    model.checkpointed = checkpointed
    kept[checkpointed], out = saved_for_backward(model, lambda: model(x))
    model.zero_grad()
    out.pow(2).mean().backward()
    grads[checkpointed] = [p.grad.clone() for p in model.parameters()]
    print(f"checkpointed={checkpointed}: {kept[checkpointed] // 1024} KiB")

same = all(torch.allclose(a, b) for a, b in zip(grads[False], grads[True]))
print("same gradients:", same)

# %% saved-checks tags=["remove-cell"]
activation = 32 * 128 * 4  # bytes of one block's input or output
hidden = 4 * activation  # of the wider tensors inside a block
# without checkpointing: each block's input, its first Linear's output
# (for GELU) and GELU's output (for the second Linear)
assert kept[False] == 8 * (activation + 2 * hidden)
# with it: only each block's input
assert kept[True] == 8 * activation
assert kept[False] // kept[True] == 9
assert same

# %% recompute
calls = {"forward": 0, "backward": 0}
phase = "forward"


def count(module, args):
    calls[phase] += 1


hooks = [block.register_forward_pre_hook(count) for block in model.blocks]
for checkpointed in (False, True):
    model.checkpointed = checkpointed
    calls = {"forward": 0, "backward": 0}
    phase = "forward"
    loss = model(x).pow(2).mean()
    phase = "backward"
    loss.backward()
    print(f"checkpointed={checkpointed}: block calls {calls}")
for hook in hooks:
    hook.remove()

# %% recompute-checks tags=["remove-cell"]
# the last loop ran with checkpointing: every block ran again in backward
assert calls == {"forward": 8, "backward": 8}
# a block with dropout draws the same mask again: the random state is
# saved and restored (preserve_rng_state, True by default)
noisy = nn.Sequential(nn.Linear(128, 512), nn.Dropout(0.5), nn.Linear(512, 128))
gradients = []
for wrapped in (False, True):
    torch.manual_seed(0)
    noisy.zero_grad()
    inputs = x.clone().requires_grad_()
    out = checkpoint(noisy, inputs, use_reentrant=False) if wrapped else noisy(inputs)
    out.sum().backward()
    gradients.append(inputs.grad)
assert torch.allclose(*gradients)
# without autograd there is nothing to keep, checkpointed or not
model.checkpointed = False
with torch.no_grad():
    assert saved_for_backward(model, lambda: model(x))[0] == 0

# %% sequential
blocks = nn.Sequential(*model.blocks)  # the same blocks, as a chain
for segments in (2, 4, 8):
    size, out = saved_for_backward(
        model,
        lambda: checkpoint_sequential(blocks, segments, x, use_reentrant=False),
    )
    print(f"{segments} segments: {size // 1024} KiB")

# %% sequential-checks tags=["remove-cell"]
# each segment keeps its input, but the last segment runs without
# checkpointing: it keeps everything, as the plain model does
per_block = activation + 2 * hidden
for segments in (2, 4, 8):
    size, out = saved_for_backward(
        model,
        lambda: checkpoint_sequential(blocks, segments, x, use_reentrant=False),
    )
    last = 8 // segments
    assert size == (segments - 1) * activation + last * per_block, segments
    model.checkpointed = False
    assert torch.allclose(out, model(x))

# %% reentrant-warning
block = model.blocks[0]
y = checkpoint(block, x.clone().requires_grad_())  # no use_reentrant

# %% reentrant-warning-checks tags=["remove-cell"]
import inspect
import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    checkpoint(model.blocks[0], x)
assert any("use_reentrant" in str(w.message) for w in caught)
# without the argument it is the reentrant variant: see the next cell
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    assert not checkpoint(model.blocks[0], torch.randn(32, 128)).requires_grad
# the documentation recommends use_reentrant=False
doc = " ".join(inspect.getdoc(checkpoint).split())
assert "recommended that you use ``use_reentrant=False``" in doc

# %% reentrant-no-grad
frozen_input = torch.randn(32, 128)  # requires no gradient
head = nn.Linear(128, 1)
for reentrant in (True, False):
    model.zero_grad()
    head.zero_grad()
    y = checkpoint(model.blocks[0], frozen_input, use_reentrant=reentrant)
    head(y).sum().backward()
    block_grad = model.blocks[0].mlp[0].weight.grad
    print(f"use_reentrant={reentrant}: block's gradient is None:",
          block_grad is None, "/ head's:", head.weight.grad is None)

# %% reentrant-no-grad-checks tags=["remove-cell"]
# the last loop ran with use_reentrant=False: the block has its gradient
assert model.blocks[0].mlp[0].weight.grad is not None
model.zero_grad()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    y = checkpoint(model.blocks[0], frozen_input, use_reentrant=True)
assert any("None of the inputs have requires_grad=True" in str(w.message)
           for w in caught)
assert not y.requires_grad  # the block is cut out of the graph

# %% none-warning
import warnings

block = model.blocks[0]
tries = {  # (use_reentrant, does the input require a gradient?)
    "reentrant, plain input": (True, False),
    "reentrant, input.requires_grad_()": (True, True),
    "use_reentrant=False, plain input": (False, False),
}
got = {}
for name, (reentrant, input_grad) in tries.items():
    block.zero_grad()
    head.zero_grad()
    inputs = torch.randn(32, 128).requires_grad_(input_grad)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = checkpoint(block, inputs, use_reentrant=reentrant)
        head(y).sum().backward()
    got[name] = ([f"{w.category.__name__}: {w.message}" for w in caught],
                 block.mlp[0].weight.grad is not None,
                 head.weight.grad is not None)
    print(f"{name}: block trains: {got[name][1]}, head: {got[name][2]}")
    for message in got[name][0]:
        print("   ", message)

# %% none-warning-checks tags=["remove-cell"]
def about_inputs(messages):  # torch 2.4 adds a deprecation of its own
    return [m for m in messages if "torch.cpu.amp.autocast" not in m]


messages, trains, head_trains = got["reentrant, plain input"]
assert about_inputs(messages) == ["UserWarning: None of the inputs have "
                                  "requires_grad=True. Gradients will be None"]
assert not trains and head_trains
for name in ("reentrant, input.requires_grad_()",
             "use_reentrant=False, plain input"):
    messages, trains, head_trains = got[name]
    assert about_inputs(messages) == [] and trains and head_trains, name
# the gradients of the two ways that train are the same
grads = []
for reentrant in (True, False):
    block.zero_grad()
    inputs = x.clone().requires_grad_(reentrant)
    checkpoint(block, inputs, use_reentrant=reentrant).sum().backward()
    grads.append(block.mlp[0].weight.grad.clone())
assert torch.allclose(*grads)
# a checkpointed part with nothing to train: the warning costs nothing
frozen = nn.Linear(128, 128).requires_grad_(False)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out = checkpoint(frozen, x, use_reentrant=True)
assert len(about_inputs([str(w.message) for w in caught])) == 1
assert torch.equal(out, frozen(x))
