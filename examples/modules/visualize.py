# %% [markdown]
# Seeing a model's architecture with torch alone: what print(model) leaves
# out, a tree of submodules with parameter counts, the data flow traced by
# torch.fx and torch.export, and a .pt2 file a viewer such as Netron opens

# %% [markdown] lang="zh"
# 只用 torch 查看网络结构：`print(model)` 漏掉了什么，带参数量的子模块树，
# `torch.fx` 和 `torch.export` 追踪出的数据流，以及 Netron 等查看器能打开的 .pt2 文件

# %% model
import torch
import torch.nn.functional as F
from torch import nn


class Block(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x):
        return F.relu(x + self.conv(x))  # a residual connection


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(1, 8, 3, padding=1)
        self.blocks = nn.Sequential(Block(8), Block(8))
        self.head = nn.Linear(16, 10)
        self.dropout = nn.Dropout(0.2)  # defined, never called in forward

    def forward(self, x):
        x = self.blocks(F.relu(self.stem(x)))
        pooled = torch.cat([x.mean((2, 3)), x.amax((2, 3))], dim=1)
        return self.head(pooled)


model = Net()
print(model)

# %% model-checks tags=["remove-cell"]
import contextlib
import io

text = str(model)
# one line per registered submodule, the unused Dropout included
assert [n for n, _ in model.named_modules()] == [
    "", "stem", "blocks", "blocks.0", "blocks.0.conv", "blocks.1",
    "blocks.1.conv", "head", "dropout",
]
assert "(dropout): Dropout(p=0.2, inplace=False)" in text
# the functional calls and the additions of forward are not in it
for word in ["relu", "cat", "mean", "amax", "+"]:
    assert word not in text.lower(), word
x = torch.randn(2, 1, 8, 8)
assert model(x).shape == (2, 10)
# Dropout is never called: the output is the same in train and eval mode
with torch.no_grad():
    assert torch.equal(model.train()(x), model.eval()(x))
model.train()

# %% tree
def tree(module, name="model", depth=0):
    n = sum(p.numel() for p in module.parameters())
    kind = type(module).__name__
    print(f"{'    ' * depth}{name}: {kind}, {n:,} parameters")
    for child_name, child in module.named_children():
        tree(child, child_name, depth + 1)


tree(model)

# %% tree-checks tags=["remove-cell"]
out = io.StringIO()
with contextlib.redirect_stdout(out):
    tree(model)
lines = out.getvalue().splitlines()
# a line per module, as named_modules() yields them, indented by depth
assert len(lines) == len(list(model.named_modules()))
depths = [(len(s) - len(s.lstrip())) // 4 for s in lines]
assert depths == [n.count(".") + 1 if n else 0
                  for n, _ in model.named_modules()]
# stem 1*8*9+8, each block 8*8*9+8, head 16*10+10
assert sum(p.numel() for p in model.parameters()) == 80 + 2 * 584 + 170
assert lines[0] == "model: Net, 1,418 parameters"
assert lines[2] == "    blocks: Sequential, 1,168 parameters"
assert lines[-1] == "    dropout: Dropout, 0 parameters"
# named_children() yields only the direct children
assert [n for n, _ in model.named_children()] == [
    "stem", "blocks", "head", "dropout"
]

# %% named-modules
for name, module in model.named_modules():
    print(repr(name), type(module).__name__)

# %% named-modules-checks tags=["remove-cell"]
# the dotted names are those of the parameters in the state_dict
param_prefixes = {k.rsplit(".", 1)[0] for k in model.state_dict()}
assert param_prefixes == {"stem", "blocks.0.conv", "blocks.1.conv", "head"}
assert model.get_submodule("blocks.1.conv") is model.blocks[1].conv

# %% fx
from torch.fx import symbolic_trace

traced = symbolic_trace(model)
for node in traced.graph.nodes:
    target = getattr(node.target, "__name__", node.target)
    print(f"{node.op:<14}{target:<14}{node.args}")

# %% fx-checks tags=["remove-cell"]
import operator

nodes = list(traced.graph.nodes)
assert [n.op for n in nodes][0] == "placeholder"
assert [n.op for n in nodes][-1] == "output"
# modules in the order forward calls them; the unused Dropout is absent
assert [n.target for n in nodes if n.op == "call_module"] == [
    "stem", "blocks.0.conv", "blocks.1.conv", "head"
]
functions = [n.target for n in nodes if n.op == "call_function"]
assert functions.count(F.relu) == 3
assert functions.count(operator.add) == 2
assert torch.cat in functions
assert [n.target for n in nodes if n.op == "call_method"] == ["mean", "amax"]
# the residual: each add takes the block's input and its conv's output
adds = [n for n in nodes if n.target is operator.add]
assert adds[0].args[0].target is F.relu and adds[0].args[1].target == (
    "blocks.0.conv")
assert adds[1].args[0].args[0] is adds[0]  # block 1 reads block 0's relu
# the traced module computes what the model computes
with torch.no_grad():
    assert torch.equal(traced(x), model(x))
assert traced.code.lstrip().startswith("def forward(self, x)")
assert "torch.cat(" in traced.code

# %% control-flow raises="torch.fx.proxy.TraceError: symbolically traced variables cannot be used as inputs to control flow"
class Gate(nn.Module):
    def forward(self, x):
        if x.sum() > 0:  # a branch chosen by the values in x
            return x * 2
        return x


symbolic_trace(Gate())

# %% control-flow-checks tags=["remove-cell"]
# torch.export refuses the same branch (quietly: it logs the graph it got)
import logging

logging.disable(logging.CRITICAL)
try:
    with contextlib.redirect_stderr(io.StringIO()), \
            contextlib.redirect_stdout(io.StringIO()):
        torch.export.export(Gate(), (torch.ones(3),))
except Exception:
    pass
else:
    raise AssertionError("torch.export traced a data-dependent branch")
finally:
    logging.disable(logging.NOTSET)

# %% where
class TensorGate(nn.Module):
    def forward(self, x):
        return torch.where(x.sum() > 0, x * 2, x)  # both sides computed


gate = symbolic_trace(TensorGate())
print([getattr(n.target, "__name__", n.target) for n in gate.graph.nodes])

# %% where-checks tags=["remove-cell"]
for y in (torch.ones(3), -torch.ones(3)):
    assert torch.equal(gate(y), Gate()(y))
    assert torch.equal(TensorGate()(y), Gate()(y))
assert torch.where in [n.target for n in gate.graph.nodes]

# %% export
model.eval()
x = torch.randn(1, 1, 8, 8)  # an example input: export runs the model on it
program = torch.export.export(model, (x,))
for node in program.graph.nodes:
    if node.op == "call_function":
        print(node.target)

# %% export-checks tags=["remove-cell"]
ops = [str(n.target) for n in program.graph.nodes if n.op == "call_function"]
assert [op.split(".")[1] for op in ops] == [
    "conv2d", "relu", "conv2d", "add", "relu", "conv2d", "add", "relu",
    "mean", "amax", "cat", "linear",
]
assert all(op.startswith("aten.") for op in ops)
# the parameters are inputs of the graph, not modules
inputs = [n for n in program.graph.nodes if n.op == "placeholder"]
assert len(inputs) == len(list(model.parameters())) + 1
assert "dropout" not in " ".join(n.name for n in program.graph.nodes)
with torch.no_grad():
    assert torch.equal(program.module()(x), model(x))

# %% save
import os

torch.export.save(program, "model.pt2")
print(os.listdir())
loaded = torch.export.load("model.pt2")
with torch.no_grad():
    print(torch.equal(loaded.module()(x), model(x)))

# %% save-checks tags=["remove-cell"]
import zipfile

assert os.listdir() == ["model.pt2"]
assert zipfile.is_zipfile("model.pt2")  # a zip archive
loaded_ops = [str(n.target) for n in loaded.graph.nodes
              if n.op == "call_function"]
assert loaded_ops == ops
